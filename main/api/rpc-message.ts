// The one JSON-RPC path. Every transport — a line of ui.sock or request.sock
// (json-rpc-lines.ts), a WebSocket frame or an HTTP POST of the web UI (web-server.ts),
// an Electron IPC invoke (main/electron/contract-ipc.ts) — hands what it received to
// handleRpcMessage / handleRpcRequest and sends back the reply. Framing stays with the
// transport; parsing, validation, dispatch, error replies and what is recorded live here.
//
// The one rule for what a rejected call records (RECORDED): a call that never reached a
// decision — not JSON, not a JSON-RPC request, an unknown method, params the contract
// refuses (or a handler refuses as invalid, such as a wrong task token), or a refusal of
// the transport itself (too many in flight, a sender that is not ours) — becomes one
// rejected event in history. An answer a handler gives (refused by flood control, not
// found, unavailable) is not recorded again here: what was decided is already in history.
import { RPC, RpcError, RpcRequest, describeIssues } from '../contract/rpc';
import type { RejectedAttempt } from '../core/ports';
import type { Dispatch } from './dispatch';

type Id = string | number | null;
export type RpcReply = { jsonrpc: '2.0'; id: Id; result?: unknown; error?: { code: number; message: string; data?: unknown } };

export interface RpcRejection {
  code: number;
  reason: string;
  /** What was sent, capped: the text, or the call as received. */
  raw: unknown;
  method?: string;
}

/** How much of a rejected message is kept for history. */
export const RAW_KEEP = 4096;

const RECORDED = new Set<number>([RPC.parseError, RPC.invalidRequest, RPC.methodNotFound, RPC.invalidParams]);

/** Whether an error a handler threw is a rejected call (recorded) rather than an answer. */
export function isRecordedRejection(code: number): boolean {
  return RECORDED.has(code);
}

export interface RpcCallOptions {
  /** Records a rejected call (see the rule above); it must never throw into the reply. */
  onReject?(r: RpcRejection): void;
  /** The transport's own refusal, asked once the call parsed, just before dispatch (null: go on). */
  admit?(method: string): string | null;
  /** Added to a parse or invalid-request error: how this transport expects the next one. */
  hint?: { parse?: string; invalid?: string };
  /**
   * Answer a notification's error anyway: only for HTTP POST, where every request gets a
   * response and `result: null` would read as success. Streams (sockets, WebSocket) follow
   * JSON-RPC 2.0 and never answer a notification.
   */
  answerNotificationErrors?: boolean;
}

/**
 * Turns a transport's rejection into the history row every transport writes:
 * `where` names the transport ("ui.sock", "the web UI"), `unit` what it receives ("line").
 */
export function rejectionRow(source: string, where: string, unit: string, r: RpcRejection, process?: RejectedAttempt['process']): RejectedAttempt {
  return {
    source,
    tool: r.method ?? '(unparsed)',
    summary: `rejected ${r.method ? `"${r.method}" call` : unit} on ${where}`,
    raw: r.raw,
    reason: r.reason,
    ...(process ? { process } : {}),
  };
}

/**
 * At most this many refused attempts per minute reach history from one transport that a
 * page or a renderer drives (the web UI, Electron IPC), so a loop cannot flood history.
 */
export function rateLimited<T>(fn: ((x: T) => void) | undefined, perMinute = 20): (x: T) => void {
  let windowStart = 0;
  let count = 0;
  return (x) => {
    if (!fn) return;
    const now = Date.now();
    if (now - windowStart > 60_000) {
      windowStart = now;
      count = 0;
    }
    if (++count <= perMinute) fn(x);
  };
}

function failWith(opts: RpcCallOptions, raw: unknown, id: Id, code: number, reason: string, method?: string): RpcReply {
  try {
    opts.onReject?.({ code, reason, raw, method });
  } catch {
    // Recording a rejection must never break the reply (or the connection).
  }
  return { jsonrpc: '2.0', id, error: { code, message: reason } };
}

/** One JSON text in (a line, a frame, a POST body), one reply out (null: a notification, no reply). */
export function handleRpcMessage(text: string, dispatch: Dispatch, opts: RpcCallOptions = {}): Promise<RpcReply | null> {
  const raw = text.slice(0, RAW_KEEP);
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    return Promise.resolve(failWith(opts, raw, null, RPC.parseError, `parse error: not valid JSON (${(e as Error).message.slice(0, 120)})${opts.hint?.parse ?? ''}`));
  }
  return handleRpcRequest(msg, raw, dispatch, opts);
}

/**
 * One call already decoded (Electron IPC, or a parsed message): validated as a JSON-RPC
 * request, admitted by the transport, dispatched (the contract's schemas check params).
 * Everything up to the dispatch runs synchronously, so calls are admitted in arrival order.
 */
export async function handleRpcRequest(msg: unknown, raw: unknown, dispatch: Dispatch, opts: RpcCallOptions = {}): Promise<RpcReply | null> {
  if (Array.isArray(msg)) return failWith(opts, raw, null, RPC.invalidRequest, `invalid request: batches are not supported${opts.hint?.invalid ?? ''}`);
  // A line that is JSON but not an object (a string, a number, null) is named as such, not as "params".
  if (typeof msg !== 'object' || msg === null) {
    return failWith(opts, raw, null, RPC.invalidRequest, `invalid request: the line is JSON ${msg === null ? 'null' : `a ${typeof msg}`}, not an object${opts.hint?.invalid ?? ''}`);
  }
  const parsed = RpcRequest.safeParse(msg);
  if (!parsed.success) {
    const guess = (msg as { id?: unknown } | null)?.id;
    const id = typeof guess === 'string' || typeof guess === 'number' ? guess : null;
    return failWith(opts, raw, id, RPC.invalidRequest, `invalid request: ${describeIssues(parsed.error)}${opts.hint?.invalid ?? ''}`);
  }
  const req = parsed.data;
  const id: Id = req.id ?? null;
  // The dispatch is awaited here, not in a second async function: one promise and one
  // microtask job fewer per call (issue 15).
  let reply: RpcReply;
  const refused = opts.admit?.(req.method);
  if (refused) reply = failWith(opts, raw, id, RPC.refused, refused, req.method);
  else {
    try {
      reply = { jsonrpc: '2.0', id, result: await dispatch(req.method, req.params) };
    } catch (err) {
      reply = errorReply(err, req, id, raw, opts);
    }
  }
  // JSON-RPC 2.0: a notification (no id) is never answered, not even with an error. A
  // refused one is still recorded (failWith ran); only the reply line is dropped.
  if (req.id !== undefined) return reply;
  return opts.answerNotificationErrors && reply.error !== undefined ? reply : null;
}

/** What a call that threw answers (and records, when it never reached a decision: RECORDED). */
function errorReply(err: unknown, req: RpcRequest, id: Id, raw: unknown, opts: RpcCallOptions): RpcReply {
  if (err instanceof RpcError) {
    if (isRecordedRejection(err.code)) return failWith(opts, raw, id, err.code, err.message, req.method);
    return { jsonrpc: '2.0', id, error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) } };
  }
  return { jsonrpc: '2.0', id, error: { code: RPC.internal, message: `internal error: ${(err as Error)?.message ?? String(err)}` } };
}
