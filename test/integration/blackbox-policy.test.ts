// Black-box: how requests are decided (README "Tasks and grants", DESIGN "Risk and chains")
// and where things live, from the documents alone: identical waiting requests share one
// prompt; the per-task cap (20 waiting, -32001); grant `uses`; "allow for N minutes"
// (scope duration); the default policy via settings.set; a task that read secrets and then
// transfers out is critical; keys.* on ui.sock; the paths without AIRLOCK_HOME
// ($XDG_RUNTIME_DIR/airlock, ~/.local/share/airlock); stopping the daemon denies open prompts
// and `history` still works without it; `exec --sandbox` sees no home and no Airlock.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { Wire, closeBlackboxSession, openBlackboxSession, airlock, pendingList, waitPending, type RpcMsg } from '../helpers/blackbox';

let d: Daemon;
let ui: Wire;
let root: string;

before(async () => {
  ({ root, d, ui } = await openBlackboxSession('bbp-'));
});
after(() => closeBlackboxSession({ root, d, ui }));

const grantId = (g: Record<string, unknown>): string => (g.id ?? (g.grant as { id?: string }).id) as string;

test('identical requests waiting at the same time share one prompt, and both get the answer', async () => {
  const a = await Wire.open(d.requestSock);
  const b = await Wire.open(d.requestSock);
  try {
    const req = { source: 'api', tool: 'fs.write', action: 'write', resource: '/srv/p/same.txt', summary: 'bb same request' };
    const ra = a.call('request', req, 30_000);
    await waitPending(ui, (x) => x.summary === 'bb same request', 'the first prompt');
    const rb = b.call('request', req, 30_000);
    // Give the second one time to arrive, then there is still one prompt.
    await new Promise((r) => setTimeout(r, 500));
    const same = (await pendingList(ui)).filter((x) => x.summary === 'bb same request');
    assert.equal(same.length, 1);
    await ui.ok('pending.decide', { id: same[0].id, decision: 'deny', scope: 'once' });
    assert.equal((await ra).result?.decision, 'deny');
    assert.equal((await rb).result?.decision, 'deny');
  } finally {
    a.close();
    b.close();
  }
});

test('one task can have at most 20 prompts waiting: the 21st is refused at once with -32001, and recorded', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const t = await w.ok<{ task: string; token: string }>('task.start', { name: 'bb flood' });
    const waiting: Promise<RpcMsg>[] = [];
    for (let i = 0; i < 20; i++) waiting.push(w.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: `/srv/flood/${i}`, summary: `bb flood ${i}`, task: t.token }, 30_000));
    await waitFor(async () => (await pendingList(ui)).filter((x) => x.summary.startsWith('bb flood ')).length === 20, '20 prompts', 30_000);
    const over = await w.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/srv/flood/20', summary: 'bb flood 20', task: t.token }, 10_000);
    assert.equal(over.error?.code, -32001, JSON.stringify(over));
    assert.match(over.error!.message, /20|cap|too many/i);
    // Ending the task answers the 20 (deny).
    await w.ok('task.end', { task: t.token });
    for (const r of await Promise.all(waiting)) assert.equal(r.result?.decision, 'deny');
    const h = await ui.ok<{ events: unknown[] }>('history.query', { text: 'bb flood 20' });
    assert.ok(h.events.length >= 1, 'the refused one is recorded');
  } finally {
    w.close();
  }
});

test('a grant with uses: 1 answers once, then the same request asks again', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const g = await ui.ok<Record<string, unknown>>('grants.create', { action: 'write', tool: 'bb.once', resource: '/srv/once/*', effect: 'allow', uses: 1 });
    const first = await w.ok<Record<string, unknown>>('request', { source: 'api', tool: 'bb.once', action: 'write', resource: '/srv/once/a', summary: 'bb uses 1st' });
    assert.equal(first.decision, 'allow');
    assert.equal(first.grant, grantId(g));
    const second = w.call('request', { source: 'api', tool: 'bb.once', action: 'write', resource: '/srv/once/b', summary: 'bb uses 2nd' }, 30_000);
    const p = await waitPending(ui, (x) => x.summary === 'bb uses 2nd', 'a prompt once the use is spent');
    await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    assert.equal((await second).result?.decision, 'deny');
  } finally {
    w.close();
  }
});

