// Web mode: builds the same `AirlockBridge` as the Electron preload, over JSON-RPC on a
// WebSocket to `airlock serve --web`. The token comes from the URL fragment
// (#token=…), which browsers never send to the server or put in Referer; and the tab never
// sends it either: whoever listens on the port (the daemon may be away, and its port
// anyone's) gets only an HMAC of its challenge, and nothing more until it has answered
// with its own (shared/web-proof.ts).
import type { AirlockBridge, ApproverNotification } from '../../../preload/types';
import { APPROVER_METHOD_NAMES } from '../../../shared/approver-methods';
import { isWebProofNonce, WEB_PROOF_CHALLENGE, WEB_PROOF_METHOD, WEB_PROOF_QUERY, webProofMessage } from '../../../shared/web-proof';

export class RemoteError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'AirlockError';
  }
}

export type ConnectionState = 'connecting' | 'open' | 'closed' | 'unauthorized';

type Waiter = { resolve(v: unknown): void; reject(e: Error): void };
type RpcMessage = {
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
};

export function tokenFromLocation(loc: Location = window.location): string | null {
  const params = new URLSearchParams(loc.hash.replace(/^#/, ''));
  return params.get('token');
}

export interface WebBridge {
  bridge: AirlockBridge;
  onStateChange(cb: (s: ConnectionState) => void): () => void;
  state(): ConnectionState;
}

function base64url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** HMAC-SHA256 (base64url) keyed with the token, as main/api/web-guard.ts computes it. */
async function hmac(token: string, message: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', enc.encode(token), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, enc.encode(message))));
}

const HANDSHAKE_MS = 10_000;
/** After a refusal: 30 s, doubling to 15 min (each refused proof is a history row). */
const REFUSED_RETRY_MS = 30_000;
const REFUSED_RETRY_MAX_MS = 15 * 60_000;

function portOf(loc: Location): number {
  return Number(loc.port || (loc.protocol === 'https:' ? 443 : 80));
}

export function createWebSocketBridge(token: string, loc: Location = window.location): WebBridge {
  const url = `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/ws?${WEB_PROOF_QUERY}`;
  const port = portOf(loc);
  /** The socket once its server has proved it knows the token; until then calls wait in `queue`. */
  let ws: WebSocket | null = null;
  let state: ConnectionState = 'connecting';
  let nextId = 1;
  let retryMs = 250;
  let refusedRetryMs = REFUSED_RETRY_MS;
  const waiting = new Map<number, Waiter>();
  const queue: string[] = [];
  const listeners = new Set<(n: ApproverNotification) => void>();
  const stateListeners = new Set<(s: ConnectionState) => void>();

  const setState = (s: ConnectionState) => {
    state = s;
    for (const l of stateListeners) l(s);
  };

  function connect(): void {
    // A refused tab keeps saying so while it retries (slowly), until a proof succeeds.
    if (state !== 'unauthorized') setState('connecting');
    const sock = new WebSocket(url);
    ws = null;
    let opened = false;
    let refused = false;
    // A listener that never challenges (or never answers the proof) is not waited on for ever.
    const stalled = setTimeout(() => !opened && sock.close(), HANDSHAKE_MS);
    // Until the server has proved it knows the token, nothing it sends is believed and
    // nothing of ours is sent: it may be any process listening on the port.
    let expected: Promise<string> | null = null;
    // What the server sends right after its proof (notifications) waits for the check of it.
    let held: RpcMessage[] | null = null;
    const proven = () => {
      opened = true;
      ws = sock;
      clearTimeout(stalled);
      retryMs = 250;
      refusedRetryMs = REFUSED_RETRY_MS;
      setState('open');
      for (const line of queue.splice(0)) sock.send(line);
      for (const m of held?.splice(0) ?? []) deliver(m);
    };
    const handshake = (msg: RpcMessage): void => {
      if (!expected && msg.method === WEB_PROOF_CHALLENGE) {
        const theirs = (msg.params as { nonce?: unknown } | undefined)?.nonce;
        if (!isWebProofNonce(theirs)) return sock.close();
        const mine = base64url(crypto.getRandomValues(new Uint8Array(32)));
        expected = hmac(token, webProofMessage('server', port, mine, theirs));
        void hmac(token, webProofMessage('client', port, theirs, mine)).then((proof) => {
          if (sock.readyState === WebSocket.OPEN) sock.send(JSON.stringify({ jsonrpc: '2.0', id: 'auth', method: WEB_PROOF_METHOD, params: { nonce: mine, proof } }));
        });
        return;
      }
      if (expected && msg.id === 'auth') {
        if (msg.error?.code === -32001) {
          refused = true;
          return sock.close();
        }
        const proof = (msg.result as { proof?: unknown } | undefined)?.proof;
        held = [];
        void expected.then((want) => (typeof proof === 'string' && proof === want && sock.readyState === WebSocket.OPEN ? proven() : sock.close()));
        return;
      }
      if (held) return void held.push(msg);
      sock.close();
    };
    const deliver = (msg: RpcMessage): void => {
      if (typeof msg.method === 'string' && (msg.id === undefined || msg.id === null)) {
        const n = { method: msg.method, params: msg.params } as ApproverNotification;
        for (const l of listeners) l(n);
        return;
      }
      const w = typeof msg.id === 'number' ? waiting.get(msg.id) : undefined;
      if (!w) return;
      waiting.delete(msg.id as number);
      if (msg.error) w.reject(new RemoteError(msg.error.code, msg.error.message));
      else w.resolve(msg.result);
    };
    sock.onmessage = (ev: MessageEvent) => {
      if (typeof ev.data !== 'string') return;
      let msg: RpcMessage;
      try {
        msg = JSON.parse(ev.data) as RpcMessage;
      } catch {
        return;
      }
      if (opened) deliver(msg);
      else handshake(msg);
    };
    sock.onclose = () => {
      clearTimeout(stalled);
      if (ws === sock) ws = null;
      for (const w of waiting.values()) w.reject(new Error('connection to Airlock lost'));
      waiting.clear();
      // The token is kept across daemon restarts (main/os/web-state.ts), so a lost
      // connection is retried for as long as the tab is open (backoff up to 8 s). A server
      // that refuses the proof (the token was rotated with --new-web-token, or another
      // Airlock, or a listener passing on another's refusal, is on this port) makes the tab
      // say the token is not valid (the human needs the new URL); it still looks again after
      // 30 s (doubling to 15 min), so a refusal relayed by whoever held the port does not leave it dead.
      if (refused) {
        setState('unauthorized');
        setTimeout(connect, refusedRetryMs);
        refusedRetryMs = Math.min(refusedRetryMs * 2, REFUSED_RETRY_MAX_MS);
        return;
      }
      if (state === 'unauthorized') return void setTimeout(connect, refusedRetryMs);
      setState('closed');
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 8000);
    };
  }

  function call(method: string, params: unknown): Promise<unknown> {
    const id = nextId++;
    const line = JSON.stringify({ jsonrpc: '2.0', id, method, params: params ?? {} });
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      if (ws && ws.readyState === WebSocket.OPEN) ws.send(line);
      else queue.push(line);
    });
  }

  const bridge: Record<string, unknown> = {};
  for (const m of APPROVER_METHOD_NAMES) bridge[m] = (params: unknown) => call(m, params);
  bridge.onNotification = (cb: (n: ApproverNotification) => void) => {
    listeners.add(cb);
    return () => {
      listeners.delete(cb);
    };
  };
  connect();
  return {
    bridge: Object.freeze(bridge) as unknown as AirlockBridge,
    onStateChange(cb) {
      stateListeners.add(cb);
      return () => {
        stateListeners.delete(cb);
      };
    },
    state: () => state,
  };
}
