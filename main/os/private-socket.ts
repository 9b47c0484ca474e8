// The one way Airlock listens on a Unix socket (ui.sock, request.sock, a task's or a
// remote's request.sock, a task's egress.sock, the SSH agent's agent.sock and each task's
// agent socket):
// - the directory is 0700 and the socket is created under umask 177, then chmod 0600, so
//   there is no moment at which another user could connect;
// - a live socket of another daemon is never stolen; a stale one is replaced;
// - every peer's uid is checked on every connection (SO_PEERCRED through the native
//   addon); a peer of another user is disconnected and handed to `onForeign`, whose job is
//   to record it in history (foreignPeerAttempt gives the row), not merely to log it;
// - connections are capped (CONNECTION_LIMITS): at most 256 open at once on one socket and
//   128 from one peer process (its pid and start time: a pid reused by an unrelated process
//   after the first one exited is a new process, even while the first one's connections live
//   on in a child it handed them to), so a flood of connections from one agent cannot exhaust the
//   daemon's descriptors or starve the other clients of that socket. One over a cap is
//   closed at once, after the socket's own refusal text if its protocol has one (a JSON-RPC
//   error line; the SSH agent protocol has none, so it is just closed), and handed to
//   `onRefused` to be recorded (overCapAttempt; the recorder coalesces a flood of them).
//   A socket that can tell where a peer's connections come from (originOf: agent.sock,
//   the remote whose ssh forward the peer holds) caps those apart and below the socket's
//   cap, so two remotes at their per-process cap cannot fill it and starve this machine.
import { claudeConfigValuesOf, type ConfigEnvValue } from './claude-config-env';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { ProcessInfo } from '../contract/common';
import { ensurePrivateDir } from './paths';
import { deepFreeze, peerOf, processInfo, type PeerCred } from './peer';
import { ProcessChain } from './process-chain';
import { sessionOwnerOf } from './session-owner';
import { removeStaleSocket } from './stale-socket';

export interface Peer {
  /** This daemon's id of the connection (a disconnect cancels its prompts by it). */
  connection: string;
  cred: PeerCred;
  /** The peer's process and its parents, read once when first asked for. */
  readonly process: ProcessInfo;
  /** CLAUDE_CONFIG_DIR as the peer and its parents have it, with their working directories (claude-config-env.ts), read once when first asked for. */
  readonly claudeConfigEnv: readonly ConfigEnvValue[];
  /** The Claude Code process above the peer (session-owner.ts), read once when first asked for. */
  readonly sessionOwner: string;
}

export interface PrivateSocketOptions {
  onPeer(socket: net.Socket, peer: Peer): void;
  /** A peer of another user: already disconnected; record it (foreignPeerAttempt). */
  onForeign(cred: PeerCred): void;
  /** The error when another live process serves this path. */
  busyMessage?: string;
  /** Read the peer's process at connect time (default), or only if `peer.process` is read. */
  lazyProcess?: boolean;
  /** A connection over a cap: already being closed; record it (overCapAttempt). */
  onRefused?(cred: PeerCred, why: string): void;
  /** What to send a connection over a cap before closing it (the protocol's own error), if anything. */
  refusal?(why: string): string | undefined;
  /** Caps on open connections (default CONNECTION_LIMITS). */
  limits?: ConnectionLimits;
  /**
   * Where a peer's connections come from when not simply from this machine (null): agent.sock
   * names the remote whose forward the peer ssh holds. Such origins meet `perOrigin` each and
   * `allOrigins` together, below `perSocket`, so they can never take this machine's last places.
   */
  originOf?(cred: PeerCred): string | null;
}

export interface ConnectionLimits {
  perSocket: number;
  perPeer: number;
  /** Each origin (originOf) at most this many open at once. */
  perOrigin?: number;
  /** All origins together at most this many: `perSocket - allOrigins` places stay this machine's. */
  allOrigins?: number;
}

/**
 * Open connections one socket accepts: 256 in all, 128 from one process (by the peer's pid
 * from SO_PEERCRED and that process's start time, so a reused pid starts afresh). A hook or `airlock exec` uses one; ssh one per session; the busiest
 * honest client we know (an ssh -R forward carrying a remote's agents, or a test harness)
 * stays far below 128. Closed connections free their place at once.
 */
export const CONNECTION_LIMITS = { perSocket: 256, perPeer: 128 } as const;

let connections = 0;

/**
 * What the per-process cap counts by: the pid with the process's start time. A peer gone
 * before its start time could be read (null) shares the pid's "unknown" place: it cannot
 * have more connections than it already made, so this never lets a live process past the cap.
 */
export function peerProcessKey(pid: number, startTime: string | null): string {
  return `${pid}@${startTime ?? '?'}`;
}

