// Tools for the black-box tests (test/integration/blackbox-*.test.ts): they drive Airlock only
// through what DESIGN.md and the README promise — `airlock …` as a process, raw JSON-RPC
// lines on the documented sockets — never through the implementation's own modules, so a
// renamed method or field is caught the way a user's script would catch it.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startDaemon, waitFor, type Daemon } from './daemon';

/** bin/airlock, the documented way to run the CLI inside the repository. */
export const AIRLOCK_BIN = path.join(__dirname, '..', '..', '..', 'bin', 'airlock');

export interface RpcMsg {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** One connection speaking newline-delimited JSON-RPC 2.0, as any language's client would. */
export class Wire {
  private buf = '';
  private next = 1;
  private readonly waiting = new Map<number | string, (m: RpcMsg) => void>();
  /** Every message that is not the answer to one of `call`'s ids (notifications, stray errors). */
  readonly other: RpcMsg[] = [];
  closed = false;
  private constructor(private readonly s: net.Socket) {
    s.on('data', (b) => {
      this.buf += b.toString();
      for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        const m = JSON.parse(line) as RpcMsg;
        const w = m.id !== undefined && m.id !== null ? this.waiting.get(m.id) : undefined;
        if (w) w(m);
        else this.other.push(m);
      }
    });
    s.on('close', () => (this.closed = true));
    s.on('error', () => (this.closed = true));
  }
  static open(sock: string): Promise<Wire> {
    return new Promise((resolve, reject) => {
      const s = net.createConnection(sock, () => resolve(new Wire(s)));
      s.once('error', reject);
    });
  }
  /** Writes raw text (bad input tests). */
  raw(text: string): void {
    this.s.write(text);
  }
  /** Waits for a message in `other` that `pred` accepts (bounded). */
  async expectOther(pred: (m: RpcMsg) => boolean, what: string, timeoutMs = 30_000): Promise<RpcMsg> {
    let found: RpcMsg | undefined;
    await waitFor(() => (found = this.other.find(pred)) !== undefined, what, timeoutMs);
    return found!;
  }
  call(method: string, params?: unknown, timeoutMs = 20_000): Promise<RpcMsg> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => (this.waiting.delete(id), reject(new Error(`${method}: no answer in ${timeoutMs} ms`))), timeoutMs);
      this.waiting.set(id, (m) => (clearTimeout(t), this.waiting.delete(id), resolve(m)));
      this.s.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }) + '\n');
    });
  }
  /** A call that must succeed; its result. */
  async ok<T = Record<string, unknown>>(method: string, params?: unknown, timeoutMs?: number): Promise<T> {
    const m = await this.call(method, params, timeoutMs);
    if (m.error) throw new Error(`${method} failed: ${JSON.stringify(m.error)}`);
    return m.result as T;
  }
  close(): void {
    this.s.destroy();
  }
}

export interface Pending {
  id: string;
  task: unknown;
  source: string;
  tool: string;
  action: string;
  resource: unknown;
  resources?: unknown[];
  summary: string;
  args: unknown;
  risk: { level: string; reasons: unknown[] };
  process?: { pid: number; uid: number; exe: string; argv: string[]; tree: unknown[] };
  ssh?: { key: string; fingerprint: string; purpose: string; user?: string; host?: string; namespace?: string; forwarded: boolean };
  createdAt: unknown;
  expiresAt: unknown;
}

/** Waits until `pending.list` holds a prompt `pred` accepts, and returns it. */
export async function waitPending(ui: Wire, pred: (p: Pending) => boolean, what: string, timeoutMs = 30_000): Promise<Pending> {
  let found: Pending | undefined;
  await waitFor(
    async () => {
      found = (await pendingList(ui)).find(pred);
      return found !== undefined;
    },
    what,
    timeoutMs,
    50,
  );
  return found!;
}

/** Every prompt now waiting: `pending.list` answers `{prompts: [...]}`. */
export async function pendingList(ui: Wire): Promise<Pending[]> {
  const r = await ui.ok<unknown>('pending.list');
  return (Array.isArray(r) ? r : ((r as { prompts?: Pending[] }).prompts ?? [])) as Pending[];
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `airlock ARGS…` (bin/airlock) to completion, bounded; never throws on a non-zero exit. */
export function airlock(args: string[], opts: { env: NodeJS.ProcessEnv; input?: string; cwd?: string; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [AIRLOCK_BIN, ...args], { env: opts.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d.toString()));
    p.stderr.on('data', (d) => (stderr += d.toString()));
    const t = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    p.on('error', (e) => (clearTimeout(t), reject(e)));
    p.on('close', (code, signal) => (clearTimeout(t), resolve({ code, signal, stdout, stderr })));
    p.stdin.on('error', () => undefined);
    p.stdin.end(opts.input ?? '');
  });
}

/**
 * One black-box file's set-up: a temp root, the real daemon with its home in it (`<root>/h`,
 * which does not exist yet: the daemon creates it, 0700), a raw ui.sock connection.
 */
export interface BlackboxSession {
  root: string;
  d: Daemon;
  ui: Wire;
}

export async function openBlackboxSession(prefix: string): Promise<BlackboxSession> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const d = await startDaemon({ home: path.join(root, 'h') });
  return { root, d, ui: await Wire.open(d.uiSock) };
}

/** Closes what was opened and removes the root; safe after a set-up that failed half way. */
export async function closeBlackboxSession(s: Partial<BlackboxSession>): Promise<void> {
  s.ui?.close();
  await s.d?.stop();
  if (s.root) fs.rmSync(s.root, { recursive: true, force: true });
}
