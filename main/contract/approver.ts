// The human side: ApproverService. ui.sock, the web socket and Electron IPC are thin
// adapters over this one table; the preload exposes exactly these methods.
// Over 400 lines on purpose: it is the whole human-side vocabulary (every shape a UI shows
// and the method table over them) in one place, so the contract is read and reviewed as one.
import type { ApproverMethodName } from '../../shared/approver-methods';
import { z } from 'zod';
import type { ServiceClient, ServiceHandlers } from './rpc';
import {
  Action,
  DecidedBy,
  Decision,
  Id,
  LIMITS,
  Outcome,
  PolicyChoice,
  ProcessInfo,
  RemoteInfo,
  RemoteName,
  Risk,
  SECRET_NAME,
  Scope,
  Source,
  SshInfo,
  Timestamp,
} from './common';
import { GrantAction, GrantCondition, GrantSpec, TaskStartParams, TaskStartResult } from './agent';

export const Grant = z.object({
  id: z.string(),
  task: z.string().nullable(),
  source: z.string(),
  tool: z.string(),
  action: GrantAction,
  resource: z.string(),
  key: z.string().nullable(),
  effect: z.enum(['allow', 'deny']),
  expiresAt: z.number().nullable(),
  usesLeft: z.number().nullable(),
  forwarded: z.boolean(),
  /** Matches requests from this remote only; null (or absent): local requests only. */
  remote: z.string().nullable().optional(),
  note: z.string().nullable(),
  createdAt: z.number(),
  createdBy: z.string(),
  revokedAt: z.number().nullable(),
  lastUsedAt: z.number().nullable(),
  /** Condition over the request's arguments (CEL); absent or null: none. */
  when: z.string().nullable().optional(),
  /** The condition in words (filled in by the daemon for the UIs). */
  whenText: z.string().optional(),
});
export type Grant = z.infer<typeof Grant>;

export const Task = z.object({
  id: z.string(),
  name: z.string(),
  cwd: z.string().nullable(),
  createdAt: z.number(),
  endedAt: z.number().nullable(),
  sshAuthSock: z.string().nullable(),
  /** Where it was started: null on this machine, else the remote (`airlock remote`) whose socket task.start came through. */
  remote: z.string().nullable(),
});
export type Task = z.infer<typeof Task>;

/** A suggested grant pattern for "allow for this task" (prompt economy). */
export const Suggestion = z.object({
  tool: z.string(),
  resource: z.string(),
  label: z.string(),
  /** How many of this task's last `of` events the pattern would have matched (core/past-matches.ts). */
  pastMatches: z.object({ matched: z.number().int(), of: z.number().int() }).optional(),
});

/**
 * One grant a task asks for in `task.start`, as the human sees it: every field, with marks.
 * `needsConfirmation`: an allow of a high-impact action on any resource (or of any action)
 * is created only when the decision names its `index` in `confirmGrants`.
 */
export const PromptGrant = z.object({
  index: z.number().int(),
  effect: z.enum(['allow', 'deny']),
  action: GrantAction,
  source: z.string(),
  tool: z.string(),
  resource: z.string(),
  key: z.string().nullable(),
  expiresAt: z.number().nullable(),
  uses: z.number().nullable(),
  forwarded: z.boolean(),
  note: z.string().nullable(),
  /** The grant's condition (CEL over `args`), as asked. */
  when: z.string().nullable(),
  /** The tool or resource is left out or holds a wildcard, or the action is `*`. */
  wildcard: z.boolean(),
  /** write, delete, transfer, execute, sign, or `*`. */
  highImpact: z.boolean(),
  needsConfirmation: z.boolean(),
});
export type PromptGrant = z.infer<typeof PromptGrant>;
/** Where an egress request goes and what its task sent so far (source `egress`). */
export const EgressInfo = z.object({
  host: z.string(),
  port: z.number().int(),
  /** Known before the decision only without a DNS query (IP literal, /etc/hosts); else resolved once allowed. */
  address: z.string().nullable(),
  method: z.string(),
  sentBytes: z.number(),
  receivedBytes: z.number(),
  destinations: z.number().int(),
  local: z.string().optional(),
  /** Set when it is one of Airlock's own listeners on this machine ("Airlock's own web UI"). */
  airlock: z.string().optional(),
  secrets: z.array(z.string()).optional(),
});
export type EgressInfo = z.infer<typeof EgressInfo>;

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
  /** Arrived from another machine through `ssh -R` (airlock remote). */
  remote: RemoteInfo.optional(),
  suggestion: Suggestion.optional(),
  /** Why no grant matched when one came close. */
  nearMiss: z.string().optional(),
  /** For `task.start` with grants: every grant asked for, in full (the summary only counts them). */
  grants: z.array(PromptGrant).optional(),
  /** Source `egress`: host, port, resolved address, and what the task sent so far. */
  egress: EgressInfo.optional(),
  /** MCP: where the action came from — the server's annotations, your pin, or only the tool's name. */
  actionOrigin: z.enum(['annotation', 'pin', 'name']).optional(),
  /** MCP: the server's label (`gmail` of `gmail/send`), for "only reads from this server". */
  mcpServer: z.string().optional(),
  /** Conditions a grant could carry, started from this request's own arguments ("amount ≤ 5000"). */
  conditions: z.array(z.object({ when: z.string(), words: z.string() })).optional(),
  /** What will happen, computed by the daemon from the disk ("deletes build/: 34 files, 2.1 MB", "pushes to https://…"). */
  consequence: z.array(z.string()).optional(),
  /** Claude Code Edit / MultiEdit / Write: a unified diff against the file on disk (capped). */
  diff: z
    .object({ path: z.string(), text: z.string(), added: z.number().int(), removed: z.number().int(), truncated: z.boolean(), note: z.string().optional() })
    .optional(),
  /** Who: the agent's processes past Airlock's own (CLI, hook), nearest first, each with its full command line. */
  agent: z.array(z.object({ pid: z.number().int(), exe: z.string().nullable(), commandLine: z.string() })).optional(),
  /**
   * How many requests one answer to this prompt answers, when more than one: identical
   * requests waiting at the same time share the prompt (flood control), and "allow once"
   * allows each of them. Shown on every UI; a change reaches them as `pending.updated`.
   */
  waiting: z.number().int().min(2).optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
});
export type Prompt = z.infer<typeof Prompt>;

