// A hostile MCP server the test plays itself: `airlock mcp --name NAME -- node -e PUPPET CTL`
// starts a tiny server that copies its stdin (what the proxy forwards) to a Unix socket the
// test listens on, and that socket's lines to its stdout (what the proxy reads from "the
// server"). So a test can answer, lie, interleave and time every server message, while the
// client side is raw JSON lines on the proxy's stdio, as any MCP client would write them.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { AIRLOCK_BIN } from './blackbox';
import { waitFor } from './daemon';

const PUPPET = `const s=require('net').createConnection(process.argv[1]);
process.stdin.on('data',d=>s.write(d));process.stdin.on('end',()=>{s.end();setTimeout(()=>process.exit(0),100)});
s.on('data',d=>process.stdout.write(d));s.on('close',()=>process.exit(0));s.on('error',()=>process.exit(1));`;

export interface McpMsg {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  result?: { isError?: boolean; content?: { type: string; text?: string }[]; [k: string]: unknown };
  error?: { code: number; message: string };
}

/** Newline-framed JSON: every line as text, and as parsed (arrays stay arrays). */
class LineLog {
  readonly raw: string[] = [];
  readonly msgs: unknown[] = [];
  private buf = '';
  feed(d: Buffer): void {
    this.buf += d.toString();
    for (let i = this.buf.indexOf('\n'); i >= 0; i = this.buf.indexOf('\n')) {
      const l = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      if (!l.trim()) continue;
      this.raw.push(l);
      try {
        this.msgs.push(JSON.parse(l));
      } catch {
        this.msgs.push({ unparsable: l });
      }
    }
  }
  /** Every message, batches opened up. */
  flat(): McpMsg[] {
    return this.msgs.flatMap((m) => (Array.isArray(m) ? m : [m])) as McpMsg[];
  }
}

export class PuppetProxy {
  /** What reached the client (the proxy's stdout). */
  readonly client = new LineLog();
  /** What reached the server (forwarded by the proxy). */
  readonly server = new LineLog();
  err = '';
  readonly exit: Promise<number | null>;
  private constructor(
    private readonly p: ChildProcess,
    private readonly sock: net.Socket,
    private readonly listener: net.Server,
  ) {
    p.stdout!.on('data', (x: Buffer) => this.client.feed(x));
    p.stderr!.on('data', (x: Buffer) => (this.err += x.toString()));
    p.stdin!.on('error', () => undefined);
    sock.on('data', (x: Buffer) => this.server.feed(x));
    sock.on('error', () => undefined);
    this.exit = new Promise((r) => p.once('exit', (c) => r(c)));
  }

  /** Starts the proxy (`airlock mcp --name NAME …`) in front of a puppet server; `dir` holds the control socket. */
  static async start(env: NodeJS.ProcessEnv, name: string, dir: string, extra: string[] = []): Promise<PuppetProxy> {
    const ctl = path.join(dir, `${name.slice(0, 20)}.ctl`);
    fs.rmSync(ctl, { force: true });
    let accepted: (s: net.Socket) => void = () => undefined;
    const got = new Promise<net.Socket>((r) => (accepted = r));
    const listener = net.createServer((s) => accepted(s));
    await new Promise<void>((r) => listener.listen(ctl, r));
    const p = spawn(process.execPath, [AIRLOCK_BIN, 'mcp', '--name', name, ...extra, '--', process.execPath, '-e', PUPPET, ctl], { env, cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    const sock = await Promise.race([got, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('the puppet server never connected')), 20_000))]);
    return new PuppetProxy(p, sock, listener);
  }

  /** A line from the client (object → JSON; string → as it is). */
  send(m: unknown): void {
    this.p.stdin!.write((typeof m === 'string' ? m : JSON.stringify(m)) + '\n');
  }
  /** A line from the server. */
  serverSays(m: unknown): void {
    this.sock.write((typeof m === 'string' ? m : JSON.stringify(m)) + '\n');
  }
  /** The answer (result or error) the client got for `id`. */
  async answer(id: unknown, timeoutMs = 20_000): Promise<McpMsg> {
    const is = (m: McpMsg) => m.id === id && ('result' in m || 'error' in m);
    await waitFor(() => this.client.flat().some(is), `the client's answer to ${JSON.stringify(id)}; stderr: ${this.err}`, timeoutMs);
    return this.client.flat().find(is)!;
  }
  answers(id: unknown): McpMsg[] {
    return this.client.flat().filter((m) => m.id === id && ('result' in m || 'error' in m));
  }
  /** The message the server got that `pred` accepts. */
  async atServer(pred: (m: McpMsg) => boolean, what: string, timeoutMs = 20_000): Promise<McpMsg> {
    await waitFor(() => this.server.flat().some(pred), `${what} at the server; stderr: ${this.err}`, timeoutMs);
    return this.server.flat().find(pred)!;
  }
  /** initialize + initialized + tools/list, the server (the test) answering with `tools`. */
  async init(tools: object[]): Promise<void> {
    this.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { sampling: {}, roots: {} }, clientInfo: { name: 'bb14', version: '1' } } });
    const i = await this.atServer((m) => m.method === 'initialize', 'initialize');
    this.serverSays({ jsonrpc: '2.0', id: i.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'puppet', version: '1' } } });
    await this.answer('init');
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    this.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    const l = await this.atServer((m) => m.method === 'tools/list', 'tools/list');
    this.serverSays({ jsonrpc: '2.0', id: l.id, result: { tools } });
    await this.answer('list');
  }
  async close(): Promise<void> {
    this.p.stdin!.end();
    await Promise.race([this.exit, new Promise((r) => setTimeout(r, 5000))]);
    this.p.kill('SIGKILL');
    this.sock.destroy();
    this.listener.close();
  }
}
