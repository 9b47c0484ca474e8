// The agent itself: one AgentCore (keys, lock, upstream, the broker) behind any number of
// Unix sockets — the main agent.sock and one per task. Each connection is checked for the
// peer's uid (agent-listener.ts), handled strictly one message at a time (the protocol is request/response in
// order), and every signature goes through asker.ask() first.
import type * as net from 'node:net';
import type { AgentRequest } from '../contract/agent';
import type { ProcessInfo, RemoteInfo } from '../contract/common';
import type { Asker, KeyAdded, KeyScope } from '../core/ports';
import { deepFreeze, type PeerCred } from '../os/peer';
import { ProcessInfoCache } from './process-cache';
import { lockRequest, removeAllRequest, removeKeyRequest, unlockRequest } from './agent-admin';
import type { AgentLock } from './agent-lock';
import { describeSign, printable, type KeyFacts } from './describe';
import { agentKeyFromWire, fingerprintOf, rsaPrimesAreProbable, signatureAlgorithm, signWith, type KeyAlgorithm } from './key-material';
import type { KeyStore } from './key-store';
import type { KnownHosts } from './known-hosts';
import {
  type AgentMessage,
  FAILURE_FRAME,
  SUCCESS_FRAME,
  extensionResponse,
  identitiesAnswer,
  signResponse,
} from './protocol';
import { SESSION_BIND, type SessionBinds, parseSessionBind } from './session-bind';
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
  /** A refusal worth keeping (see AgentRejection): recorded in history as a rejected attempt. */
  onRejected?: (r: AgentRejection) => void;
  /** A key was added with ssh-add (it does not ask, agent-admin.ts): recorded in history all the same. */
  onKeyAdded?: (a: KeyAdded) => void;
  /**
   * The remote (airlock remote) whose forward the peer process holds, when it is an ssh
   * started with a remote's `-R … remotes/NAME/request.sock` (the line `remote add` prints):
   * what reaches agent.sock through that ssh's agent forwarding comes from the remote's server.
   * `removed`: the name is no remote here any more (removed while the session stayed open).
   */
  remoteOf?: (p: ProcessInfo) => ForwardedFrom | null;
  /** The agent was locked (ssh-add -x): signature prompts still open are answered (Broker.signingEnded). */
  onLocked?: () => void;
}

export interface ForwardedFrom {
  remote: RemoteInfo;
  removed: boolean;
}

/**
 * What only a hostile or broken client sends, recorded in history (decision `reject`): a
 * message that does not parse (an unknown type, a truncated or over-long frame, a key whose
 * halves do not match), a session-bind that does not verify or breaks OpenSSH's rules, a
 * login signature for another session than the one bound, and add/remove/lock on a task
 * socket. Facts only — the message type, lengths, fingerprints, the reason — never the
 * bytes: an add carries a private key. Not recorded: what real clients send and we merely
 * do not offer (smartcards, certificates, unknown extensions), and refusals that are
 * ordinary answers (a key we do not have, a wrong unlock passphrase).
 */
export interface AgentRejection {
  summary: string;
  reason: string;
  facts: Record<string, unknown>;
  process?: ProcessInfo;
  task?: string;
  /** The connection it came on (a flood is coalesced per connection). */
  connection?: string;
  /** It came through a remote's forwarded agent: recorded with the remote. */
  remote?: RemoteInfo;
}

/** Per-connection state. */
export interface Conn {
  id: string;
  socket: net.Socket;
  cred: PeerCred;
  process: ProcessInfo | undefined;
  binds: SessionBinds;
  boundTask: string | undefined;
}

