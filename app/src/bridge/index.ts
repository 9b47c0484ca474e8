// The one place the renderer gets its Airlock: the preload's `window.airlock` in Electron,
// or the WebSocket transport in web mode. Everything else talks to `airlock()` only.
import type { AirlockBridge } from '../../../preload/types';
import { createWebSocketBridge, tokenFromLocation, type ConnectionState, type WebBridge } from './web-socket-bridge';

declare global {
  interface Window {
    airlock?: AirlockBridge;
  }
}

let current: AirlockBridge | null = null;
let web: WebBridge | null = null;

export type Host = 'electron' | 'web' | 'none';

export function initBridge(): Host {
  if (window.airlock) {
    current = window.airlock;
    return 'electron';
  }
  const token = tokenFromLocation();
  if (!token) return 'none';
  web = createWebSocketBridge(token);
  current = web.bridge;
  return 'web';
}

export function airlock(): AirlockBridge {
  if (!current) throw new Error('Airlock bridge not initialised');
  return current;
}

/** Electron's IPC never drops; the web socket can, so only web mode reports a state. */
export function onConnectionState(cb: (s: ConnectionState) => void): () => void {
  return web ? web.onStateChange(cb) : () => {};
}

export type { ConnectionState };
