// The Claude Code hook's decision, in the daemon: request.sock `hook.claudeCode` (wired in
// main/api/request-socket.ts and task-request-sockets.ts). The hook process — the native
// client (native/hook/airlock-hook.c) or the Node relay (./hook.ts) — only reads stdin,
// finds and checks the socket, sends the raw input with what its environment says, and
// prints what comes back. One path for both: the mapping (./map.ts), the session's task,
// the request through the same broker door as `request`, and the output Claude Code reads.
//
// The daemon, not the hook, now keeps the session → task files, in the folder of the socket
// the call came through (<sockets>/claude-code/ for request.sock, remotes/<name>/claude-code/
// for a remote's socket, so a remote never picks up a local session's task); on a task's own
// socket every call is that task's and no file is kept.
import crypto = require('node:crypto');
import fs = require('node:fs');
import path = require('node:path');
import os = require('node:os');
import type { AgentAnswer, AgentRequest, HookClaudeCodeParams, HookClaudeCodeResult } from '../../contract/agent';
import { AgentRequest as AgentRequestSchema } from '../../contract/agent';
import { RPC, RpcError, describeIssues } from '../../contract/rpc';
import { isTaskToken, taskIdOf } from '../../contract/task-ref';
import { classifyShell } from '../../core/classify/shell';
import { hookOutput, isAfterToolEvent, mapToolCall, parseHookInput, taskNameFor, type HookDecision, type HookRequest, type PreToolUseInput } from './map';

/** What a socket gives the hook's decision: the broker's door as this connection, and where sessions live. */
export interface HookDesk {
  /** `request` as this connection (process tree, remote, bound task: the socket's RequestContext). */
  ask(req: AgentRequest): Promise<AgentAnswer>;
  /** `task.start` as this connection. */
  startTask(p: { name: string; cwd?: string }): Promise<{ token: string }>;
  /** The folder of session → task files; null on a task's own socket (every call is that task's). */
  sessionsDir: string | null;
  /**
   * Who may use a session's task: the Claude Code process the call comes from
   * (main/os/session-owner.ts; through a remote, what runs the forwarding ssh), "" where
   * callers cannot be told apart (no /proc). A session file is its owner's: another process sending the same session id gets a
   * task of its own, never that one (a session id is no secret: it names the transcript file).
   */
  sessionOwner?: () => string;
  /**
   * A call that ended refused as invalid (a mapped request the contract refuses, a wrong task
   * token): recorded in history like the same refusal of `request` on the one JSON-RPC path.
   */
  recordRefused(code: number, reason: string, raw: unknown): void;
}

export interface HookResult {
  decision: HookDecision;
  reason: string;
}

/** The file of one session's task (its token, 0600), in `dir`. */
export function sessionFile(dir: string, sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128) || 'none';
  return path.join(dir, `${safe}.task`);
}

/** Who started the task of a session file (`<session>.owner` beside `<session>.task`). */
const ownerFileOf = (file: string) => file.replace(/\.task$/, '.owner');

