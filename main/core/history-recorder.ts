// Every decision and every rejected attempt becomes one event of the hash chain, committed
// before any answer leaves. Decisions are staged (store.stageEvent) and committed together
// with the others of the same turn of the event loop (group commit, main/store/group-commit.ts):
// the broker awaits `committed(answer)` before returning it. This is the core's only writer of history,
// and it keeps each running task's chain-rule memory (risk.ts), which only allowed events feed.
import type { AgentAnswer } from '../contract/agent';
import type { Grant, HistoryEvent } from '../contract/approver';
import { LIMITS, type DecidedBy, type ProcessInfo, type RemoteInfo, type Risk, type Scope } from '../contract/common';
import { LOCK_BUDGET_MS, type Store } from '../store';
import { egressRemote } from './egress-remote';
import type { NotificationBus } from './notification-bus';
import type { PastEvent } from './past-matches';
import type { EgressRecord, KeyAdded, RejectedAttempt, RejectionRecorder } from './ports';
import { RejectionCoalescer } from './rejection-coalescer';
import type { CoreRequest } from './request';
import { PLACEHOLDER_LEAK_TOOL, remember, type TaskMemory } from './risk';
import { redactTokens } from './task-token';

export type HistoryStore = Pick<Store, 'appendEvent' | 'stageEvent' | 'committed' | 'taskAllowedEvents' | 'taskRecentEvents' | 'getTask'> & { readonly file?: string };

export function capArgs(args: unknown): string | null {
  if (args === undefined) return null;
  let text: string;
  try {
    text = JSON.stringify(args) ?? 'null';
  } catch {
    return JSON.stringify({ unserializable: true });
  }
  if (Buffer.byteLength(text) <= LIMITS.recordedArgsBytes) return text;
  return JSON.stringify({ truncated: true, bytes: Buffer.byteLength(text), head: text.slice(0, LIMITS.recordedArgsBytes / 2) });
}

/** 1536 → "1.5 KiB": sizes in prompts and history summaries. */
export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** One decision to commit: what was asked, how risky, who decided, and why. */
export interface Decision {
  req: CoreRequest;
  risk: Risk;
  decision: 'allow' | 'deny';
  decidedBy: DecidedBy;
  grant: string | null;
  scope: Scope | null;
  reason: string;
  /** Grants with a use count that this allow spends (in the same transaction as the event). */
  consumeGrants?: string[];
  /** A grant the human made from a prompt, created in the same transaction as the event. */
  createGrant?: Grant;
}

/** A task's start or end as history records it (HistoryRecorder.recordTask). */
export interface TaskRow {
  task: string;
  tool: 'task.start' | 'task.end';
  /** Where it came from: api / claude-code (request.sock), or the human side's transport (ui.sock, web, electron). */
  source: string;
  summary: string;
  args: unknown;
  cwd: string | null;
  process?: ProcessInfo;
  remote?: RemoteInfo;
  /** policy: an agent's own start or end (nobody is asked); human: the human side; system: the daemon (a session let go, a remote removed). */
  decidedBy: Extract<DecidedBy, 'policy' | 'human' | 'system'>;
  reason: string;
}

export class HistoryRecorder implements RejectionRecorder {
  /** Chain-rule memory per running task (see risk.ts). */
  private readonly memories = new Map<string, TaskMemory>();
  /** Each answer's commit, by the answer object answer() returned. */
  private readonly commits = new WeakMap<AgentAnswer, Promise<void>>();

  private readonly rejections: RejectionCoalescer;

  /**
   * Told, synchronously, when what a running task did changes its chain rules (it read a
   * secret, wrote a git hook, leaked a placeholder): its prompts still waiting were assessed
   * before that, and the daemon has them assessed again (PromptQueue.reassessTask).
   */
  onTaskMemory?: (task: string, learned: (keyof TaskMemory)[]) => void;

  constructor(
    private readonly store: HistoryStore,
    private readonly bus: NotificationBus,
    private readonly now: () => number = Date.now,
  ) {
    this.rejections = new RejectionCoalescer((p) => this.writeRejected(p), now);
  }

  /** The task's last `limit` events, newest first (for a suggestion's past-match count). */
  recentTaskEvents(task: string, limit: number): PastEvent[] {
    return this.store.taskRecentEvents(task, limit);
  }

