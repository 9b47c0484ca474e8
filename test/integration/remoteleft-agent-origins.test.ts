// agent.sock's connection places, when remotes' servers flood them through their forwarded
// agents. Each remote's session is one local ssh process, which may hold 128 connections
// (the per-process cap); two hostile servers at that cap filled the socket's 256 and this
// machine's own ssh-add and ssh were refused. Now remotes hold at most 64 each and 128 in
// all: this machine keeps the rest. Real loopback sshd, the printed ssh line, a server-side
// script opening connections through $SSH_AUTH_SOCK; a flood process of this machine.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { HistoryEvent } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import { floodConnections, type Flood } from '../helpers/conn-flood';
import { CLI, startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { run, type RunResult } from '../helpers/ssh';
import { sshArgs, startSshdForClient, type Sshd } from '../helpers/sshd';

let d: Daemon;
let home: string;
let ui: RpcClient;
let sshd: Sshd | undefined;
let skip: string | undefined;
let clientKey = '';
let knownHosts = '';
let holdJs = '';
let workFp = '';

// On the server: opens N connections through the forwarded agent at once, asks each for the
// key list, prints {ok, closed} once every one was answered or closed, writes FILE, and keeps
// the answered ones open until GO exists (at most 60 s).
const HOLD = String.raw`
const net = require('net'), fs = require('fs');
const [n, mark, go] = [Number(process.argv[2]), process.argv[3], process.argv[4]];
let ok = 0, closed = 0, done = 0;
const list = Buffer.from([0, 0, 0, 1, 11]);
const finish = () => {
  if (++done < n) return;
  console.log(JSON.stringify({ ok, closed }));
  fs.writeFileSync(mark, '');
  const until = Date.now() + 60000;
  const t = setInterval(() => { if (fs.existsSync(go) || Date.now() > until) { clearInterval(t); process.exit(0); } }, 100);
};
for (let i = 0; i < n; i++) {
  let seen = false;
  const s = net.connect(process.env.SSH_AUTH_SOCK, () => s.write(list));
  s.on('data', () => { if (!seen) { seen = true; ok++; finish(); } });
  s.on('close', () => { if (!seen) { seen = true; closed++; finish(); } });
  s.on('error', () => undefined);
}
`;

before(async () => {
  home = tempHome('rlor-');
  d = await startDaemon({ home: path.join(home, 'h'), env: { HOME: home } });
  ui = await d.ui();
  if (!fs.existsSync('/usr/sbin/sshd')) {
    skip = 'OpenSSH server not installed (scripts/install-system-deps.sh)';
    return;
  }
  ({ sshd, clientKey, knownHosts } = await startSshdForClient(path.join(home, 'sshd'), home));
  holdJs = path.join(home, 'hold.js');
  fs.writeFileSync(holdJs, HOLD);
  const { key } = await ui.call<{ key: { fingerprint: string } }>('keys.generate', { type: 'ed25519', name: 'work' });
  workFp = key.fingerprint;
});
after(async () => {
  ui?.close();
  await sshd?.stop();
  await d?.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

const airlock = (args: string[]) => run(process.execPath, [CLI, ...args], { env: d.env, timeoutMs: 30_000 });

/** A session of remote NAME (the printed options) whose server opens `n` connections through the forward and holds them. */
async function hostileServer(name: string, n: number, go: string): Promise<{ session: Promise<RunResult>; mark: string }> {
  assert.equal((await airlock(['remote', 'add', name, 'ci@build.example'])).code, 0);
  const add = await airlock(['remote', 'add', name, 'ci@build.example', '--json']);
  assert.equal(add.code, 0, add.stderr);
  const plan = JSON.parse(add.stdout) as { sshOptions: string[] };
  const mark = path.join(home, `${name}-holding`);
  const args = sshArgs(sshd!, knownHosts, ['-i', clientKey, '-o', 'IdentitiesOnly=yes', ...plan.sshOptions]);
  const session = run('ssh', [...args, `${process.execPath} ${holdJs} ${n} ${mark} ${go}`], { env: { ...process.env, HOME: home, SSH_AUTH_SOCK: d.agentSock }, timeoutMs: 120_000 });
  return { session, mark };
}

const report = (r: RunResult) => JSON.parse(r.stdout.trim().split('\n').find((l) => l.startsWith('{')) ?? '{}') as { ok?: number; closed?: number };

test('two remotes flooding agent.sock through their forwarded agents at the per-process cap cannot starve this machine: each holds at most 64, this machine still gets its places, refusals recorded with the remote', async (t) => {
  if (skip) return t.skip(skip);
  const go = path.join(home, 'go');
  const since = Date.now();
  const servers: { session: Promise<RunResult>; mark: string }[] = [];
  let local: Flood | undefined;
  try {
    for (const name of ['one', 'two']) servers.push(await hostileServer(name, 128, go));
    const ended: (RunResult | undefined)[] = [undefined, undefined];
    servers.forEach((s, i) => void s.session.then((r) => (ended[i] = r)));
    await waitFor(() => servers.every((s, i) => fs.existsSync(s.mark) || ended[i] !== undefined), 'both servers holding their connections', 60_000, 100);
    assert.deepEqual(ended, [undefined, undefined], `a session ended early: ${ended.map((r) => r && r.stdout + r.stderr).join('\n')}`);
    // This machine, meanwhile: ssh-add lists the keys, and another process of its own gets 120 places more.
    const listed = await run('ssh-add', ['-l'], { env: { ...process.env, SSH_AUTH_SOCK: d.agentSock }, timeoutMs: 30_000 });
    assert.equal(listed.code, 0, `this machine's ssh-add was refused: ${listed.stdout}${listed.stderr}`);
    assert.ok(listed.stdout.includes(workFp));
    local = await floodConnections(d.agentSock, 120, { settleMs: 1500 });
    assert.equal(local.closed, 0, `this machine's connections were refused: ${JSON.stringify(local)}`);
    assert.equal(local.open, 120);
    fs.writeFileSync(go, '');
    const [r1, r2] = await Promise.all(servers.map((s) => s.session));
    for (const [name, r] of [['one', r1!], ['two', r2!]] as const) {
      const got = report(r);
      assert.deepEqual(got, { ok: 64, closed: 64 }, `remote ${name} holds at most 64 of agent.sock's places: ${r.stdout}${r.stderr}`);
    }
    const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { source: 'ssh', decision: 'reject', since, limit: 200 });
    const refused = events.filter((e) => /too many open connections/.test(e.summary));
    assert.ok(refused.length > 0, 'the refusals are recorded');
    for (const e of refused) assert.ok(e.remote?.name === 'one' || e.remote?.name === 'two', `recorded with the remote: ${e.summary} ${e.remote?.name}`);
    assert.ok(refused.some((e) => e.remote?.name === 'one') && refused.some((e) => e.remote?.name === 'two'));
  } finally {
    fs.writeFileSync(go, '');
    await local?.stop();
    await Promise.all(servers.map((s) => s.session));
  }
});
