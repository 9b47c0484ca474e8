// The renderer is served from airlock://app/ (never file://): a standard, secure scheme
// whose handler only reads files under the built renderer dir, with the same CSP and
// hardening headers as web mode.
import type { Prompt } from '../contract/approver';
import { protocol } from 'electron';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONTENT_TYPES, HARDENING_HEADERS, contentSecurityPolicy } from '../api/csp';

export const APP_SCHEME = 'airlock';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/** Must run before `app.ready`: makes the scheme behave like https (origin, secure context). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      // corsEnabled: Vite emits <script type="module" crossorigin>, fetched in CORS mode.
      privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, codeCache: true },
    },
  ]);
}

/** Whether a URL belongs to the renderer (used for navigation and IPC sender checks). */
export function isAppUrl(raw: string | undefined | null): boolean {
  if (!raw) return false;
  try {
    const u = new URL(raw);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST;
  } catch {
    return false;
  }
}

export function appUrl(query: Record<string, string> = {}): string {
  const q = new URLSearchParams(query).toString();
  return `${APP_ORIGIN}/index.html${q ? `?${q}` : ''}`;
}

/**
 * A pop-up's URL: `?prompt=<id>`, and the prompt itself (as main holds it) in the hash, so
 * the pop-up shows it at once instead of fetching the pending list again over IPC. The hash
 * never reaches the protocol handler; the prompt's args are already capped by the core.
 */
export function popupUrl(p: Prompt): string {
  return `${appUrl({ prompt: p.id })}#prompt=${encodeURIComponent(JSON.stringify(p))}`;
}

export function handleAppProtocol(appDir: string): void {
  const root = path.resolve(appDir);
  const headers = { 'Content-Security-Policy': contentSecurityPolicy(), ...HARDENING_HEADERS };
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST || request.method !== 'GET') return new Response('not found', { status: 404, headers });
    const rel = decodeURIComponent(url.pathname).replace(/^\/+/, '') || 'index.html';
    const file = path.resolve(root, rel);
    if (!file.startsWith(root + path.sep)) return new Response('not found', { status: 404, headers });
    try {
      const body = await fs.promises.readFile(file);
      const type = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
      return new Response(new Uint8Array(body), { status: 200, headers: { ...headers, 'Content-Type': type } });
    } catch {
      return new Response('not found', { status: 404, headers });
    }
  });
}
