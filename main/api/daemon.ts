// The composition root of the core: store, broker, the two sockets (and, when asked,
// the SSH agent and the web UI). `airlock serve` and the Electron app both call this.
import { createApproverHandlers, type ApproverHandlers } from '../core/approver-service';
import { Broker } from '../core/broker';
import { classifyShell } from '../core/classify/shell';
import type { CommandClassifier, KeyService, NotificationSource } from '../core/ports';
import { airlockPaths, ensurePrivateDir, type AirlockPaths } from '../os/paths';
import { assertPeerCredAvailable } from '../os/peer';
import { resolveRealPaths } from '../os/real-path';
import { Store } from '../store';
import { RemoteSockets } from './remote-sockets';
import { startRequestSocket } from './request-socket';
import { removeLeftoverTaskDirs, TaskRequestSockets } from './task-request-sockets';
import { startUiSocket } from './ui-socket';
import { startSshAgent, type Sealer } from '../ssh';
import { loadTrust, parseFixedHosts, Resolver, SecretStore } from '../integrations/egress';
import { EgressSockets } from './egress-sockets';

export interface DaemonOptions {
  paths?: AirlockPaths;
  /** Front an existing SSH agent (its keys listed beside ours, signatures approved first). */
  upstream?: string | null;
  /** Seal SSH private keys with this passphrase instead of the master key file (main/ssh). */
  keyPassphrase?: string;
  /** How SSH private keys are sealed at rest: the Electron app passes one over safeStorage (main/ssh/sealer.ts). */
  keySealer?: Sealer;
  log?: (line: string) => void;
}

export interface RunningDaemon {
  paths: AirlockPaths;
  broker: Broker;
  service: ApproverHandlers & NotificationSource;
  close(): Promise<void>;
}

export async function startCore(opts: DaemonOptions = {}): Promise<RunningDaemon> {
  const paths = opts.paths ?? airlockPaths();
  const log = opts.log ?? (() => undefined);
  assertPeerCredAvailable();
  ensurePrivateDir(paths.home);
  ensurePrivateDir(paths.sockets);
  // A damaged, unopenable or locked file throws a StoreFault (one line; `airlock serve`
  // exits 65, 66 or 75). SQLite's quick_check has passed once this returns.
  const store = new Store(paths.db);
  // On a sound file a broken chain is tampering, not damage: say so at once, and keep
  // serving (new events chain on from the head; refusing to start would only stop every
  // approval). `airlock audit verify` walks the whole chain and names the first bad event.
  const closers: (() => Promise<void> | void)[] = [];
  try {
    const tampered = store.checkRecentChain();
    if (tampered) log(`history: TAMPERED: ${tampered} (the file itself is sound: SQLite's quick_check passed); run \`airlock audit verify\``);
    const classifier: CommandClassifier | undefined = classifyShell;
    const broker = new Broker({ store, classifier, realPaths: resolveRealPaths });
    // --- SSH agent wiring (main/ssh, owned by the SSH engineer) -------------------------
    const ssh = await startSshAgent({
      paths,
      asker: broker,
      keyScope: broker,
      upstream: opts.upstream ?? broker.settings.upstreamAgent ?? null,
      passphrase: opts.keyPassphrase,
      sealer: opts.keySealer,
      onDisconnect: (connection) => broker.dropConnection(connection),
      onKeysChanged: () => broker.publish({ method: 'keys.changed', params: {} }),
      keyUsage: { load: () => store.keyUsage(), touch: (fp, at) => store.touchKey(fp, at), forget: (fp) => store.forgetKey(fp) },
      log: (m) => log(`ssh: ${m}`),
    });
    closers.push(() => ssh.close());
    const keyService: KeyService | undefined = ssh.keyService;
    broker.taskSockets = ssh.taskSockets;
    log(`agent.sock   ${ssh.socketPath}`);
    // --- end of SSH agent wiring ------------------------------------------------------
    // Task sockets of a previous run are dead (agent.sock above proved no other daemon
    // serves this directory): remove them; running tasks keep their grants and token.
    removeLeftoverTaskDirs(paths.tasksDir);
    store.clearTaskSockets();
    const taskRequests = new TaskRequestSockets(broker, paths.tasksDir);
    broker.taskRequestSockets = taskRequests;
    closers.push(() => taskRequests.closeAll());
    // --- egress proxy (main/integrations/egress): a sandbox's only way out ---------------
    const secrets = new SecretStore(paths.secretsDir, ssh.sealer).load();
    for (const w of secrets.loadWarnings) log(`secrets: ${w}`);
    const trust = loadTrust(process.env, log);
    // Test-only fixed name → address answers, under the same AIRLOCK_TEST=1 rule as the test CA.
    const fixed = process.env.AIRLOCK_TEST === '1' ? parseFixedHosts(process.env.AIRLOCK_EGRESS_TEST_HOSTS) : new Map<string, string>();
    if (fixed.size) log(`egress: TEST SETTING: fixed addresses for ${[...fixed.keys()].join(', ')} (AIRLOCK_EGRESS_TEST_HOSTS)`);
    const egress = new EgressSockets(broker, paths.tasksDir, secrets, trust, new Resolver({ fixed }), log);
    broker.egress = egress;
    closers.push(() => egress.closeAll());
    // An --upstream given on the command line wins; otherwise the setting rules, live.
    // Remotes (airlock remote): each configured one gets its request socket back.
    const remotes = new RemoteSockets(broker, paths.remotesDir);
    closers.push(() => remotes.closeAll());
    for (const r of store.listRemotes()) {
      try {
        log(`remote ${r.name} ${await remotes.open(r.name)}`);
      } catch (e) {
        log(`remote ${r.name}: ${(e as Error).message}`);
      }
    }
    const service = createApproverHandlers(broker, keyService, {
      secrets,
      onSettingsChanged: (next, before) => {
        if (!opts.upstream && next.upstreamAgent !== before.upstreamAgent) ssh.setUpstream(next.upstreamAgent);
      },
      remotes,
    });
    const req = await startRequestSocket(paths.requestSock, broker);
    closers.push(() => req.close());
    const ui = await startUiSocket(paths.uiSock, service, broker);
    closers.push(() => ui.close());
    store.serving();
    store.startMaintenance();
    log(`request.sock ${paths.requestSock}`);
    log(`ui.sock      ${paths.uiSock}`);
    let closed = false;
    return {
      paths,
      broker,
      service,
      async close() {
        if (closed) return;
        closed = true;
        broker.shutdown();
        for (const c of closers.reverse()) await c();
        store.close();
      },
    };
  } catch (e) {
    for (const c of closers.reverse()) await c();
    store.close();
    throw e;
  }
}