/** The task file of a caller that is not the session's owner: its own, named by a hash of who it is. */
function foreignSessionFile(file: string, owner: string): string {
  return file.replace(/\.task$/, `.${crypto.createHash('sha256').update(owner).digest('hex').slice(0, 32)}.task`);
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

function readSessionTask(file: string): string | null {
  const t = readText(file);
  return t !== null && /^[A-Za-z0-9_.:-]{1,64}$/.test(t) ? t : null;
}

function writePrivate(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The owner first, then the task: whoever reads a task file finds its owner already there. */
function writeSessionTask(file: string, task: string, owner: string | null): void {
  try {
    if (owner !== null) writePrivate(ownerFileOf(file), owner);
    writePrivate(file, task);
  } catch {
    // Not fatal: the next call starts another task and the human sees two.
  }
}

/**
 * Tasks being started, by session file: Claude Code runs parallel tool calls as parallel
 * hook processes, and the first call of a new session starts the task while the others wait
 * for it, so one session is one task and "allow for this task" covers all its calls.
 */
const starting = new Map<string, { owner: string; task: Promise<string> }>();

/**
 * The file of this caller's task for a session: `<session>.task` when the session is free or
 * this caller owns it; otherwise (another Claude Code process started it, or it is from before
 * owners were kept) a file of the caller's own, so a caller that only knows a session id
 * never acts as that session's task (SECURITY.md: the id alone never acts as a task).
 * Returns the file, the owner to record with it (null: nothing to record, the name says it)
 * and the task that file holds now: each file is read once per call (the session's own file
 * tells who claimed it and, for its owner, is the task).
 */
function fileFor(dir: string, sessionId: string, owner: string): { file: string; owner: string | null; task: string | null } {
  const main = sessionFile(dir, sessionId);
  const mainTask = readSessionTask(main);
  const claimed = mainTask !== null ? (readText(ownerFileOf(main)) ?? '\0before owners') : (starting.get(main)?.owner ?? null);
  if (claimed === null || claimed === owner) return { file: main, owner, task: mainTask };
  const own = foreignSessionFile(main, owner);
  return { file: own, owner: null, task: readSessionTask(own) };
}

// A session file from before tokens (a bare id) is as good as stale: start a new task.
const staleTask = (e: unknown) => e instanceof RpcError && /task: (no task|task .* has ended)|token: (acting as task .* needs its token|not the token of task)/.test(e.message);

/** The task fields of the request: AIRLOCK_TASK (with its token), the session's task, or none (a task's socket). */
async function taskFields(p: HookClaudeCodeParams, input: PreToolUseInput, desk: HookDesk, stale: string | null): Promise<{ task?: string; token?: string }> {
  // Inside `airlock task start [--sandbox] -- claude` the task is given; after
  // `eval "$(airlock task start --env)"` its token comes from AIRLOCK_TASK_TOKEN.
  if (p.task && !stale) {
    const token = !isTaskToken(p.task) && p.taskToken && isTaskToken(p.taskToken) && taskIdOf(p.taskToken) === p.task ? p.taskToken : undefined;
    return token ? { task: p.task, token } : { task: p.task };
  }
  if (desk.sessionsDir === null) return {};
  const owner = desk.sessionOwner?.() ?? '';
  const { file, owner: record, task: onFile } = fileFor(desk.sessionsDir, input.session_id, owner);
  const usable = (t: string | null) => (t && t !== stale ? t : null);
  const known = usable(onFile);
  if (known) return { task: known };
  const pending = starting.get(file);
  if (pending) {
    const t = usable(await pending.task.catch(() => null));
    if (t) return { task: t };
  }
  const start = desk.startTask({ name: taskNameFor(input), cwd: input.cwd || undefined }).then((r) => {
    writeSessionTask(file, r.token, record);
    return r.token;
  });
  const entry = { owner, task: start };
  starting.set(file, entry);
  try {
    return { task: await start };
  } finally {
    if (starting.get(file) === entry) starting.delete(file);
  }
}

/**
 * Claude Code's settings directory when CLAUDE_CONFIG_DIR moves it: the daemon then guards it
 * like ~/.claude. Absolute, against the hook process's working directory (a relative value is
 * Claude Code's, which the hook shares); unknown when neither is absolute. The daemon also
 * reads it from the requesting processes' /proc; this can only add protection.
 */
function configDirOf(p: HookClaudeCodeParams): { claudeConfigDir?: string } {
  const v = p.claudeConfigDir;
  // Without CLAUDE_CONFIG_DIR, Claude Code keeps its settings in $HOME/.claude of its own HOME,
  // which may not be the daemon's (`HOME=/elsewhere claude`): that directory is then guarded
  // like a CLAUDE_CONFIG_DIR one, so a hard link to its settings.json is asked as the settings.
  if (v === undefined) return p.home && path.isAbsolute(p.home) && path.resolve(p.home) !== path.resolve(os.homedir()) && p.home.length <= 4000 ? { claudeConfigDir: path.join(path.resolve(p.home), '.claude') } : {};
  if (v.length > 4000) return {};
  if (path.isAbsolute(v)) return { claudeConfigDir: path.resolve(v) };
  return p.cwd && path.isAbsolute(p.cwd) ? { claudeConfigDir: path.resolve(p.cwd, v) } : {};
}

/** The mapped request, checked by the contract as `request` would be. */
function checked(req: HookRequest & { task?: string; token?: string; claudeConfigDir?: string }): AgentRequest {
  const r = AgentRequestSchema.safeParse(req);
  if (!r.success) throw new RpcError(RPC.invalidParams, `invalid params: ${describeIssues(r.error)}`);
  return r.data;
}

const RECORDED = new Set<number>([RPC.invalidRequest, RPC.invalidParams]);

/** The decision for one hook input; null for an event after the tool ran (nothing printed, exit 0). */
export async function decideHook(p: HookClaudeCodeParams, desk: HookDesk): Promise<HookResult | null> {
  const input = parseHookInput(p.stdin);
  if (isAfterToolEvent(input)) return null;
  if ('error' in input) return { decision: 'ask', reason: `Airlock could not read the hook input (${input.error}); asking instead` };
  let req: HookRequest;
  try {
    const home = p.home && path.isAbsolute(p.home) ? p.home : undefined;
    req = mapToolCall(input, () => classifyShell, home);
  } catch (e) {
    return { decision: 'ask', reason: `Airlock could not classify this call (${(e as Error).message}); asking instead` };
  }
  const extra = configDirOf(p);
  let sent: unknown = req;
  let answer: AgentAnswer;
  try {
    const first = await taskFields(p, input, desk, null);
    try {
      answer = await desk.ask(checked((sent = { ...req, ...first, ...extra })));
    } catch (e) {
      if (!staleTask(e) || p.task || first.task === undefined) throw e;
      // The task ended (the human ended it, or the daemon's data was reset): start a new one.
      answer = await desk.ask(checked((sent = { ...req, ...(await taskFields(p, input, desk, first.task)), ...extra })));
    }
  } catch (e) {
    const message = (e as Error).message;
    if (e instanceof RpcError && RECORDED.has(e.code)) {
      try {
        desk.recordRefused(e.code, message, sent);
      } catch {
        // Recording a refusal must never take the answer away.
      }
    }
    if (e instanceof RpcError && e.code === RPC.refused) return { decision: 'deny', reason: `Airlock refused: ${message}` };
    return { decision: 'ask', reason: `Airlock could not decide (${message}); asking instead` };
  }
  return { decision: answer.decision, reason: `Airlock: ${answer.reason}${answer.event > 0 ? ` (event ${answer.event})` : ''}` };
}

/** What the hook prints, as hex of its UTF-8 bytes, and its exit code (always 0: a decision, or silence). */
export function printed(r: HookResult | null): HookClaudeCodeResult {
  if (!r) return { exitCode: 0, stdoutHex: '' };
  return { exitCode: 0, stdoutHex: Buffer.from(hookOutput(r.decision, r.reason) + '\n', 'utf8').toString('hex') };
}

/** request.sock `hook.claudeCode`. Never throws: every failure is an answer that asks. */
export async function answerClaudeCodeHook(p: HookClaudeCodeParams, desk: HookDesk): Promise<HookClaudeCodeResult> {
  try {
    return printed(await decideHook(p, desk));
  } catch (e) {
    return printed({ decision: 'ask', reason: `Airlock could not decide (${(e as Error).message}); asking instead` });
  }
}