/**
 * One row of the history, the one definition: the store writes it (NewEvent is this row
 * before its id and hash), every UI reads it. `source` is a Source for decided requests
 * and the transport's name ("request.sock", "web", "electron") for a rejected attempt.
 */
export const HistoryEvent = z.object({
  id: z.number().int(),
  ts: z.number(),
  task: z.string().nullable(),
  source: z.string(),
  tool: z.string(),
  action: Action,
  resource: z.string().nullable(),
  resources: z.array(z.string()),
  summary: z.string(),
  args: z.unknown(),
  cwd: z.string().nullable(),
  process: ProcessInfo.nullable(),
  ssh: SshInfo.nullable(),
  /** Arrived from another machine through `ssh -R` (airlock remote). */
  remote: RemoteInfo.nullable().optional(),
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
  // Every event's action is an Action: an unknown one is a typo ("writes") to refuse, not an empty page.
  action: Action.optional(),
  /** The exact tool (`task.start`, `task.end`, `Bash`, `ssh-sign`, …). */
  tool: z.string().max(LIMITS.name).optional(),
  /** Only what came from this remote (airlock remote): its sockets, its forwarded agent. */
  remote: RemoteName.optional(),
  decision: Outcome.optional(),
  text: z.string().max(LIMITS.text).optional(),
  since: Timestamp.optional(),
  until: Timestamp.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  /** Opaque: the `cursor` of the previous page (digits; anything else is refused as invalid params, not an internal error). */
  cursor: z.string().max(64).regex(/^\d*$/, 'not a cursor returned by history.query').nullable().optional(),
}).refine((q) => q.since === undefined || q.until === undefined || q.since <= q.until, {
  // Swapped bounds select nothing: a mistake to name, not an empty page.
  message: 'since is after until (since is the older bound)',
  path: ['since'],
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
  /**
   * Most prompts one connection may wait on at once, whatever their tasks (a request
   * without a task also counts against maxPendingPerTask, on its connection).
   */
  maxPendingPerConnection: z.number().int().min(1).max(10_000),
  /** Most prompts waiting in the whole daemon: many connections or tasks cannot bury the human either. */
  maxPendingTotal: z.number().int().min(1).max(10_000),
});
export type Settings = z.infer<typeof Settings>;
export const SettingsPatch = z.strictObject({
  promptTimeoutSec: Settings.shape.promptTimeoutSec.optional(),
  policy: z.partialRecord(Action, PolicyChoice).optional(),
  // The daemon resolves nothing against its own working directory (which the human setting this
  // cannot see): a socket path here is absolute, as `serve --upstream` makes it.
  upstreamAgent: z
    .string()
    .max(LIMITS.text)
    .refine((p) => p.startsWith('/'), 'must be an absolute path to the agent socket (as in SSH_AUTH_SOCK), or null for none')
    .nullable()
    .optional(),
  notifications: z.boolean().optional(),
  startAtLogin: z.boolean().optional(),
  mcpToolActions: Settings.shape.mcpToolActions.optional(),
  maxPendingPerTask: Settings.shape.maxPendingPerTask.optional(),
  maxPendingPerConnection: Settings.shape.maxPendingPerConnection.optional(),
  maxPendingTotal: Settings.shape.maxPendingTotal.optional(),
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
  /**
   * For a `task.start` grant prompt: the `index` of each grant marked `needsConfirmation`
   * that the human explicitly accepts. Unconfirmed ones are not created, whatever the scope.
   */
  confirmGrants: z.array(z.number().int().min(0).max(1000)).max(1000).optional(),
  /** A condition for the grant this decision creates (CEL over `args`; checked like grants.create). */
  when: GrantCondition.optional(),
  /**
   * MCP only: "only reads from this server" — one allow grant for the server's reads and one
   * deny grant for everything else it offers (same scope); this request is answered by them.
   */
  serverReadOnly: z.boolean().optional(),
});
export type DecideParams = z.infer<typeof DecideParams>;

