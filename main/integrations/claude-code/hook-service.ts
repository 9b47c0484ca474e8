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
import path = require('node:path');
import os = require('node:os');
import type { AgentAnswer, AgentRequest, HookClaudeCodeParams, HookClaudeCodeResult } from '../../contract/agent';
import { AgentRequest as AgentRequestSchema } from '../../contract/agent';
import { RPC, RpcError, describeIssues } from '../../contract/rpc';
import { isTaskToken, taskIdOf } from '../../contract/task-ref';
import { classifyShell } from '../../core/classify/shell';
import { hookOutput, isAfterToolEvent, mapToolCall, parseHookInput, taskNameFor, type HookDecision, type HookRequest, type PreToolUseInput } from './map';
import { foreignSessionFile, makeRoom, ownerFileOf, readSessionTask, readText, sessionFile, touchSession, writeSessionTask } from './session-files';

export { sessionFile } from './session-files';

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
  /** Whether a session's owner process still runs (main/os/session-owner.ts); absent: always (kept, capped per owner). */
  ownerAlive?: (owner: string) => boolean;
  /** Ends a session task that was let go (./session-files.ts makeRoom), or could not be kept, by its token; `why` goes into its history row. */
  endTask?: (token: string, why: 'owner-exited' | 'unowned' | 'made-way' | 'not-kept') => Promise<void>;
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
 * Returns the file (the caller is recorded as its owner when it is written) and the task it
 * holds now: each file is read once per call (the session's own file tells who claimed it and,
 * for its owner, is the task).
 */
function fileFor(dir: string, sessionId: string, owner: string): { file: string; task: string | null } {
  const main = sessionFile(dir, sessionId);
  const mainTask = readSessionTask(main);
  const claimed = mainTask !== null ? (readText(ownerFileOf(main)) ?? '\0before owners') : (starting.get(main)?.owner ?? null);
  const own = foreignSessionFile(main, owner);
  if (claimed === owner) return { file: main, task: mainTask };
  if (claimed === null) {
    // A free session: this caller's own file when it already has one (the session's owner was
    // let go after this caller got a task of its own: it keeps that task), else the session's.
    const ownTask = starting.has(own) ? null : readSessionTask(own);
    return ownTask !== null || starting.has(own) ? { file: own, task: ownTask } : { file: main, task: null };
  }
  return { file: own, task: readSessionTask(own) };
}

/** A new session has no task: no room for it (./session-files.ts makeRoom), or its files could not be written (the task was ended); the hook asks with this reason. */
class NoSessionTask extends Error {}

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
  const dir = desk.sessionsDir;
  const { file, task: onFile } = fileFor(dir, input.session_id, owner);
  const usable = (t: string | null) => (t && t !== stale ? t : null);
  const known = usable(onFile);
  if (known) {
    touchSession(file);
    return { task: known };
  }
  const pending = starting.get(file);
  if (pending) {
    const t = usable(await pending.task.catch(() => null));
    if (t) return { task: t };
  }
  // A new task for this session: first room for it (no await from here to starting.set, so
  // every call of this daemon counts the others' starts).
  const inDir = [...starting].filter(([f]) => path.dirname(f) === dir).map(([, e]) => e.owner);
  const room = makeRoom(dir, file, owner, inDir, desk.ownerAlive ?? (() => true));
  for (const { token, why } of room.released) void desk.endTask?.(token, why).catch(() => undefined);
  if (room.full) throw new NoSessionTask(room.full);
  const start = desk.startTask({ name: taskNameFor(input), cwd: input.cwd || undefined }).then((r) => {
    try {
      writeSessionTask(file, r.token, owner);
    } catch (e) {
      void desk.endTask?.(r.token, 'not-kept').catch(() => undefined);
      throw new NoSessionTask(
        `Airlock could not keep this Claude Code session's task (${(e as Error).message.slice(0, 200)}); ` +
          `the task was ended so that every call does not start another. Check that ${path.dirname(file)} is writable ` +
          `and holds no directory or link named ${path.basename(file)}; asking instead`,
      );
    }
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
 * The session's directory, absolute. Claude Code sends it absolute and runs the hook in it;
 * an input with a relative or empty `cwd` is read against the hook process's directory
 * (empty when that is not absolute either: then paths stay as written and the daemon asks).
 */
function sessionDir(given: string, hookCwd: string | undefined): string {
  if (given.startsWith('/')) return given;
  if (!hookCwd || !path.isAbsolute(hookCwd)) return '';
  return path.resolve(hookCwd, given);
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
  const parsed = parseHookInput(p.stdin);
  if (isAfterToolEvent(parsed)) return null;
  if ('error' in parsed) return { decision: 'ask', reason: `Airlock could not read the hook input (${parsed.error}); asking instead` };
  const input = { ...parsed, cwd: sessionDir(parsed.cwd, p.cwd) };
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
    if (e instanceof NoSessionTask) {
      try {
        desk.recordRefused(RPC.refused, message, { sessionId: input.session_id.slice(0, 256), request: req });
      } catch {
        // Recording a refusal must never take the answer away.
      }
      return { decision: 'ask', reason: message };
    }
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
