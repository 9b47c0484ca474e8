// `airlock hook claude-code`: Claude Code runs this before every tool call with the
// PreToolUse JSON on stdin and reads a permission decision from stdout. Start-up time is
// the cost of every tool call, so this module loads only the client (net + fs) and the
// pure mapping; the shell classifier is required lazily, for Bash only.
//
// Answers: allow/deny from Airlock; `ask` (Claude Code's own prompt) when the daemon is
// not reachable or the input is not understood, always with a reason.
// Built-ins as `import x = require(...)`, not `import * as x`: in the hook bundle esbuild would
// otherwise copy each one into a namespace object (__toESM) on every tool call (issue 15,
// test/unit/hook-bundle.test.ts).
import fs = require('node:fs');
import path = require('node:path');
import { AirlockClient, AirlockRpcError, airlockRuntimeDir, defaultRequestSocket, isDaemonUnavailable, type AgentAnswer } from '../../client';
import type { CommandClassifier } from '../../core/ports';
import { hookOutput, isAfterToolEvent, mapToolCall, parseHookInput, taskNameFor, type HookDecision, type PreToolUseInput } from './map';
import { pinnedRuntimeDir, pinnedSocketProblem } from './socket-pin';

const MAX_STDIN = 8 * 1024 * 1024;
/** JSON-RPC code the broker uses when it refuses before asking (flood control, locked). */
const RPC_REFUSED = -32001;

/**
 * Reads all of stdin with read(2) on fd 0 (issue 15, hook start-up): Claude Code gives the
 * hook a blocking pipe and closes it after the JSON, so a synchronous read costs nothing,
 * while process.stdin would build a stream (and, for a file, load Node's fs streams) for
 * this one read. The request socket is already connecting (connectEarly) and the daemon
 * reads our process tree meanwhile. A non-blocking stdin (EAGAIN: inherited from a shell
 * that set O_NONBLOCK) goes on through process.stdin, keeping what was read so far.
 */
function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const buf = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return readStdinStream(chunks, size);
      if (code === 'EOF') break; // Windows: the other end of the pipe closed
      return Promise.reject(e as Error);
    }
    if (n === 0) break;
    size += n;
    if (size > MAX_STDIN) return Promise.reject(new Error(`stdin larger than ${MAX_STDIN} bytes`));
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Promise.resolve(Buffer.concat(chunks).toString('utf8'));
}

