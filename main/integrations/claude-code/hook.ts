// `airlock hook claude-code` and the installed hook's Node entry (bin.js): Claude Code runs
// it before every tool call with the PreToolUse JSON on stdin and reads a permission decision
// from stdout. This is a relay: the daemon decides (request.sock `hook.claudeCode`,
// ./hook-service.ts), the same path the native client (native/hook/airlock-hook.c) takes.
// Here: read stdin, check the socket (pin, trust), send, print what comes back.
//
// Answers: what the daemon says; `ask` (Claude Code's own prompt) when the daemon is not
// reachable, the input is too large, or the answer is not one, always with a reason.
// Built-ins as `import x = require(...)`, not `import * as x`: in the hook bundle esbuild would
// otherwise copy each one into a namespace object (__toESM) on every tool call (issue 15,
// test/unit/hook-bundle.test.ts).
import fs = require('node:fs');
import os = require('node:os');
import { AirlockClient, isDaemonUnavailable } from '../../client';
import { LIMITS } from '../../contract/constants';
import type { HookClaudeCodeParams } from '../../contract/agent';
import { hookOutput, isAfterToolEvent, parseHookInput } from './hook-input';
import { daemonNotRunning, hookRequestSocket, pinnedSocketProblem } from './socket-pin';

const MAX_STDIN = 8 * 1024 * 1024;
/**
 * How long the hook waits for the daemon's answer (a human deciding): a little under the
 * 600 s Claude Code gives the hook (install.ts HOOK_TIMEOUT_SEC), so the hook asks rather
 * than being killed. The native client waits as long (native/hook/airlock-hook.c).
 */
export const REPLY_TIMEOUT_MS = 590_000;
/** Most bytes of stdout the daemon may have the hook print (contract/agent.ts HookClaudeCodeResult). */
const MAX_STDOUT_HEX = 64 * 1024;

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
 * Connects before stdin is read (issue 15, hook start-up): the daemon reads this process's
 * tree from /proc when it accepts the connection (who is asking), and does that while we
 * are still reading the tool call instead of after. An event that needs no decision closes
 * it unused. A failed connect is handled where relay() awaits it.
 */
function connectEarly(env: NodeJS.ProcessEnv): Promise<AirlockClient> {
  const early = AirlockClient.connect(hookRequestSocket(env));
  early.catch(() => undefined);
  return early;
}

/**
 * stdout is written with one write(2) (the answer is far below PIPE_BUF, so a pipe takes it
 * whole) instead of through process.stdout, whose stream Node would build for this one line.
 * A non-blocking or short write falls back to the stream.
 */
function writeOut(b: Buffer): void {
  let done: number;
  try {
    done = fs.writeSync(1, b);
  } catch {
    done = 0;
  }
  if (done < b.length) process.stdout.write(b.subarray(done));
}

/** What the hook prints and exits with. */
export interface Printed {
  exitCode: number;
  stdout: Buffer;
}

const SILENT: Printed = { exitCode: 0, stdout: Buffer.alloc(0) };
const ask = (reason: string): Printed => ({ exitCode: 0, stdout: Buffer.from(hookOutput('ask', reason) + '\n') });

/** What the hook's environment adds to its input (the daemon cannot see the hook's HOME or cwd). */
export function hookParams(stdin: string, env: NodeJS.ProcessEnv = process.env): HookClaudeCodeParams {
  const p: HookClaudeCodeParams = { stdin, cwd: process.cwd(), home: os.homedir() };
  const put = (k: 'claudeConfigDir' | 'task' | 'taskToken', v: string | undefined, max: number) => {
    if (v !== undefined && v.length <= max) p[k] = v;
  };
  put('claudeConfigDir', env.CLAUDE_CONFIG_DIR, 4000);
  if (env.AIRLOCK_TASK) put('task', env.AIRLOCK_TASK, LIMITS.name);
  if (env.AIRLOCK_TASK_TOKEN) put('taskToken', env.AIRLOCK_TASK_TOKEN, LIMITS.name);
  return p;
}

