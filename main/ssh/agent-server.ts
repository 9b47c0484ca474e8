// The agent itself: one AgentCore (keys, lock, upstream, the broker) behind any number of
// Unix sockets — the main agent.sock and one per task. Each connection is checked for the
// peer's uid, handled strictly one message at a time (the protocol is request/response in
// order), and every signature goes through asker.ask() first.
import { closePrivate, listenPrivate } from '../os/private-socket';
import * as fs from 'node:fs';
import * as net from 'node:net';
import type { AgentRequest } from '../contract/agent';
import type { ProcessInfo } from '../contract/common';
import type { Asker, KeyScope } from '../core/ports';
import type { PeerCred } from '../os/peer';
import { ProcessInfoCache } from './process-cache';
import { lockRequest, removeAllRequest, removeKeyRequest, unlockRequest } from './agent-admin';
import type { AgentLock } from './agent-lock';
import { describeSign, type KeyFacts } from './describe';
import { agentKeyFromWire, fingerprintOf, rsaPrimesAreProbable, signatureAlgorithm, signWith, type KeyAlgorithm } from './key-material';
import type { KeyStore } from './key-store';
import type { KnownHosts } from './known-hosts';
import {
  type AgentMessage,
  FAILURE_FRAME,
  FrameDecoder,
  SUCCESS_FRAME,
  extensionResponse,
  identitiesAnswer,
  parseMessage,
  signResponse,
} from './protocol';
import { SESSION_BIND, SessionBinds, parseSessionBind } from './session-bind';
import { parseSignedData } from './signed-data';
import { knownHostsCandidates, sshDestinationOf } from './ssh-argv';
import type { UpstreamIdentity, UpstreamSlot } from './upstream';
import { Reader, Writer } from './wire';

export interface AgentCoreDeps {
  store: KeyStore;
  lock: AgentLock;
  asker: Asker;
  keyScope: KeyScope;
  knownHosts: KnownHosts;
  upstream: UpstreamSlot;
  /** Operational messages only; never key material. */
  log: (msg: string) => void;
  /** Tells the broker a requester went away, so its open prompt is withdrawn. */
  onDisconnect: (connection: string) => void;
  /** A process of another user connected (and was refused): recorded in history. */
  onForeignPeer?: (socketPath: string, cred: PeerCred) => void;
}

/** Per-connection state. */
interface Conn {
  id: string;
  socket: net.Socket;
  cred: PeerCred;
  process: ProcessInfo | undefined;
  binds: SessionBinds;
  boundTask: string | undefined;
}

const EXTENSIONS = ['query', SESSION_BIND];
/** Messages one connection may have waiting before we stop reading from it. */
const MAX_QUEUED = 32;
const MAX_SUMMARY = 2000;

let connCounter = 0;

export class AgentCore {
  private readonly processes = new ProcessInfoCache();

  constructor(readonly deps: AgentCoreDeps) {}

  private async upstreamKeys(): Promise<UpstreamIdentity[]> {
    const up = this.deps.upstream.current;
    if (!up) return [];
    try {
      return await up.list();
    } catch (e) {
      this.deps.log(`upstream agent: ${(e as Error).message}`);
      return [];
    }
  }

  private processOf(cred: PeerCred): ProcessInfo {
    try {
      return this.processes.get(cred);
    } catch {
      return { pid: cred.pid, uid: cred.uid, gid: cred.gid, exe: null, argv: [], tree: [] };
    }
  }

  private visible(c: Conn): Set<string> | null {
    return c.boundTask === undefined ? null : this.deps.keyScope.keysVisibleTo(c.boundTask);
  }

