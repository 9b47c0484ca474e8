// The composition root of the daemon: the store, the core's parts (policy, prompt queue,
// tasks and grants, history), the SSH agent, the egress proxies, every socket, the web UI
// when asked, and what Electron's IPC serves (`dispatch`, `recorder`). `airlock serve` and
// the Electron app both call this, so every transport is built from the same parts. Each
// part gets everything it needs in its constructor; nothing is patched in afterwards.
import * as path from 'node:path';
import { approverMethods } from '../contract/approver';
import { createApproverHandlers, type ApproverHandlers } from '../core/approver-service';
import { Broker } from '../core/broker';
import { HistoryRecorder } from '../core/history-recorder';
import { NotificationBus } from '../core/notification-bus';
import { PromptQueue } from '../core/prompt-queue';
import { RequestPolicy, denyingGrantOf } from '../core/request-policy';
import { SettingsService } from '../core/settings-service';
import { TaskLifecycle } from '../core/task-lifecycle';
import { TasksAndGrants } from '../core/tasks-and-grants';
import { classifyShell } from '../core/classify/shell';
import type { AgentSide, CommandClassifier, KeyService, NotificationSource, RejectionRecorder } from '../core/ports';
import { airlockPaths, ensurePrivateDir, type AirlockPaths } from '../os/paths';
import { ownPathsOf } from '../os/own-paths';
import { claudeConfigValuesOf } from '../os/claude-config-env';
import { ProcessChain } from '../os/process-chain';
import { socketDistrust } from '../os/socket-trust';
import { assertPeerCredAvailable } from '../os/peer';
import { foreignPeerAttempt } from '../os/private-socket';
import { BUDGET_MS, resolveRealPaths } from '../os/real-path';
import { findRepoLookalike } from '../os/git-lookalike';
import { createConsequenceProbe } from '../os/consequence-probe';
import { gitTreeWrites, LookBudget } from '../os/git-tree';
import { loadWebState, writeWebState } from '../os/web-state';
import { Store } from '../store';
import { RemoteSockets, remoteForwardedBy } from './remote-sockets';
import { remoteVia, startRequestSocket } from './request-socket';
import { removeLeftoverTaskDirs, TaskRequestSockets } from './task-request-sockets';
import { startUiSocket } from './ui-socket';
import { startSshAgent, type Sealer } from '../ssh';
import { fixedDnsLookup, loadTrust, parseFixedHosts, Resolver, SecretStore } from '../integrations/egress';
import { createDispatch, type Dispatch } from './dispatch';
import { EgressSockets } from './egress-sockets';
import { startWebServer, type RunningWebServer } from './web-server';

export interface DaemonOptions {
  paths?: AirlockPaths;
  /** Front an existing SSH agent (its keys listed beside ours, signatures approved first). */
  upstream?: string | null;
  /** Seal SSH private keys with this passphrase instead of the master key file (main/ssh). */
  keyPassphrase?: string;
  /** How SSH private keys are sealed at rest: the Electron app passes one over safeStorage (main/ssh/sealer.ts). */
  keySealer?: Sealer;
  log?: (line: string) => void;
  /** Also serve the web UI on 127.0.0.1 (`airlock serve --web`): the built renderer and a port (0: any free one). */
  web?: { appDir: string; port?: number; newToken?: boolean };
}

export interface RunningDaemon {
  paths: AirlockPaths;
  /** The human side: what ui.sock, the web UI and Electron's IPC serve. */
  service: ApproverHandlers & NotificationSource;
  /** The ApproverService table as one dispatch: what Electron's IPC serves (ui.sock and the web UI serve the same). */
  dispatch: Dispatch;
  /** Where Electron's IPC records what it rejects (ui.sock and the web UI record here too). */
  recorder: RejectionRecorder;
  /** The web UI, when `web` was given: its URL (with its token, kept across restarts) is printed once. */
  web: RunningWebServer | null;
  close(): Promise<void>;
}