  /**
   * Stages the event for the next group commit and returns the answer. The answer must not
   * leave before `committed(answer)` settles (Broker.ask awaits it).
   */
  answer(d: Decision): AgentAnswer {
    const { req } = d;
    // Loaded before this event is staged, so the event itself counts as a change.
    const memory = d.decision === 'allow' && req.task ? this.memoryOf(req.task) : null;
    const ev = this.store.stageEvent(
      {
        ts: this.now(),
        task: req.task,
        source: req.source,
        tool: req.tool,
        action: req.action,
        resource: req.resource,
        resources: req.resources,
        summary: req.summary,
        args: req.argsText,
        cwd: req.cwd,
        process: req.process ?? null,
        ssh: req.ssh ?? null,
        remote: req.remote ?? null,
        risk: d.risk,
        decision: d.decision,
        decidedBy: d.decidedBy,
        grant: d.grant,
        scope: d.scope,
        reason: d.reason,
      },
      { consumeGrants: d.consumeGrants, createGrant: d.createGrant },
    );
    const learned = memory ? remember(memory, req.action, req.resources, undefined, undefined, req.claudeDirs) : [];
    if (learned.length) this.onTaskMemory?.(req.task!, learned);
    const a: AgentAnswer = { decision: d.decision, reason: d.reason, event: ev.id, ...(d.grant ? { grant: d.grant } : {}), ...(req.task ? { task: req.task } : {}) };
    const commit = this.store.committed(ev);
    // Announced only once committed: a watcher must never be told of an event history does
    // not hold (a batch that fails — the database locked past its budget — is never
    // announced, and its ids are reused). Registered before the broker awaits the same
    // promise, so the notification still precedes the answer.
    commit.then(
      () => this.bus.publish({ method: 'event.recorded', params: ev }),
      () => undefined,
    );
    this.commits.set(a, commit);
    return a;
  }

  /**
   * The answer for one whose event could not be committed because another process held the
   * database's lock past LOCK_BUDGET_MS: a deny that says why, `event: 0` (nothing recorded;
   * real events start at 1).
   */
  unrecorded(a: AgentAnswer): AgentAnswer {
    const reason = `the history database stayed locked by another process for ${LOCK_BUDGET_MS} ms; Airlock answers only what it has recorded (close the program holding ${this.store.file ?? 'the database'}, then retry)`;
    return { decision: 'deny', reason, event: 0, ...(a.task ? { task: a.task } : {}) };
  }

  /** Settles once the answer's event is committed; rejects if its batch failed (then the answer must not be given). */
  committed(a: AgentAnswer): Promise<void> {
    return this.commits.get(a) ?? Promise.resolve();
  }

  /** What a task has done so far, for its chain rules (loaded from history on first use). */
  memoryOf(task: string): TaskMemory {
    let m = this.memories.get(task);
    if (!m) {
      m = {};
      for (const e of this.store.taskAllowedEvents(task)) remember(m, e.action, e.resources, e.tool, e.reason);
      this.memories.set(task, m);
    }
    return m;
  }

  /** The task ended: its memory goes (an ended task asks nothing more). */
  forgetTask(task: string): void {
    this.memories.delete(task);
  }

  /**
   * Records an attempt that never reached policy (malformed line, bad params, wrong peer,
   * a connection over a cap). A flood is coalesced (rejection-coalescer.ts): the event id, or
   * 0 when the attempt was counted into its window's row.
   */
  recordRejected(p: RejectedAttempt): number {
    return this.rejections.record(p);
  }

  /** Writes the counted rows of the current window now (the daemon is stopping). */
  flushRejections(): void {
    this.rejections.flush();
  }

  private writeRejected(p: RejectedAttempt): number {
    const ev = this.store.appendEvent({
      ts: this.now(),
      task: p.task && this.store.getTask(p.task) ? p.task : null,
      source: p.source.slice(0, 64),
      tool: p.tool.slice(0, LIMITS.name),
      action: 'other',
      resource: null,
      resources: [],
      summary: p.summary.slice(0, LIMITS.summary),
      args: redactTokens(capArgs(p.raw)),
      cwd: null,
      process: p.process ?? null,
      ssh: null,
      risk: { level: 'low', reasons: [] },
      decision: 'reject',
      decidedBy: 'invalid',
      grant: null,
      scope: null,
      reason: p.reason.slice(0, LIMITS.text),
      remote: p.remote ?? null,
    });
    this.bus.publish({ method: 'event.recorded', params: ev });
    return ev.id;
  }

  /** What went through an allowed connection: one chained event after it ended (never a value of a secret). */
  recordEgress(r: EgressRecord): void {
    const what = r.kind === 'tunnel' ? `tunnel to ${r.host}:${r.port}` : `${r.method} ${r.host}:${r.port}${r.path ?? ''}${r.status !== null ? ` → ${r.status}` : ''}`;
    const summary = `${what} (${r.address}): sent ${bytesText(r.bytesOut)}, received ${bytesText(r.bytesIn)}${r.injected.length ? `; injected ${r.injected.join(', ')}` : ''}${r.error ? `; ${r.error}` : ''}`;
    this.recordEgressEvent({
      task: r.task,
      tool: r.kind === 'tunnel' ? 'net.tunnel' : 'net.request',
      resource: hostPort(r.host, r.port),
      resources: [],
      summary,
      args: { method: r.method, host: r.host, port: r.port, address: r.address, path: r.path, status: r.status, bytesOut: r.bytesOut, bytesIn: r.bytesIn, injected: r.injected, connectEvent: r.connectEvent, ...(r.error ? { error: r.error } : {}) },
      process: r.process,
      risk: { level: 'low', reasons: [] },
      reason: `recorded when the connection ended (allowed in event ${r.connectEvent})`,
    });
  }