export async function listenPrivate(sockPath: string, opts: PrivateSocketOptions): Promise<net.Server> {
  ensurePrivateDir(path.dirname(sockPath));
  await removeStaleSocket(sockPath, opts.busyMessage ?? `another Airlock is already serving ${sockPath}; stop it first (or set AIRLOCK_HOME to use another place)`);
  const myUid = process.getuid?.() ?? -1;
  const limits: ConnectionLimits = opts.limits ?? CONNECTION_LIMITS;
  let open = 0;
  const ofPeer = new Map<string, number>();
  let fromOrigins = 0;
  const ofOrigin = new Map<string, number>();
  const refuse = (socket: net.Socket, cred: PeerCred, why: string) => {
    socket.on('error', () => undefined);
    try {
      const text = opts.refusal?.(why);
      if (text !== undefined) socket.end(text);
      else socket.destroy();
    } catch {
      socket.destroy();
    }
    // A peer that never reads cannot keep its refused socket open either.
    if (!socket.destroyed) setTimeout(() => socket.destroy(), 1000).unref();
    try {
      opts.onRefused?.(cred, why);
    } catch {
      // Recording must never take the listener down.
    }
  };
  const server = net.createServer((socket) => {
    let cred: PeerCred;
    try {
      cred = peerOf(socket);
    } catch {
      socket.destroy();
      return;
    }
    if (cred.uid !== myUid) {
      socket.destroy();
      try {
        opts.onForeign(cred);
      } catch {
        // Recording must never take the listener down.
      }
      return;
    }
    // One walk up the peer's parents for everything read about it (its start time here, its
    // tree and its CLAUDE_CONFIG_DIR when first asked for): each process's stat is read once.
    const chain = new ProcessChain(cred.pid);
    const key = peerProcessKey(cred.pid, chain.at(0)?.start ?? null);
    const mine = ofPeer.get(key) ?? 0;
    if (open >= limits.perSocket) return refuse(socket, cred, `too many connections to ${path.basename(sockPath)} (limit ${limits.perSocket} open at once); close idle ones and retry`);
    if (mine >= limits.perPeer) return refuse(socket, cred, `too many connections from process ${cred.pid} (limit ${limits.perPeer} open at once); close idle ones and retry`);
    let origin: string | null = null;
    try {
      origin = opts.originOf?.(cred) ?? null;
    } catch {
      // Unknown: counted as this machine's, as before origins were told apart.
    }
    if (origin !== null) {
      const theirs = ofOrigin.get(origin) ?? 0;
      if (limits.perOrigin !== undefined && theirs >= limits.perOrigin) return refuse(socket, cred, `too many connections from ${origin} (limit ${limits.perOrigin} open at once; this machine keeps its own places); close idle ones and retry`);
      if (limits.allOrigins !== undefined && fromOrigins >= limits.allOrigins) return refuse(socket, cred, `too many connections from other machines (limit ${limits.allOrigins} open at once in all; this machine keeps its own places); close idle ones and retry`);
      ofOrigin.set(origin, theirs + 1);
      fromOrigins++;
    }
    open++;
    ofPeer.set(key, mine + 1);
    socket.once('close', () => {
      open--;
      const n = (ofPeer.get(key) ?? 1) - 1;
      if (n > 0) ofPeer.set(key, n);
      else ofPeer.delete(key);
      if (origin === null) return;
      fromOrigins--;
      const m = (ofOrigin.get(origin) ?? 1) - 1;
      if (m > 0) ofOrigin.set(origin, m);
      else ofOrigin.delete(origin);
    });
    let info: ProcessInfo | undefined;
    let configEnv: readonly ConfigEnvValue[] | undefined;
    let owner: string | undefined;
    const peer: Peer = {
      connection: `c${++connections}`,
      cred,
      get process() {
        // Frozen: every request of the connection carries this same object, and the store
        // serialises a frozen one only once (store.ts processJson).
        return (info ??= deepFreeze(processInfo(cred, undefined, chain)));
      },
      get claudeConfigEnv() {
        return (configEnv ??= deepFreeze(claudeConfigValuesOf(chain)));
      },
      get sessionOwner() {
        return (owner ??= sessionOwnerOf(chain));
      },
    };
    if (!opts.lazyProcess) void peer.process;
    opts.onPeer(socket, peer);
  });
  const oldMask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(sockPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(oldMask);
  }
  fs.chmodSync(sockPath, 0o600);
  // A listener error after start (EMFILE…) must not become an uncaught exception.
  server.on('error', () => undefined);
  return server;
}

/** Stops listening and removes the socket file (resolves within a second even if a client lingers). */
export function closePrivate(server: net.Server, sockPath: string): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    try {
      fs.unlinkSync(sockPath);
    } catch {
      // already gone
    }
    setTimeout(resolve, 1000).unref();
  });
}

/** The history row of a refused foreign peer (same shape on every socket). */
export function foreignPeerAttempt(where: string, cred: PeerCred): { source: string; tool: string; summary: string; raw: unknown; reason: string } {
  return { source: where, tool: '(connect)', summary: 'connection from another user refused', raw: cred, reason: `peer uid ${cred.uid} is not this user` };
}

/** The history row of a connection refused by a cap (same shape on every socket; the recorder coalesces a flood). */
export function overCapAttempt(where: string, cred: PeerCred, why: string): { source: string; tool: string; summary: string; raw: unknown; reason: string } {
  return { source: where, tool: '(connect)', summary: 'connection refused: too many open connections', raw: cred, reason: why };
}
