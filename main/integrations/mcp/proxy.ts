// `airlock mcp -- SERVER…`: a stdio MCP proxy. The MCP client starts us instead of the
// server; we start the server and pass every message through in both directions, except
// `tools/call`, which waits for Airlock. A denied call gets a normal tool result with
// isError: true and the reason, so the model sees why and the session goes on.
//
// Both sides are untrusted: lines are capped, anything unparseable from the client is
// answered with a JSON-RPC parse error (never forwarded: the server must not interpret
// something we could not check), and client messages are forwarded as we parsed them
// (re-serialized), so the server cannot read a different call than the one approved.
// Over 400 lines on purpose: one session's two message streams, with the state they share
// (calls in flight, cancellations, listed tools), read best in one place.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { AgentAnswer, AskParams } from '../../client';
import { lowersKnownTool, mcpAction, mcpResources, type ToolAnnotations } from '../../core/classify/mcp';
import { LineSplitter } from './lines';

export const CLIENT_LINE_MAX = 4 * 1024 * 1024;
export const SERVER_LINE_MAX = 64 * 1024 * 1024;
const MAX_TOOLS = 10_000;
/** Tool arguments up to this size travel whole (grant conditions check them); bigger ones are cut and marked. */
const FULL_ARGS_BYTES = 256 * 1024;
const REPORT_BATCH = 500;

/** What the proxy knows of one tool from tools/list. */
interface ToolInfo {
  annotations: ToolAnnotations | null;
  description: string | null;
}

/** The proxy's MCP session as an Airlock task, and its reports to the daemon. */
export interface McpSessionHooks {
  /** Starts the session's task (`mcp: NAME`); returns what requests must name (the token when there is one). */
  startTask(name: string, cwd: string): Promise<{ task: string; token?: string }>;
  endTask(task: string): Promise<void>;
  /** Reports what tools/list said, so the Claude Code hook can use it (request.sock `mcp.tools`). */
  learn(server: string, tools: { name: string; annotations: Record<string, unknown> | null; description: string | null }[]): Promise<void>;
}

export interface McpProxyOptions {
  serverArgv: string[];
  /** Label of this server in requests (`NAME/TOOL`); grants match on it. */
  name?: string;
  /** Join this task (`--task`); without it the proxy starts its own task when it has `session`. */
  task?: string;
  /** Task start/end and tools/list reports; absent in tests that only exercise framing. */
  session?: McpSessionHooks;
  cwd: string;
  env: NodeJS.ProcessEnv;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /**
   * How to ask Airlock (the CLI passes a request.sock client). `signal` fires when the client
   * cancelled the call or went away: the ask must then stop waiting and withdraw its prompt
   * (the CLI closes that call's connection, which the daemon answers as a requester gone).
   */
  ask: (req: AskParams, signal?: AbortSignal) => Promise<AgentAnswer>;
  log: (line: string) => void;
}

export type ProxyExit = { code: number } | { signal: NodeJS.Signals };

type JsonId = string | number | null;
interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

const idKey = (id: unknown) => `${typeof id}:${String(id)}`;
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const validId = (id: unknown): id is JsonId => typeof id === 'string' || typeof id === 'number' || id === null;
const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** JSON.stringify throws RangeError on values nested thousands deep (they parse fine). */
function serialize(v: unknown): string | null {
  try {
    return JSON.stringify(v);
  } catch {
    return null;
  }
}

/** A label from the server command: `npx -y @scope/server-github` → `server-github`. */
export function defaultServerName(argv: string[]): string {
  const runners = new Set(['npx', 'node', 'nodejs', 'uvx', 'uv', 'python', 'python3', 'bunx', 'bun', 'deno', 'pnpm', 'yarn', 'docker', 'run', 'exec', 'dlx', 'tool']);
  for (const a of argv) {
    if (a.startsWith('-')) continue;
    const base = path.basename(a);
    if (runners.has(base)) continue;
    return base.replace(/@[^@/]*$/, '').replace(/\.(m?js|cjs|ts|py)$/, '').replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64) || 'mcp';
  }
  return 'mcp';
}

/** Only the MCP annotation fields we use, each a boolean or a short title. */
function pickAnnotations(a: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['readOnlyHint', 'destructiveHint', 'openWorldHint', 'idempotentHint']) if (typeof a[k] === 'boolean') out[k] = a[k];
  if (typeof a.title === 'string') out.title = clip(a.title, 200);
  return out;
}

