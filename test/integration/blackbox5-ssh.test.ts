// Black-box, fifth wave: the long tail of docs/ssh-agent.md, driven with OpenSSH's own tools
// against `airlock serve` (never the implementation's modules): what is documented as not
// supported (certificates, `ssh-add -h` destination constraints) must be refused, not half
// done; a locked agent hides and refuses the upstream agent's keys too; RSA honours the
// rsa-sha2-256 flag for a real sshd that accepts nothing else; `ssh-keygen -Y sign` with any
// namespace gives a signature `ssh-keygen -Y verify` accepts, and its prompt names the
// namespace; `ssh-add -T` (a test signature over random data) asks as unrecognised data.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { Wire, airlock, pendingList, waitPending, type Pending } from '../helpers/blackbox';
import { run, startChild } from '../helpers/ssh';
import { USER, sshArgs, startSshd } from '../helpers/sshd';

let d: Daemon;
let ui: Wire;
let root: string;
let fakeHome: string;
let env: NodeJS.ProcessEnv;
let sshEnv: NodeJS.ProcessEnv;
let upstream: ReturnType<typeof startChild>;
let upstreamSock: string;
let upstreamKey: { file: string; fp: string; pub: string };

interface HistoryRow {
  id: number;
  source: string;
  tool: string;
  action: string;
  resource: string | null;
  summary: string;
  decision: string;
  decidedBy: string;
  ssh: { fingerprint?: string; purpose?: string; namespace?: string } | null;
}

async function history(args: string[] = []): Promise<HistoryRow[]> {
  const h = await airlock(['history', '--json', ...args], { env });
  assert.equal(h.code, 0, h.stderr);
  return h.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as HistoryRow);
}

async function fingerprint(pubFile: string): Promise<string> {
  return (await run('ssh-keygen', ['-lf', pubFile])).stdout.split(' ')[1]!;
}

async function newKey(name: string, type: string[] = ['-t', 'ed25519']): Promise<{ file: string; fp: string; pub: string }> {
  const file = path.join(root, name);
  const r = await run('ssh-keygen', ['-q', ...type, '-N', '', '-C', name, '-f', file]);
  assert.equal(r.code, 0, r.stderr);
  return { file, fp: await fingerprint(file + '.pub'), pub: fs.readFileSync(file + '.pub', 'utf8').trim() };
}

async function decide(p: Pending, decision: 'allow' | 'deny'): Promise<void> {
  const r = await ui.call('pending.decide', { id: p.id, decision, scope: 'once' });
  assert.equal(r.error, undefined, JSON.stringify(r));
}

