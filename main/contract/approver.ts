// The human side: ApproverService. ui.sock, the web socket and Electron IPC are thin
// adapters over this one table; the preload exposes exactly these methods.
import { z } from 'zod';
import {
  Action,
  DecidedBy,
  Decision,
  Id,
  LIMITS,
  Outcome,
  PolicyChoice,
  ProcessInfo,
  Risk,
  Scope,
  Source,
  SshInfo,
  Timestamp,
} from './common';
import { GrantSpec, TaskStartParams, TaskStartResult } from './agent';

export const Grant = z.object({
  id: z.string(),
  task: z.string().nullable(),
  source: z.string(),
  tool: z.string(),
  action: z.union([Action, z.literal('*')]),
  resource: z.string(),
  key: z.string().nullable(),
  effect: z.enum(['allow', 'deny']),
  expiresAt: z.number().nullable(),
  usesLeft: z.number().nullable(),
  forwarded: z.boolean(),
  note: z.string().nullable(),
  createdAt: z.number(),
  createdBy: z.string(),
  revokedAt: z.number().nullable(),
  lastUsedAt: z.number().nullable(),
});
export type Grant = z.infer<typeof Grant>;

export const Task = z.object({
  id: z.string(),
  name: z.string(),
  cwd: z.string().nullable(),
  createdAt: z.number(),
  endedAt: z.number().nullable(),
  sshAuthSock: z.string().nullable(),
});
export type Task = z.infer<typeof Task>;

/** A suggested grant pattern for "allow for this task" (prompt economy). */
export const Suggestion = z.object({
  tool: z.string(),
  resource: z.string(),
  label: z.string(),
});

export const Prompt = z.object({
  id: z.string(),
  task: z.string().nullable(),
  taskName: z.string().nullable(),
  source: Source,
  tool: z.string(),
  action: Action,
  resource: z.string().nullable(),
  resources: z.array(z.string()),
  summary: z.string(),
  args: z.unknown(),
  cwd: z.string().nullable(),
  risk: Risk,
  process: ProcessInfo.optional(),
  ssh: SshInfo.optional(),
  suggestion: Suggestion.optional(),
  /** Why no grant matched when one came close. */
  nearMiss: z.string().optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
});
export type Prompt = z.infer<typeof Prompt>;

export const HistoryEvent = z.object({
  id: z.number().int(),
  ts: z.number(),
  task: z.string().nullable(),
  source: z.string(),
  tool: z.string(),
  action: z.string(),
  resource: z.string().nullable(),
  resources: z.array(z.string()),
  summary: z.string(),
  args: z.unknown(),
  cwd: z.string().nullable(),
  process: ProcessInfo.nullable(),
  ssh: SshInfo.nullable(),
  risk: Risk,
  decision: Outcome,
  decidedBy: DecidedBy,
  grant: z.string().nullable(),
  scope: Scope.nullable(),
  reason: z.string(),
  hash: z.string(),
});
export type HistoryEvent = z.infer<typeof HistoryEvent>;

export const HistoryQuery = z.strictObject({
  task: Id.optional(),
  source: z.string().max(64).optional(),
  action: z.string().max(64).optional(),
  decision: Outcome.optional(),
  text: z.string().max(LIMITS.text).optional(),
  since: Timestamp.optional(),
  until: Timestamp.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  /** Opaque: the `cursor` of the previous page (digits; anything else is refused as invalid params, not an internal error). */
  cursor: z.string().max(64).regex(/^\d*$/, 'not a cursor returned by history.query').nullable().optional(),
});
export type HistoryQuery = z.infer<typeof HistoryQuery>;

export const Key = z.object({
  fingerprint: z.string(),
  type: z.string(),
  name: z.string(),
  comment: z.string(),
  publicKey: z.string(),
  origin: z.enum(['airlock', 'ssh-add', 'upstream']),
  confirm: z.boolean(),
  expiresAt: z.number().nullable(),
  createdAt: z.number(),
  lastUsedAt: z.number().nullable(),
});
export type Key = z.infer<typeof Key>;

export const Settings = z.object({
  promptTimeoutSec: z.number().int().min(1).max(3600),
  policy: z.record(Action, PolicyChoice),
  upstreamAgent: z.string().max(LIMITS.text).nullable(),
  notifications: z.boolean(),
  startAtLogin: z.boolean(),
  /** MCP annotations are the server's claim; the human can pin a tool's action here. */
  mcpToolActions: z.record(z.string().max(LIMITS.name), Action),
  /** Most prompts one task may have waiting at once; the excess is rejected (flood control). */
  maxPendingPerTask: z.number().int().min(1).max(1000),
});
export type Settings = z.infer<typeof Settings>;
export const SettingsPatch = z.strictObject({
  promptTimeoutSec: Settings.shape.promptTimeoutSec.optional(),
  policy: z.partialRecord(Action, PolicyChoice).optional(),
  upstreamAgent: Settings.shape.upstreamAgent.optional(),
  notifications: z.boolean().optional(),
  startAtLogin: z.boolean().optional(),
  mcpToolActions: Settings.shape.mcpToolActions.optional(),
  maxPendingPerTask: Settings.shape.maxPendingPerTask.optional(),
});
export type SettingsPatch = z.infer<typeof SettingsPatch>;

