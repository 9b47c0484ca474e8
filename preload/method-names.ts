// The contract's method names, without the contract's runtime: importing the method table
// would bundle zod (~750 KB) into every window's preload, slowing each pop-up's start.
// `satisfies Record<ApproverMethod, true>` makes tsc fail on a missing or an extra name,
// and test/unit/preload-bridge.test.ts checks the list against the table at runtime.
import type { ApproverMethod } from '../main/contract/approver';

const NAMES = {
  'pending.list': true,
  'pending.decide': true,
  'grants.list': true,
  'grants.create': true,
  'grants.revoke': true,
  'tasks.list': true,
  'tasks.start': true,
  'tasks.end': true,
  'history.query': true,
  'keys.list': true,
  'keys.import': true,
  'keys.generate': true,
  'keys.remove': true,
  'remotes.list': true,
  'remotes.add': true,
  'remotes.remove': true,
  'audit.verify': true,
  'secrets.list': true,
  'secrets.add': true,
  'secrets.remove': true,
  'tasks.destinations': true,
  'settings.get': true,
  'settings.set': true,
} as const satisfies Record<ApproverMethod, true>;

export const APPROVER_METHOD_NAMES = Object.keys(NAMES) as ApproverMethod[];
