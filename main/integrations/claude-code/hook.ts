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
 * How long the hook waits for the end of stdin. Claude Code writes the tool call and closes the
 * pipe at once; a stdin that stays open would keep the hook waiting until Claude Code kills it
 * at 600 s, and a PreToolUse hook that times out does not block the tool: it runs. So the hook
 * asks instead (the native client waits as long: airlock-hook.c STDIN_TIMEOUT_MS).
 */
export const STDIN_TIMEOUT_MS = 30_000;

/**
 * Reads all of stdin through process.stdin, never a blocking read(2): a synchronous read of a
 * pipe that is never closed could not be timed out, and would leave the answer to Claude Code's
 * hook timeout, which lets the tool run. At most `ms`, then it fails (the hook asks).
 */
function readStdin(ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      reject(new Error(`the tool call on stdin did not end within ${Math.ceil(ms / 1000)} s`));
      process.stdin.destroy();
    }, ms);
    const fail = (e: Error) => (clearTimeout(timer), reject(e));
    process.stdin.on('data', (d: Buffer) => {
      size += d.length;
      if (size > MAX_STDIN) {
        fail(new Error(`stdin larger than ${MAX_STDIN} bytes`));
        process.stdin.destroy();
        return;
      }
      chunks.push(d);
    });
    process.stdin.on('end', () => (clearTimeout(timer), resolve(Buffer.concat(chunks).toString('utf8'))));
    process.stdin.on('error', fail);
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

function withTimeout<T>(p: Promise<T>, ms: number, budgetMs: number = ms): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the Airlock daemon in ${Math.round(budgetMs / 1000)} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * One hook call (exported for tests and the benchmark). `pin`: pinnedSocketProblem(env),
 * checked before anything was connected; `early`: the connection made while stdin was read.
 */
export async function relay(raw: string, env: NodeJS.ProcessEnv = process.env, early?: Promise<AirlockClient>, pin: string | null = pinnedSocketProblem(env), deadline?: number): Promise<Printed> {
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
    // What is left of the call's budget (runClaudeCodeHook counts it from the start: reading
    // stdin and connecting come out of it too), so the hook answers before Claude Code's 600 s.
    const timeout = replyTimeout(env);
    const left = deadline === undefined ? timeout : Math.max(0, deadline - Date.now());
    const answer = decoded(await withTimeout(client.rpc.call('hook.claudeCode', params), left, timeout));
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
  // One deadline for the whole call, from the start (as the native client counts it).
  const timeout = replyTimeout(env);
  const deadline = Date.now() + timeout;
  try {
    out = await relay(await readStdin(Math.min(STDIN_TIMEOUT_MS, timeout)), env, early, pin, deadline);
  } catch (e) {
    out = ask(`Airlock hook failed (${(e as Error).message}); asking instead`);
  } finally {
    // Used and closed by relay(), or never used (an event after the tool ran, unreadable input).
    early?.then((c) => c.close(), () => undefined);
  }
  if (out.stdout.length) writeOut(out.stdout);
  process.exitCode = out.exitCode;
}
