// The ApproverService, implemented once over the core's parts. Adapters (ui.sock, web
// socket, Electron IPC) validate params with the contract's schemas and call these
// handlers; they add nothing of their own.
import type { ApproverHandlers, ApproverNotification, Settings } from '../contract/approver';
import { RPC, RpcError } from '../contract/rpc';
import type { Store } from '../store';
import type { NotificationBus } from './notification-bus';
import type { ProcessInfo } from '../contract/common';
import type { KeyService, NotificationSource, RemoteSocketService, SecretService, TaskActor, TaskStarter } from './ports';
import type { PromptQueue } from './prompt-queue';
import type { SettingsService } from './settings-service';
import { withConditionWords, type TasksAndGrants } from './tasks-and-grants';

/** What the human side reads from history and the remotes list (writes to history go through the HistoryRecorder). */
export type HistoryReader = Pick<Store, 'queryHistory' | 'historyFilterProblem' | 'verifyChain' | 'verifyChainAsync' | 'chainHead' | 'egressDestinations' | 'listRemotes' | 'addRemote' | 'removeRemote' | 'flush'>;

/** The core parts the ApproverService is made of. */
export interface ApproverParts {
  queue: Pick<PromptQueue, 'list' | 'decide' | 'denyRemote'>;
  tasks: Pick<TasksAndGrants, 'listGrants' | 'createGrant' | 'revokeGrant' | 'listTasks' | 'getTask'>;
  lifecycle: TaskStarter;
  settings: SettingsService;
  bus: NotificationBus;
  history: HistoryReader;
}

export type { ApproverHandlers };

function noKeys(): never {
  throw new RpcError(RPC.unavailable, 'the SSH agent is not running in this process, so keys cannot be managed here');
}

export interface ApproverHooks {
  /**
   * Why settings the schema accepts still cannot be applied here (the upstream agent is
   * Airlock's own socket), or null. Asked before anything is kept: a refused patch changes
   * nothing, in memory or on disk.
   */
  settingsProblem?(next: Settings, before: Settings): string | null;
  /** Lets the daemon apply settings that live outside the broker (the upstream agent). */
  onSettingsChanged?(next: Settings, before: Settings): void;
  /** Secrets for the egress proxy (absent: this process runs no egress proxy). */
  secrets?: SecretService;
  /** The remotes' request sockets (airlock remote); absent where the daemon serves no sockets. */
  remotes?: RemoteSocketService;
}

function noSecrets(): never {
  throw new RpcError(RPC.unavailable, 'the egress proxy is not running in this process, so secrets cannot be managed here');
}

function noRemotes(): never {
  throw new RpcError(RPC.unavailable, 'this process serves no remote sockets (run `airlock serve` or the tray app)');
}

/**
 * Who calls the human side, for the history rows of the tasks it starts and ends: the
 * transport (`ui.sock`, `web`, `electron`) and, on ui.sock, the peer process. A same-user
 * process can reach ui.sock, so which one ended a task is worth keeping.
 */
export interface HumanCaller {
  transport: string;
  process?: ProcessInfo;
}

/** The handlers, plus the same handlers for one caller (ui.sock builds them per connection). */
export type ApproverServiceHandlers = ApproverHandlers & NotificationSource & { forCaller(caller: HumanCaller): ApproverServiceHandlers };

