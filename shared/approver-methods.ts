// The ApproverService's method names, the one list outside the contract's table. The
// preload and the renderer build their bridges from it without loading the contract's
// runtime (zod, ~750 KB in every pop-up). main/contract/approver.ts declares its table
// `satisfies Record<ApproverMethodName, …>`, so tsc fails when the table and this list
// differ by a single name, either way.
export const APPROVER_METHOD_NAMES = [
  'pending.list',
  'pending.decide',
  'grants.list',
  'grants.create',
  'grants.revoke',
  'tasks.list',
  'tasks.start',
  'tasks.end',
  'history.query',
  'keys.list',
  'keys.import',
  'keys.generate',
  'keys.remove',
  'remotes.list',
  'remotes.add',
  'remotes.remove',
  'audit.verify',
  'audit.head',
  'secrets.list',
  'secrets.add',
  'secrets.remove',
  'tasks.destinations',
  'settings.get',
  'settings.set',
] as const;

export type ApproverMethodName = (typeof APPROVER_METHOD_NAMES)[number];
