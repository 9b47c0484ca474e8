// The agent side (request.sock): it may ask and start/end its own tasks, nothing else.
//
// Task binding (docs/task-binding.md): on the shared request.sock, naming an existing task
// (`request.task`, `task.end`, `task.network`) needs the task's capability token, sent as
// `token` beside `task` or as `task` itself. On a task's own socket (tasks/<id>/request.sock)
// everything belongs to that task whatever it claims, and `task.start` is refused.
import { z } from 'zod';
import { ACTIONS, Action, Decision, Id, LIMITS, RemoteName, SECRET_NAME, Source, Timestamp } from './common';
import { RPC, RpcError } from './rpc';

/** A task's capability token as sent by clients (`<task id>.<secret>`; checked by the broker). */
export const TaskToken = z.string().min(1).max(128);

const text = (max: number = LIMITS.text) => z.string().max(max);
const glob = text().min(1);
/** A working directory on the wire: absolute. A relative one was recorded as given and read
 *  relative paths against nothing (`rm x` in `sub` was the resource `x`); clients resolve
 *  their own (check, task start, exec and the hook do). */
const workDir = () => text().refine((s) => s.startsWith('/'), 'must be an absolute path (starting with /): resolve it against your working directory first');

/**
 * What a grant covers: one action, `*` (every action), or a set of actions — so "never
 * write, delete or move on this server" is one deny grant that leaves reads alone.
 */
export const GrantAction = z.union([Action, z.literal('*'), z.array(Action).min(1).max(ACTIONS.length)], {
  // Said once, with the choices: zod's own union message is only "Invalid input".
  error: `must be one of ${ACTIONS.join(', ')}, "*" (every action) or a list of them`,
});
export type GrantAction = z.infer<typeof GrantAction>;

/**
 * An SSH key's fingerprint as OpenSSH prints it (`ssh-keygen -lf KEY`, `ssh-add -l`, `airlock
 * keys list`): `SHA256:` and the unpadded base64 of 32 bytes (43 characters, the last one
 * carrying 4 bits). Anything else could never match a signature request (the daemon compares
 * fingerprints in this form), so a grant naming it would only look like it does something.
 */
export const KEY_FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]$/;
export const KeyFingerprint = z
  .string()
  .max(256)
  .regex(KEY_FINGERPRINT, 'must be an SSH key fingerprint as OpenSSH prints it: SHA256: and 43 base64 characters (ssh-keygen -lf KEY.pub, or airlock keys list)');

/** A grant condition: a CEL expression over the request's `args` (compiled and checked by the daemon). */
export const GrantCondition = z.string().min(1).max(4096);

export const GrantSpec = z.strictObject({
  task: Id.nullable().optional(),
  source: glob.optional(),
  tool: glob.optional(),
  action: GrantAction,
  resource: glob.optional(),
  key: KeyFingerprint.optional(),
  effect: z.enum(['allow', 'deny']),
  expiresAt: Timestamp.optional(),
  uses: z.number().int().positive().max(1_000_000).optional(),
  /** SSH: a grant matches forwarded agent requests only when this is true. */
  forwarded: z.boolean().optional(),
  /** Requests from this remote only (`airlock remote`); without it, local requests only. */
  remote: RemoteName.nullable().optional(),
  note: text(1000).optional(),
  /** Condition over the request's arguments, e.g. `args.amount <= 50` (DESIGN.md GrantSpec `when`). */
  when: GrantCondition.optional(),
});
export type GrantSpec = z.infer<typeof GrantSpec>;
export type GrantSpecInput = z.input<typeof GrantSpec>;

export const AgentRequest = z.strictObject({
  source: Source,
  tool: text(LIMITS.name).min(1),
  action: Action,
  resource: text().optional(),
  /** Every resource a compound request touches (e.g. each part of a shell pipeline). */
  resources: z.array(text()).max(LIMITS.resources).optional(),
  summary: text(LIMITS.summary),
  /** Recorded as sent (capped). For `exec`/Bash, `args.command` is re-classified by the broker. */
  args: z.unknown().optional(),
  /** A task id (with `token`) or the task's token itself. Ignored on a task's own socket. */
  task: Id.optional(),
  /** The capability token `task.start` returned; needed on the shared socket to act as `task`. */
  token: TaskToken.optional(),
  cwd: workDir().optional(),
  /**
   * The Claude Code hook's CLAUDE_CONFIG_DIR (absolute): where that Claude Code keeps its
   * settings, which hold Airlock's hook. It can only make writes there riskier, never any
   * request less risky (core/claude-config.ts); the daemon also reads it from /proc.
   */
  claudeConfigDir: text(4096).optional(),
});
export type AgentRequest = z.infer<typeof AgentRequest>;

export const AgentAnswer = z.object({
  decision: Decision,
  reason: z.string(),
  event: z.number().int(),
  grant: z.string().optional(),
  /** The task the request was decided and recorded as (on a task's socket: that task, whatever was claimed). */
  task: z.string().optional(),
});
export type AgentAnswer = z.infer<typeof AgentAnswer>;

