// The core's parts wired the way api/daemon.ts wires them, over a real SQLite store in a
// scratch directory, with a hand-driven clock and timer: no daemon, no sockets.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Settings } from '../../main/contract/approver';
import { Broker } from '../../main/core/broker';
import { HistoryRecorder } from '../../main/core/history-recorder';
import { NotificationBus } from '../../main/core/notification-bus';
import type { CommandClassifier, PathResolver } from '../../main/core/ports';
import { PromptQueue, type Schedule } from '../../main/core/prompt-queue';
import { RequestPolicy, denyingGrantOf } from '../../main/core/request-policy';
import { SettingsService } from '../../main/core/settings-service';
import { TaskLifecycle, type TaskResources } from '../../main/core/task-lifecycle';
import { TasksAndGrants } from '../../main/core/tasks-and-grants';
import { Store } from '../../main/store';
import type { ApproverNotification } from '../../main/contract/approver';

export const T0 = 1_800_000_000_000;

/** Timers the test fires by hand (`fire()` runs every one still scheduled). */
export class ManualTimers {
  readonly scheduled: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  schedule: Schedule = (fn, ms) => {
    const t = { fn, ms, cancelled: false };
    this.scheduled.push(t);
    return () => {
      t.cancelled = true;
    };
  };
  live(): number {
    return this.scheduled.filter((t) => !t.cancelled).length;
  }
  fire(): void {
    for (const t of this.scheduled.splice(0)) if (!t.cancelled) t.fn();
  }
}

export interface Parts {
  dir: string;
  store: Store;
  clock: { now: number };
  timers: ManualTimers;
  bus: NotificationBus;
  notes: ApproverNotification[];
  settings: SettingsService;
  recorder: HistoryRecorder;
  tasks: TasksAndGrants;
  policy: RequestPolicy;
  queue: PromptQueue;
  broker: Broker;
  lifecycle: TaskLifecycle;
  close(): void;
}

export function makeParts(opts: { settings?: Partial<Settings>; classifier?: CommandClassifier; realPaths?: PathResolver; resources?: TaskResources } = {}): Parts {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-core-'));
  const store = new Store(path.join(dir, 'airlock.db'));
  const clock = { now: T0 };
  const now = () => clock.now;
  const timers = new ManualTimers();
  const bus = new NotificationBus();
  const notes: ApproverNotification[] = [];
  bus.subscribe((n) => notes.push(n));
  const settings = new SettingsService(store);
  if (opts.settings) settings.update(opts.settings);
  const recorder = new HistoryRecorder(store, bus, now);
  const tasks = new TasksAndGrants(store, bus, now);
  const policy = new RequestPolicy(
    { settings: () => settings.settings, liveTask: (id) => tasks.liveTask(id), namesakes: (id) => tasks.namesakes(id), authorizeTask: (p) => tasks.authorizeTask(p), mcpTool: (s, t) => tasks.mcpTool(s, t), activeGrants: () => tasks.activeGrants(), memoryOf: (t) => recorder.memoryOf(t) },
    { classifier: opts.classifier, realPaths: opts.realPaths, now },
  );
  const queue = new PromptQueue({ recorder, grants: tasks, settings: () => settings.settings, bus, now, schedule: timers.schedule, riskOf: (r) => policy.riskOf(r), denyingGrant: (r) => denyingGrantOf(policy, r) });
  recorder.onTaskMemory = (task) => queue.reassessTask(task);
  tasks.onGrantCreated = (g) => g.effect === 'deny' && queue.applyDenyGrants();
  const broker = new Broker({ policy, queue, recorder, grants: tasks, now });
  const lifecycle = new TaskLifecycle(tasks, queue, recorder, bus, opts.resources ?? {}, now);
  return {
    dir, store, clock, timers, bus, notes, settings, recorder, tasks, policy, queue, broker, lifecycle,
    close() {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Lets promise callbacks run (a waiter resolved by decide/timeout settles on the next turn). */
export const tick = () => new Promise<void>((r) => setImmediate(r));
