// The ApproverService, implemented once over the broker and the store. Adapters
// (ui.sock, web socket, Electron IPC) validate params with the contract's schemas and
// call these handlers; they add nothing of their own.
import { withConditionWords } from './broker';
import type { z } from 'zod';
import type { ApproverMethods, ApproverNotification, Settings } from '../contract/approver';
import { RPC, RpcError } from '../contract/rpc';
import type { Broker } from './broker';
import type { KeyService, NotificationSource, RemoteSocketService, SecretService } from './ports';

export type ApproverHandlers = {
  [K in keyof ApproverMethods]: (
    params: z.infer<ApproverMethods[K]['params']>,
  ) => Promise<z.input<ApproverMethods[K]['result']>>;
};

function noKeys(): never {
  throw new RpcError(RPC.unavailable, 'the SSH agent is not running in this process, so keys cannot be managed here');
}

export interface ApproverHooks {
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

export function createApproverHandlers(broker: Broker, keys?: KeyService, hooks: ApproverHooks = {}): ApproverHandlers & NotificationSource {
  const store = broker.store;
  return {
    subscribe: (listener: (n: ApproverNotification) => void) => broker.subscribe(listener),
    'pending.list': async () => ({ prompts: broker.listPending() }),
    'pending.decide': async (p) => {
      const r = broker.decide(p);
      // The human is told "done" only once the decision (and any grant it made) is committed.
      store.flush();
      return r;
    },
    'grants.list': async (p) => ({ grants: store.listGrants({ task: p.task, includeInactive: p.includeInactive, now: Date.now() }).map(withConditionWords) }),
    'grants.create': async (p) => ({ grant: withConditionWords(broker.createGrant(p, 'human')) }),
    'grants.revoke': async (p) => {
      broker.revokeGrant(p.id);
      return {};
    },
    'tasks.list': async (p) => ({ tasks: store.listTasks(p.includeEnded ?? false) }),
    'tasks.start': async (p) => broker.startTask(p, {}),
    'tasks.end': async (p) => {
      await broker.endTask(p.task);
      return {};
    },
    'history.query': async (p) => store.queryHistory(p),
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
      const socket = await sockets.open(p.name);
      const r = store.addRemote(p.name, Date.now());
      return { remote: { ...r, socket } };
    },
    'remotes.remove': async (p) => {
      const sockets = hooks.remotes ?? noRemotes();
      if (!store.removeRemote(p.name)) throw new RpcError(RPC.notFound, `no remote ${p.name}`);
      await sockets.close(p.name);
      return {};
    },
    'audit.verify': async () => store.verifyChain(),
    'secrets.list': async () => ({ secrets: hooks.secrets ? hooks.secrets.list() : [] }),
    'secrets.add': async (p) => {
      const secret = (hooks.secrets ?? noSecrets()).add(p);
      broker.publish({ method: 'secrets.changed', params: {} });
      return { secret };
    },
    'secrets.remove': async (p) => {
      (hooks.secrets ?? noSecrets()).remove(p.name);
      broker.publish({ method: 'secrets.changed', params: {} });
      return {};
    },
    'tasks.destinations': async (p) => ({ destinations: store.egressDestinations(p.task) }),
    'settings.get': async () => ({ settings: broker.settings }),
    'settings.set': async (p) => {
      const before = broker.settings;
      const settings = broker.updateSettings(p);
      hooks.onSettingsChanged?.(settings, before);
      return { settings };
    },
  };
}