test('"Allow for N minutes" (scope duration) makes a grant that expires; "always" with an edited pattern covers more than the request', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const r1 = w.call('request', { source: 'api', tool: 'bb.dur', action: 'write', resource: '/srv/dur/a', summary: 'bb duration' }, 30_000);
    const p1 = await waitPending(ui, (x) => x.summary === 'bb duration', 'the prompt');
    const dec = await ui.ok<{ grant?: { id: string; expiresAt?: unknown } }>('pending.decide', { id: p1.id, decision: 'allow', scope: 'duration', durationSec: 900 });
    assert.ok(dec.grant, 'a grant');
    const exp = Number(new Date(dec.grant.expiresAt as string | number).getTime());
    assert.ok(exp > Date.now() + 800_000 && exp < Date.now() + 1_000_000, `expires in ~15 min: ${String(dec.grant.expiresAt)}`);
    assert.equal((await r1).result?.decision, 'allow');
    assert.equal((await w.ok<Record<string, unknown>>('request', { source: 'api', tool: 'bb.dur', action: 'write', resource: '/srv/dur/a', summary: 'bb duration again' })).decision, 'allow');
    await ui.ok('grants.revoke', { id: dec.grant.id });

    const r2 = w.call('request', { source: 'api', tool: 'bb.always', action: 'write', resource: '/srv/always/x/1.txt', summary: 'bb always' }, 30_000);
    const p2 = await waitPending(ui, (x) => x.summary === 'bb always', 'the prompt');
    const al = await ui.ok<{ grant?: { id: string } }>('pending.decide', { id: p2.id, decision: 'allow', scope: 'always', pattern: { tool: 'bb.always', resource: '/srv/always/**' } });
    assert.ok(al.grant);
    assert.equal((await r2).result?.decision, 'allow');
    const other = await w.ok<Record<string, unknown>>('request', { source: 'api', tool: 'bb.always', action: 'write', resource: '/srv/always/y/2.txt', summary: 'bb always other' });
    assert.equal(other.decision, 'allow', 'the edited pattern covers it');
    await ui.ok('grants.revoke', { id: al.grant.id });
  } finally {
    w.close();
  }
});

test('the default policy: reads are allowed; settings.set {policy: {read: "ask"}} makes them ask', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    assert.equal((await w.ok<Record<string, unknown>>('request', { source: 'api', tool: 'fs.read', action: 'read', resource: '/srv/pol/a', summary: 'bb read default' })).decision, 'allow');
    await ui.ok('settings.set', { policy: { read: 'ask' } });
    const r = w.call('request', { source: 'api', tool: 'fs.read', action: 'read', resource: '/srv/pol/b', summary: 'bb read asks' }, 30_000);
    const p = await waitPending(ui, (x) => x.summary === 'bb read asks', 'a read prompt');
    await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    assert.equal((await r).result?.decision, 'deny');
  } finally {
    await ui.ok('settings.set', { policy: { read: 'allow' } });
    w.close();
  }
});

test('a task that read a secret (~/.ssh, .env) and then transfers data out is critical; a task grant does not answer it', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const t = await w.ok<{ task: string; token: string }>('task.start', { name: 'bb exfil', cwd: '/srv/exfil' });
    await ui.ok('grants.create', { task: t.task, action: 'transfer', resource: '*', effect: 'allow' });
    // Before any secret: the grant answers a transfer.
    const early = await w.ok<Record<string, unknown>>('request', { source: 'api', tool: 'http.post', action: 'transfer', resource: 'https://paste.example/up', summary: 'bb early post', task: t.token });
    assert.equal(early.decision, 'allow');
    assert.equal((await w.ok<Record<string, unknown>>('request', { source: 'api', tool: 'fs.read', action: 'read', resource: '/srv/exfil/.env', summary: 'bb read env', task: t.token })).decision, 'allow');
    const r = w.call('request', { source: 'api', tool: 'http.post', action: 'transfer', resource: 'https://paste.example/up', summary: 'bb post after secret', task: t.token }, 30_000);
    const p = await waitPending(ui, (x) => x.summary === 'bb post after secret', 'the transfer is asked despite the grant');
    assert.equal(p.risk.level, 'critical');
    assert.ok(p.risk.reasons.length > 0);
    await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    assert.equal((await r).result?.decision, 'deny');
    await w.ok('task.end', { task: t.token });
  } finally {
    w.close();
  }
});

