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
  const token = takeToken();
  if (!token) return 'none';
  web = createWebSocketBridge(token);
  current = web.bridge;
  return 'web';
}

/** Where the tab keeps its token once it has taken it out of the URL: this tab only, gone when it closes. */
const TOKEN_KEY = 'airlock.webToken';

/**
 * The web UI's token: from the URL's #token= the first time, then from this tab's
 * sessionStorage (a reload keeps working). The URL is rewritten without it at once, so the
 * token is not in the address bar (a shared screen, a bookmark, a URL copied into a chat),
 * nor in this history entry (back/forward, history sync): found by the red team of the
 * human side, it stayed there for as long as the tab was open.
 */
function takeToken(): string | null {
  const fromUrl = tokenFromLocation();
  if (fromUrl) {
    try {
      sessionStorage.setItem(TOKEN_KEY, fromUrl);
    } catch {
      /* storage refused: this load still has it; a reload needs the printed URL again */
    }
    history.replaceState(history.state, '', `${location.pathname}${location.search}`);
    return fromUrl;
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
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
