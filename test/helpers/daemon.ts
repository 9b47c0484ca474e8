// Starts the real `airlock serve` as its own process in a temp AIRLOCK_HOME and hands
// out clients for both sockets. Every wait is bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RpcClient } from '../../main/client/rpc-client';

/** The compiled CLI entry next to this compiled helper (works for any AIRLOCK_OUT). */
export const CLI = path.join(__dirname, '..', '..', 'main', 'cli', 'index.js');
export const REPO = path.join(__dirname, '..', '..', '..');

export interface Daemon {
  home: string;
  proc: ChildProcess;
  requestSock: string;
  uiSock: string;
  agentSock: string;
  env: NodeJS.ProcessEnv;
  output(): string;
  ui(): Promise<RpcClient>;
  agent(): Promise<RpcClient>;
  /** SIGTERM and wait (bounded). */
  stop(): Promise<void>;
  /** SIGKILL, no cleanup: the crash case. */
  kill(): Promise<void>;
  /** Start again on the same home. */
  restart(): Promise<Daemon>;
}

/** Short temp dirs: Unix socket paths must stay under ~100 bytes. */
export function tempHome(prefix = 'al-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// The default deadline is for a condition that should hold soon: generous, because CI runs
// two test files at once on a busy 2-core machine, where a daemon or tmux can stall for
// seconds. A deadline that is itself the product's promise is checked apart, with its bound.
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000, stepMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; Date.now() < deadline && i < 100_000; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** `nodeArgs`: flags for node itself, before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
/** `cli`: another build's compiled CLI (a bench comparing against an older dist, BASELINE_DIST). */
export async function startDaemon(opts: { home?: string; args?: string[]; env?: NodeJS.ProcessEnv; nodeArgs?: string[]; cli?: string } = {}): Promise<Daemon> {
  const home = opts.home ?? tempHome();
  const env: NodeJS.ProcessEnv = { ...process.env, AIRLOCK_HOME: home, ...opts.env };
  delete env.SSH_AUTH_SOCK;
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.cli ?? CLI, 'serve', ...(opts.args ?? [])], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d.toString()));
  proc.stderr!.on('data', (d) => (out += d.toString()));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const d: Daemon = {
    home,
    proc,
    requestSock: path.join(home, 'request.sock'),
    uiSock: path.join(home, 'ui.sock'),
    agentSock: path.join(home, 'agent.sock'),
    env,
    output: () => out,
    ui: () => RpcClient.connect(d.uiSock),
    agent: () => RpcClient.connect(d.requestSock),
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
    async kill() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGKILL');
      await exited;
    },
    restart: () => startDaemon({ ...opts, home }),
  };
  try {
    await waitFor(() => /ready/.test(out) || proc.exitCode !== null, 'the daemon to print "ready"', 20_000);
  } catch (e) {
    proc.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n--- daemon output ---\n${out}`, { cause: e });
  }
  if (proc.exitCode !== null) throw new Error(`daemon exited with ${proc.exitCode}:\n${out}`);
  return d;
}