/** A machine whose agents ask this Airlock through `ssh -R` (airlock remote). */
export const Remote = z.object({
  name: z.string(),
  /** This machine's end: the socket `ssh -R` forwards to. */
  socket: z.string(),
  createdAt: z.number(),
});
export type Remote = z.infer<typeof Remote>;

/**
 * An anchor: an event's id and hash as `audit.head` gave them, kept off this machine. A history
 * rewritten since (every hash recomputed, the head too) still verifies on its own; it no longer
 * holds the anchored event.
 */
export const AuditAnchor = z.strictObject({
  id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a chain hash: 64 lowercase hex digits, as audit.head gives it'),
});
export type AuditAnchor = z.infer<typeof AuditAnchor>;

export const AuditVerifyParams = z.strictObject({
  /** Anchors taken earlier (`audit.head`): each must still be in the chain, unchanged. */
  anchors: z.array(AuditAnchor).max(100).optional(),
});
export type AuditVerifyParams = z.infer<typeof AuditVerifyParams>;

export const AuditAnchorCheck = z.object({ id: z.number().int(), hash: z.string(), ok: z.boolean(), reason: z.string().optional() });
export type AuditAnchorCheck = z.infer<typeof AuditAnchorCheck>;

/** The chain head now: the last event's id and hash (0 and the genesis hash for an empty history). */
export const AuditHead = z.object({
  id: z.number().int(),
  hash: z.string(),
  /** When the last event was recorded; null for an empty history. */
  ts: z.number().nullable(),
  /** `ID:HASH`, what `airlock audit verify --anchor` takes. */
  anchor: z.string(),
});
export type AuditHead = z.infer<typeof AuditHead>;

export const AuditResult = z.object({
  ok: z.boolean(),
  count: z.number().int(),
  /** Only when anchors were given: each one's verdict, in the order given. */
  anchors: z.array(AuditAnchorCheck).optional(),
  firstBad: z.object({ id: z.number().int(), reason: z.string() }).optional(),
  /** The file itself is damaged (SQLite's quick_check failed): corruption, not tampering. */
  damaged: z.string().optional(),
});
export type AuditResult = z.infer<typeof AuditResult>;

/** A secret as the human side sees it: never its value (it cannot be read back). */
export const Secret = z.object({
  name: z.string(),
  hosts: z.array(z.string()),
  /** Headers the placeholder is replaced in; empty: any request header. */
  headers: z.array(z.string()),
  createdAt: z.number(),
});
export type Secret = z.infer<typeof Secret>;

/** `host` or `*.domain` (every subdomain); no port, no path. */
const SecretHost = z
  .string()
  .min(1)
  .max(253)
  .regex(/^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$|^\[[0-9A-Fa-f:.]+\]$/, 'must be a host name, *.domain, an IPv4 address or [IPv6]');

export const SecretAdd = z.strictObject({
  name: z.string().regex(SECRET_NAME, 'must be letters, digits and _ (it is the environment variable the placeholder is set in)'),
  // No CR/LF/NUL: the value goes into HTTP headers and must not be able to add one. And only
  // what a header can carry (Node's own rule: tab, printable ASCII, Latin-1): a value with
  // `€` or a control character made every request that carried it fail upstream of the
  // history, as a 502 with no row.
  value: z
    .string()
    .min(1)
    .max(16 * 1024)
    .refine((v) => !/[\r\n\0]/.test(v), 'must not contain CR, LF or NUL')
    .refine((v) => !/[^\t\x20-\x7e\x80-\xff]/.test(v), 'must be characters an HTTP header can carry (printable ASCII, tab or Latin-1): encode the value first (base64), as its service expects it'),
  hosts: z.array(SecretHost).min(1).max(32),
  headers: z
    .array(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, 'must be an HTTP header name'))
    .max(16)
    .optional(),
});
export type SecretAdd = z.infer<typeof SecretAdd>;

