// Line-delimited JSON-RPC 2.0 over a stream socket. Hostile input never kills the
// connection or the daemon: every bad line gets an error reply and the stream stays in
// sync at the next newline.
import type * as net from 'node:net';
import { LIMITS } from '../contract/common';
import { FRAME_STALL_MS, guardFrameStall } from '../os/frame-stall';
import { RPC } from '../contract/rpc';
import { RAW_KEEP, handleRpcMessage, type RpcCallOptions, type RpcRejection } from './rpc-message';

export type Rejection = RpcRejection;

export interface LineServerOptions {
  dispatch(method: string, params: unknown): Promise<unknown>;
  /** Called for every malformed or refused line, so it is recorded as a rejected attempt. */
  onReject?(r: Rejection): void;
  maxLineBytes?: number;
  /** Most requests one connection may have in flight (long-waiting prompts included). */
  maxInFlight?: number;
}

type Id = string | number | null;
const MAX_BUFFERED_OUT = 16 * 1024 * 1024;

export function serveJsonRpcLines(socket: net.Socket, opts: LineServerOptions): { notify(method: string, params: unknown): void } {
  const maxLine = opts.maxLineBytes ?? LIMITS.lineBytes;
  const maxInFlight = opts.maxInFlight ?? 512;
  let chunks: Buffer[] = [];
  let pendingBytes = 0;
  let discarding = false;
  let inFlight = 0;

  const send = (msg: object) => {
    if (socket.destroyed || !socket.writable) return;
    if (socket.writableLength > MAX_BUFFERED_OUT) {
      // A peer that never reads cannot make the daemon buffer without bound.
      socket.destroy();
      return;
    }
    let line: string;
    try {
      line = JSON.stringify(msg);
    } catch (e) {
      // A value nested too deep to serialize must cost one error reply, not the daemon.
      const id = (msg as { id?: unknown }).id;
      line = JSON.stringify({ jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null, error: { code: RPC.internal, message: `internal error: the reply could not be serialized (${(e as Error).message})` } });
    }
    socket.write(line + '\n');
  };
  const replyError = (id: Id, code: number, message: string, data?: unknown) =>
    send({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
  const reject = (id: Id, code: number, reason: string, raw: unknown, method?: string) => {
    // Recorded before answered, like every decision: a kill -9 between the two must not
    // leave an answered attempt out of history (found by the soak, test/soak/soak.ts).
    try {
      opts.onReject?.({ code, reason, raw, method });
    } catch {
      // Recording must never take the connection down.
    }
    replyError(id, code, reason);
  };

  // One path for every transport (rpc-message.ts); this file only frames lines and
  // caps what one connection may have in flight.
  const done = () => {
    // The last answer is out: a half line left behind starts its clock now.
    if (--inFlight === 0) stall.update(discarding || pendingBytes > 0);
  };
  // `then` with both handlers, not `finally`: the same, with two promises fewer per call (issue 15).
  const counted = (method: string, params: unknown) => {
    inFlight++;
    return opts.dispatch(method, params).then(
      (result) => {
        done();
        return result;
      },
      (e: unknown) => {
        done();
        throw e;
      },
    );
  };
  const callOptions: RpcCallOptions = {
    onReject: opts.onReject,
    admit: () => (inFlight >= maxInFlight ? `too many requests in flight on this connection (limit ${maxInFlight})` : null),
    hint: { parse: '; send one JSON-RPC object per line', invalid: ' (expected {"jsonrpc":"2.0","id":…,"method":…,"params":{…}}, one per line)' },
  };
  const handleLine = (buf: Buffer) => {
    const text = buf.toString('utf8').trim();
    if (text === '') return;
    void handleRpcMessage(text, counted, callOptions).then((reply) => reply && send(reply));
  };

  // Half a line and then silence: one error line (recorded like every refused line), then
  // the connection is closed (os/frame-stall.ts). Never while a request of the connection
  // is in flight (a prompt open): the clock starts when its last answer is out.
  const stall = guardFrameStall(socket, () => {
    const head = chunks.length ? Buffer.concat(chunks).subarray(0, RAW_KEEP).toString('utf8') : '';
    chunks = [];
    pendingBytes = 0;
    reject(null, RPC.invalidRequest, `invalid request: half a line, then nothing for ${FRAME_STALL_MS / 1000} s; connection closed (send each request as one whole line ending in \\n)`, head);
    socket.end();
    setTimeout(() => socket.destroy(), 1000).unref();
  });

  socket.on('data', (data: Buffer) => {
    let start = 0;
    for (;;) {
      const nl = data.indexOf(0x0a, start);
      if (nl < 0) break;
      const piece = data.subarray(start, nl);
      start = nl + 1;
      if (discarding) {
        discarding = false;
        chunks = [];
        pendingBytes = 0;
        continue;
      }
      if (pendingBytes + piece.length > maxLine) {
        const head = Buffer.concat([...chunks, piece]).subarray(0, RAW_KEEP).toString('utf8');
        chunks = [];
        pendingBytes = 0;
        reject(null, RPC.invalidRequest, `invalid request: line longer than ${maxLine} bytes refused`, head);
        continue;
      }
      const line = chunks.length ? Buffer.concat([...chunks, piece]) : piece;
      chunks = [];
      pendingBytes = 0;
      handleLine(line);
    }
    if (start < data.length && !discarding) {
      const rest = data.subarray(start);
      if (pendingBytes + rest.length > maxLine) {
        const head = Buffer.concat([...chunks, rest]).subarray(0, RAW_KEEP).toString('utf8');
        chunks = [];
        pendingBytes = 0;
        discarding = true;
        reject(null, RPC.invalidRequest, `invalid request: line longer than ${maxLine} bytes refused`, head);
      } else {
        chunks.push(Buffer.from(rest));
        pendingBytes += rest.length;
      }
    }
    // A connection with a request in flight (a prompt open) is waiting, not stalled.
    stall.update(inFlight === 0 && (discarding || pendingBytes > 0));
  });
  socket.on('error', () => socket.destroy());

  return { notify: (method, params) => send({ jsonrpc: '2.0', method, params }) };
}