test('keys on ui.sock: generate, list, import a PEM, remove; a bad import is -32602 and nothing is added', async () => {
  const gen = await ui.ok<Record<string, unknown>>('keys.generate', { type: 'ed25519', name: 'bb-gen' });
  assert.match(JSON.stringify(gen), /SHA256:/);
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const imp = await ui.ok<Record<string, unknown>>('keys.import', { pem, name: 'bb-imported' });
  const fp = /SHA256:[A-Za-z0-9+/]{43}/.exec(JSON.stringify(imp))![0];
  const list = JSON.stringify(await ui.ok('keys.list'));
  assert.ok(list.includes('bb-gen') && list.includes('bb-imported') && list.includes(fp), list);
  assert.ok(!list.includes('PRIVATE KEY'), 'no private key material in the listing');
  const bad = await ui.call('keys.import', { pem: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n', name: 'bb-bad' });
  assert.ok(bad.error, 'a bad key is refused');
  assert.ok(!JSON.stringify(await ui.ok('keys.list')).includes('bb-bad'));
  const badType = await ui.call('keys.generate', { type: 'dsa', name: 'bb-dsa' });
  assert.equal(badType.error?.code, -32602);
  assert.match(badType.error!.message, /type/);
  assert.equal((await ui.call('keys.remove', { fingerprint: fp })).error, undefined);
  assert.ok(!JSON.stringify(await ui.ok('keys.list')).includes(fp));
  // Private keys never appear in the database or in the daemon's output.
  const raw = privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64').slice(-40);
  assert.ok(!fs.readFileSync(path.join(d.home, 'airlock.db')).toString('latin1').includes(raw));
  assert.ok(!d.output().includes(raw));
});

test('without AIRLOCK_HOME: sockets in $XDG_RUNTIME_DIR/airlock (0700), the database in ~/.local/share/airlock', async () => {
  const home = path.join(root, 'userhome');
  const xdg = path.join(root, 'xdg');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.mkdirSync(xdg, { mode: 0o700 });
  const env = { AIRLOCK_HOME: '', HOME: home, XDG_RUNTIME_DIR: xdg, XDG_DATA_HOME: '' };
  const e2 = await startDaemon({ home: path.join(root, 'unused'), env });
  try {
    const sockDir = path.join(xdg, 'airlock');
    assert.equal(fs.statSync(sockDir).mode & 0o777, 0o700);
    for (const s of ['request.sock', 'ui.sock', 'agent.sock']) assert.ok(fs.statSync(path.join(sockDir, s)).isSocket(), s);
    const data = path.join(home, '.local', 'share', 'airlock');
    assert.ok(fs.existsSync(path.join(data, 'airlock.db')), 'the database in ~/.local/share/airlock');
    assert.equal(fs.statSync(data).mode & 0o777, 0o700);
    const cenv: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_RUNTIME_DIR: xdg };
    delete cenv.AIRLOCK_HOME;
    const c = await airlock(['check', '-a', 'read', '-t', 'fs.read', '-r', '/etc/hostname', '-s', 'bb xdg read'], { env: cenv });
    assert.equal(c.code, 0, c.stderr);
  } finally {
    await e2.stop();
  }
});

test('stopping the daemon denies open prompts (recorded); history and audit verify work without it; it starts again on the same history', async () => {
  const home = path.join(root, 'stop');
  let e = await startDaemon({ home });
  const env = { ...process.env, AIRLOCK_HOME: home };
  const w = await Wire.open(e.requestSock);
  const u = await Wire.open(e.uiSock);
  try {
    const r = w.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/srv/stop/x', summary: 'bb open at stop' }, 30_000);
    await waitPending(u, (x) => x.summary === 'bb open at stop', 'the prompt');
    e.proc.kill('SIGINT');
    const ans = await r.catch((err: Error) => ({ error: { code: 0, message: err.message } }) as RpcMsg);
    assert.ok(ans.result?.decision === 'deny' || ans.error, `no allow when the daemon stops: ${JSON.stringify(ans)}`);
    await waitFor(() => e.proc.exitCode !== null || e.proc.signalCode !== null, 'the daemon to exit', 10_000);
    const h = await airlock(['history', '--json', '--text', 'bb open at stop'], { env });
    assert.equal(h.code, 0, h.stderr);
    const ev = JSON.parse(h.stdout.trim().split('\n')[0]) as { decision: string };
    assert.equal(ev.decision, 'deny', 'recorded as denied');
    assert.equal((await airlock(['audit', 'verify'], { env })).code, 0);
    e = await e.restart();
    assert.equal((await airlock(['audit', 'verify'], { env })).code, 0);
  } finally {
    w.close();
    u.close();
    await e.stop();
  }
});

test('exec --sandbox: the working directory is writable, the home is empty, Airlock\'s home is not there', async (t) => {
  if (spawnSync('bwrap', ['--version']).status !== 0) return t.skip('bubblewrap is not installed');
  const home = path.join(root, 'sbhome');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.writeFileSync(path.join(home, 'secret.txt'), 'do not read');
  const work = path.join(root, 'sbwork');
  fs.mkdirSync(work);
  const env = { ...process.env, AIRLOCK_HOME: d.home, HOME: home };
  const g = await ui.ok<Record<string, unknown>>('grants.create', { source: 'exec', action: '*', resource: '*', effect: 'allow', note: 'bb sandbox' });
  try {
    const script = `cat "$HOME/secret.txt" 2>/dev/null && echo LEAK-HOME; ls ${d.home} >/dev/null 2>&1 && echo LEAK-AIRLOCK; echo made > out.txt; echo done`;
    // Reading Airlock's own directory is risky enough to ask even with the grant: the human allows it.
    let done = false;
    const run = airlock(['exec', '--sandbox', '--shell', '--', script], { env, cwd: work, timeoutMs: 60_000 }).finally(() => (done = true));
    for (let i = 0; i < 400 && !done; i++) {
      for (const p of await pendingList(ui)) if (p.source === 'exec') await ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
      await new Promise((r) => setTimeout(r, 100));
    }
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /done/);
    assert.doesNotMatch(r.stdout, /LEAK/);
    assert.equal(fs.readFileSync(path.join(work, 'out.txt'), 'utf8'), 'made\n');
    const refused = await airlock(['exec', '--sandbox', '--', 'true'], { env, cwd: path.dirname(home), timeoutMs: 60_000 });
    assert.notEqual(refused.code, 0, 'a working directory that contains the home is refused');
  } finally {
    await ui.ok('grants.revoke', { id: grantId(g) });
  }
});