  async handle(c: Conn, msg: AgentMessage): Promise<Buffer> {
    const { lock, store } = this.deps;
    if (lock.locked && msg.type !== 'unlock') {
      return msg.type === 'list' ? identitiesAnswer([]) : FAILURE_FRAME;
    }
    const onTaskSocket = c.boundTask !== undefined;
    switch (msg.type) {
      case 'list': {
        const scope = this.visible(c);
        const ours = store.entries().filter((e) => !scope || scope.has(e.key.fingerprint));
        const seen = new Set(ours.map((e) => e.key.fingerprint));
        const ids = ours.map((e) => ({ blob: e.key.publicBlob, comment: e.comment || e.name }));
        for (const u of await this.upstreamKeys()) {
          const fp = fingerprintOf(u.blob);
          if (seen.has(fp) || (scope && !scope.has(fp))) continue;
          seen.add(fp);
          ids.push(u);
        }
        return identitiesAnswer(ids);
      }
      case 'sign':
        return this.sign(c, msg.keyBlob, msg.data, msg.flags);
      // Task sockets are for signing only: a task cannot change the agent's keys or lock it.
      case 'add': {
        if (onTaskSocket) return FAILURE_FRAME;
        try {
          // Cheap checks first; then, for RSA, p and q prime, off the event loop (key-material.ts).
          const key = agentKeyFromWire(msg.key);
          if (!(await rsaPrimesAreProbable(msg.key))) return FAILURE_FRAME;
          return store.addVolatile(key, msg.comment, msg.constraints) ? SUCCESS_FRAME : FAILURE_FRAME;
        } catch {
          return FAILURE_FRAME;
        }
      }
      // Changes to the agent ask the human first (agent-admin.ts says why and what does not ask).
      case 'remove': {
        if (onTaskSocket) return FAILURE_FRAME;
        const fp = fingerprintOf(msg.keyBlob);
        const entry = store.get(fp);
        if (!entry || entry.origin !== 'ssh-add') return FAILURE_FRAME;
        if (!(await this.askAboutAgent(c, removeKeyRequest(entry)))) return FAILURE_FRAME;
        return store.removeVolatile(fp) ? SUCCESS_FRAME : FAILURE_FRAME;
      }
      case 'removeAll': {
        if (onTaskSocket) return FAILURE_FRAME;
        const entries = store.entries();
        const volatile = entries.filter((e) => e.origin === 'ssh-add');
        if (volatile.length > 0 && !(await this.askAboutAgent(c, removeAllRequest(volatile, entries.length - volatile.length)))) return FAILURE_FRAME;
        // ssh-add -D prints "All identities removed." on success. Stored keys are not
        // removed from here (only from the human side), so when some stay the answer is
        // failure ("Failed to remove all identities."), and the log says which went and which stayed.
        const r = store.removeAllVolatile();
        if (r.kept.length === 0) return SUCCESS_FRAME;
        this.deps.log(
          `ssh-add -D removed ${r.removed.length} key(s) added by ssh-add; kept ${r.kept.length} stored key(s) (${r.kept.slice(0, 8).join(', ')}): remove those with \`airlock keys remove\``,
        );
        return FAILURE_FRAME;
      }
      case 'lock':
        if (onTaskSocket || msg.passphrase.length === 0 || lock.locked) return FAILURE_FRAME;
        if (!(await this.askAboutAgent(c, lockRequest()))) return FAILURE_FRAME;
        return (await lock.lock(msg.passphrase)) ? SUCCESS_FRAME : FAILURE_FRAME;
      case 'unlock':
        if (onTaskSocket || msg.passphrase.length === 0 || !lock.locked) return FAILURE_FRAME;
        if (!(await this.askAboutAgent(c, unlockRequest()))) return FAILURE_FRAME;
        return (await lock.unlock(msg.passphrase)) ? SUCCESS_FRAME : FAILURE_FRAME;
      case 'extension':
        if (msg.name === 'query') return extensionResponse('query', EXTENSIONS.reduce((w, n) => w.string(n), new Writer()).toBuffer());
        if (msg.name === SESSION_BIND) {
          const r = parseSessionBind(msg.data);
          if (!r.ok) return FAILURE_FRAME;
          return c.binds.add(r.bind).ok ? SUCCESS_FRAME : FAILURE_FRAME;
        }
        return FAILURE_FRAME;
      case 'unsupported':
      case 'malformed':
        return FAILURE_FRAME;
    }
  }

  /** A change to the agent itself, asked like a signature; anything but an allow refuses it. */
  private async askAboutAgent(c: Conn, request: AgentRequest): Promise<boolean> {
    c.process ??= this.processOf(c.cred);
    try {
      const answer = await this.deps.asker.ask(request, { process: c.process, boundTask: c.boundTask, connection: c.id });
      return answer.decision === 'allow';
    } catch (e) {
      this.deps.log(`asking about ${request.resource ?? 'an agent change'} failed: ${(e as Error).message}`);
      return false;
    }
  }