export async function startCore(opts: DaemonOptions = {}): Promise<RunningDaemon> {
  const paths = opts.paths ?? airlockPaths();
  const log = opts.log ?? (() => undefined);
  assertPeerCredAvailable();
  ensurePrivateDir(paths.home);
  ensurePrivateDir(paths.sockets);
  // The clients refuse sockets under a directory others could change (os/socket-trust.ts):
  // refuse to listen there too, rather than serve where no client will connect.
  const distrust = socketDistrust(paths.requestSock);
  if (distrust) throw new Error(`will not listen in ${paths.sockets}: ${distrust}; set XDG_RUNTIME_DIR to your private runtime directory or AIRLOCK_HOME to a directory only you can write`);
  // A damaged, unopenable or locked file throws a StoreFault (one line; `airlock serve`
  // exits 65, 66 or 75). SQLite's quick_check has passed once this returns.
  const store = new Store(paths.db);
  const closers: (() => Promise<void> | void)[] = [];
  try {
    // On a sound file a broken chain is tampering, not damage: say so at once, and keep
    // serving (new events chain on from the head; refusing to start would only stop every
    // approval). `airlock audit verify` walks the whole chain and names the first bad event.
    const tampered = store.checkRecentChain();
    if (tampered) log(`history: TAMPERED: ${tampered} (the file itself is sound: SQLite's quick_check passed); run \`airlock audit verify\``);
    const classifier: CommandClassifier | undefined = classifyShell;
    const bus = new NotificationBus();
    const settings = new SettingsService(store);
    const recorder = new HistoryRecorder(store, bus);
    const tasks = new TasksAndGrants(store, bus);
    const own = ownPathsOf(paths);
    // One budget for every request's look into a git repository (os/git-tree.ts LookBudget).
    const gitLooks = new LookBudget();
    const policy = new RequestPolicy(
      { settings: () => settings.settings, liveTask: (id) => tasks.liveTask(id), namesakes: (id) => tasks.namesakes(id), authorizeTask: (p) => tasks.authorizeTask(p), mcpTool: (s, t) => tasks.mcpTool(s, t), activeGrants: () => tasks.activeGrants(), memoryOf: (t) => recorder.memoryOf(t) },
      { classifier, realPaths: (p, o) => resolveRealPaths(p, BUDGET_MS, own, o?.claudeDirs, o?.globs), repoLookalike: findRepoLookalike, gitTree: (spec) => gitTreeWrites(spec, undefined, gitLooks), ownPaths: own, claudeConfigEnv: claudeConfigValuesOf(new ProcessChain(process.pid)),
        claudeDirKeeper: { load: (max) => store.claudeConfigDirs(max), keep: (dir, max) => store.keepClaudeConfigDir(dir, Date.now(), max) } },
    );
    // Airlock's own entry points (bin/airlock, dist/…): "who" on a prompt walks past them to the agent.
    const installRoot = path.resolve(__dirname, '..', '..', '..');
    const ownInstall = { roots: [path.join(installRoot, 'bin'), path.join(installRoot, 'dist')] };
    const queue = new PromptQueue({ recorder, grants: tasks, settings: () => settings.settings, bus, consequences: createConsequenceProbe(), ownInstall, riskOf: (r) => policy.riskOf(r), denyingGrant: (r) => denyingGrantOf(policy, r) });
    // A deny grant made while requests wait answers those it covers, as it would if they came now.
    tasks.onGrantCreated = (g) => g.effect === 'deny' && queue.applyDenyGrants();
    const broker = new Broker({ policy, queue, recorder, grants: tasks });
    // --- SSH agent wiring (main/ssh, owned by the SSH engineer) -------------------------
    // Set once the remotes' sockets are open (below); until then a remote's forward is no remote here.
    const remoteSockets: { current?: RemoteSockets } = {};
    const ssh = await startSshAgent({
      paths,
      asker: broker,
      keyScope: tasks,
      upstream: opts.upstream ?? settings.settings.upstreamAgent ?? null,
      passphrase: opts.keyPassphrase,
      sealer: opts.keySealer,
      onDisconnect: (connection) => broker.dropConnection(connection),
      onForeignPeer: (sock, cred) => recorder.recordRejected(foreignPeerAttempt(sock === paths.agentSock ? 'agent.sock' : path.relative(paths.sockets, sock), cred)),
      // What only a hostile or broken client sends on an agent socket (main/ssh/agent-server.ts AgentRejection).
      onRejected: (r) => recorder.recordRejected({ source: 'ssh', tool: 'ssh-agent', summary: r.summary, raw: r.facts, reason: r.reason, process: r.process, task: r.task ?? null, connection: r.connection, ...(r.remote ? { remote: r.remote } : {}) }),
      onKeyAdded: (a) => recorder.recordKeyAdded(a),
      // What a remote's server asks through its forwarded agent is the remote's (docs/remote.md).
      remoteOf: (p) => {
        const name = remoteForwardedBy(p, paths.remotesDir);
        return name === null ? null : { remote: { name, via: remoteVia(p) }, removed: !(remoteSockets.current?.isOpen(name) ?? false) };
      },
      onKeysChanged: () => bus.publish({ method: 'keys.changed', params: {} }),
      onSigningEnded: (e) => broker.signingEnded(e),
      keyUsage: { load: () => store.keyUsage(), touch: (fp, at) => store.touchKey(fp, at), forget: (fp) => store.forgetKey(fp) },
      log: (m) => log(`ssh: ${m}`),
    });
    closers.push(() => ssh.close());
    const keyService: KeyService | undefined = ssh.keyService;
    log(`agent.sock   ${ssh.socketPath}`);
    // --- end of SSH agent wiring ------------------------------------------------------
    // Task sockets of a previous run are dead (agent.sock above proved no other daemon
    // serves this directory): remove them; running tasks keep their grants and token.
    removeLeftoverTaskDirs(paths.tasksDir);
    store.clearTaskSockets();
    const taskRequests = new TaskRequestSockets({ desk: broker, tasks, recorder }, paths.tasksDir);
    closers.push(() => taskRequests.closeAll());
    // --- egress proxy (main/integrations/egress): a sandbox's only way out ---------------
    const secrets = new SecretStore(paths.secretsDir, ssh.sealer).load();
    for (const w of secrets.loadWarnings) log(`secrets: ${w}`);
    const trust = loadTrust(process.env, log);
    // Test-only fixed name → address answers, under the same AIRLOCK_TEST=1 rule as the test CA.
    const fixed = process.env.AIRLOCK_TEST === '1' ? parseFixedHosts(process.env.AIRLOCK_EGRESS_TEST_HOSTS) : new Map<string, string>();
    if (fixed.size) log(`egress: TEST SETTING: fixed addresses for ${[...fixed.keys()].join(', ')} (AIRLOCK_EGRESS_TEST_HOSTS)`);
    const testDns = process.env.AIRLOCK_TEST === '1' ? parseFixedHosts(process.env.AIRLOCK_EGRESS_TEST_DNS) : new Map<string, string>();
    if (testDns.size) log(`egress: TEST SETTING: DNS answers for ${[...testDns.keys()].join(', ')} (AIRLOCK_EGRESS_TEST_DNS)`);
    const egress = new EgressSockets(broker, paths.tasksDir, secrets, trust, new Resolver({ fixed, ...(testDns.size ? { lookup: fixedDnsLookup(testDns) } : {}) }), log);
    // A task's chain rules changed (a secret read, a hook written): its waiting prompts are
    // assessed again, and after a secret read what its egress proxy let through closes, so
    // each connection from now on is asked as the critical transfer it is.
    recorder.onTaskMemory = (task, learned) => {
      queue.reassessTask(task);
      if (learned.includes('secretRead')) {
        const n = egress.cut(task);
        if (n) log(`egress: task ${task} read a secret: closed its ${n} open connection(s); each new one asks`);
      }
    };
    closers.push(() => egress.closeAll());
    const lifecycle = new TaskLifecycle(tasks, queue, recorder, bus, { ssh: ssh.taskSockets, requests: taskRequests, egress });
    const agent: AgentSide = { desk: broker, tasks, lifecycle, recorder };
    // An --upstream given on the command line wins; otherwise the setting rules, live.
    // Remotes (airlock remote): each configured one gets its request socket back.
    const remotes = new RemoteSockets(agent, paths.remotesDir);
    remoteSockets.current = remotes;
    closers.push(() => remotes.closeAll());
    for (const r of store.listRemotes()) {
      try {
        log(`remote ${r.name} ${await remotes.open(r.name)}`);
      } catch (e) {
        log(`remote ${r.name}: ${(e as Error).message}`);
      }
    }
    const service = createApproverHandlers({ queue, tasks, lifecycle, settings, bus, history: store }, keyService, {
      secrets,
      settingsProblem: (next, before) =>
        !opts.upstream && next.upstreamAgent !== before.upstreamAgent ? ssh.upstreamProblem(next.upstreamAgent) : null,
      onSettingsChanged: (next, before) => {
        if (!opts.upstream && next.upstreamAgent !== before.upstreamAgent) ssh.setUpstream(next.upstreamAgent);
      },
      remotes,
    });
    const req = await startRequestSocket(paths.requestSock, agent);
    closers.push(() => req.close());
    const ui = await startUiSocket(paths.uiSock, service, recorder);
    closers.push(() => ui.close());
    store.serving();
    store.startMaintenance();
    // The start-up look covers only the recent chain; the whole walk follows in the background,
    // a page at a time, so an edit anywhere in a long history is said at start too (README:
    // "a broken hash chain … is tampering, reported as such"), not only by `audit verify`.
    if (!tampered) void fullChainCheck(store, log);
    log(`request.sock ${paths.requestSock}`);
    log(`ui.sock      ${paths.uiSock}`);
    let web: RunningWebServer | null = null;
    if (opts.web) {
      // The token and port outlive a restart, so an open tab reconnects by itself (main/os/web-state.ts).
      const saved = loadWebState(paths.home, opts.web.newToken ?? false);
      web = await startWebServer({ appDir: opts.web.appDir, service: service.forCaller({ transport: 'web' }), port: opts.web.port ?? 0, preferredPort: saved.port, token: saved.token, onReject: (r) => recorder.recordRejected(r) });
      writeWebState(paths.home, { token: web.token, port: web.port });
      egress.setOwnListeners([{ port: web.port, what: "Airlock's own web UI" }]);
    }
    if (web) {
      const w = web;
      closers.push(() => w.close());
    }
    let closed = false;
    return {
      paths,
      service,
      // Electron's IPC (the only user of this dispatch): its task starts and ends say so.
      dispatch: createDispatch(approverMethods, service.forCaller({ transport: 'electron' })),
      recorder,
      web,
      async close() {
        if (closed) return;
        closed = true;
        broker.shutdown();
        // Let the denies reach the requesters still connected (then one turn for the writes).
        await broker.drained(2000);
        await new Promise((r) => setImmediate(r));
        for (const c of closers.reverse()) await c();
        // A flood's counted rejections are written, not lost with the process.
        recorder.flushRejections();
        store.close();
        // How well group commit batched this run (issue 15); tests and benches read it.
        const g = store.commitStats();
        // The line's first part is what tests and benches match; the time spent writing follows it.
        log(`history: ${g.items} events committed in ${g.batches} transactions (largest ${g.largest}); ${g.writeMs.toFixed(0)} ms writing them`);
      },
    };
  } catch (e) {
    for (const c of closers.reverse()) await c();
    store.close();
    throw e;
  }
}

/** The whole chain, walked after start; a store closed meanwhile (the daemon stopping) ends it quietly. */
async function fullChainCheck(store: Store, log: (line: string) => void): Promise<void> {
  try {
    const r = await store.verifyChainAsync({ quickCheck: false, background: true });
    if (!r.ok && r.firstBad) log(`history: TAMPERED: ${r.firstBad.reason} (found by the full check after start; the file itself is sound: SQLite's quick_check passed); run \`airlock audit verify\``);
  } catch (e) {
    if (store.isOpen()) log(`history: the full chain check after start failed: ${(e as Error).message}`);
  }
}