test('airlock remote: requests through a remote\'s socket are marked remote; an allow grant without a remote is for this machine only; a deny grant denies everywhere', async () => {
  const env = { ...process.env, AIRLOCK_HOME: d.home };
  const add = await airlock(['remote', 'add', 'bbbuild', 'me@build.example.com'], { env });
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stdout, /ssh .*-R .*ExitOnForwardFailure=yes|ExitOnForwardFailure=yes.*-R/);
  const sock = path.join(d.home, 'remotes', 'bbbuild', 'request.sock');
  assert.equal(fs.statSync(sock).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(sock)).mode & 0o777, 0o700);
  assert.equal((await airlock(['remote', 'add', 'bad name/..', 'me@h'], { env })).code, 64);
  const allow = await ui.ok<Record<string, unknown>>('grants.create', { action: 'write', tool: 'bb.remote', resource: '/srv/r/**', effect: 'allow' });
  const deny = await ui.ok<Record<string, unknown>>('grants.create', { action: 'write', tool: 'bb.remote', resource: '/srv/r/secret/**', effect: 'deny' });
  const local = await Wire.open(d.requestSock);
  const remote = await Wire.open(sock);
  try {
    assert.equal((await local.ok<Record<string, unknown>>('request', { source: 'api', tool: 'bb.remote', action: 'write', resource: '/srv/r/a', summary: 'bb local write' })).decision, 'allow');
    const r = remote.call('request', { source: 'api', tool: 'bb.remote', action: 'write', resource: '/srv/r/a', summary: 'bb remote write' }, 30_000);
    const p = await waitPending(ui, (x) => x.summary === 'bb remote write', 'the remote request asks despite the local grant');
    assert.match(JSON.stringify(p), /bbbuild/, 'the prompt says which remote');
    await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    assert.equal((await r).result?.decision, 'deny');
    const rd = await remote.ok<Record<string, unknown>>('request', { source: 'api', tool: 'bb.remote', action: 'write', resource: '/srv/r/secret/k', summary: 'bb remote secret' });
    assert.equal(rd.decision, 'deny', 'a deny grant without a remote denies everywhere');
    assert.equal((await remote.call('pending.list')).error?.code, -32601, 'only the agent side is forwarded');
    const h = await ui.ok<{ events: Record<string, unknown>[] }>('history.query', { text: 'bb remote write', limit: 1 });
    assert.match(JSON.stringify(h.events[0]), /bbbuild/, 'history says which remote');
  } finally {
    local.close();
    remote.close();
    await ui.ok('grants.revoke', { id: grantId(allow) });
    await ui.ok('grants.revoke', { id: grantId(deny) });
  }
  assert.equal((await airlock(['remote', 'remove', 'bbbuild'], { env })).code, 0);
  assert.equal(fs.existsSync(sock), false);
});
