// Web mode: builds the same `AirlockBridge` as the Electron preload, over JSON-RPC on a
// WebSocket to `airlock serve --web`. The token comes from the URL fragment
// (#token=…), which browsers never send to the server or put in Referer.
import type { AirlockBridge, ApproverNotification } from '../../../preload/types';
import { APPROVER_METHOD_NAMES } from '../../../shared/approver-methods';

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

/** Whether the server at `loc` answers and refuses this token (a 401), as opposed to being away. */
async function tokenRefused(loc: Location, token: string): Promise<boolean> {
  const res = await fetch(`${loc.protocol}//${loc.host}/api/rpc`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'pending.list', params: {} }),
    cache: 'no-store',
  });
  return res.status === 401;
}

export function createWebSocketBridge(token: string, loc: Location = window.location): WebBridge {
  const url = `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/ws?token=${encodeURIComponent(token)}`;
  let ws: WebSocket | null = null;
  let state: ConnectionState = 'connecting';
  let nextId = 1;
  let retryMs = 250;
  const waiting = new Map<number, Waiter>();
  const queue: string[] = [];
  const listeners = new Set<(n: ApproverNotification) => void>();
  const stateListeners = new Set<(s: ConnectionState) => void>();

  const setState = (s: ConnectionState) => {
    state = s;
    for (const l of stateListeners) l(s);
  };

  function connect(): void {
    setState('connecting');
    const sock = new WebSocket(url);
    ws = sock;
    let opened = false;
    sock.onopen = () => {
      opened = true;
      retryMs = 250;
      setState('open');
      for (const line of queue.splice(0)) sock.send(line);
    };
    sock.onmessage = (ev: MessageEvent) => {
      if (typeof ev.data !== 'string') return;
      let msg: RpcMessage;
      try {
        msg = JSON.parse(ev.data) as RpcMessage;
      } catch {
        return;
      }
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
    sock.onclose = () => {
      for (const w of waiting.values()) w.reject(new Error('connection to Airlock lost'));
      waiting.clear();
      setState('closed');
      // The token is kept across daemon restarts (main/os/web-state.ts), so a lost
      // connection is retried for as long as the tab is open (backoff up to 8 s). Only a
      // server that answers and refuses the token (401: rotated with --new-web-token, or
      // another Airlock on this port) stops the retries: then the human needs the new URL.
      const retry = () => {
        setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 8000);
      };
      if (opened) return retry();
      tokenRefused(loc, token).then(
        (refused) => (refused ? setState('unauthorized') : retry()),
        () => retry(),
      );
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