/** The rest of stdin through the stream, after `chunks` (`size` bytes) were read directly. */
function readStdinStream(chunks: Buffer[], size: number): Promise<string> {
  return new Promise((resolve, reject) => {
    process.stdin.on('data', (d: Buffer) => {
      size += d.length;
      if (size > MAX_STDIN) {
        reject(new Error(`stdin larger than ${MAX_STDIN} bytes`));
        process.stdin.destroy();
        return;
      }
      chunks.push(d);
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

/**
 * Where the session → task mapping lives: one small file per Claude Code session (0600 in
 * the private runtime directory). It holds the task's token, not its id: on the shared
 * request.sock only the token acts as the task (docs/task-binding.md). An installed hook keeps
 * them in the directory pinned on its command line (socket-pin.ts), whatever the env says.
 */
export function sessionFile(sessionId: string, env: NodeJS.ProcessEnv = process.env): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128) || 'none';
  return path.join(pinnedRuntimeDir(env) ?? airlockRuntimeDir(env), 'claude-code', `${safe}.task`);
}

function readSessionTask(file: string): string | null {
  try {
    const t = fs.readFileSync(file, 'utf8').trim();
    return /^[A-Za-z0-9_.:-]{1,64}$/.test(t) ? t : null;
  } catch {
    return null;
  }
}

function writeSessionTask(file: string, task: string): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, task + '\n', { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // Not fatal: the next call starts another task and the human sees two.
  }
}

// A session file from before tokens (a bare id) is as good as stale: start a new task.
const staleTask = (e: unknown) => e instanceof AirlockRpcError && /task: (no task|task .* has ended)|token: (acting as task .* needs its token|not the token of task)/.test(e.message);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Claude Code runs parallel tool calls as parallel hook processes: the first one of a new
 * session starts the task, the others wait for its file (an O_EXCL lock file decides who
 * is first), so one session is one task and "allow for this task" covers all its calls.
 */
async function resolveTask(client: AirlockClient, input: PreToolUseInput, env: NodeJS.ProcessEnv, stale: string | null): Promise<string> {
  // Inside `airlock task start [--sandbox] -- claude`, the task is given (and the socket is
  // the task's own); after `eval "$(airlock task start --env)"` the client adds its token.
  if (env.AIRLOCK_TASK && !stale) return env.AIRLOCK_TASK;
  const file = sessionFile(input.session_id, env);
  const usable = (t: string | null) => (t && t !== stale ? t : null);
  const known = usable(readSessionTask(file));
  if (known) return known;
  const lock = `${file}.lock`;
  let locked = false;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.closeSync(fs.openSync(lock, 'wx', 0o600));
    locked = true;
  } catch {
    // Someone else is starting it: wait for their file (bounded), then take over a stale lock.
    for (let i = 0; i < 200; i++) {
      await sleep(25);
      const t = usable(readSessionTask(file));
      if (t) return t;
    }
  }
  try {
    const r = await client.startTask({ name: taskNameFor(input), cwd: input.cwd || undefined });
    writeSessionTask(file, r.token);
    return r.token;
  } finally {
    if (locked) fs.rmSync(lock, { force: true });
  }
}

let classifier: CommandClassifier | null = null;
const loadClassifier = (): CommandClassifier => {
  // Required lazily: mvdan-sh costs ~60 ms to load and only Bash needs it.
  classifier ??= (require('../../core/classify/shell') as { classifyShell: CommandClassifier }).classifyShell;
  return classifier;
};

/**
 * Claude Code's settings directory when CLAUDE_CONFIG_DIR moves it (the hook runs in Claude
 * Code's environment): the daemon then guards it like ~/.claude. Sent as an absolute path (a
 * relative one is Claude Code's working directory's, which is ours). The daemon also reads it
 * from /proc; this is for systems without /proc, and it can only add protection.
 */
function configDirOf(env: NodeJS.ProcessEnv): { claudeConfigDir?: string } {
  const v = env.CLAUDE_CONFIG_DIR;
  if (v === undefined || v.length > 4000) return {};
  return { claudeConfigDir: path.resolve(process.cwd(), v) };
}

export interface HookResult {
  decision: HookDecision;
  reason: string;
}

/**
 * The whole decision for one stdin text (exported for tests and the benchmark); null for an
 * event after the tool ran (PostToolUse): nothing to decide, nothing printed, exit 0.
 */
/** `pin`: pinnedSocketProblem(env), when the caller already has it (the hook checks it once, before connecting early). */
export async function decide(raw: string, env: NodeJS.ProcessEnv = process.env, early?: Promise<AirlockClient>, pin?: string | null): Promise<HookResult | null> {
  const input = parseHookInput(raw);
  if (isAfterToolEvent(input)) return null;
  if ('error' in input) return { decision: 'ask', reason: `Airlock could not read the hook input (${input.error}); asking instead` };
  // Before any byte goes to a socket the environment may have chosen (socket-pin.ts).
  const unpinned = pin !== undefined ? pin : pinnedSocketProblem(env);
  if (unpinned) return { decision: 'ask', reason: `Airlock did not ask: ${unpinned}; asking instead` };
  let req;
  try {
    req = mapToolCall(input, loadClassifier);
  } catch (e) {
    return { decision: 'ask', reason: `Airlock could not classify this call (${(e as Error).message}); asking instead` };
  }
  let client: AirlockClient;
  try {
    client = await (early ?? AirlockClient.connect(defaultRequestSocket(env)));
  } catch (e) {
    const why = isDaemonUnavailable(e) ? 'the Airlock daemon is not running' : `Airlock is unreachable: ${(e as Error).message}`;
    return { decision: 'ask', reason: `${why}; falling back to Claude Code's own prompt` };
  }
  try {
    let answer: AgentAnswer;
    try {
      const task = await resolveTask(client, input, env, null);
      try {
        answer = await client.ask({ ...req, task, ...configDirOf(env) });
      } catch (e) {
        if (!staleTask(e) || env.AIRLOCK_TASK) throw e;
        // The task ended (the human ended it, or the daemon's data was reset): start a new one.
        answer = await client.ask({ ...req, task: await resolveTask(client, input, env, task), ...configDirOf(env) });
      }
    } catch (e) {
      if (e instanceof AirlockRpcError && e.code === RPC_REFUSED) return { decision: 'deny', reason: `Airlock refused: ${e.message}` };
      return { decision: 'ask', reason: `Airlock could not decide (${(e as Error).message}); asking instead` };
    }
    const reason = `Airlock: ${answer.reason}${answer.event > 0 ? ` (event ${answer.event})` : ''}`;
    return { decision: answer.decision, reason };
  } finally {
    client.close();
  }
}

/**
 * Connects before stdin is read (issue 15, hook start-up): the daemon reads this process's
 * tree from /proc when it accepts the connection (who is asking), and does that while we
 * are still reading and mapping the tool call instead of after. An event that needs no
 * decision closes it unused. A failed connect is handled where decide() awaits it.
 */
function connectEarly(env: NodeJS.ProcessEnv): Promise<AirlockClient> {
  const early = AirlockClient.connect(defaultRequestSocket(env));
  early.catch(() => undefined);
  return early;
}

/**
 * stdout is written with one write(2) (the answer is far below PIPE_BUF, so a pipe takes it
 * whole) instead of through process.stdout, whose stream Node would build for this one line.
 * A non-blocking or short write falls back to the stream.
 */
function writeOut(text: string): void {
  const b = Buffer.from(text);
  let done: number;
  try {
    done = fs.writeSync(1, b);
  } catch {
    done = 0;
  }
  if (done < b.length) process.stdout.write(b.subarray(done));
}

/** Entry point: stdin → decision JSON on stdout; exit 0 whatever happens. */
export async function runClaudeCodeHook(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let result: HookResult | null;
  // A socket outside the pinned directory is never connected to, not even early.
  const pin = pinnedSocketProblem(env);
  const early = pin ? undefined : connectEarly(env);
  try {
    result = await decide(await readStdin(), env, early, pin);
  } catch (e) {
    result = { decision: 'ask', reason: `Airlock hook failed (${(e as Error).message}); asking instead` };
  } finally {
    // Used and closed by decide(), or never used (an event after the tool ran, unreadable input).
    early?.then((c) => c.close(), () => undefined);
  }
  if (result) writeOut(hookOutput(result.decision, result.reason) + '\n');
}
