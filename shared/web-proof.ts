// How the web UI's tab and `airlock serve --web` prove to each other that they know the
// token without sending it (main/api/web-server.ts, app/src/bridge/web-socket-bridge.ts).
// An open tab reconnects for as long as it is open; while the daemon is away its port is
// anyone's to listen on, so the tab never sends the token itself, only an HMAC of a fresh
// challenge keyed with it, and talks on only once the server has answered with its own HMAC.
// Both name the port: a listener squatting the daemon's port cannot pass what the tab sends
// on to the real daemon (then on another port) and be let in.

/** The WebSocket path's query that asks for the challenge instead of carrying ?token=. */
export const WEB_PROOF_QUERY = 'auth=proof';
export const WEB_PROOF_CHALLENGE = 'auth.challenge';
export const WEB_PROOF_METHOD = 'auth.prove';

/** What each side signs: its role, the port, then the other side's nonce and its own. */
export function webProofMessage(role: 'client' | 'server', port: number, theirs: string, mine: string): string {
  return `airlock-web-${role}\n${port}\n${theirs}\n${mine}`;
}

/** A nonce is 16 to 128 base64url characters. */
export function isWebProofNonce(x: unknown): x is string {
  return typeof x === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(x);
}
