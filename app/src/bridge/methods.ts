// The contract's method names, listed here because app/ may not import runtime code from
// main/ or preload/. `satisfies Record<ApproverMethod, true>` makes tsc fail when the
// contract gains or loses a method, so this list cannot drift.
import type { AirlockMethodName } from '../../../preload/types';

const METHOD_SET = {
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
} as const satisfies Record<AirlockMethodName, true>;

export const METHOD_NAMES = Object.keys(METHOD_SET) as AirlockMethodName[];
