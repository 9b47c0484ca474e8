// `airlock mcp -- SERVER…`: a stdio MCP proxy. The MCP client starts us instead of the
// server; we start the server and pass every message through in both directions, except
// those that wait for Airlock (core/classify/mcp-methods.ts): `tools/call`, the reads of
// resources and prompts (`resources/read`, `resources/subscribe`, `prompts/get`), any method
// we do not know, and the server's `sampling/createMessage`. A denied call gets a normal tool
// result with isError: true and the reason, so the model sees why and the session goes on;
// another denied request gets a JSON-RPC error with the reason.
//
// Both sides are untrusted: lines are capped, anything unparseable from the client is
// answered with a JSON-RPC parse error (never forwarded: the server must not interpret
// something we could not check), and client messages are forwarded as we parsed them
// (re-serialized), so the server cannot read a different call than the one approved. A
// message with a key twice, or keys that differ only in case, is refused in both directions
// (key-clash.ts): another parser could read it as a message nobody judged.
// Over 400 lines on purpose: one session's two message streams, with the state they share
// (requests in flight, cancellations, listed tools), read best in one place.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { AgentAnswer, AskParams } from '../../client';
import { lowersKnownTool } from '../../core/classify/mcp';
import { ASKED_SERVER_METHODS, clientMethodRule, oddSpellingOf, passedCarries } from '../../core/classify/mcp-methods';
import { clip, isObject, methodAsk, pickAnnotations, serialize, toolCallAsk, type ToolInfo } from './asks';
import { keyClash } from './key-clash';
import { LineSplitter } from './lines';

export const CLIENT_LINE_MAX = 4 * 1024 * 1024;
export const SERVER_LINE_MAX = 64 * 1024 * 1024;
const MAX_TOOLS = 10_000;
const REPORT_BATCH = 500;

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
const validId = (id: unknown): id is JsonId => typeof id === 'string' || typeof id === 'number' || id === null;
/** A request waiting for Airlock. */
interface Waiting {
  abort: AbortController;
  cancelled: boolean;
}
/** At most this many requests wait for Airlock at once (the daemon caps a task's prompts lower). */
const MAX_INFLIGHT = 256;
/** tools/list ids whose answers we wait for, at most. */
const MAX_REMEMBERED = 1024;
/** Requests forwarded and not answered yet, at most, each way (a peer that never answers must not grow the proxy: the oldest go). */
const MAX_AWAITED = 10_000;
/** Longest string id of a client request the proxy forwards. */
const MAX_ID_CHARS = 256;
/** JSON-RPC error code of a request Airlock denied (a tools/call gets an isError result instead). */
const DENIED = -32003;

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

