// The SSH agent's one entry point for the daemon: startSshAgent() opens agent.sock, loads
// the sealed keys, and hands back the KeyService and TaskSocketService the core needs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Asker, KeyAdded, KeyService, KeyScope, SigningEnded, TaskSocketService } from '../core/ports';
import type { AirlockPaths } from '../os/paths';
import type { PeerCred } from '../os/peer';
import { AgentLock } from './agent-lock';
import type { ProcessInfo } from '../contract/common';
import { AgentCore, type AgentRejection, type ForwardedFrom } from './agent-server';
import { AgentListener } from './agent-listener';
import { AgentKeyService } from './key-service';
import { KeyStore, type KeyUsage } from './key-store';
import { KnownHosts, defaultKnownHostsFiles } from './known-hosts';
import { type Sealer, masterKeyFileSealer, passphraseSealer } from './sealer';
import { TaskSockets } from './task-sockets';
import { UpstreamSlot } from './upstream';

export type { Sealer } from './sealer';

export interface SshAgentOptions {
  paths: AirlockPaths;
  asker: Asker;
  keyScope: KeyScope;
  /** Path of another agent's socket to front (`airlock serve --upstream PATH`). */
  upstream?: string | null;
  /**
   * How private keys are sealed at rest. Default: a 0600 master key file in the keys dir,
   * or `passphrase` when given. The Electron app passes a safeStorage sealer.
   */
  sealer?: Sealer;
  passphrase?: string;
  /** known_hosts files to name hosts from (default: ~/.ssh/known_hosts, /etc/ssh/ssh_known_hosts). */
  knownHostsFiles?: string[];
  /** Where stored keys' last use is kept across restarts (the store's key_usage table). */
  keyUsage?: KeyUsage;
  /** Called when the key list changes (for the `keys.changed` notification). */
  onKeysChanged?: () => void;
  /**
   * The agent can no longer sign with some keys: removed or expired (`held` says which
   * stored or ssh-add keys remain), or all of them (`locked`). Signature prompts for those
   * keys are answered at once, not left to an answer that could sign nothing.
   */
  onSigningEnded?: (e: SigningEnded) => void;
  /** A client connection closed (the broker drops its pending prompts: Broker.dropConnection). */
  onDisconnect?: (connection: string) => void;
  /** A process of another user connected to an agent socket (refused): record it in history. */
  onForeignPeer?: (socketPath: string, cred: PeerCred) => void;
  /** A client sent what only a hostile or broken client sends (agent-server.ts AgentRejection): record it in history. */
  onRejected?: (r: AgentRejection) => void;
  /** A key was added with ssh-add (not asked): record it in history (core/ports.ts KeyAdded). */
  onKeyAdded?: (a: KeyAdded) => void;
  /** The remote whose forward an ssh peer holds (agent-server.ts AgentCoreDeps.remoteOf). */
  remoteOf?: (p: ProcessInfo) => ForwardedFrom | null;
  log?: (msg: string) => void;
}

export interface SshAgent {
  keyService: KeyService;
  taskSockets: TaskSocketService;
  /** How private keys are sealed at rest: the egress proxy seals its secrets with the same one. */
  sealer: Sealer;
  /** Path of the main agent socket (SSH_AUTH_SOCK). */
  socketPath: string;
  /** Keys that could not be opened at start-up (sealed another way, damaged). */
  warnings: string[];
  /** Front another agent from now on (null: none), e.g. when the upstreamAgent setting changes. */
  setUpstream(path: string | null): void;
  /** Why `setUpstream(path)` would be refused (Airlock's own agent.sock or a task's), or null. */
  upstreamProblem(path: string | null): string | null;
  close(): Promise<void>;
}

export async function startSshAgent(opts: SshAgentOptions): Promise<SshAgent> {
  const log = opts.log ?? ((m: string) => process.stderr.write(`airlock ssh: ${m}\n`));
  const sealer = opts.sealer ?? (opts.passphrase ? passphraseSealer(opts.paths.keysDir, opts.passphrase) : masterKeyFileSealer(opts.paths.keysDir));
  const store: KeyStore = new KeyStore(
    opts.paths.keysDir,
    sealer,
    () => {
      opts.onKeysChanged?.();
      // entries(), not get(): a read here must not drop an expired key (and call this again).
      const held = new Set(store.entries().map((e) => e.key.fingerprint));
      opts.onSigningEnded?.({ locked: false, held: (fp) => held.has(fp) });
    },
    opts.keyUsage,
  );
  store.load();
  const real = (p: string): string => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const ownSockets = (p: string | null | undefined): boolean =>
    !!p && (real(p) === real(opts.paths.agentSock) || real(p).startsWith(real(opts.paths.tasksDir) + path.sep));
  // Fronting ourselves would ask every list and signature of ourselves, forever.
  // A bad setting must not keep the daemon from starting: say so and run without upstream.
  let upstreamPath = opts.upstream ?? null;
  if (ownSockets(upstreamPath)) {
    log(`ignoring upstream agent ${upstreamPath}: it is Airlock's own socket`);
    upstreamPath = null;
  }
  const upstream = new UpstreamSlot(upstreamPath);
  const core = new AgentCore({
    store,
    lock: new AgentLock(),
    asker: opts.asker,
    keyScope: opts.keyScope,
    knownHosts: new KnownHosts(opts.knownHostsFiles ?? defaultKnownHostsFiles()),
    upstream,
    log,
    onDisconnect: opts.onDisconnect ?? (() => {}),
    onForeignPeer: opts.onForeignPeer,
    onRejected: opts.onRejected,
    onKeyAdded: opts.onKeyAdded,
    remoteOf: opts.remoteOf,
    onLocked: () => opts.onSigningEnded?.({ locked: true }),
  });
  const main = new AgentListener(core, opts.paths.agentSock);
  await main.listen();
  // A symbolic link to agent.sock (an SSH_AUTH_SOCK such as ~/.ssh/agent.sock pointing here)
  // resolves only once the socket exists: look again now that it does.
  if (upstreamPath !== null && ownSockets(upstreamPath)) {
    log(`ignoring upstream agent ${upstreamPath}: it is Airlock's own socket`);
    upstream.set(null);
  }
  const tasks = new TaskSockets(core, opts.paths.tasksDir);
  for (const w of store.loadWarnings) log(w);
  return {
    keyService: new AgentKeyService(store, upstream),
    taskSockets: tasks,
    sealer,
    socketPath: opts.paths.agentSock,
    warnings: [...store.loadWarnings],
    setUpstream: (p) => {
      if (ownSockets(p)) throw new Error(`the upstream agent ${p} is Airlock's own socket`);
      upstream.set(p);
    },
    upstreamProblem: (p) =>
      ownSockets(p) ? `upstreamAgent: ${p} is Airlock's own agent socket (agent.sock or a task's); fronting it would ask Airlock about itself forever` : null,
    async close() {
      await tasks.closeAll();
      await main.close();
      store.close();
    },
  };
}