/** Cuts long strings in tool arguments so the request stays small; keeps the shape. */
function capValue(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return v.length > 4096 ? `${v.slice(0, 4096)}…[${v.length - 4096} more characters]` : v;
  if (Array.isArray(v)) return depth > 4 ? '[array]' : v.slice(0, 64).map((x) => capValue(x, depth + 1));
  if (isObject(v)) return depth > 4 ? '[object]' : Object.fromEntries(Object.entries(v).slice(0, 64).map(([k, x]) => [k.slice(0, 256), capValue(x, depth + 1)]));
  return v;
}

export class McpProxy {
  private readonly tools = new Map<string, ToolInfo>();
  /** The task requests name: --task, or the one this session started (its token when there is one). */
  private taskRef: string | null;
  private ownTask: string | null = null;
  private taskStarting: Promise<void> | null = null;
  private readonly listRequests = new Set<string>();
  private readonly cancelled = new Set<string>();
  /** Calls waiting for Airlock, by id: aborted when the client cancels them or goes away. */
  private readonly inflight = new Map<string, AbortController>();
  private readonly name: string;
  private server: ChildProcess | null = null;
  private outputClosed = false;

  constructor(private readonly o: McpProxyOptions) {
    this.name = o.name ?? defaultServerName(o.serverArgv);
    this.taskRef = o.task ?? null;
  }

  /** The task of this session: started once (`mcp: NAME`); retried on the next call if the daemon was down. */
  private ensureTask(): Promise<void> {
    if (this.taskRef || !this.o.session) return Promise.resolve();
    this.taskStarting ??= this.o.session.startTask(`mcp: ${this.name}`, this.o.cwd).then(
      (r) => {
        this.ownTask = r.task;
        this.taskRef = r.token ?? r.task;
      },
      (e: unknown) => {
        this.taskStarting = null;
        this.o.log(`could not start a task for this session (${(e as Error).message}); calls go without one until it works`);
      },
    );
    return this.taskStarting;
  }

  /** Ends the task this session started (not a --task it joined). Bounded: the session is over. */
  private async endOwnTask(): Promise<void> {
    await this.taskStarting;
    const t = this.ownTask;
    if (!t || !this.o.session) return;
    this.ownTask = null;
    await Promise.race([this.o.session.endTask(this.taskRef ?? t).catch((e: unknown) => this.o.log(`could not end task ${t}: ${(e as Error).message}`)), new Promise((r) => setTimeout(r, 3000).unref())]);
  }

