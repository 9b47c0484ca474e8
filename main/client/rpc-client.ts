// A line-delimited JSON-RPC 2.0 client over a Unix socket. Dependency-free on purpose:
// the Claude Code hook loads it on every tool call, so start-up cost matters.
// `import x = require()`: no esbuild namespace copy in the hook bundle (see integrations/claude-code/hook.ts).
import net = require('node:net');
import { socketDistrust, UntrustedSocketError } from '../os/socket-trust';
import { LIMITS } from '../contract/constants';

/** JSON-RPC "invalid request": what the daemon answers a line over its cap with. */
const INVALID_REQUEST = -32600;

export class AirlockRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'AirlockRpcError';
  }
}

/**
 * The daemon said something that is not its protocol: a line that is not JSON, a message that
 * is not an object, an answer to an id this client never sent, an answer of the wrong shape.
 * The connection is closed and every call waiting on it fails with this (never "allow"): a
 * client that skipped such lines would wait for an answer that may never come (`airlock
 * check` hung forever on a daemon that answered a line that was not JSON).
 */
export class AirlockProtocolError extends Error {
  readonly code = 'EPROTO';
  constructor(message: string) {
    super(message);
    this.name = 'AirlockProtocolError';
  }
}

export type NotificationHandler = (method: string, params: unknown) => void;

export class RpcClient {
  private nextId = 1;
  /** Newlines written by writeRaw whose id-null answers may still come. */
  private rawLines = 0;
  /** writeRaw was used (tests of bad input): answers to the ids in its lines are theirs, not a broken daemon's. */
  private wroteRaw = false;
  private buf = '';
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private closedError: Error | null = null;
  onNotification: NotificationHandler | null = null;
  onClose: ((err: Error | null) => void) | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => this.onData(d));
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new Error('connection to the Airlock daemon closed')));
  }

  static connect(socketPath: string, timeoutMs = 5000): Promise<RpcClient> {
    // Before any byte goes out: a socket another user could have planted is never used
    // (main/os/socket-trust.ts); callers treat it like an unreachable daemon, never as "allow".
    const why = socketDistrust(socketPath);
    if (why) return Promise.reject(new UntrustedSocketError(socketPath, why));
    return new Promise((resolve, reject) => {
      const s = net.createConnection(socketPath);
      let settled = false;
      const timer = setTimeout(() => {
        // The event loop may have been blocked past the timeout (the Claude Code hook reads
        // stdin synchronously after connecting): a connect that completed meanwhile is
        // delivered later in this same loop turn, so give it that turn before giving up.
        setImmediate(() => {
          if (settled) return;
          settled = true;
          s.destroy();
          reject(new Error(`timed out connecting to ${socketPath}`));
        });
      }, timeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        resolve(new RpcClient(s));
      });
      s.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        const hint =
          e.code === 'ENOENT' || e.code === 'ECONNREFUSED'
            ? `the Airlock daemon is not running at ${socketPath} (start it with \`airlock serve\` or the tray app)`
            : `cannot connect to ${socketPath}: ${e.message}`;
        reject(Object.assign(new Error(hint), { code: e.code }));
      });
    });
  }

  call<T = unknown>(method: string, params?: unknown): Promise<T> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = this.nextId++;
    const text = JSON.stringify({ jsonrpc: '2.0', id, method, params: params ?? {} });
    // The daemon refuses a line over the cap without reading its id, so its answer (id null)
    // could never be matched to this call: it would wait forever (`airlock check` with huge
    // resources, an MCP tools/call writing a large file). Refuse it here, before sending.
    const bytes = Buffer.byteLength(text);
    if (bytes > LIMITS.lineBytes) {
      return Promise.reject(
        new AirlockRpcError(INVALID_REQUEST, `invalid request: this ${method} call is ${bytes} bytes as one line, over the ${LIMITS.lineBytes}-byte limit of Airlock's sockets; nothing was sent`),
      );
    }
    const line = text + '\n';
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.socket.write(line);
    });
  }

  /** Sends raw bytes (tests of malformed input use this). */
  writeRaw(data: string | Buffer): void {
    // Raw lines (tests of bad input) may be answered with id null: those answers are theirs,
    // not a sign that one of this client's calls was unreadable.
    this.wroteRaw = true;
    for (const b of typeof data === 'string' ? Buffer.from(data) : data) if (b === 0x0a) this.rawLines++;
    this.socket.write(data);
  }

  /** Idempotent: a second end() on a closed socket would build (and drop) an Error, a cost the hook paid on every call. */
  close(): void {
    if (this.socket.destroyed) return;
    this.socket.end();
    this.socket.destroy();
  }

  private onData(d: string): void {
    this.buf += d;
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (!line.trim()) continue;
      let msg: { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown }; method?: string; params?: unknown };
      try {
        msg = JSON.parse(line);
      } catch {
        if (this.wroteRaw) continue;
        return this.protocolFail('the Airlock daemon sent a line that is not JSON');
      }
      if (!msg || typeof msg !== 'object' || Array.isArray(msg)) {
        if (this.wroteRaw) continue;
        return this.protocolFail('the Airlock daemon sent a line that is not a JSON-RPC message');
      }
      if (typeof msg.method === 'string' && msg.id === undefined) {
        this.onNotification?.(msg.method, msg.params);
        continue;
      }
      if (msg.id === null && msg.error && this.rawLines > 0) {
        this.rawLines--;
        continue;
      }
      if (msg.id === null && msg.error) {
        // The daemon could not read one of our lines (so not its id either): which call it
        // was is unknown, and a call left waiting would wait forever. Every call in flight
        // fails with the daemon's reason; none of them is answered "allow".
        const err = new AirlockRpcError(msg.error.code, msg.error.message, msg.error.data);
        for (const w of this.waiting.values()) w.reject(err);
        this.waiting.clear();
        continue;
      }
      const w = typeof msg.id === 'number' ? this.waiting.get(msg.id) : undefined;
      if (!w) {
        // A late answer to a call that already failed (an id-null error above failed them all)
        // is dropped; an id this client never sent means the other end is not the daemon's
        // protocol, and the answer this client waits for may never come.
        const sent = typeof msg.id === 'number' && Number.isInteger(msg.id) && msg.id >= 1 && msg.id < this.nextId;
        if (sent || this.wroteRaw) continue;
        return this.protocolFail('the Airlock daemon answered an id this client never sent');
      }
      this.waiting.delete(msg.id as number);
      if (msg.error) w.reject(new AirlockRpcError(msg.error.code, msg.error.message, msg.error.data));
      else w.resolve(msg.result);
    }
  }

  /** Fails every call and closes the connection: nothing more read on it can be trusted to be an answer. */
  private protocolFail(message: string): void {
    this.buf = '';
    this.fail(new AirlockProtocolError(message));
    this.close();
  }

  private fail(e: Error): void {
    if (this.closedError) return;
    this.closedError = e;
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
    this.onClose?.(e);
  }
}
