// One JSON-RPC 2.0 message in, one reply out: the framing-free core that the web socket
// (one message per frame) and the HTTP API (one per POST) share. Same errors as the line
// sockets: parse error, invalid request, then whatever dispatch says.
import { RPC, RpcError, RpcRequest, describeIssues } from '../contract/rpc';
import type { Dispatch } from './dispatch';

type Id = string | number | null;
export type RpcReply = { jsonrpc: '2.0'; id: Id; result?: unknown; error?: { code: number; message: string; data?: unknown } };

export interface RpcRejection {
  code: number;
  reason: string;
  raw: unknown;
  method?: string;
}

const RAW_KEEP = 4096;

export async function handleRpcMessage(
  text: string,
  dispatch: Dispatch,
  onReject?: (r: RpcRejection) => void,
): Promise<RpcReply | null> {
  const fail = (id: Id, code: number, reason: string, method?: string): RpcReply => {
    try {
      onReject?.({ code, reason, raw: text.slice(0, RAW_KEEP), method });
    } catch {
      // Recording a rejection must never break the reply.
    }
    return { jsonrpc: '2.0', id, error: { code, message: reason } };
  };
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    return fail(null, RPC.parseError, `parse error: not valid JSON (${(e as Error).message.slice(0, 120)})`);
  }
  if (Array.isArray(msg)) return fail(null, RPC.invalidRequest, 'invalid request: batches are not supported');
  const parsed = RpcRequest.safeParse(msg);
  if (!parsed.success) {
    const guess = (msg as { id?: unknown } | null)?.id;
    return fail(typeof guess === 'string' || typeof guess === 'number' ? guess : null, RPC.invalidRequest, `invalid request: ${describeIssues(parsed.error)}`);
  }
  const req = parsed.data;
  const id: Id = req.id ?? null;
  try {
    const result = await dispatch(req.method, req.params);
    return req.id === undefined ? null : { jsonrpc: '2.0', id, result };
  } catch (err) {
    if (err instanceof RpcError) {
      if (err.code === RPC.invalidParams || err.code === RPC.methodNotFound) return fail(id, err.code, err.message, req.method);
      return { jsonrpc: '2.0', id, error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) } };
    }
    return { jsonrpc: '2.0', id, error: { code: RPC.internal, message: `internal error: ${(err as Error)?.message ?? String(err)}` } };
  }
}