  run(): Promise<ProxyExit> {
    return new Promise((resolve) => {
      const [cmd, ...args] = this.o.serverArgv;
      let server: ChildProcess;
      try {
        server = spawn(cmd, args, { cwd: this.o.cwd, env: this.o.env, stdio: ['pipe', 'pipe', 'inherit'] });
      } catch (e) {
        this.o.log(`cannot start the MCP server ${cmd}: ${(e as Error).message}`);
        resolve({ code: 127 });
        return;
      }
      this.server = server;
      void this.ensureTask();
      let exit: ProxyExit | null = null;
      let stdoutDone = false;
      let finished = false;
      const finish = () => {
        if (!exit || !stdoutDone || finished) return;
        finished = true;
        const e = exit;
        void this.endOwnTask().then(() => resolve(e));
      };
      server.once('error', (e: NodeJS.ErrnoException) => {
        this.o.log(`cannot start the MCP server ${cmd}: ${e.message}`);
        exit = { code: e.code === 'ENOENT' ? 127 : 126 };
        stdoutDone = true;
        finish();
      });
      server.once('exit', (code, signal) => {
        exit = signal ? { signal } : { code: code ?? 1 };
        finish();
      });
      server.stdin!.on('error', () => undefined); // server gone: its exit decides
      const fromServer = new LineSplitter(SERVER_LINE_MAX, (l) => this.guard(() => this.onServerLine(l)), (n) => this.o.log(`dropped a ${n}-byte message from the server (over ${SERVER_LINE_MAX} bytes)`));
      server.stdout!.on('data', (d: Buffer) => fromServer.push(d));
      server.stdout!.on('end', () => {
        fromServer.end();
        stdoutDone = true;
        finish();
      });
      const fromClient = new LineSplitter(CLIENT_LINE_MAX, (l) => this.guard(() => this.onClientLine(l)), (n) => {
        this.o.log(`refused a ${n}-byte message from the client (over ${CLIENT_LINE_MAX} bytes)`);
        this.reply({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `message larger than ${CLIENT_LINE_MAX} bytes` } });
      });
      this.o.input.on('data', (d: Buffer | string) => fromClient.push(typeof d === 'string' ? Buffer.from(d) : d));
      this.o.input.on('end', () => {
        fromClient.end();
        this.abortAll();
        server.stdin!.end();
      });
      this.o.input.on('error', () => {
        this.abortAll();
        server.stdin!.end();
      });
      this.o.output.on('error', () => {
        this.outputClosed = true;
      });
    });
  }

  /** Forwards to the server, one line per message. */
  private toServer(line: string): void {
    const s = this.server;
    if (s?.stdin && !s.stdin.destroyed) s.stdin.write(line + '\n');
  }

  private reply(msg: object): void {
    if (this.outputClosed) return;
    this.o.output.write(JSON.stringify(msg) + '\n');
  }

  private onClientLine(buf: Buffer): void {
    const text = buf.toString('utf8');
    if (!text.trim()) return;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      this.reply({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error (Airlock MCP proxy)' } });
      return;
    }
    if (Array.isArray(msg)) {
      // JSON-RPC batch (MCP 2025-03-26): calls are checked one by one, the rest passes.
      const rest: unknown[] = [];
      for (const m of msg.slice(0, 1000)) {
        if (isObject(m) && m.method === 'tools/call') this.callSafely(m);
        else {
          this.note(m);
          rest.push(m);
        }
      }
      if (rest.length) this.forward(rest, null);
      return;
    }
    if (isObject(msg) && msg.method === 'tools/call') {
      this.callSafely(msg);
      return;
    }
    this.note(msg);
    this.forward(msg, isObject(msg) && validId(msg.id) ? msg.id : null);
  }

  /** One bad message must never take the proxy (and the MCP session) down. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.o.log(`dropped a message that broke the proxy: ${(e as Error).message}`);
    }
  }

  private callSafely(m: JsonRpcMessage): void {
    this.onToolsCall(m).catch((e: unknown) => {
      this.o.log(`tools/call failed inside the proxy: ${(e as Error).message}`);
      this.reply({ jsonrpc: '2.0', id: validId(m.id) ? m.id : null, error: { code: -32603, message: 'Airlock MCP proxy failed on this call; it was not forwarded' } });
    });
  }

  /** Forwards what we parsed; a message we cannot re-serialize is refused, never passed raw. */
  private forward(msg: unknown, id: JsonId): void {
    const line = serialize(msg);
    if (line !== null) this.toServer(line);
    else this.reply({ jsonrpc: '2.0', id, error: { code: -32600, message: 'message nested too deep (Airlock MCP proxy)' } });
  }

  /** Remembers what we must recognise in answers: tools/list ids, cancellations. */
  private note(m: unknown): void {
    if (!isObject(m)) return;
    if (m.method === 'tools/list' && m.id !== undefined) this.listRequests.add(idKey(m.id));
    if (m.method === 'notifications/cancelled' && isObject(m.params)) {
      const key = idKey(m.params.requestId);
      this.cancelled.add(key);
      // A call still waiting for the human: its prompt is withdrawn (nobody waits for it now).
      this.inflight.get(key)?.abort();
    }
  }

  /** The client went away: no call of it is waiting any more, so no prompt of it stays. */
  private abortAll(): void {
    for (const c of this.inflight.values()) c.abort();
  }

  private async onToolsCall(m: JsonRpcMessage): Promise<void> {
    if (m.id === undefined) {
      // A call sent as a notification cannot be answered; it is not forwarded either.
      this.o.log('dropped a tools/call without an id');
      return;
    }
    const id: JsonId = validId(m.id) ? m.id : null;
    const params = isObject(m.params) ? m.params : {};
    const tool = typeof params.name === 'string' ? params.name : null;
    if (!tool || !validId(m.id)) {
      this.reply({ jsonrpc: '2.0', id, error: { code: -32602, message: 'tools/call needs params.name (Airlock MCP proxy)' } });
      return;
    }
    const info = this.tools.get(tool) ?? null;
    // The same mapping as the hook's and the daemon's (core/classify/mcp.ts).
    const { action } = mcpAction(tool, info, params.arguments);
    const resources = mcpResources(params.arguments, this.o.cwd);
    const argsText = serialize(capValue(params.arguments ?? {})) ?? '';
    // Arguments travel whole when they fit, so a grant condition checks what the server will
    // get; bigger ones are cut and marked, and then no condition can allow them.
    const full = serialize(params.arguments ?? {});
    const whole = full !== null && Buffer.byteLength(full) <= FULL_ARGS_BYTES;
    await this.ensureTask();
    const req: AskParams = {
      source: 'mcp',
      tool: clip(`${this.name}/${tool}`, 256),
      action,
      ...(resources.length ? { resource: resources[0], resources } : {}),
      summary: clip(`${this.name}/${tool} ${argsText}`, 2000),
      args: {
        arguments: whole ? (params.arguments ?? {}) : capValue(params.arguments ?? {}),
        ...(whole ? {} : { truncated: true }),
        ...(info ? { annotations: info.annotations ?? {}, ...(info.description ? { description: clip(info.description, 1000) } : {}) } : { listed: false }),
      },
      ...(this.taskRef ? { task: this.taskRef } : {}),
      cwd: this.o.cwd,
    };
    let answer: AgentAnswer | null = null;
    let failure = '';
    const key = idKey(m.id);
    const abort = new AbortController();
    this.inflight.set(key, abort);
    if (this.cancelled.has(key)) abort.abort();
    try {
      answer = await this.o.ask(req, abort.signal);
    } catch (e) {
      failure = (e as Error).message;
    } finally {
      if (this.inflight.get(key) === abort) this.inflight.delete(key);
    }
    if (this.cancelled.has(key)) {
      this.cancelled.delete(key);
      return;
    }
    if (answer?.decision === 'allow') {
      this.forward(m, id);
      return;
    }
    const reason = answer ? `${answer.reason}${answer.event > 0 ? ` (event ${answer.event})` : ''}` : `Airlock could not be asked (${failure}); denied`;
    this.reply({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: `Denied by Airlock: ${reason}` }], isError: true },
    });
  }

  private onServerLine(buf: Buffer): void {
    // Server output passes byte for byte; we only read tools/list answers on the side.
    if (this.listRequests.size > 0 && buf.length < 16 * 1024 * 1024) {
      try {
        const m = JSON.parse(buf.toString('utf8')) as unknown;
        if (isObject(m) && m.id !== undefined && this.listRequests.delete(idKey(m.id)) && isObject(m.result) && Array.isArray(m.result.tools)) {
          const seen: { name: string; annotations: Record<string, unknown> | null; description: string | null }[] = [];
          for (const t of m.result.tools.slice(0, MAX_TOOLS)) {
            if (isObject(t) && typeof t.name === 'string' && t.name.length <= 256 && (this.tools.size < MAX_TOOLS || this.tools.has(t.name))) {
              const annotations = isObject(t.annotations) ? pickAnnotations(t.annotations) : null;
              const description = typeof t.description === 'string' ? clip(t.description, 1000) : null;
              // A later entry (this list or a later one) cannot make a known tool less risky.
              const old = this.tools.get(t.name);
              if (old && lowersKnownTool(t.name, old, { annotations, description })) continue;
              this.tools.set(t.name, { annotations, description });
              seen.push({ name: t.name, annotations, description });
            }
          }
          this.report(seen);
        }
      } catch {
        /* not ours to judge */
      }
    }
    if (this.outputClosed) return;
    this.o.output.write(Buffer.concat([buf, Buffer.from('\n')]));
  }

  /** Tells the daemon what this server declared, in batches; failures only cost the hook its knowledge. */
  private report(tools: { name: string; annotations: Record<string, unknown> | null; description: string | null }[]): void {
    const s = this.o.session;
    if (!s || tools.length === 0) return;
    void (async () => {
      for (let i = 0; i < tools.length; i += REPORT_BATCH) {
        try {
          await s.learn(this.name, tools.slice(i, i + REPORT_BATCH));
        } catch (e) {
          this.o.log(`could not report tools/list to Airlock: ${(e as Error).message}`);
          return;
        }
      }
    })();
  }

  /** Passes a signal to the server (the CLI forwards SIGTERM/SIGINT/SIGHUP). */
  signal(sig: NodeJS.Signals): void {
    if (this.server && this.server.exitCode === null && this.server.signalCode === null) this.server.kill(sig);
  }
}
