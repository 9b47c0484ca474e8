// One listening Unix socket of the SSH agent (the main agent.sock or a task's): checks each
// peer's uid (os/private-socket.ts), frames the byte stream (protocol.ts FrameDecoder) and
// hands each connection's messages to the AgentCore strictly one at a time, in order.
import * as fs from 'node:fs';
import type * as net from 'node:net';
import { FRAME_STALL_MS, guardFrameStall } from '../os/frame-stall';
import { closePrivate, CONNECTION_LIMITS, listenPrivate } from '../os/private-socket';
import type { PeerCred } from '../os/peer';
import type { AgentCore, Conn } from './agent-server';
import { type AgentMessage, FAILURE_FRAME, FrameDecoder, parseMessage } from './protocol';
import { SessionBinds } from './session-bind';

/** Messages one connection may have waiting before we stop reading from it. */
const MAX_QUEUED = 32;

/**
 * agent.sock's connections from remotes (os/private-socket.ts originOf): 64 for each remote
 * and 128 for all of them together, so at least 128 of the socket's 256 stay this machine's.
 * An honest server holds a few (one per ssh or git using the forward at that moment).
 */
export const FORWARD_LIMITS = { perOrigin: 64, allOrigins: 128 } as const;

let connCounter = 0;

/** One listening Unix socket of the agent (the main one or a task's). */
export class AgentListener {
  private server: net.Server | null = null;
  private readonly conns = new Set<net.Socket>();

  constructor(
    private readonly core: AgentCore,
    readonly socketPath: string,
    private readonly boundTask?: string,
  ) {}

  async listen(): Promise<void> {
    // The one private-socket module (main/os/private-socket.ts): umask 177, 0600, the
    // peer's uid checked, a foreign peer recorded in history (onForeignPeer).
    this.server = await listenPrivate(this.socketPath, {
      onPeer: (socket, peer) => this.accept(socket, peer.cred),
      onForeign: (cred) => {
        this.core.deps.log(`refused an agent connection from uid ${cred.uid}`);
        this.core.deps.onForeignPeer?.(this.socketPath, cred);
      },
      // Over a connection cap: the agent protocol has no unsolicited error, so it is just
      // closed (ssh then says "agent refused operation" / "communication with agent failed").
      onRefused: (cred, why) => {
        const remote = this.boundTask === undefined ? this.core.forwardOf(cred)?.remote : undefined;
        this.core.deps.onRejected?.({ summary: 'connection refused: too many open connections', reason: why, facts: { ...cred, socket: this.socketPath }, task: this.boundTask, ...(remote ? { remote } : {}) });
      },
      // On agent.sock, the connections of an ssh holding a remote's forward are the remote's
      // (what its server opens through the forward): capped apart, so remotes never take
      // this machine's own places (a task's socket is this machine's alone).
      ...(this.boundTask === undefined ? { originOf: (cred: PeerCred) => this.core.forwardOf(cred)?.remote.name ?? null, limits: { ...CONNECTION_LIMITS, ...FORWARD_LIMITS } } : {}),
      busyMessage: `another agent is already listening on ${this.socketPath}`,
      // The agent reads the process itself, through its cache (process-cache.ts), and only when signing.
      lazyProcess: true,
    });
  }

  private accept(socket: net.Socket, cred: PeerCred): void {
    this.conns.add(socket);
    const conn: Conn = {
      id: `ssh-${process.pid}-${++connCounter}`,
      socket,
      cred,
      process: undefined,
      binds: new SessionBinds(),
      boundTask: this.boundTask,
    };
    const decoder = new FrameDecoder();
    const queue: AgentMessage[] = [];
    let busy = false;
    let closed = false;
    const pump = async (): Promise<void> => {
      if (busy) return;
      busy = true;
      try {
        // Bounded: each iteration takes one queued message; reading pauses while the queue is full.
        while (queue.length > 0 && !closed) {
          const msg = queue.shift()!;
          if (queue.length < MAX_QUEUED / 2 && socket.isPaused()) socket.resume();
          let reply: Buffer;
          try {
            reply = await this.core.handle(conn, msg);
          } catch (e) {
            this.core.deps.log(`agent: ${(e as Error).message}`);
            reply = FAILURE_FRAME;
          }
          if (!closed && !socket.write(reply)) {
            // A client that sends but never reads must not make us buffer answers without
            // end (a 5-byte list request can have a long answer): wait until it reads.
            await new Promise<void>((resolve) => {
              const done = () => {
                socket.off('drain', done);
                socket.off('close', done);
                resolve();
              };
              socket.on('drain', done);
              socket.on('close', done);
            });
          }
        }
      } finally {
        busy = false;
        // Every answer is out: part of a next message left behind starts its clock now.
        stall.update(decoder.midFrame && queue.length === 0);
      }
    };
    // Part of a message and then silence (os/frame-stall.ts): closed, and recorded. Never
    // while a message of the connection is being answered (a signature waiting for the human).
    const stall = guardFrameStall(socket, () => {
      this.core.deps.onRejected?.({
        summary: 'connection closed: half a message, then silence',
        reason: `part of an agent message, then nothing for ${FRAME_STALL_MS / 1000} s; connection closed`,
        facts: { ...cred, socket: this.socketPath, heldBytes: decoder.pending },
        task: this.boundTask,
        connection: conn.id,
      });
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => {
      for (const f of decoder.push(chunk)) {
        queue.push(f.kind === 'message' ? parseMessage(f.body) : { type: 'malformed', code: null, why: `message of ${f.length} bytes is over the cap` });
      }
      // A connection whose message is being answered (a signature waiting for the human) is waiting, not stalled.
      stall.update(decoder.midFrame && !busy && queue.length === 0);
      if (queue.length >= MAX_QUEUED) socket.pause();
      void pump();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      this.conns.delete(socket);
      // Only a connection that asked something can have a prompt open.
      if (conn.process !== undefined) this.core.deps.onDisconnect(conn.id);
    });
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.conns) s.destroy();
    this.conns.clear();
    if (server) await closePrivate(server, this.socketPath);
    fs.rmSync(this.socketPath, { force: true });
  }
}