export class McpProxy {
  private readonly tools = new Map<string, ToolInfo>();
  /** The task requests name: --task, or the one this session started (its token when there is one). */
  private taskRef: string | null;
  private ownTask: string | null = null;
  private taskStarting: Promise<void> | null = null;
  private readonly listRequests = new Set<string>();
  /**
   * Ids of the client's requests the server was sent and has not answered (how many with
   * that id), and of the server's requests the client was sent. An answer is passed on only
   * for one of these: a server answering a call that still waits for the human (an SDK
   * client numbers its requests, so ids are easy to guess) was handed to the client before
   * the human's answer, which the client then dropped as a duplicate (black box wave 14).
   */
  private readonly awaitingServer = new Map<string, number>();
  private readonly awaitingClient = new Map<string, number>();
  /** Requests waiting for Airlock (`c:ID` the client's, `s:ID` the server's): aborted when cancelled or their sender goes away. */
  private readonly inflight = new Map<string, Waiting>();
  /** Asked notifications so far (their key in `inflight`: they have no id). */
  private notifications = 0;
  private readonly name: string;
  private server: ChildProcess | null = null;
  private outputClosed = false;
  /** Reading paused until the other side drains (toServer, toClientRaw). */
  private clientPaused = false;
  private serverPaused = false;

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
        this.abortAll('s:');
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
        this.abortAll('c:');
        server.stdin!.end();
      });
      this.o.input.on('error', () => {
        this.abortAll('c:');
        server.stdin!.end();
      });
      this.o.output.on('error', () => {
        this.outputClosed = true;
        // Nothing more reaches the client: the server is read (and its output dropped) again.
        if (this.serverPaused) server.stdout!.resume();
        this.serverPaused = false;
      });
    });
  }

  /**
   * Forwards to the server, one line per message. A server that reads slower than the client
   * writes (a flood of notifications) must not grow the proxy: the client is not read until
   * the server has taken what waits for it.
   */
  private toServer(line: string): void {
    const s = this.server;
    if (!s?.stdin || s.stdin.destroyed) return;
    if (!s.stdin.write(line + '\n') && !this.clientPaused) {
      this.clientPaused = true;
      this.o.input.pause();
      s.stdin.once('drain', () => {
        this.clientPaused = false;
        this.o.input.resume();
      });
    }
  }

  /** Writes to the client; likewise, the server is not read until the client has taken its share. */
  private toClientRaw(data: string | Buffer): void {
    if (this.outputClosed) return;
    const out = this.server?.stdout;
    if (!this.o.output.write(data) && out && !this.serverPaused) {
      this.serverPaused = true;
      out.pause();
      this.o.output.once('drain', () => {
        this.serverPaused = false;
        out.resume();
      });
    }
  }

  private reply(msg: object): void {
    this.toClientRaw(JSON.stringify(msg) + '\n');
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
    // A key twice, or keys that differ only in case: the server may read another message than
    // the one judged here (key-clash.ts). Nothing of it is forwarded.
    const clash = keyClash(text);
    if (clash) return this.refuseClash(msg, clash, 'client');
    if (Array.isArray(msg)) {
      // JSON-RPC batch (MCP 2025-03-26): what is asked is asked one by one, the rest passes.
      const rest: unknown[] = [];
      for (const m of msg.slice(0, 1000)) if (this.routeClient(m) === 'pass') rest.push(m);
      if (rest.length) this.forward(rest, null);
      return;
    }
    if (this.routeClient(msg) === 'pass') this.forward(msg, isObject(msg) && validId(msg.id) ? msg.id : null);
  }

  /**
   * One client message: handled here (asked, refused) or 'pass' for the caller to forward.
   * A message with no method is an answer to the server's request and passes.
   */
  private routeClient(m: unknown): 'pass' | 'handled' {
    if (!isObject(m)) {
      this.reply({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'not a JSON-RPC message (Airlock MCP proxy); not forwarded' } });
      return 'handled';
    }
    const id: JsonId = validId(m.id) ? m.id : null;
    if (m.method === undefined) return this.takeAnswer(this.awaitingClient, m, 'client') ? 'pass' : 'handled';
    if (typeof m.method !== 'string') {
      if (m.id !== undefined) this.reply({ jsonrpc: '2.0', id, error: { code: -32600, message: 'method must be a string (Airlock MCP proxy); not forwarded' } });
      return 'handled';
    }
    // `Resources/Read`, `tools/call ` …: a lenient server may read them as the method they
    // spell. No client needs them: refused, never forwarded.
    const odd = oddSpellingOf(m.method);
    if (odd) {
      this.o.log(`refused ${JSON.stringify(clip(m.method, 80))} (spelled like ${odd})`);
      if (m.id !== undefined) this.reply({ jsonrpc: '2.0', id, error: { code: -32601, message: `method ${JSON.stringify(clip(m.method, 80))} is not ${odd}: refused by Airlock, not forwarded` } });
      return 'handled';
    }
    // An id is sent to the server as it is: a long one is data nobody records.
    if (typeof m.id === 'string' && m.id.length > MAX_ID_CHARS) {
      this.reply({ jsonrpc: '2.0', id: m.id, error: { code: -32600, message: `a request id longer than ${MAX_ID_CHARS} characters (Airlock MCP proxy); not forwarded` } });
      return 'handled';
    }
    // A cancellation of an id longer than any request forwarded names nothing: its id is only data.
    if (m.method === 'notifications/cancelled' && isObject(m.params) && typeof m.params.requestId === 'string' && m.params.requestId.length > MAX_ID_CHARS) return 'handled';
    const rule = clientMethodRule(m.method);
    // Plumbing whose params carry more than the protocol's own fields is asked (and recorded).
    const carries = rule === 'pass' ? passedCarries(m.method, m.params) : null;
    if (carries) this.o.log(`asking about ${clip(m.method, 80)}: ${carries}`);
    if (rule === 'pass' && !carries) {
      if (m.id !== undefined && this.inflight.has(`c:${idKey(m.id)}`)) {
        this.reply({ jsonrpc: '2.0', id, error: { code: -32600, message: 'a request with this id is already waiting for Airlock; not forwarded' } });
        return 'handled';
      }
      this.note(m);
      if (m.id !== undefined) this.expect(this.awaitingServer, m.id);
      return 'pass';
    }
    this.askSafely(m, m.method, rule === 'tools/call');
    return 'handled';
  }

  /**
   * A line from `from` whose keys clash (key-clash.ts): none of its messages goes on. A request
   * is answered with an error, and so is the request an answer of it was for (the other side
   * would wait for it for ever); a notification is dropped.
   */
  private refuseClash(msg: unknown, clash: string, from: 'client' | 'server'): void {
    const message = `${clash}: another JSON parser could read it as a different message; refused by Airlock, not forwarded`;
    this.o.log(`refused a message from the ${from}: ${message}`);
    const toSender = from === 'client' ? (x: object) => this.reply(x) : (x: object) => this.toServer(JSON.stringify(x));
    const toOther = from === 'client' ? (x: object) => this.toServer(JSON.stringify(x)) : (x: object) => this.reply(x);
    for (const m of (Array.isArray(msg) ? msg : [msg]).slice(0, 1000)) {
      if (!isObject(m) || !validId(m.id)) continue;
      if (m.method !== undefined) toSender({ jsonrpc: '2.0', id: m.id, error: { code: -32600, message } });
      else if (m.id !== null && this.takeAnswer(from === 'client' ? this.awaitingClient : this.awaitingServer, m, from)) {
        toOther({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: `the ${from}'s answer was refused: ${message}` } });
      }
    }
  }

  /** Remembers that `id` was sent to the other side, which now owes an answer. */
  private expect(awaiting: Map<string, number>, id: unknown): void {
    const k = idKey(id);
    if (!awaiting.has(k) && awaiting.size >= MAX_AWAITED) awaiting.delete(awaiting.keys().next().value!);
    awaiting.set(k, (awaiting.get(k) ?? 0) + 1);
  }

  /**
   * An answer (no method) from `from`: true when it answers a request `from` was sent and
   * has not answered yet (then it is taken off), or is an error with a null id (JSON-RPC's
   * answer to a request that could not be read). Anything else is dropped and logged.
   */
  private takeAnswer(awaiting: Map<string, number>, m: Record<string, unknown>, from: 'client' | 'server'): boolean {
    if (m.id === null && m.error !== undefined && m.result === undefined) return true;
    const k = idKey(m.id);
    const n = m.id === undefined ? undefined : awaiting.get(k);
    if (n !== undefined) {
      if (n > 1) awaiting.set(k, n - 1);
      else awaiting.delete(k);
      return true;
    }
    const waiting = from === 'server' && this.inflight.has(`c:${k}`) ? ' (that request still waits for Airlock; the server was never sent it)' : '';
    this.o.log(`dropped the ${from}'s answer to id ${clip(String(serialize(m.id) ?? m.id), 80)}: no request with that id was sent to the ${from} and left unanswered${waiting}`);
    return false;
  }

  /** One bad message must never take the proxy (and the MCP session) down. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.o.log(`dropped a message that broke the proxy: ${(e as Error).message}`);
    }
  }

  private askSafely(m: JsonRpcMessage, method: string, toolCall: boolean): void {
    this.onAsked(m, method, toolCall).catch((e: unknown) => {
      this.o.log(`${clip(method, 80)} failed inside the proxy: ${(e as Error).message}`);
      this.reply({ jsonrpc: '2.0', id: validId(m.id) ? m.id : null, error: { code: -32603, message: 'Airlock MCP proxy failed on this request; it was not forwarded' } });
    });
  }

  /** Forwards what we parsed; a message we cannot re-serialize is refused, never passed raw. */
  private forward(msg: unknown, id: JsonId): void {
    const line = serialize(msg);
    if (line !== null) this.toServer(line);
    else this.reply({ jsonrpc: '2.0', id, error: { code: -32600, message: 'message nested too deep (Airlock MCP proxy)' } });
  }

  /** Remembers what we must recognise in answers: tools/list ids; withdraws what the client cancelled. */
  private note(m: Record<string, unknown>): void {
    if (m.method === 'tools/list' && m.id !== undefined) {
      // A server that never answers must not make this set grow without end: the oldest go.
      if (this.listRequests.size >= MAX_REMEMBERED) this.listRequests.delete(this.listRequests.values().next().value!);
      this.listRequests.add(idKey(m.id));
    }
    if (m.method === 'notifications/cancelled' && isObject(m.params)) this.cancel(`c:${idKey(m.params.requestId)}`);
  }

  /**
   * A request still waiting for the human: its prompt is withdrawn (nobody waits for it now)
   * and it is never forwarded. Only requests in flight are remembered, so endless
   * cancellations of ids that are not cost nothing.
   */
  private cancel(key: string): void {
    const w = this.inflight.get(key);
    if (!w) return;
    w.cancelled = true;
    w.abort.abort();
  }

  /** The client (`c:`) or the server (`s:`) went away: no request of it is waiting any more, so no prompt of it stays. */
  private abortAll(side: 'c:' | 's:'): void {
    for (const [k, w] of this.inflight) if (k.startsWith(side) || (side === 'c:' && k.startsWith('n:'))) w.abort.abort();
  }

  /**
   * Starts waiting for Airlock on request `key`, before anything is awaited (so a cancellation
   * read right after finds it); null when that id is already waiting or too many are.
   */
  private begin(key: string): Waiting | null {
    if (this.inflight.has(key) || this.inflight.size >= MAX_INFLIGHT) return null;
    const w: Waiting = { abort: new AbortController(), cancelled: false };
    this.inflight.set(key, w);
    return w;
  }

  /** Asks Airlock; the answer, or why there is none (null answer: deny). */
  private async askAirlock(key: string, w: Waiting, build: () => AskParams): Promise<{ answer: AgentAnswer | null; failure: string }> {
    let answer: AgentAnswer | null = null;
    let failure = '';
    try {
      await this.ensureTask();
      answer = await this.o.ask(build(), w.abort.signal);
    } catch (e) {
      failure = (e as Error).message;
    } finally {
      if (this.inflight.get(key) === w) this.inflight.delete(key);
    }
    return { answer, failure };
  }

  private async onAsked(m: JsonRpcMessage, method: string, toolCall: boolean): Promise<void> {
    // A tools/call sent as a notification cannot be answered: not forwarded. Another method
    // without an id (a notification we do not know) is asked like a request; denied, it is dropped.
    if (m.id === undefined && toolCall) {
      this.o.log('dropped a tools/call without an id');
      return;
    }
    const notification = m.id === undefined;
    const id: JsonId = validId(m.id) ? m.id : null;
    const params = isObject(m.params) ? m.params : {};
    const tool = typeof params.name === 'string' ? params.name : null;
    if (!notification && !validId(m.id)) {
      this.reply({ jsonrpc: '2.0', id, error: { code: -32600, message: 'a request needs a string or number id (Airlock MCP proxy); not forwarded' } });
      return;
    }
    if (toolCall && !tool) {
      this.reply({ jsonrpc: '2.0', id, error: { code: -32602, message: 'tools/call needs params.name (Airlock MCP proxy)' } });
      return;
    }
    const where = () => ({ server: this.name, task: this.taskRef, cwd: this.o.cwd });
    let build: () => AskParams;
    if (toolCall) {
      const info = this.tools.get(tool!) ?? null;
      // Whatever else params holds (`_meta`, fields a lenient server may read) goes to the
      // server too, so it is recorded with the call (it went unrecorded: black box wave 14).
      const rest = Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'name' && k !== 'arguments'));
      const first = toolCallAsk(tool!, params.arguments, info, where(), rest);
      if ('refuse' in first) {
        this.reply({ jsonrpc: '2.0', id, error: { code: -32602, message: `${first.refuse} (Airlock MCP proxy); not forwarded` } });
        return;
      }
      build = () => toolCallAsk(tool!, params.arguments, info, where(), rest) as AskParams;
    } else {
      const first = methodAsk(method, m.params, where());
      if ('refuse' in first) {
        if (notification) this.o.log(`dropped a ${clip(method, 80)} notification: ${first.refuse}`);
        else this.reply({ jsonrpc: '2.0', id, error: { code: -32602, message: `${first.refuse} (Airlock MCP proxy); not forwarded` } });
        return;
      }
      build = () => methodAsk(method, m.params, where()) as AskParams;
    }
    const key = notification ? `n:${++this.notifications}` : `c:${idKey(m.id)}`;
    // An id the server still owes an answer for: its answer could not be told from this one's.
    const w = !notification && this.awaitingServer.has(idKey(m.id)) ? null : this.begin(key);
    if (!w) {
      if (notification) return this.o.log(`dropped a ${clip(method, 80)} notification: more than ${MAX_INFLIGHT} requests are waiting for Airlock`);
      const busy = this.inflight.has(key) ? 'already waiting for Airlock' : this.awaitingServer.has(idKey(m.id)) ? 'still waiting for the server' : null;
      this.reply({ jsonrpc: '2.0', id, error: { code: -32600, message: busy ? `a request with this id is ${busy}; not forwarded` : `more than ${MAX_INFLIGHT} requests are waiting for Airlock; not forwarded` } });
      return;
    }
    const { answer, failure } = await this.askAirlock(key, w, build);
    if (w.cancelled) return;
    if (answer?.decision === 'allow') {
      if (!notification) this.expect(this.awaitingServer, m.id);
      this.note(m as Record<string, unknown>);
      // What was asked about, and nothing beside it: a field next to params would reach the server unrecorded.
      const { jsonrpc, method: _method, params: _params } = m;
      this.forward({ ...(jsonrpc !== undefined ? { jsonrpc } : {}), ...(notification ? {} : { id: m.id }), method: _method, ...(_params !== undefined ? { params: _params } : {}) }, id);
      return;
    }
    if (notification) return this.o.log(`dropped a ${clip(method, 80)} notification: ${answer ? answer.reason : failure}`);
    const reason = `Denied by Airlock: ${answer ? `${answer.reason}${answer.event > 0 ? ` (event ${answer.event})` : ''}` : `Airlock could not be asked (${failure}); denied`}`;
    if (toolCall) this.reply({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: reason }], isError: true } });
    else this.reply({ jsonrpc: '2.0', id, error: { code: DENIED, message: reason } });
  }

  private onServerLine(buf: Buffer): void {
    // Every line is read: an answer passes only for a request the server was sent (and the
    // tools/list ones are learned from), the asked requests (sampling) wait for Airlock. What
    // passes goes byte for byte when nothing was held back. A line that is not JSON is
    // dropped: a strict client fails on it anyway, and a lenient one (Python's json and
    // pydantic read NaN and Infinity) could take it for a request nobody checked.
    if (buf.length === 0 || (buf.length < 16 && !buf.toString('utf8').trim())) return;
    let m: unknown;
    const text = buf.toString('utf8');
    try {
      m = JSON.parse(text) as unknown;
    } catch {
      this.o.log(`dropped a ${buf.length}-byte line from the server: could not parse it as JSON, so it was not checked`);
      return;
    }
    // Passed byte for byte, a key twice would reach a client that keeps the first one (an answer
    // to a call still waiting for the human, a sampling request read as a notification).
    const clash = keyClash(text);
    if (clash) return this.refuseClash(m, clash, 'server');
    const batch = Array.isArray(m);
    const all: unknown[] = Array.isArray(m) ? (m as unknown[]) : [m];
    const kept: unknown[] = [];
    for (const x of all) {
      if (!isObject(x) || (x.method !== undefined && typeof x.method !== 'string')) {
        this.o.log('dropped a message from the server that is not a JSON-RPC message');
        continue;
      }
      if (typeof x.method === 'string') {
        if (x.method === 'notifications/cancelled' && isObject(x.params)) this.cancel(`s:${idKey(x.params.requestId)}`);
        if (ASKED_SERVER_METHODS.has(x.method) || oddSpellingOf(x.method)) {
          this.guard(() => this.askServerSafely(x));
          continue;
        }
        if (x.id !== undefined) this.expect(this.awaitingClient, x.id);
        kept.push(x);
        continue;
      }
      if (!this.takeAnswer(this.awaitingServer, x, 'server')) continue;
      this.learnFrom(x);
      kept.push(x);
    }
    if (kept.length === all.length && all.length > 0) return this.toClient(buf);
    if (kept.length) this.toClient(Buffer.from(serialize(batch ? kept : kept[0]) ?? 'null'));
  }

  private toClient(buf: Buffer): void {
    this.toClientRaw(Buffer.concat([buf, Buffer.from('\n')]));
  }

  /** What a tools/list answer says about the tools, kept and reported. */
  private learnFrom(m: Record<string, unknown>): void {
    if (m.id === undefined || !this.listRequests.delete(idKey(m.id)) || !isObject(m.result) || !Array.isArray(m.result.tools)) return;
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

  private askServerSafely(m: Record<string, unknown>): void {
    this.onServerAsked(m, m.method as string).catch((e: unknown) => {
      this.o.log(`${clip(m.method as string, 80)} from the server failed inside the proxy: ${(e as Error).message}`);
      if (validId(m.id)) this.toServer(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'Airlock MCP proxy failed on this request; it was not forwarded' } }));
    });
  }

  /** The server's sampling request (or an odd spelling of one): asked, then passed to the client or refused. */
  private async onServerAsked(m: Record<string, unknown>, method: string): Promise<void> {
    const refuse = (message: string) => {
      if (validId(m.id)) this.toServer(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: DENIED, message } }));
    };
    if (oddSpellingOf(method)) return refuse(`method ${JSON.stringify(clip(method, 80))} is not ${oddSpellingOf(method)}: refused by Airlock, not forwarded`);
    if (!validId(m.id)) return refuse('a request needs a string or number id (Airlock MCP proxy)');
    const where = { server: this.name, task: this.taskRef, cwd: this.o.cwd };
    const first = methodAsk(method, m.params, where);
    if ('refuse' in first) return refuse(first.refuse);
    const key = `s:${idKey(m.id)}`;
    const w = this.begin(key);
    if (!w) return refuse('a request with this id is already waiting for Airlock, or too many are; not forwarded');
    const { answer, failure } = await this.askAirlock(key, w, () => methodAsk(method, m.params, { ...where, task: this.taskRef }) as AskParams);
    if (w.cancelled) return;
    if (answer?.decision === 'allow') {
      const line = serialize(m);
      if (line !== null) {
        this.expect(this.awaitingClient, m.id);
        this.toClient(Buffer.from(line));
      }
      return;
    }
    refuse(`Denied by Airlock: ${answer ? `${answer.reason}${answer.event > 0 ? ` (event ${answer.event})` : ''}` : `Airlock could not be asked (${failure}); denied`}`);
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
