// The ApproverService, implemented once over the broker and the store. Adapters
// (ui.sock, web socket, Electron IPC) validate params with the contract's schemas and
// call these handlers; they add nothing of their own.
import type { z } from 'zod';
import type { ApproverMethods, ApproverNotification, Settings } from '../contract/approver';
import { RPC, RpcError } from '../contract/rpc';
import type { Broker } from './broker';
import type { KeyService, NotificationSource } from './ports';

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
}

export function createApproverHandlers(broker: Broker, keys?: KeyService, hooks: ApproverHooks = {}): ApproverHandlers & NotificationSource {
  const store = broker.store;
  return {
    subscribe: (listener: (n: ApproverNotification) => void) => broker.subscribe(listener),
    'pending.list': async () => ({ prompts: broker.listPending() }),
    'pending.decide': async (p) => broker.decide(p),
    'grants.list': async (p) => ({ grants: store.listGrants({ task: p.task, includeInactive: p.includeInactive, now: Date.now() }) }),
    'grants.create': async (p) => ({ grant: broker.createGrant(p, 'human') }),
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
    'audit.verify': async () => store.verifyChain(),
    'settings.get': async () => ({ settings: broker.settings }),
    'settings.set': async (p) => {
      const before = broker.settings;
      const settings = broker.updateSettings(p);
      hooks.onSettingsChanged?.(settings, before);
      return { settings };
    },
  };
}