  /**
   * An `ssh-add KEY` on agent.sock: not asked (the sender holds the key; each signature with it
   * asks), recorded all the same — agent.sock is every agent's SSH_AUTH_SOCK, so which process
   * put which key into the agent is kept with the rest of what agents did. Public facts only.
   */
  recordKeyAdded(a: KeyAdded): void {
    const name = a.comment ? `'${a.comment.slice(0, 100)}' (${a.fingerprint})` : a.fingerprint;
    const limits = [a.lifetimeSec !== null && a.lifetimeSec > 0 ? `for ${a.lifetimeSec} s` : '', a.confirm ? 'confirm each use' : ''].filter(Boolean).join(', ');
    const ev = this.store.appendEvent({
      ts: this.now(),
      task: null,
      source: 'ssh',
      tool: 'ssh-agent',
      action: 'write',
      resource: 'ssh-agent:add-key',
      resources: ['ssh-agent:add-key'],
      summary: `ssh-add: key ${name} added to the SSH agent, in memory only${limits ? ` (${limits})` : ''}`.slice(0, LIMITS.summary),
      args: capArgs({ operation: 'add-key', key: a.fingerprint, algorithm: a.algorithm, comment: a.comment, lifetimeSec: a.lifetimeSec, confirm: a.confirm }),
      cwd: null,
      process: a.process ?? null,
      ssh: null,
      risk: { level: 'low', reasons: [] },
      decision: 'allow',
      decidedBy: 'policy',
      grant: null,
      scope: null,
      reason: 'adding a key does not ask: the sender already holds it, it lives in memory only, and every signature with it asks',
      remote: null,
    });
    this.bus.publish({ method: 'event.recorded', params: ev });
  }

  /**
   * A task started or ended: one chained row each (tool `task.start` / `task.end`, action
   * `other`), so history says which process began or ended every task, and why it ended,
   * whether or not a grant was involved (core/task-lifecycle.ts builds the row's facts).
   */
  recordTask(row: TaskRow): HistoryEvent {
    const ev = this.store.appendEvent({
      ts: this.now(),
      task: row.task,
      source: row.source.slice(0, 64),
      tool: row.tool,
      action: 'other',
      resource: null,
      resources: [],
      summary: row.summary.slice(0, LIMITS.summary),
      args: redactTokens(capArgs(row.args)),
      cwd: row.cwd,
      process: row.process ?? null,
      ssh: null,
      risk: { level: 'low', reasons: [] },
      decision: 'allow',
      decidedBy: row.decidedBy,
      grant: null,
      scope: null,
      reason: row.reason.slice(0, LIMITS.text),
      remote: row.remote ?? null,
    });
    this.bus.publish({ method: 'event.recorded', params: ev });
    return ev;
  }

  /** A placeholder sent where its secret does not belong: left as is, recorded critical, and the task's risk is critical from now on. */
  recordPlaceholderLeak(p: { task: string; secret: string; host: string; port: number; where: string; process?: CoreRequest['process'] }): void {
    const resource = hostPort(p.host, p.port);
    const reason = `the placeholder for ${p.secret} was sent to ${p.host} (${p.where}); it was left as is`;
    const memory = this.memoryOf(p.task);
    this.recordEgressEvent({
      task: p.task,
      tool: PLACEHOLDER_LEAK_TOOL,
      resource,
      resources: [resource],
      summary: reason,
      args: { secret: p.secret, host: p.host, port: p.port, where: p.where },
      process: p.process,
      risk: { level: 'critical', reasons: [reason] },
      reason,
    });
    const learned = remember(memory, 'transfer', [resource], PLACEHOLDER_LEAK_TOOL, reason);
    if (learned.length) this.onTaskMemory?.(p.task, learned);
  }

  /**
   * One chained event the egress proxy reports (allowed by the system, after the fact); a task
   * that is gone is recorded as none. A task started through a remote marks it with the remote,
   * as its connection's prompt was (egress-remote.ts).
   */
  private recordEgressEvent(e: { task: string; tool: string; resource: string; resources: string[]; summary: string; args: unknown; process?: CoreRequest['process']; risk: Risk; reason: string }): void {
    const task = this.store.getTask(e.task);
    const ev = this.store.appendEvent({
      ts: this.now(),
      task: task ? e.task : null,
      source: 'egress',
      tool: e.tool,
      action: 'transfer',
      resource: e.resource,
      resources: e.resources,
      summary: e.summary.slice(0, LIMITS.summary),
      args: capArgs(e.args),
      cwd: null,
      process: e.process ?? null,
      ssh: null,
      risk: e.risk,
      decision: 'allow',
      decidedBy: 'system',
      grant: null,
      scope: null,
      reason: e.reason,
      remote: task?.remote ? egressRemote(task.id, task.remote) : null,
    });
    this.bus.publish({ method: 'event.recorded', params: ev });
  }
}

/** `host:port`, an IPv6 address in brackets. */
function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