function withPass(pass: string): NodeJS.ProcessEnv {
  const f = path.join(root, `pass-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(f, pass + '\n', { mode: 0o600 });
  return { ...sshEnv, ASKPASS_FILE: f };
}

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb5s-'));
  fakeHome = path.join(root, 'home');
  fs.mkdirSync(path.join(fakeHome, '.ssh'), { recursive: true, mode: 0o700 });
  // A real OpenSSH agent as the upstream, holding one key Airlock does not have.
  upstreamSock = path.join(root, 'up.sock');
  upstream = startChild('ssh-agent', ['-D', '-a', upstreamSock]);
  await waitFor(() => fs.existsSync(upstreamSock), 'the upstream ssh-agent socket', 10_000);
  upstreamKey = await newKey('upkey');
  const add = await run('ssh-add', [upstreamKey.file], { env: { ...process.env, SSH_AUTH_SOCK: upstreamSock } });
  assert.equal(add.code, 0, add.stderr);
  // Only the upstream agent holds it now: ssh-keygen would otherwise sign with the file itself.
  fs.rmSync(upstreamKey.file);
  d = await startDaemon({ home: path.join(root, 'h'), args: ['--upstream', upstreamSock], env: { HOME: fakeHome } });
  ui = await Wire.open(d.uiSock);
  env = { ...process.env, AIRLOCK_HOME: d.home, HOME: fakeHome };
  const askpass = path.join(root, 'askpass.sh');
  fs.writeFileSync(askpass, '#!/bin/sh\ncat "$ASKPASS_FILE"\n', { mode: 0o700 });
  sshEnv = { ...env, SSH_AUTH_SOCK: d.agentSock, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' };
});
after(async () => {
  ui?.close();
  await d?.stop();
  await upstream?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

test('ssh-add -h (destination constraints, documented as not supported) is refused: the key is not added unconstrained', async () => {
  const k = await newKey('dest');
  // ssh-add looks the destination's host keys up in a known_hosts file before asking the agent.
  const hostKey = await newKey('somehost');
  const kh = path.join(root, 'kh-dest');
  fs.writeFileSync(kh, `somehost.example ${hostKey.pub.split(' ').slice(0, 2).join(' ')}\n`);
  const r = await run('ssh-add', ['-H', kh, '-h', 'somehost.example', k.file], { env: sshEnv, timeoutMs: 20_000 });
  assert.notEqual(r.code, 0, `ssh-add -h must fail, not add the key without its constraint: ${r.stdout}${r.stderr}`);
  const l = await run('ssh-add', ['-l'], { env: sshEnv });
  assert.doesNotMatch(l.stdout, new RegExp(k.fp.replace(/[+/]/g, '\\$&')), 'a key meant only for somehost.example must not be usable everywhere');
  assert.equal((await pendingList(ui)).length, 0);
});

test('a certificate (documented as not supported) is never added; the plain key still is', async () => {
  const ca = await newKey('ca');
  const k = await newKey('certified');
  const s = await run('ssh-keygen', ['-q', '-s', ca.file, '-I', 'bb5', '-n', USER, k.file + '.pub']);
  assert.equal(s.code, 0, s.stderr);
  assert.ok(fs.existsSync(k.file + '-cert.pub'));
  // ssh-add adds the key, then tries the certificate beside it.
  const r = await run('ssh-add', [k.file], { env: sshEnv, timeoutMs: 20_000 });
  assert.match(r.stderr, /Identity added/, r.stderr);
  const L = await run('ssh-add', ['-L'], { env: sshEnv });
  assert.match(L.stdout, new RegExp(k.pub.split(' ')[1]!.replace(/[+/]/g, '\\$&')), 'the plain key is listed');
  assert.doesNotMatch(L.stdout, /-cert-v01@openssh\.com/, 'no certificate is listed');
  const del = run('ssh-add', ['-d', k.file], { env: sshEnv, timeoutMs: 20_000 });
  await decide(await waitPending(ui, (p) => p.resource === 'ssh-agent:remove-key', 'the remove prompt', 20_000), 'allow');
  assert.equal((await del).code, 0);
});

test('the upstream agent: its key is listed, a signature with it asks first; denied → none; allowed → ssh-keygen -Y verify accepts it', async () => {
  const L = await run('ssh-add', ['-L'], { env: sshEnv });
  assert.match(L.stdout, new RegExp(upstreamKey.pub.split(' ')[1]!.replace(/[+/]/g, '\\$&')), `upstream key listed: ${L.stdout}`);
  const data = path.join(root, 'up.txt');
  fs.writeFileSync(data, 'release notes\n');
  const denied = run('ssh-keygen', ['-Y', 'sign', '-n', 'file', '-f', upstreamKey.file + '.pub', data], { env: sshEnv, timeoutMs: 30_000 });
  const p1 = await waitPending(ui, (p) => p.resource === 'sshsig:file', 'the upstream signature prompt', 20_000);
  assert.equal(p1.ssh?.fingerprint, upstreamKey.fp);
  assert.equal(p1.ssh?.namespace, 'file');
  await decide(p1, 'deny');
  assert.notEqual((await denied).code, 0);
  assert.equal(fs.existsSync(data + '.sig'), false);
  const allowed = run('ssh-keygen', ['-Y', 'sign', '-n', 'file', '-f', upstreamKey.file + '.pub', data], { env: sshEnv, timeoutMs: 30_000 });
  await decide(await waitPending(ui, (p) => p.resource === 'sshsig:file', 'the second prompt', 20_000), 'allow');
  const a = await allowed;
  assert.equal(a.code, 0, a.stderr);
  const signers = path.join(root, 'allowed_signers');
  fs.writeFileSync(signers, `me@example ${upstreamKey.pub}\n`);
  const v = await run('ssh-keygen', ['-Y', 'verify', '-f', signers, '-I', 'me@example', '-n', 'file', '-s', data + '.sig'], { input: fs.readFileSync(data, 'utf8') });
  assert.equal(v.code, 0, v.stdout + v.stderr);
  // The same signature is not valid for another namespace: what the prompt named is what was signed.
  const v2 = await run('ssh-keygen', ['-Y', 'verify', '-f', signers, '-I', 'me@example', '-n', 'git', '-s', data + '.sig'], { input: fs.readFileSync(data, 'utf8') });
  assert.notEqual(v2.code, 0);
  const rows = (await history(['--source', 'ssh'])).filter((r) => r.resource === 'sshsig:file');
  assert.deepEqual(rows.slice(0, 2).map((r) => r.decision), ['allow', 'deny'], 'both signatures are in history, newest first');
  assert.equal(rows[0]!.ssh?.fingerprint, upstreamKey.fp);
});

test('a locked agent hides the upstream agent\'s keys too and signs nothing with them, without asking', async () => {
  const lock = run('ssh-add', ['-x'], { env: withPass('up lock pass'), timeoutMs: 30_000 });
  await decide(await waitPending(ui, (p) => p.resource === 'ssh-agent:lock', 'the lock prompt', 20_000), 'allow');
  assert.equal((await lock).code, 0);
  try {
    const l = await run('ssh-add', ['-L'], { env: sshEnv });
    assert.doesNotMatch(l.stdout, /ssh-ed25519/, `a locked agent lists no key, upstream ones included: ${l.stdout}`);
    const data = path.join(root, 'locked-up.txt');
    fs.writeFileSync(data, 'x\n');
    const s = await run('ssh-keygen', ['-Y', 'sign', '-n', 'file', '-f', upstreamKey.file + '.pub', data], { env: sshEnv, timeoutMs: 20_000 });
    assert.notEqual(s.code, 0, 'no signature from a locked agent, whoever holds the key');
    assert.equal(fs.existsSync(data + '.sig'), false);
    assert.equal((await pendingList(ui)).length, 0, 'nothing is asked while locked');
  } finally {
    const unlock = run('ssh-add', ['-X'], { env: withPass('up lock pass'), timeoutMs: 30_000 });
    await decide(await waitPending(ui, (p) => p.resource === 'ssh-agent:unlock', 'the unlock prompt', 20_000), 'allow');
    assert.equal((await unlock).code, 0);
  }
  assert.match((await run('ssh-add', ['-L'], { env: sshEnv })).stdout, /ssh-ed25519/, 'unlocked: keys are back');
});

test('ssh-add -D with the upstream agent\'s keys still listed says "Failed to remove all identities", not the untrue "All identities removed."', async () => {
  const k = await newKey('dkey');
  assert.equal((await run('ssh-add', [k.file], { env: sshEnv })).code, 0);
  const del = run('ssh-add', ['-D'], { env: sshEnv, timeoutMs: 30_000 });
  await decide(await waitPending(ui, (p) => p.resource === 'ssh-agent:remove-all', 'the remove-all prompt', 20_000), 'allow');
  const r = await del;
  const after = (await run('ssh-add', ['-L'], { env: sshEnv })).stdout;
  assert.doesNotMatch(after, new RegExp(k.pub.split(' ')[1]!.replace(/[+/]/g, '\\$&')), 'the ssh-add key is gone');
  assert.match(after, new RegExp(upstreamKey.pub.split(' ')[1]!.replace(/[+/]/g, '\\$&')), 'the upstream key stays (it is removed there)');
  assert.notEqual(r.code, 0, `keys are still listed, so -D must not report success: ${r.stderr}`);
  assert.match(r.stderr, /Failed to remove all identities/);
  assert.doesNotMatch(r.stderr, /All identities removed/);
  await waitFor(() => /kept .*upstream agent/.test(d.output()), 'the log to say which keys stayed', 10_000);
});

test('ssh-add -T (a test signature over random data) asks as unrecognised data; allowed → ssh-add reports the key works', async () => {
  const k = await newKey('tkey');
  assert.equal((await run('ssh-add', [k.file], { env: sshEnv })).code, 0);
  const t1 = run('ssh-add', ['-T', k.file + '.pub'], { env: sshEnv, timeoutMs: 30_000 });
  const p = await waitPending(ui, (x) => x.tool === 'ssh-sign' && x.ssh?.fingerprint === k.fp, 'the -T prompt', 20_000);
  assert.equal(p.resource, 'unknown-data');
  assert.ok(['high', 'critical'].includes(p.risk.level), `unrecognised data is high risk: ${p.risk.level}`);
  await decide(p, 'allow');
  const r = await t1;
  assert.equal(r.code, 0, r.stderr);
  const t2 = run('ssh-add', ['-T', k.file + '.pub'], { env: sshEnv, timeoutMs: 30_000 });
  await decide(await waitPending(ui, (x) => x.tool === 'ssh-sign' && x.ssh?.fingerprint === k.fp, 'the second -T prompt', 20_000), 'deny');
  assert.notEqual((await t2).code, 0);
});

test('RSA: a real sshd that accepts only rsa-sha2-256 lets the login through (the agent honours the flag) once allowed', async () => {
  const sshd = await startSshd(path.join(root, 'sshd'), ['PubkeyAcceptedAlgorithms rsa-sha2-256']);
  try {
    const k = await newKey('rsakey', ['-t', 'rsa', '-b', '2048']);
    fs.writeFileSync(sshd.authorizedKeys, k.pub + '\n');
    assert.equal((await run('ssh-add', [k.file], { env: sshEnv })).code, 0);
    // ssh checks its own known_hosts; Airlock names the host from the user's (docs/ssh-agent.md).
    const kh = path.join(fakeHome, '.ssh', 'known_hosts');
    fs.writeFileSync(kh, `[127.0.0.1]:${sshd.port} ${sshd.hostKeyPub}\n`);
    const login = run('ssh', [...sshArgs(sshd, kh, ['-o', 'PubkeyAcceptedAlgorithms=rsa-sha2-256']), 'echo', 'rsa-ok'], { env: sshEnv, timeoutMs: 45_000 });
    const p = await waitPending(ui, (x) => x.tool === 'ssh-sign' && x.ssh?.fingerprint === k.fp, 'the RSA login prompt', 30_000);
    assert.equal(p.ssh?.purpose, 'login');
    // known_hosts names it `[127.0.0.1]:PORT`: the resource keeps the port (docs/ssh-agent.md).
    assert.equal(p.resource, `${USER}@127.0.0.1:${sshd.port}`);
    await decide(p, 'allow');
    const r = await login;
    assert.equal(r.code, 0, `${r.stderr}\n--- sshd ---\n${sshd.output().slice(-2000)}`);
    assert.match(r.stdout, /rsa-ok/);
    assert.match(sshd.output(), /Accepted publickey .* RSA SHA256:/);
  } finally {
    await sshd.stop();
  }
});
