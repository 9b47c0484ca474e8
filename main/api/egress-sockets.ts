// Per-task egress sockets: tasks/<id>/egress.sock beside the task's agent.sock, each
// served by the task's own EgressProxy (main/integrations/egress). Same rules as every
// socket of Airlock: 0600 in a 0700 directory, the peer's uid checked on every connection.
// Beside it, the read-only files the sandbox binds: the Node preload, and (only when the
// task uses secrets) the CA bundle with the task's own CA. Ending the task closes every
// tunnel at once.
import * as fs from 'node:fs';
import type * as net from 'node:net';
import * as path from 'node:path';
import { RPC, RpcError } from '../contract/rpc';
import type { EgressCore, EgressEndpoint, EgressService } from '../core/ports';
import { EgressProxy, NODE_PRELOAD_SOURCE, newPlaceholder, type Resolver, type SecretStore, type TaskSecret, type Trust } from '../integrations/egress';
import { ensurePrivateDir } from '../os/paths';
import { closePrivate, foreignPeerAttempt, listenPrivate, overCapAttempt } from '../os/private-socket';

const MAX_SOCKET_PATH = 103;
const TASK_ID = /^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,63}$/;

interface Open {
  proxy: EgressProxy;
  server: net.Server;
  sock: string;
  files: string[];
}

export class EgressSockets implements EgressService {
  private readonly open_ = new Map<string, Open>();
  private own: { port: number; what: string }[] = [];

  constructor(
    private readonly core: EgressCore,
    private readonly tasksDir: string,
    private readonly secrets: SecretStore,
    private readonly trust: Trust,
    private readonly resolver: Resolver,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** Airlock's own TCP listeners (the web UI, once it listens): a sandbox reaching one is critical. */
  setOwnListeners(list: { port: number; what: string }[]): void {
    this.own = list;
  }

  secretNames(): string[] {
    return this.secrets.names();
  }

  async open(task: string, secretNames: string[]): Promise<EgressEndpoint> {
    if (!TASK_ID.test(task)) throw new Error(`task id ${JSON.stringify(task)} cannot name a socket directory`);
    if (this.open_.has(task)) throw new RpcError(RPC.invalidParams, `task ${task} already has an egress proxy`);
    const dir = path.join(this.tasksDir, task);
    const sock = path.join(dir, 'egress.sock');
    if (Buffer.byteLength(sock) > MAX_SOCKET_PATH) throw new Error(`socket path ${sock} is too long for a Unix socket; choose a shorter AIRLOCK_HOME`);
    ensurePrivateDir(this.tasksDir);
    ensurePrivateDir(dir);
    const secrets: TaskSecret[] = secretNames.map((name) => {
      const s = this.secrets.get(name);
      if (!s) throw new RpcError(RPC.invalidParams, `invalid params: secrets: no secret named ${name}`);
      return { name, hosts: s.hosts, headers: s.headers, value: s.value, placeholder: newPlaceholder(name), lineage: s.lineage };
    });
    // @peculiar/x509 takes ~100 ms to load: only a task that uses secrets pays for it.
    const ca = secrets.length ? await (require('../integrations/egress/task-ca') as typeof import('../integrations/egress/task-ca')).TaskCa.create(task) : null;
    const files: string[] = [];
    const write = (name: string, text: string) => {
      const f = path.join(dir, name);
      fs.writeFileSync(f, text, { mode: 0o600 });
      files.push(f);
      return f;
    };
    const nodePreload = write('egress-node.cjs', NODE_PRELOAD_SOURCE);
    // The system store plus the task's CA: clients that replace their store with this file
    // (curl, git, Python) still verify every other host as before.
    const caBundle = ca ? write('egress-ca.pem', `${this.trust.upstream}\n${ca.certPem}`) : null;
    const proxy = new EgressProxy({ task, core: this.core, resolver: this.resolver, secrets, ca, upstreamCa: this.trust.upstream, ownListeners: () => this.own, currentScope: (s) => this.secrets.currentScope(s.name, s.lineage),
      foreign: () => [...this.open_].filter(([id]) => id !== task).flatMap(([id, o]) => o.proxy.placeholders().map((p) => ({ task: id, ...p }))),
    });
    const server = await listenPrivate(sock, {
      onPeer: (s, peer) => proxy.accept(s, peer),
      onForeign: (cred) => {
        this.log(`egress: refused a connection to task ${task}'s proxy from uid ${cred.uid} (pid ${cred.pid})`);
        this.core.recordRejected({ ...foreignPeerAttempt(`tasks/${task}/egress.sock`, cred), task });
      },
      // Over a connection cap: an HTTP proxy can say so (503), then the connection closes.
      refusal: (why) => `HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(why) + 1}\r\n\r\n${why}\n`,
      onRefused: (cred, why) => this.core.recordRejected({ ...overCapAttempt(`tasks/${task}/egress.sock`, cred, why), task }),
    });
    const endpoint: EgressEndpoint = { sock, caBundle, nodePreload, placeholders: Object.fromEntries(secrets.map((s) => [s.name, s.placeholder])) };
    // For `airlock exec --sandbox --task ID`: where the task's way out is (placeholders are no secret).
    write('egress.json', JSON.stringify(endpoint) + '\n');
    this.open_.set(task, { proxy, server, sock, files });
    return endpoint;
  }

  async close(task: string): Promise<void> {
    const o = this.open_.get(task);
    if (!o) return;
    this.open_.delete(task);
    o.proxy.close();
    await closePrivate(o.server, o.sock);
    for (const f of o.files) fs.rmSync(f, { force: true });
  }

  /** The task read a secret: the connections its proxy let through close (EgressProxy.cut); how many. */
  cut(task: string): number {
    return this.open_.get(task)?.proxy.cut() ?? 0;
  }

  async closeAll(): Promise<void> {
    for (const t of [...this.open_.keys()]) await this.close(t);
  }
}