export const TaskStartParams = z.strictObject({
  name: text(LIMITS.name).min(1),
  cwd: workDir().optional(),
  /**
   * `remote` is refused (blackbox9): a task's grants are limited to the remote whose socket the
   * task was started through (or to this machine), never to one the request names — the daemon
   * used to drop a named remote silently, so an agent asking for a grant "for remote build only"
   * got one for this machine instead.
   */
  grants: z
    .array(
      GrantSpec.omit({ task: true }).extend({
        remote: z.null({ error: "a task's grants are limited to where the task was started (this machine, or the remote whose socket it came through), never to a remote the request names: leave remote out" }).optional(),
      }),
    )
    .max(64)
    .optional(),
  /** Secrets (by name, see `airlock secrets`) the task's sandbox may use through its egress proxy: it sees only placeholders. */
  secrets: z.array(z.string().regex(SECRET_NAME, 'must be a secret name (letters, digits, _)')).max(32).optional(),
});
export type TaskStartParams = z.infer<typeof TaskStartParams>;
export const TaskStartResult = z.object({
  task: z.string(),
  sshAuthSock: z.string().nullable(),
  /** Grants the human accepted from `grants` (none when the human refused them). */
  grants: z.array(z.string()),
  /**
   * The task's capability token (`<task>.<256-bit secret>`): on the shared request.sock it
   * (not the id) lets a client act as this task. Shown once; the daemon keeps only a hash.
   */
  token: z.string(),
  /** The task's own request socket: everything sent there belongs to this task. */
  requestSock: z.string().nullable(),
  /** Indices (into `grants` asked for) the human did not accept: wildcard grants left unconfirmed. */
  declined: z.array(z.number().int()).optional(),
  /** The task's way out of a sandbox: its egress proxy socket and what the sandbox binds (null: no egress in this daemon). */
  egress: z
    .object({
      sock: z.string(),
      caBundle: z.string().nullable(),
      nodePreload: z.string(),
      /** Environment variable → placeholder the sandbox sees instead of the secret. */
      placeholders: z.record(z.string(), z.string()),
    })
    .nullable()
    .optional(),
});
/**
 * `task.end` / `task.network`. On the shared socket `task` (and `token`, unless `task` is
 * the token) is required; on a task's own socket both may be left out (it means itself).
 */
export const TaskEndParams = z.strictObject({ task: Id.optional(), token: TaskToken.optional() });

/**
 * What `airlock mcp` saw in a server's tools/list, so the Claude Code hook (which sees only
 * `mcp__server__tool`) gets the same action. The server's claim, reported agent-side: the
 * daemon never lets a report turn a tool it knew as not read-only into a read.
 */
export const McpToolsReport = z.strictObject({
  server: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be letters, digits, _ . - (at most 64)'),
  tools: z
    .array(
      z.object({
        name: text(LIMITS.name).min(1),
        annotations: z.record(z.string().max(64), z.unknown()).nullable().optional(),
        description: text(1000).nullable().optional(),
      }),
    )
    .max(500),
});
export type McpToolsReport = z.infer<typeof McpToolsReport>;

/**
 * `hook.claudeCode`: one Claude Code hook call, whole. The hook (the native client
 * native/hook/airlock-hook.c, or the Node relay main/integrations/claude-code/hook.ts) sends
 * the raw PreToolUse JSON it read on stdin and what it knows from its own environment; the
 * daemon maps, resolves the session's task, asks, and answers with exactly what the hook
 * prints and its exit code. Everything here is the hook input, hostile: capped, checked again
 * by the mapping (main/integrations/claude-code/hook-service.ts).
 */
export const HookClaudeCodeParams = z.strictObject({
  /** stdin as read (the request line's 1 MiB cap bounds it; the hook asks before sending more). */
  stdin: z.string().max(LIMITS.lineBytes),
  /** The hook process's working directory (a relative CLAUDE_CONFIG_DIR is relative to it). */
  cwd: text(LIMITS.text).optional(),
  /** HOME of the hook process: Claude Code expands `~` in tool paths with it. */
  home: text(LIMITS.text).optional(),
  /** CLAUDE_CONFIG_DIR as the hook sees it (absolute or relative to `cwd`). */
  claudeConfigDir: text(LIMITS.text).optional(),
  /** AIRLOCK_TASK: the task `airlock task start -- claude` runs the session in. */
  task: text(LIMITS.name).optional(),
  /** AIRLOCK_TASK_TOKEN (the shell of `eval "$(airlock task start --env)"`). */
  taskToken: text(LIMITS.name).optional(),
});
export type HookClaudeCodeParams = z.infer<typeof HookClaudeCodeParams>;
/** What the hook prints (hex of the UTF-8 bytes: a C client decodes it without a JSON parser) and exits with. */
export const HookClaudeCodeResult = z.object({
  exitCode: z.number().int().min(0).max(255),
  stdoutHex: z.string().max(64 * 1024).regex(/^(?:[0-9a-f]{2})*$/),
});
export type HookClaudeCodeResult = z.infer<typeof HookClaudeCodeResult>;

/** Method table of request.sock. Adapters are generated from it; add methods here only. */
export const agentMethods = {
  request: { params: AgentRequest, result: AgentAnswer },
  'task.start': { params: TaskStartParams, result: TaskStartResult },
  'task.end': { params: TaskEndParams, result: z.object({}) },
  /** May a sandbox of this task have the network? Yes when a grant answers its egress connections without a condition and no deny may (docs/egress.md). */
  'task.network': { params: TaskEndParams, result: z.object({ allowed: z.boolean(), reason: z.string() }) },
  /** `airlock mcp` reports a server's tools/list (a batch of at most 500 tools). */
  'mcp.tools': { params: McpToolsReport, result: z.object({ learned: z.number().int(), kept: z.array(z.string()) }) },
  /** The Claude Code hook's whole call: raw stdin in, what to print out (HookClaudeCodeParams). */
  'hook.claudeCode': { params: HookClaudeCodeParams, result: HookClaudeCodeResult },
} as const;

/** task.start on a task's own socket is refused: a new task would escape this one's deny grants. */
export function boundTaskCannotStart(task: string): RpcError {
  return new RpcError(RPC.refused, `task.start is refused on the socket of task ${task}: a task cannot start other tasks (the human or a client outside the task can)`);
}
