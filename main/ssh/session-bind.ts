// "Where": OpenSSH (8.9+) tells the agent which server a connection is for with the
// session-bind@openssh.com extension — the server's host key, the session id, and the
// server's signature over that id, proving the host key really belongs to that session.
// We verify it and keep the list per agent connection, with OpenSSH's own rules.
import { fingerprintOf, verifySignature } from './key-material';
import { Reader } from './wire';

export const SESSION_BIND = 'session-bind@openssh.com';
/** OpenSSH's AGENT_MAX_SESSION_IDS. */
const MAX_BINDS = 16;

export interface SessionBind {
  hostKey: Buffer;
  hostKeyFingerprint: string;
  sessionId: Buffer;
  /** Kept so the bind can be replayed to an upstream agent. */
  signature: Buffer;
  /** True when this hop is an agent-forwarding channel, not an authentication. */
  forwarding: boolean;
}

export type BindResult = { ok: true; bind: SessionBind } | { ok: false; why: string };

export function parseSessionBind(data: Buffer): BindResult {
  try {
    const r = new Reader(data);
    const hostKey = Buffer.from(r.string());
    const sessionId = Buffer.from(r.string());
    const signature = Buffer.from(r.string());
    const forwarding = r.bool();
    r.end();
    if (sessionId.length === 0 || sessionId.length > 64) return { ok: false, why: 'bad session id length' };
    if (!verifySignature(hostKey, signature, sessionId)) return { ok: false, why: 'host key signature does not verify' };
    return { ok: true, bind: { hostKey, hostKeyFingerprint: fingerprintOf(hostKey), sessionId, signature, forwarding } };
  } catch {
    return { ok: false, why: 'malformed session-bind' };
  }
}

/** The binds of one agent connection, oldest first. */
export class SessionBinds {
  readonly list: SessionBind[] = [];

  /** Adds a verified bind; refuses what OpenSSH's ssh-agent refuses (process_ext_session_bind). */
  add(b: SessionBind): { ok: boolean; why?: string } {
    // Stricter than OpenSSH's loop (which accepts a repeated hop before reaching the auth
    // bind): once a connection was bound for authentication, nothing more is bound to it.
    if (this.list.some((old) => !old.forwarding)) return { ok: false, why: 'connection already bound for authentication' };
    for (const old of this.list) {
      if (old.sessionId.equals(b.sessionId)) {
        // The same hop bound twice is harmless only if it says the same thing.
        return old.hostKey.equals(b.hostKey) && old.forwarding === b.forwarding ? { ok: true } : { ok: false, why: 'session id rebound' };
      }
    }
    if (this.list.length >= MAX_BINDS) return { ok: false, why: 'too many session binds' };
    this.list.push(b);
    return { ok: true };
  }

  get last(): SessionBind | undefined {
    return this.list[this.list.length - 1];
  }

  /** The request arrived through agent forwarding (some hop was a forwarding channel). */
  get forwarded(): boolean {
    return this.list.some((b) => b.forwarding);
  }
}
