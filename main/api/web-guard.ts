// Who may talk to the web UI: only this machine's loopback names on our own port (no DNS
// rebinding: a page on evil.example that resolves to 127.0.0.1 still sends its own Host),
// only from our own origin (no cross-site WebSocket hijacking), and only with the per-run
// token (another local user or a local process without the URL gets 401).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { webProofMessage } from '../../shared/web-proof';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison that does not leak the token's length either. */
export function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (typeof given !== 'string' || given.length === 0 || given.length > 512) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export type GuardVerdict = { ok: true } | { ok: false; status: 401 | 403; reason: string };

/**
 * Host must name our loopback listener; Origin, when the client sends one (browsers
 * always do for WebSocket and cross-site fetch), must be exactly http://<that host>.
 */
export function checkHostAndOrigin(port: number, host: string | undefined, origin: string | undefined): GuardVerdict {
  const hosts = allowedHosts(port);
  if (!host || !hosts.includes(host.toLowerCase())) {
    return { ok: false, status: 403, reason: `Host "${(host ?? '').slice(0, 100)}" is not ${hosts.join(' or ')}` };
  }
  if (origin !== undefined && origin !== `http://${host.toLowerCase()}`) {
    return { ok: false, status: 403, reason: `Origin "${origin.slice(0, 100)}" is not this page's origin` };
  }
  return { ok: true };
}

export function bearerToken(authorization: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  return m ? m[1]! : null;
}

/** HMAC-SHA256 (base64url) keyed with the token over shared/web-proof.ts's message. */
export function webProof(token: string, role: 'client' | 'server', port: number, theirs: string, mine: string): string {
  return createHmac('sha256', token).update(webProofMessage(role, port, theirs, mine)).digest('base64url');
}

export function newNonce(): string {
  return randomBytes(32).toString('base64url');
}