/** One destination of a task's egress proxy, summed over its connections (Tasks view). */
export const Destination = z.object({
  resource: z.string(),
  allowed: z.number().int(),
  denied: z.number().int(),
  bytesOut: z.number(),
  bytesIn: z.number(),
  injected: z.array(z.string()),
  lastAt: z.number(),
});
export type Destination = z.infer<typeof Destination>;

/**
 * A key type to generate. `rsa` and `ecdsa` are ssh-keygen's own names (`-t rsa`, `-t ecdsa`)
 * and mean what ssh-keygen makes by default: RSA 3072 and ECDSA P-256.
 */
export const KEY_TYPE_ALIASES = { rsa: 'rsa-3072', ecdsa: 'ecdsa-p256' } as const;
const KeyType = z.union([
  z.enum(['ed25519', 'ecdsa-p256', 'ecdsa-p384', 'ecdsa-p521', 'rsa-3072', 'rsa-4096']),
  z.enum(['rsa', 'ecdsa']).transform((t) => KEY_TYPE_ALIASES[t]),
], { error: 'must be one of ed25519, ecdsa-p256, ecdsa-p384, ecdsa-p521, rsa-3072, rsa-4096 (or ssh-keygen\'s rsa, ecdsa)' });

const Empty = z.strictObject({});
const Nothing = z.object({});

export const approverMethods = {
  'pending.list': { params: Empty, result: z.object({ prompts: z.array(Prompt) }) },
  'pending.decide': {
    params: DecideParams,
    result: z.object({
      grant: Grant.optional(),
      /** Set when the grant made does not cover this request (an edited pattern, a condition): why; the request was answered once. */
      notCovered: z.string().optional(),
    }),
  },
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
      type: KeyType,
      name: z.string().min(1).max(LIMITS.name),
    }),
    result: z.object({ key: Key }),
  },
  'keys.remove': { params: z.strictObject({ fingerprint: z.string().max(256) }), result: Nothing },
  'remotes.list': { params: Empty, result: z.object({ remotes: z.array(Remote) }) },
  /** Opens (or returns) the remote's own request socket; requests there are marked remote. */
  'remotes.add': { params: z.strictObject({ name: RemoteName }), result: z.object({ remote: Remote }) },
  'remotes.remove': { params: z.strictObject({ name: RemoteName }), result: Nothing },
  'audit.verify': { params: AuditVerifyParams, result: AuditResult },
  'audit.head': { params: Empty, result: AuditHead },
  'secrets.list': { params: Empty, result: z.object({ secrets: z.array(Secret) }) },
  'secrets.add': { params: SecretAdd, result: z.object({ secret: Secret }) },
  'secrets.remove': { params: z.strictObject({ name: z.string().regex(SECRET_NAME) }), result: Nothing },
  /** Where a task's sandbox connected (or tried to) through its egress proxy. */
  'tasks.destinations': { params: z.strictObject({ task: Id }), result: z.object({ destinations: z.array(Destination) }) },
  'settings.get': { params: Empty, result: z.object({ settings: Settings }) },
  'settings.set': { params: SettingsPatch, result: z.object({ settings: Settings }) },
} as const satisfies Record<ApproverMethodName, { params: z.ZodType; result: z.ZodType }>;
export type ApproverMethods = typeof approverMethods;
export type ApproverMethod = keyof ApproverMethods;

/** Push notifications of `subscribe` (ui.sock), the web socket and IPC. */
export const approverNotifications = {
  'pending.added': Prompt,
  'pending.resolved': z.object({ id: z.string(), decision: Decision, reason: z.string(), event: z.number().int() }),
  /** A prompt still waiting changed in place (same id): today, how many requests it answers (`waiting`). */
  'pending.updated': Prompt,
  'event.recorded': HistoryEvent,
  'grants.changed': z.object({}),
  'tasks.changed': z.object({}),
  'keys.changed': z.object({}),
  'secrets.changed': z.object({}),
} as const;
export type ApproverNotifications = typeof approverNotifications;
export type ApproverNotification = {
  [K in keyof ApproverNotifications]: { method: K; params: z.infer<ApproverNotifications[K]> };
}[keyof ApproverNotifications];

/** The service as its callers see it (the renderer's bridge, ui.sock clients): derived from the table. */
export type ApproverService = ServiceClient<ApproverMethods>;
/** The service as the daemon implements it (core/approver-service.ts): derived from the same table. */
export type ApproverHandlers = ServiceHandlers<ApproverMethods>;

/** Decided-by vocabulary, re-exported for renderers that import only this module's types. */
export type { DecidedBy, Outcome };
