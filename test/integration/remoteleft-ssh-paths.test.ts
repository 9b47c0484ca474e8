// The ssh line `airlock remote add` prints, when this machine's socket paths (AIRLOCK_HOME)
// or --server-socket hold what ssh reads specially: `%` tokens (`%d` your home, `%h` the
// host), `${VAR}`, `:` and `\` in a -R spec, a blank, quote or `#` in an -o value. ssh
// must use exactly the sockets Airlock opened; checked with the real `ssh -G` (what ssh
// would use) and a real session through a loopback sshd.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Prompt } from '../../main/contract/approver';
import type { RemotePlan } from '../../main/cli/commands/remote';
import type { RpcClient } from '../../main/client/rpc-client';
import { remoteForwardedBy } from '../../main/api/remote-sockets';
import { CLI, startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { run } from '../helpers/ssh';
import { sshArgs, startSshdForClient, type Sshd } from '../helpers/sshd';

let d: Daemon;
let home: string;
let ui: RpcClient;

before(async () => {
  // Every character ssh reads specially in a path that Airlock can still carry.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'rl %d:%h#\\'));
  d = await startDaemon({ home });
  ui = await d.ui();
});
after(async () => {
  ui?.close();
  await d?.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

const airlock = (args: string[], env: NodeJS.ProcessEnv = d.env) => run(process.execPath, [CLI, ...args], { env, timeoutMs: 30_000 });

async function plan(...extra: string[]): Promise<RemotePlan> {
  const r = await airlock(['remote', 'add', 'build', 'ci@build.example', '--json', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as RemotePlan;
}

/** What ssh would use (`ssh -G`, no config file of the user's), as key → value lines. */
async function sshWouldUse(options: string[]): Promise<Map<string, string[]>> {
  const r = await run('ssh', ['-G', '-F', '/dev/null', ...options, 'ci@build.example'], { env: { ...process.env, HOME: home, X: 'expanded' } });
  assert.equal(r.code, 0, r.stderr);
  const out = new Map<string, string[]>();
  for (const line of r.stdout.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0) out.set(line.slice(0, sp), [...(out.get(line.slice(0, sp)) ?? []), line.slice(sp + 1)]);
  }
  return out;
}

test('remote add: with % tokens, a colon, a backslash, # and a blank in AIRLOCK_HOME and --server-socket, ssh forwards exactly the sockets Airlock opened', async () => {
  const server = '/tmp/rl-%h-%d:%%\\x.sock';
  const p = await plan('--server-socket', server);
  assert.equal(p.remote.socket, path.join(home, 'remotes', 'build', 'request.sock'));
  assert.equal(p.serverSocket, server, 'the path the server gets is the one asked for');
  assert.equal(p.env.AIRLOCK_REQUEST_SOCK, server);
  const used = await sshWouldUse(p.sshOptions);
  assert.deepEqual(used.get('remoteforward'), [`${server} ${p.remote.socket}`], 'ssh listens on the asked path and connects to the remote\'s socket, nothing expanded');
  assert.deepEqual(used.get('forwardagent'), [d.agentSock], 'the forwarded agent is this Airlock\'s agent.sock');
  // The daemon still knows the forward as the remote's (its forwarded agent is marked remote).
  assert.equal(remoteForwardedBy({ pid: 1, uid: 0, gid: 0, exe: '/usr/bin/ssh', argv: ['ssh', ...p.sshOptions, '-t', 'ci@build.example'], tree: [] }, path.join(home, 'remotes')), 'build');
});

test('remote add: a path holding ${, which ssh expands from the environment and cannot escape, is refused before any remote is added', async () => {
  const before = (await airlock(['remote', 'list', '--json'])).stdout;
  let r = await airlock(['remote', 'add', 'envy', 'ci@build.example', '--server-socket', '/tmp/${X}.sock']);
  assert.equal(r.code, 64, r.stdout + r.stderr);
  assert.match(r.stderr, /--server-socket.*\$\{/);
  // This machine's own sockets under an AIRLOCK_HOME holding ${…}: refused before the daemon is asked.
  r = await airlock(['remote', 'add', 'envy', 'ci@build.example'], { ...d.env, AIRLOCK_HOME: path.join(home, '${X}') });
  assert.equal(r.code, 64, r.stdout + r.stderr);
  assert.match(r.stderr, /cannot be put in an ssh command: .*\$\{.*AIRLOCK_HOME/);
  assert.equal((await airlock(['remote', 'list', '--json'])).stdout, before, 'no remote was added');
});

test('remote add: the printed line with such paths works end to end: a request from the server is asked here as the remote\'s, and the forwarded agent is this Airlock\'s', async (t) => {
  if (!fs.existsSync('/usr/sbin/sshd')) return t.skip('OpenSSH server not installed (scripts/install-system-deps.sh)');
  let sshd: Sshd | undefined;
  try {
    const sshdDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rl-sshd-'));
    const started = await startSshdForClient(sshdDir, sshdDir);
    sshd = started.sshd;
    const { clientKey, knownHosts } = started;
    const { key } = await ui.call<{ key: { fingerprint: string } }>('keys.generate', { type: 'ed25519', name: 'rl-work' });
    const p = await plan('--server-socket', `/tmp/rl-%h-%%-${process.pid}-${Date.now()}.sock`);
    const target = path.join(path.dirname(knownHosts), 'made-by-remote');
    const args = sshArgs(sshd, knownHosts, ['-i', clientKey, '-o', 'IdentitiesOnly=yes', ...p.sshOptions]);
    const session = run('ssh', [...args, `ssh-add -l; AIRLOCK_REQUEST_SOCK='${p.env.AIRLOCK_REQUEST_SOCK}' ${process.execPath} ${CLI} exec -- touch ${target}`], {
      env: { ...process.env, HOME: home, SSH_AUTH_SOCK: d.agentSock },
      timeoutMs: 60_000,
    });
    let ended: { code: number | null; stdout: string; stderr: string } | undefined;
    void session.then((r) => (ended = r));
    let prompt: Prompt | undefined;
    await waitFor(async () => {
      prompt = (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts[0];
      return prompt !== undefined || ended !== undefined;
    }, 'a prompt from the server', 30_000, 50);
    assert.ok(prompt, `no prompt: ${ended?.stdout}${ended?.stderr}`);
    assert.equal(prompt.remote?.name, 'build', 'the request came through the remote\'s socket');
    await ui.call('pending.decide', { id: prompt.id, decision: 'deny', scope: 'once' });
    const r = await session;
    assert.equal(r.code, 126, r.stdout + r.stderr);
    assert.ok(r.stdout.includes(key.fingerprint), `the server's agent is this Airlock's (ssh-add -l lists its key): ${r.stdout}${r.stderr}`);
    assert.ok(!fs.existsSync(target));
  } finally {
    await sshd?.stop();
    if (sshd) fs.rmSync(sshd.dir, { recursive: true, force: true });
  }
});