export function createApproverHandlers(parts: ApproverParts, keys?: KeyService, hooks: ApproverHooks = {}, caller: HumanCaller = { transport: 'the human side' }): ApproverServiceHandlers {
  const { queue, tasks, lifecycle, settings, bus, history: store } = parts;
  const human: TaskActor = { side: 'human', source: caller.transport, via: caller.transport, ...(caller.process ? { process: caller.process } : {}) };
  return {
    forCaller: (c) => createApproverHandlers(parts, keys, hooks, c),
    subscribe: (listener: (n: ApproverNotification) => void) => bus.subscribe(listener),
    'pending.list': async () => ({ prompts: queue.list() }),
    'pending.decide': async (p) => {
      const r = queue.decide(p);
      // The human is told "done" only once the decision (and any grant it made) is committed.
      store.flush();
      return r;
    },
    'grants.list': async (p) => ({ grants: tasks.listGrants(p) }),
    'grants.create': async (p) => {
      // A grant that has already expired would be listed but never match: a mistake to say, not to store.
      if (p.expiresAt !== undefined && p.expiresAt <= Date.now()) {
        throw new RpcError(RPC.invalidParams, `invalid params: expiresAt: ${new Date(p.expiresAt).toISOString()} is in the past; give a time to come (or leave it out for no expiry)`);
      }
      // An allow for a remote that does not exist (a typo, or one removed) would wait for any
      // server later added under that name, which starts with no grants (remotes.remove): refuse
      // it. A deny may name one ahead of time: it only ever refuses.
      if (p.remote && p.effect === 'allow' && !store.listRemotes().some((r) => r.name === p.remote)) {
        throw new RpcError(RPC.notFound, `no remote ${p.remote}: add it first (airlock remote add ${p.remote} USER@HOST); airlock remote list shows the remotes`);
      }
      return { grant: withConditionWords(tasks.createGrant(p, 'human')) };
    },
    'grants.revoke': async (p) => {
      tasks.revokeGrant(p.id);
      return {};
    },
    'tasks.list': async (p) => ({ tasks: tasks.listTasks(p.includeEnded ?? false) }),
    'tasks.start': async (p) => lifecycle.startTask(p, {}, human),
    'tasks.end': async (p) => {
      // A second end (or one of a task that ended by itself) changed nothing: say so, as for an
      // unknown id (-32004), rather than "ended" for what was already over.
      if (!(await lifecycle.endTask(p.task, { why: 'ended', by: human }))) {
        const t = tasks.getTask(p.task);
        throw new RpcError(RPC.notFound, `task ${p.task} had already ended${t?.endedAt ? ` at ${new Date(t.endedAt).toISOString()}` : ''}; nothing changed (airlock task list shows the running tasks)`);
      }
      return {};
    },
    'history.query': async (p) => {
      const problem = store.historyFilterProblem(p);
      if (problem) throw new RpcError(RPC.invalidParams, `invalid params: ${problem}`);
      return store.queryHistory(p);
    },
    'keys.list': async () => ({ keys: keys ? await keys.list() : [] }),
    'keys.import': async (p) => ({ key: await (keys ?? noKeys()).import(p) }),
    'keys.generate': async (p) => ({ key: await (keys ?? noKeys()).generate(p) }),
    'keys.remove': async (p) => {
      await (keys ?? noKeys()).remove(p.fingerprint);
      return {};
    },
    'remotes.list': async () => ({
      remotes: hooks.remotes ? store.listRemotes().map((r) => ({ ...r, socket: hooks.remotes!.socketPathOf(r.name) })) : [],
    }),
    'remotes.add': async (p) => {
      const sockets = hooks.remotes ?? noRemotes();
      // "Build" beside "build" would read as the same remote in a prompt (and is the same
      // directory on a case-insensitive file system): one spelling per name.
      const twin = store.listRemotes().find((r) => r.name !== p.name && r.name.toLowerCase() === p.name.toLowerCase());
      if (twin) throw new RpcError(RPC.invalidParams, `invalid params: name: remote "${twin.name}" exists and differs only in case; use another name, or "${twin.name}" itself`);
      const socket = await sockets.open(p.name);
      const r = store.addRemote(p.name, Date.now());
      return { remote: { ...r, socket } };
    },
    'remotes.remove': async (p) => {
      const sockets = hooks.remotes ?? noRemotes();
      if (!store.removeRemote(p.name)) throw new RpcError(RPC.notFound, `no remote ${p.name}`);
      await sockets.close(p.name);
      // Its prompts still open are denied, whatever they came through: closing its socket
      // answers those of its request socket; those of its forwarded agent (agent.sock, held
      // by the ssh session still open) are answered here.
      queue.denyRemote(p.name);
      // Its allow grants go with it: a remote added again under this name (perhaps another
      // server) starts with none, as a new task does. Its deny grants stay: they only ever refuse.
      for (const g of tasks.listGrants({})) if (g.remote === p.name && g.effect === 'allow') tasks.revokeGrant(g.id);
      // Its tasks end too: nothing can reach them any more, and a remote added again under
      // this name must not be able to end (or keep using) the old one's tasks.
      for (const t of tasks.listTasks(false)) if (t.remote === p.name) await lifecycle.endTask(t.id, { why: 'remote-removed', by: human, remote: p.name });
      return {};
    },
    'audit.verify': async (p) => store.verifyChainAsync({ anchors: p.anchors }),
    'audit.head': async () => store.chainHead(),
    'secrets.list': async () => ({ secrets: hooks.secrets ? hooks.secrets.list() : [] }),
    'secrets.add': async (p) => {
      const secret = (hooks.secrets ?? noSecrets()).add(p);
      bus.publish({ method: 'secrets.changed', params: {} });
      return { secret };
    },
    'secrets.remove': async (p) => {
      (hooks.secrets ?? noSecrets()).remove(p.name);
      bus.publish({ method: 'secrets.changed', params: {} });
      return {};
    },
    'tasks.destinations': async (p) => ({ destinations: store.egressDestinations(p.task) }),
    'settings.get': async () => ({ settings: settings.settings }),
    'settings.set': async (p) => {
      const before = settings.settings;
      const problem = hooks.settingsProblem?.(settings.preview(p), before);
      if (problem) throw new RpcError(RPC.invalidParams, `invalid params: ${problem}`);
      const next = settings.update(p);
      hooks.onSettingsChanged?.(next, before);
      return { settings: next };
    },
  };
}