export const DecideParams = z.strictObject({
  id: z.string().max(64),
  decision: Decision,
  scope: Scope,
  durationSec: z.number().int().min(1).max(365 * 24 * 3600).optional(),
  pattern: z
    .strictObject({ tool: z.string().min(1).max(LIMITS.text).optional(), resource: z.string().min(1).max(LIMITS.text).optional() })
    .optional(),
});
export type DecideParams = z.infer<typeof DecideParams>;

export const AuditResult = z.object({
  ok: z.boolean(),
  count: z.number().int(),
  firstBad: z.object({ id: z.number().int(), reason: z.string() }).optional(),
});
export type AuditResult = z.infer<typeof AuditResult>;

const Empty = z.strictObject({});
const Nothing = z.object({});

export const approverMethods = {
  'pending.list': { params: Empty, result: z.object({ prompts: z.array(Prompt) }) },
  'pending.decide': { params: DecideParams, result: z.object({ grant: Grant.optional() }) },
  'grants.list': {
    params: z.strictObject({ task: Id.optional(), includeInactive: z.boolean().optional() }),
    result: z.object({ grants: z.array(Grant) }),
  },
  'grants.create': { params: GrantSpec, result: z.object({ grant: Grant }) },
  'grants.revoke': { params: z.strictObject({ id: z.string().max(64) }), result: Nothing },
  'tasks.list': {
    params: z.strictObject({ includeEnded: z.boolean().optional() }),
    result: z.object({ tasks: z.array(Task) }),
  },
  'tasks.start': { params: TaskStartParams, result: TaskStartResult },
  'tasks.end': { params: z.strictObject({ task: Id }), result: Nothing },
  'history.query': {
    params: HistoryQuery,
    result: z.object({ events: z.array(HistoryEvent), cursor: z.string().nullable() }),
  },
  'keys.list': { params: Empty, result: z.object({ keys: z.array(Key) }) },
  'keys.import': {
    params: z
      .strictObject({
        path: z.string().max(LIMITS.text).optional(),
        pem: z.string().max(64 * 1024).optional(),
        passphrase: z.string().max(1024).optional(),
        name: z.string().max(LIMITS.name).optional(),
      })
      .refine((p) => (p.path === undefined) !== (p.pem === undefined), 'give exactly one of path or pem'),
    result: z.object({ key: Key }),
  },
  'keys.generate': {
    params: z.strictObject({
      type: z.enum(['ed25519', 'ecdsa-p256', 'ecdsa-p384', 'ecdsa-p521', 'rsa-3072', 'rsa-4096']),
      name: z.string().min(1).max(LIMITS.name),
    }),
    result: z.object({ key: Key }),
  },
  'keys.remove': { params: z.strictObject({ fingerprint: z.string().max(256) }), result: Nothing },
  'audit.verify': { params: Empty, result: AuditResult },
  'settings.get': { params: Empty, result: z.object({ settings: Settings }) },
  'settings.set': { params: SettingsPatch, result: z.object({ settings: Settings }) },
} as const;
export type ApproverMethods = typeof approverMethods;
export type ApproverMethod = keyof ApproverMethods;

/** Push notifications of `subscribe` (ui.sock), the web socket and IPC. */
export const approverNotifications = {
  'pending.added': Prompt,
  'pending.resolved': z.object({ id: z.string(), decision: Decision, reason: z.string(), event: z.number().int() }),
  'event.recorded': HistoryEvent,
  'grants.changed': z.object({}),
  'tasks.changed': z.object({}),
  'keys.changed': z.object({}),
} as const;
export type ApproverNotifications = typeof approverNotifications;
export type ApproverNotification = {
  [K in keyof ApproverNotifications]: { method: K; params: z.infer<ApproverNotifications[K]> };
}[keyof ApproverNotifications];

/** The service every human-side adapter exposes: one async function per method. */
export type ApproverService = {
  [K in ApproverMethod]: (
    params: z.input<ApproverMethods[K]['params']>,
  ) => Promise<z.infer<ApproverMethods[K]['result']>>;
};

/** Decided-by vocabulary, re-exported for renderers that import only this module's types. */
export type { DecidedBy, Outcome };
