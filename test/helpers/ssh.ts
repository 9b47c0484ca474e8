// Helpers for the SSH agent tests: an in-process agent with a scripted Asker, a bounded
// child-process runner (async: the agent runs in this same process), key fixtures made
// by ssh-keygen, and a raw agent-protocol client for byte-level tests.
import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { AgentAnswer, AgentRequest } from '../../main/contract/agent';
import type { KeyScope, RequestContext } from '../../main/core/ports';
import { airlockPaths } from '../../main/os/paths';
import { startSshAgent, type SshAgent } from '../../main/ssh';
import { FrameDecoder, frame } from '../../main/ssh/protocol';
import { tempHome } from './daemon';

export interface Asked {
  req: AgentRequest;
  ctx: RequestContext;
}

export interface TestAgent {
  home: string;
  sock: string;
  agent: SshAgent;
  asked: Asked[];
  /** Change the answer for the next requests. */
  decide: (req: AgentRequest, ctx: RequestContext) => 'allow' | 'deny';
  scope: Map<string, Set<string>>;
  /** Foreign peers the agent refused and handed over for recording (socket path, uid). */
  foreign: { sock: string; uid: number }[];
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export async function startTestAgent(
  opts: { upstream?: string; knownHostsFiles?: string[]; decide?: TestAgent['decide']; passphrase?: string; home?: string } = {},
): Promise<TestAgent> {
  const home = opts.home ?? tempHome('als-');
  const paths = airlockPaths({ AIRLOCK_HOME: home });
  const asked: Asked[] = [];
  const scope = new Map<string, Set<string>>();
  const keyScope: KeyScope = { keysVisibleTo: (task) => scope.get(task) ?? null };
  let n = 0;
  const t: TestAgent = {
    home,
    sock: paths.agentSock,
    agent: undefined as unknown as SshAgent,
    asked,
    decide: opts.decide ?? (() => 'allow'),
    scope,
    foreign: [],
    env: { ...process.env, SSH_AUTH_SOCK: paths.agentSock, HOME: home, GNUPGHOME: home },
    async close() {
      await t.agent.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
  t.agent = await startSshAgent({
    paths,
    keyScope,
    upstream: opts.upstream ?? null,
    knownHostsFiles: opts.knownHostsFiles ?? [],
    passphrase: opts.passphrase,
    log: () => {},
    onForeignPeer: (sock, cred) => t.foreign.push({ sock, uid: cred.uid }),
    asker: {
      async ask(req, ctx): Promise<AgentAnswer> {
        asked.push({ req, ctx });
        const decision = t.decide(req, ctx);
        return { decision, reason: `test ${decision}`, event: ++n };
      },
    },
  });
  return t;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command with a hard timeout; never throws for a non-zero exit. */
export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number; cwd?: string } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(
      cmd,
      args,
      { env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 20_000, cwd: opts.cwd, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : null) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    else child.stdin!.end();
  });
}

export const KEY_TYPES: { label: string; args: string[] }[] = [
  { label: 'ed25519', args: ['-t', 'ed25519'] },
  { label: 'ecdsa-p256', args: ['-t', 'ecdsa', '-b', '256'] },
  { label: 'ecdsa-p384', args: ['-t', 'ecdsa', '-b', '384'] },
  { label: 'ecdsa-p521', args: ['-t', 'ecdsa', '-b', '521'] },
  { label: 'rsa', args: ['-t', 'rsa', '-b', '2048'] },
];

/** ssh-keygen a key into dir; returns the private key path. */
export async function makeKey(dir: string, label: string, args: string[], passphrase = '', extra: string[] = []): Promise<string> {
  const file = path.join(dir, `id_${label}`);
  const r = await run('ssh-keygen', ['-q', ...args, '-N', passphrase, '-C', `test-${label}`, '-f', file, ...extra]);
  if (r.code !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
  return file;
}

export function publicBlobOfFile(pubFile: string): Buffer {
  return Buffer.from(fs.readFileSync(pubFile, 'utf8').trim().split(/\s+/)[1]!, 'base64');
}

/** A raw agent-protocol client: send bodies, read response bodies, in order. */
export class RawAgentClient {
  private readonly decoder = new FrameDecoder();
  private readonly bodies: Buffer[] = [];
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      for (const f of this.decoder.push(d)) if (f.kind === 'message') this.bodies.push(f.body);
      const w = this.waiters;
      this.waiters = [];
      for (const x of w) x();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      const w = this.waiters;
      this.waiters = [];
      for (const x of w) x();
    });
  }

  static connect(sock: string): Promise<RawAgentClient> {
    return new Promise((resolve, reject) => {
      const s = net.createConnection(sock);
      s.once('connect', () => resolve(new RawAgentClient(s)));
      s.once('error', reject);
    });
  }

  send(body: Buffer): void {
    this.socket.write(frame(body));
  }

  writeRaw(b: Buffer): void {
    this.socket.write(b);
  }

  // Generous defaults: an answer that is merely slow on a loaded CI machine is not a failure.
  async read(timeoutMs = 30_000): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    while (this.bodies.length === 0) {
      if (this.closed) throw new Error('agent closed the connection');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for an agent answer');
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    return this.bodies.shift()!;
  }

  async request(body: Buffer, timeoutMs = 30_000): Promise<Buffer> {
    this.send(body);
    return this.read(timeoutMs);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Starts a long-running child and returns it with its output so far (for sshd, ssh-agent). */
export function startChild(cmd: string, args: string[], env?: NodeJS.ProcessEnv) {
  const proc = spawn(cmd, args, { env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d.toString()));
  proc.stderr!.on('data', (d) => (out += d.toString()));
  return {
    proc,
    output: () => out,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    },
  };
}