const EXTENSIONS = ['query', SESSION_BIND];
const MAX_SUMMARY = 2000;

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
      return deepFreeze({ pid: cred.pid, uid: cred.uid, gid: cred.gid, exe: null, argv: [], tree: [] });
    }
  }

  /** The remote whose forward a peer ssh holds (remoteOf); its process is cached for handle(). */
  forwardOf = (cred: PeerCred): ForwardedFrom | null => this.deps.remoteOf?.(this.processOf(cred)) ?? null;

  private visible(c: Conn): Set<string> | null {
    return c.boundTask === undefined ? null : this.deps.keyScope.keysVisibleTo(c.boundTask);
  }

  async handle(c: Conn, msg: AgentMessage): Promise<Buffer> {
    const { lock, store } = this.deps;
    if (msg.type === 'malformed') {
      return this.reject(c, msg.code === null ? 'agent message refused' : `agent message of type ${msg.code} refused`, msg.why, { type: msg.code });
    }
    const onTaskSocket = c.boundTask !== undefined;
    // A removed remote's open session gets nothing; a session-bind asks nothing and tells our own ssh login apart.
    const from = onTaskSocket || (msg.type === 'extension' && msg.name === SESSION_BIND) ? null : this.forwardedFrom(c);
    if (from?.removed) return this.refuseRemoved(c, msg.type === 'list' ? 'key list' : msg.type === 'sign' ? 'signature' : `${msg.type} message`, from);
    if (lock.locked && msg.type !== 'unlock') {
      return msg.type === 'list' ? identitiesAnswer([]) : FAILURE_FRAME;
    }
    // A remote's server holds its forwarded agent for the whole session: it may ask for
    // signatures (each asked, marked with the remote), never change this machine's agent.
    const changes = msg.type === 'add' || msg.type === 'remove' || msg.type === 'removeAll' || msg.type === 'lock' || msg.type === 'unlock';
    if (changes && from) return this.refuseFromRemote(c, msg.type, from);
    switch (msg.type) {
      case 'list': {
        const scope = this.visible(c);
        const ours = store.entries().filter((e) => !scope || scope.has(e.key.fingerprint));
        const seen = new Set(ours.map((e) => e.key.fingerprint));
        // A comment is one line of `ssh-add -l`/`-L`, whose output people paste into
        // authorized_keys: a newline in it (a crafted key file, an agent's ssh-add) would print a
        // second key line of the comment's choosing. Controls and invisibles are shown as U+FFFD.
        const ids = ours.map((e) => ({ blob: e.key.publicBlob, comment: printable(e.comment || e.name) }));
        for (const u of await this.upstreamKeys()) {
          const fp = fingerprintOf(u.blob);
          if (seen.has(fp) || (scope && !scope.has(fp))) continue;
          seen.add(fp);
          ids.push({ ...u, comment: printable(u.comment) });
        }
        return identitiesAnswer(ids);
      }
      case 'sign':
        return this.sign(c, msg.keyBlob, msg.data, msg.flags);
      // Task sockets are for signing only: a task cannot change the agent's keys or lock it.
      case 'add': {
        if (onTaskSocket) return this.refuseOnTask(c, msg.type);
        try {
          // Cheap checks first; then, for RSA, p and q prime, off the event loop (key-material.ts).
          const key = agentKeyFromWire(msg.key);
          if (!(await rsaPrimesAreProbable(msg.key))) return FAILURE_FRAME;
          // A stored key stays what it is (addVolatile answers success and changes nothing): nothing to record.
          const stored = store.get(key.fingerprint)?.origin === 'airlock';
          if (!store.addVolatile(key, msg.comment, msg.constraints)) return FAILURE_FRAME;
          if (!stored) this.keyAdded(c, key.fingerprint, key.algorithm, msg.comment, msg.constraints);
          return SUCCESS_FRAME;
        } catch (e) {
          // WireError messages name what is wrong ("inconsistent RSA key"), never key material.
          return this.reject(c, `ssh-add of a ${msg.key.kind} key refused`, (e as Error).message.slice(0, 200), { message: 'add', keyType: msg.key.kind });
        }
      }
      // Changes to the agent ask the human first (agent-admin.ts says why and what does not ask).
      case 'remove': {
        if (onTaskSocket) return this.refuseOnTask(c, msg.type);
        const fp = fingerprintOf(msg.keyBlob);
        const entry = store.get(fp);
        if (!entry || entry.origin !== 'ssh-add') return FAILURE_FRAME;
        if (!(await this.askAboutAgent(c, removeKeyRequest(entry)))) return FAILURE_FRAME;
        return store.removeVolatile(fp) ? SUCCESS_FRAME : FAILURE_FRAME;
      }
      case 'removeAll': {
        if (onTaskSocket) return this.refuseOnTask(c, msg.type);
        const entries = store.entries();
        const volatile = entries.filter((e) => e.origin === 'ssh-add');
        if (volatile.length > 0 && !(await this.askAboutAgent(c, removeAllRequest(volatile, entries.length - volatile.length)))) return FAILURE_FRAME;
        // ssh-add -D prints "All identities removed." on success. Stored keys are not
        // removed from here (only from the human side), nor an upstream agent's (they are
        // removed there), so when some stay — `ssh-add -l` still lists them — the answer is
        // failure ("Failed to remove all identities."), and the log says which went and which stayed.
        const r = store.removeAllVolatile();
        const ours = new Set(store.entries().map((e) => e.key.fingerprint));
        const upstream = (await this.upstreamKeys()).map((u) => fingerprintOf(u.blob)).filter((fp) => !ours.has(fp));
        if (r.kept.length === 0 && upstream.length === 0) return SUCCESS_FRAME;
        const kept = [
          ...(r.kept.length > 0 ? [`${r.kept.length} stored key(s) (${r.kept.slice(0, 8).join(', ')}): remove those with \`airlock keys remove\``] : []),
          ...(upstream.length > 0 ? [`${upstream.length} key(s) of the upstream agent (${upstream.slice(0, 8).join(', ')}): remove those from that agent`] : []),
        ];
        this.deps.log(`ssh-add -D removed ${r.removed.length} key(s) added by ssh-add; kept ${kept.join('; ')}`);
        return FAILURE_FRAME;
      }
      case 'lock':
        if (onTaskSocket) return this.refuseOnTask(c, msg.type);
        if (msg.passphrase.length === 0 || lock.locked) return FAILURE_FRAME;
        if (!(await this.askAboutAgent(c, lockRequest()))) return FAILURE_FRAME;
        if (!(await lock.lock(msg.passphrase))) return FAILURE_FRAME;
        this.deps.onLocked?.();
        return SUCCESS_FRAME;
      case 'unlock':
        if (onTaskSocket) return this.refuseOnTask(c, msg.type);
        if (msg.passphrase.length === 0 || !lock.locked) return FAILURE_FRAME;
        if (!(await this.askAboutAgent(c, unlockRequest()))) return FAILURE_FRAME;
        return (await lock.unlock(msg.passphrase)) ? SUCCESS_FRAME : FAILURE_FRAME;
      case 'extension':
        if (msg.name === 'query') return extensionResponse('query', EXTENSIONS.reduce((w, n) => w.string(n), new Writer()).toBuffer());
        if (msg.name === SESSION_BIND) {
          const r = parseSessionBind(msg.data);
          if (!r.ok) return this.reject(c, 'session-bind refused', r.why, { extension: SESSION_BIND, bytes: msg.data.length });
          const added = c.binds.add(r.bind);
          if (!added.ok) return this.reject(c, 'session-bind refused', added.why ?? 'refused', { extension: SESSION_BIND, hostKey: r.bind.hostKeyFingerprint, forwarding: r.bind.forwarding });
          return SUCCESS_FRAME;
        }
        return FAILURE_FRAME;
      case 'unsupported':
        return FAILURE_FRAME;
    }
  }

  /**
   * The remote a connection speaks for: the peer is the ssh holding a remote's forward and
   * the connection is not that ssh's own login (a bind for authentication, made by the ssh
   * here before the server had a say): an agent-forwarding channel, or a connection that
   * bound nothing (an ssh older than OpenSSH 8.9 does not tell; asking as the remote only
   * narrows what answers it).
   */
  private forwardedFrom(c: Conn): ForwardedFrom | null {
    if (!this.deps.remoteOf || c.boundTask !== undefined) return null;
    if (c.binds.list.length > 0 && !c.binds.forwarded) return null;
    c.process ??= this.processOf(c.cred);
    return this.deps.remoteOf(c.process);
  }

  private refuseFromRemote(c: Conn, type: AgentMessage['type'], from: ForwardedFrom): Buffer {
    return this.reject(c, `ssh-add (${type}) through the forwarded agent of remote ${from.remote.name}`, `remote ${from.remote.name}'s forwarded agent signs only (each signature asked here): a server cannot add or remove keys of this machine's agent, or lock or unlock it`, { message: type });
  }

  private refuseRemoved(c: Conn, what: string, from: ForwardedFrom, facts: Record<string, unknown> = {}): Buffer {
    const name = from.remote.name;
    return this.reject(c, `${what} through the forwarded agent of removed remote ${name} refused`, `remote ${name} was removed while its ssh session stayed open: nothing of it is answered any more; end that ssh session`, facts);
  }

  /** Records a refusal (AgentRejection) and answers FAILURE. */
  reject(c: Conn, summary: string, reason: string, facts: Record<string, unknown>): Buffer {
    c.process ??= this.processOf(c.cred);
    const from = this.forwardedFrom(c);
    try {
      this.deps.onRejected?.({ summary, reason, facts, process: c.process, task: c.boundTask, connection: c.id, ...(from ? { remote: from.remote } : {}) });
    } catch (e) {
      this.deps.log(`recording a refused agent message failed: ${(e as Error).message}`);
    }
    return FAILURE_FRAME;
  }

  /** Records an ssh-add that changed the agent; a failure to record is logged, the add stands (it asks nobody). */
  private keyAdded(c: Conn, fingerprint: string, algorithm: string, comment: string, constraints: { lifetimeSec: number | null; confirm: boolean }): void {
    c.process ??= this.processOf(c.cred);
    try {
      this.deps.onKeyAdded?.({ fingerprint, algorithm, comment, lifetimeSec: constraints.lifetimeSec, confirm: constraints.confirm, process: c.process });
    } catch (e) {
      this.deps.log(`recording an ssh-add failed: ${(e as Error).message}`);
    }
  }

  private refuseOnTask(c: Conn, type: AgentMessage['type']): Buffer {
    return this.reject(c, `ssh-add (${type}) on a task's agent socket`, "a task's agent socket signs only: it cannot add or remove keys, or lock or unlock the agent", { message: type });
  }

  /** A change to the agent itself, asked like a signature; anything but an allow refuses it. */
  private async askAboutAgent(c: Conn, request: AgentRequest): Promise<boolean> {
    c.process ??= this.processOf(c.cred);
    try {
      const answer = await this.deps.asker.ask(request, { process: c.process, boundTask: c.boundTask, connection: c.id, viaSshAgent: true });
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
        return this.reject(c, 'login signature for another session refused', 'the session id to sign is not the session this connection was bound to (session-bind)', {
          key: fp,
          boundHostKey: last.hostKeyFingerprint,
          user: printable(signed.user).slice(0, 200),
        });
      }
      const bound = c.binds.list.find((b) => !b.forwarding && b.sessionId.equals(signed.sessionId));
      if (bound && signed.hostKey && !bound.hostKey.equals(signed.hostKey)) return FAILURE_FRAME;
      hostKey = bound?.hostKey ?? signed.hostKey;
      hostKeySource = bound ? 'session-bind' : signed.hostKey ? 'hostbound-request' : null;
    }
    c.process ??= this.processOf(c.cred);
    const from = this.forwardedFrom(c);
    if (from?.removed) return this.refuseRemoved(c, 'signature', from, { key: fp }); // removed since handle() checked
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
        viaSshAgent: true,
        process: c.process,
        boundTask: c.boundTask,
        connection: c.id,
        ...(from ? { remote: from.remote } : {}),
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
