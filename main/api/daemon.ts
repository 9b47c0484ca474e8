// The composition root of the core: store, broker, the two sockets (and, when asked,
// the SSH agent and the web UI). `airlock serve` and the Electron app both call this.
import { createApproverHandlers, type ApproverHandlers } from '../core/approver-service';
import { Broker } from '../core/broker';
import { classifyShell } from '../core/classify/shell';
import type { CommandClassifier, KeyService, NotificationSource } from '../core/ports';
import { airlockPaths, ensurePrivateDir, type AirlockPaths } from '../os/paths';
import { assertPeerCredAvailable } from '../os/peer';
import { Store } from '../store';
import { startRequestSocket } from './request-socket';
import { startUiSocket } from './ui-socket';
import { startSshAgent, type Sealer } from '../ssh';

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
  const store = new Store(paths.db);
  store.startMaintenance();
  const closers: (() => Promise<void> | void)[] = [];
  try {
    const classifier: CommandClassifier | undefined = classifyShell;
    const broker = new Broker({ store, classifier });
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
      log: (m) => log(`ssh: ${m}`),
    });
    closers.push(() => ssh.close());
    const keyService: KeyService | undefined = ssh.keyService;
    broker.taskSockets = ssh.taskSockets;
    log(`agent.sock   ${ssh.socketPath}`);
    // --- end of SSH agent wiring ------------------------------------------------------
    // An --upstream given on the command line wins; otherwise the setting rules, live.
    const service = createApproverHandlers(broker, keyService, {
      onSettingsChanged: (next, before) => {
        if (!opts.upstream && next.upstreamAgent !== before.upstreamAgent) ssh.setUpstream(next.upstreamAgent);
      },
    });
    const req = await startRequestSocket(paths.requestSock, broker);
    closers.push(() => req.close());
    const ui = await startUiSocket(paths.uiSock, service, broker);
    closers.push(() => ui.close());
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