/** The daemon's answer as something to print, or null when it is not one (then the hook asks). */
function decoded(r: unknown): Printed | null {
  if (!r || typeof r !== 'object') return null;
  const { exitCode, stdoutHex } = r as { exitCode?: unknown; stdoutHex?: unknown };
  if (typeof exitCode !== 'number' || !Number.isInteger(exitCode) || exitCode < 0 || exitCode > 255) return null;
  if (typeof stdoutHex !== 'string' || stdoutHex.length > MAX_STDOUT_HEX || !/^(?:[0-9a-f]{2})*$/.test(stdoutHex)) return null;
  return { exitCode, stdout: Buffer.from(stdoutHex, 'hex') };
}

/** AIRLOCK_HOOK_REPLY_TIMEOUT_MS can only shorten the wait (tests); the installed command unsets it (install.ts). */
function replyTimeout(env: NodeJS.ProcessEnv): number {
  const v = Number(env.AIRLOCK_HOOK_REPLY_TIMEOUT_MS);
  return Number.isInteger(v) && v > 0 && v < REPLY_TIMEOUT_MS ? v : REPLY_TIMEOUT_MS;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the Airlock daemon in ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * One hook call (exported for tests and the benchmark). `pin`: pinnedSocketProblem(env),
 * checked before anything was connected; `early`: the connection made while stdin was read.
 */
export async function relay(raw: string, env: NodeJS.ProcessEnv = process.env, early?: Promise<AirlockClient>, pin: string | null = pinnedSocketProblem(env)): Promise<Printed> {
  // After the tool ran there is nothing to decide: no request at all (the same parser the daemon uses).
  if (isAfterToolEvent(parseHookInput(raw))) return SILENT;
  // Before any byte goes to a socket the environment may have chosen (socket-pin.ts).
  if (pin) return ask(`Airlock did not ask: ${pin}; asking instead`);
  const params = hookParams(raw, env);
  // request.sock refuses a line over 1 MiB: ask here, with the reason, instead of sending it.
  const size = Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.claudeCode', params }));
  if (size > LIMITS.lineBytes) {
    return ask(`Airlock did not ask: this tool call is ${size} bytes as a request, over request.sock's ${LIMITS.lineBytes}-byte line limit; asking instead`);
  }
  let client: AirlockClient;
  try {
    client = await (early ?? AirlockClient.connect(hookRequestSocket(env)));
  } catch (e) {
    const why = isDaemonUnavailable(e) ? daemonNotRunning(env) : `Airlock is unreachable: ${(e as Error).message}`;
    return ask(`${why}; falling back to Claude Code's own prompt`);
  }
  try {
    const answer = decoded(await withTimeout(client.rpc.call('hook.claudeCode', params), replyTimeout(env)));
    return answer ?? ask("Airlock could not decide (the daemon's answer is not a hook answer); asking instead");
  } catch (e) {
    return ask(`Airlock could not decide (${(e as Error).message}); asking instead`);
  } finally {
    client.close();
  }
}

/** Entry point: stdin → what the daemon says on stdout; exit 0 unless the daemon says otherwise. */
export async function runClaudeCodeHook(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let out: Printed;
  // A socket outside the pinned directory is never connected to, not even early.
  const pin = pinnedSocketProblem(env);
  const early = pin ? undefined : connectEarly(env);
  try {
    out = await relay(await readStdin(), env, early, pin);
  } catch (e) {
    out = ask(`Airlock hook failed (${(e as Error).message}); asking instead`);
  } finally {
    // Used and closed by relay(), or never used (an event after the tool ran, unreadable input).
    early?.then((c) => c.close(), () => undefined);
  }
  if (out.stdout.length) writeOut(out.stdout);
  process.exitCode = out.exitCode;
}