  private async sign(c: Conn, keyBlob: Buffer, data: Buffer, flags: number): Promise<Buffer> {
    const fp = fingerprintOf(keyBlob);
    const scope = this.visible(c);
    if (scope && !scope.has(fp)) return FAILURE_FRAME;
    const local = this.deps.store.get(fp);
    let facts: KeyFacts;
    let algorithm: string;
    if (local) {
      if (!local.key.publicBlob.equals(keyBlob)) return FAILURE_FRAME;
      facts = { fingerprint: fp, name: local.name, algorithm: local.key.algorithm, origin: local.origin, confirm: local.confirm };
      algorithm = local.key.algorithm;
    } else {
      const up = (await this.upstreamKeys()).find((u) => u.blob.equals(keyBlob));
      if (!up) return FAILURE_FRAME;
      try {
        algorithm = new Reader(keyBlob).text(64);
      } catch {
        return FAILURE_FRAME;
      }
      facts = { fingerprint: fp, name: up.comment || fp, algorithm, origin: 'upstream', confirm: false };
    }

    const signed = parseSignedData(data, keyBlob);
    const last = c.binds.last;
    // Where the signature is used. For a file signature: the hop the request came from. For a
    // login: only a bind of that very session (a forwarded hop's host is not the destination),
    // else the host key a publickey-hostbound request names (which the server itself checks).
    let hostKey: Buffer | null = last?.hostKey ?? null;
    let hostKeySource: 'session-bind' | 'hostbound-request' | null = last ? 'session-bind' : null;
    if (signed.purpose === 'login') {
      // OpenSSH's rule: a login must be for the session this connection was last bound to.
      if (last && !last.forwarding && !last.sessionId.equals(signed.sessionId)) {
        this.deps.log(`refused a login signature whose session id does not match the bound session (${c.id})`);
        return FAILURE_FRAME;
      }
      const bound = c.binds.list.find((b) => !b.forwarding && b.sessionId.equals(signed.sessionId));
      if (bound && signed.hostKey && !bound.hostKey.equals(signed.hostKey)) return FAILURE_FRAME;
      hostKey = bound?.hostKey ?? signed.hostKey;
      hostKeySource = bound ? 'session-bind' : signed.hostKey ? 'hostbound-request' : null;
    }
    c.process ??= this.processOf(c.cred);
    const argvDestination = sshDestinationOf(c.process);
    const hostLookup = hostKey && signed.purpose === 'login' ? this.deps.knownHosts.lookup(hostKey, knownHostsCandidates(argvDestination)) : null;
    const { request, ssh } = describeSign({
      key: facts,
      signed,
      signatureAlgorithm: signatureAlgorithm(algorithm as KeyAlgorithm, flags),
      hostKeyFingerprint: hostKey ? fingerprintOf(hostKey) : null,
      hostLookup,
      forwarded: c.binds.forwarded,
      argvDestination,
    });
    if (hostKeySource) (request.args as Record<string, unknown>).hostKeySource = hostKeySource;
    request.summary = request.summary.slice(0, MAX_SUMMARY);

    let answer;
    try {
      answer = await this.deps.asker.ask(request, {
        ssh,
        process: c.process,
        boundTask: c.boundTask,
        connection: c.id,
      });
    } catch (e) {
      this.deps.log(`asking about a signature failed: ${(e as Error).message}`);
      return FAILURE_FRAME;
    }
    if (answer.decision !== 'allow') return FAILURE_FRAME;

    // The key may have been removed or the agent locked while the human was deciding.
    if (this.deps.lock.locked) return FAILURE_FRAME;
    if (local) {
      const still = this.deps.store.get(fp);
      if (!still) return FAILURE_FRAME;
      try {
        const sig = signWith(still.key, data, flags);
        this.deps.store.touch(fp);
        return signResponse(sig);
      } catch {
        return FAILURE_FRAME;
      }
    }
    const up = this.deps.upstream.current;
    if (!up) return FAILURE_FRAME;
    try {
      const sig = await up.sign(keyBlob, data, flags, c.binds.list);
      return sig ? signResponse(sig) : FAILURE_FRAME;
    } catch (e) {
      this.deps.log(`upstream agent: ${(e as Error).message}`);
      return FAILURE_FRAME;
    }
  }
}


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
      }
    };
    socket.on('data', (chunk: Buffer) => {
      for (const f of decoder.push(chunk)) {
        queue.push(f.kind === 'message' ? parseMessage(f.body) : { type: 'malformed', code: null, why: `message of ${f.length} bytes is over the cap` });
      }
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

