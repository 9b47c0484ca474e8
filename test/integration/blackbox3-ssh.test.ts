// Black-box, third wave: the ssh-agent semantics a user of OpenSSH's agent relies on, driven
// with OpenSSH's own clients against `airlock serve` (README "The SSH agent that asks",
// docs/ssh-agent.md): ssh-add -x/-X (a locked agent lists and signs nothing), -t (a key added
// with a lifetime expires), -c (a confirm-constrained key), -d; git commit signing with an ssh
// key verified by git itself; a signing client that goes away while its prompt waits. Every
// change of the agent and every signature must leave its row in history.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { Wire, airlock, pendingList, waitPending, type Pending } from '../helpers/blackbox';
import { run } from '../helpers/ssh';

let d: Daemon;
let ui: Wire;
let root: string;
let env: NodeJS.ProcessEnv;
let sshEnv: NodeJS.ProcessEnv;
let storedPub: string;
let storedFp: string;

interface HistoryRow {
  id: number;
  source: string;
  tool: string;
  action: string;
  resource: string | null;
  summary: string;
  decision: string;
  decidedBy: string;
  reason: string;
  args: Record<string, unknown> | null;
  ssh: { fingerprint?: string; purpose?: string; namespace?: string } | null;
  process: { pid: number } | null;
}

/** `airlock history --json` as documented: one event per line, newest first. */
async function history(args: string[] = []): Promise<HistoryRow[]> {
  const h = await airlock(['history', '--json', ...args], { env });
  assert.equal(h.code, 0, h.stderr);
  return h.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as HistoryRow);
}

async function fingerprint(pubFile: string): Promise<string> {
  return (await run('ssh-keygen', ['-lf', pubFile])).stdout.split(' ')[1]!;
}

async function decide(p: Pending, decision: 'allow' | 'deny'): Promise<void> {
  const r = await ui.call('pending.decide', { id: p.id, decision, scope: 'once' });
  assert.equal(r.error, undefined, JSON.stringify(r));
}

async function newKey(name: string): Promise<{ file: string; fp: string; pub: string }> {
  const file = path.join(root, name);
  assert.equal((await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file])).code, 0);
  return { file, fp: await fingerprint(file + '.pub'), pub: fs.readFileSync(file + '.pub', 'utf8').trim() };
}

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb3s-'));
  const fakeHome = path.join(root, 'home');
  fs.mkdirSync(path.join(fakeHome, '.ssh'), { recursive: true, mode: 0o700 });
  d = await startDaemon({ home: path.join(root, 'h'), env: { HOME: fakeHome } });
  ui = await Wire.open(d.uiSock);
  env = { ...process.env, AIRLOCK_HOME: d.home, HOME: fakeHome };
  // ssh-add -x/-X read the lock passphrase through SSH_ASKPASS when stdin is not a terminal.
  const askpass = path.join(root, 'askpass.sh');
  fs.writeFileSync(askpass, '#!/bin/sh\ncat "$ASKPASS_FILE"\n', { mode: 0o700 });
  sshEnv = { ...env, SSH_AUTH_SOCK: d.agentSock, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0', GIT_CONFIG_NOSYSTEM: '1' };
  const g = await airlock(['keys', 'generate', 'work', '--type', 'ed25519'], { env });
  assert.equal(g.code, 0, g.stderr);
  storedPub = g.stdout.split('\n').find((l) => l.startsWith('ssh-ed25519 '))!;
  fs.writeFileSync(path.join(root, 'work.pub'), storedPub + '\n');
  storedFp = await fingerprint(path.join(root, 'work.pub'));
});
after(async () => {
  ui?.close();
  await d?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

function withPass(pass: string): NodeJS.ProcessEnv {
  const f = path.join(root, `pass-${pass.length}-${Date.now()}`);
  fs.writeFileSync(f, pass + '\n', { mode: 0o600 });
  return { ...sshEnv, ASKPASS_FILE: f };
}

test('ssh-add -x asks first; a locked agent lists no key and signs nothing (no prompt either); -X with the wrong passphrase stays locked, the right one unlocks; each step is in history', async () => {
  const lock = run('ssh-add', ['-x'], { env: withPass('correct horse'), timeoutMs: 30_000 });
  const p = await waitPending(ui, (x) => x.resource === 'ssh-agent:lock', 'the lock prompt', 20_000);
  assert.equal(p.source, 'ssh');
  assert.equal(p.tool, 'ssh-agent');
  await decide(p, 'allow');
  const l = await lock;
  assert.equal(l.code, 0, l.stderr);
  assert.match(l.stderr + l.stdout, /Agent locked/);

  // OpenSSH's agent, locked: no identities, and a signature is refused without asking anyone.
  const listed = await run('ssh-add', ['-l'], { env: sshEnv });
  assert.notEqual(listed.code, 0, `a locked agent lists nothing: ${listed.stdout}`);
  assert.doesNotMatch(listed.stdout, /SHA256:/);
  const listedL = await run('ssh-add', ['-L'], { env: sshEnv });
  assert.doesNotMatch(listedL.stdout, /ssh-ed25519/);
  const data = path.join(root, 'locked.txt');
  fs.writeFileSync(data, 'payload\n');
  const sign = await run('ssh-keygen', ['-Y', 'sign', '-n', 'git', '-f', path.join(root, 'work.pub'), data], { env: sshEnv, timeoutMs: 20_000 });
  assert.notEqual(sign.code, 0, 'a locked agent signs nothing');
  assert.equal(fs.existsSync(data + '.sig'), false);
  assert.equal((await pendingList(ui)).length, 0, 'nothing to ask: a locked agent refuses at once');

  // A wrong passphrase, allowed by the human, still does not unlock.
  const wrong = run('ssh-add', ['-X'], { env: withPass('wrong'), timeoutMs: 30_000 });
  await decide(await waitPending(ui, (x) => x.resource === 'ssh-agent:unlock', 'the first unlock prompt', 20_000), 'allow');
  const w = await wrong;
  assert.notEqual(w.code, 0, `wrong passphrase: ${w.stderr}`);
  assert.doesNotMatch((await run('ssh-add', ['-l'], { env: sshEnv })).stdout, /SHA256:/, 'still locked');

  // A denied unlock with the right passphrase does not unlock either.
  const denied = run('ssh-add', ['-X'], { env: withPass('correct horse'), timeoutMs: 30_000 });
  await decide(await waitPending(ui, (x) => x.resource === 'ssh-agent:unlock', 'the second unlock prompt', 20_000), 'deny');
  assert.notEqual((await denied).code, 0);
  assert.doesNotMatch((await run('ssh-add', ['-l'], { env: sshEnv })).stdout, /SHA256:/, 'still locked after a denied unlock');

  const right = run('ssh-add', ['-X'], { env: withPass('correct horse'), timeoutMs: 30_000 });
  await decide(await waitPending(ui, (x) => x.resource === 'ssh-agent:unlock', 'the third unlock prompt', 20_000), 'allow');
  const r = await right;
  assert.equal(r.code, 0, r.stderr);
  assert.ok((await run('ssh-add', ['-l'], { env: sshEnv })).stdout.includes(storedFp), 'unlocked: the key is listed again');

  const rows = (await history(['--source', 'ssh', '-n', '20'])).filter((e) => e.tool === 'ssh-agent');
  const lockRows = rows.filter((e) => e.resource === 'ssh-agent:lock');
  const unlockRows = rows.filter((e) => e.resource === 'ssh-agent:unlock');
  assert.equal(lockRows.length, 1, JSON.stringify(rows.map((e) => [e.resource, e.decision])));
  assert.equal(lockRows[0]!.decision, 'allow');
  assert.deepEqual(unlockRows.map((e) => e.decision).sort(), ['allow', 'allow', 'deny'], 'three unlock attempts, each recorded with its decision');
  for (const e of rows) assert.ok(e.process && e.process.pid > 0, `who asked is recorded: ${JSON.stringify(e)}`);
  assert.ok(!JSON.stringify(rows).includes('correct horse'), 'the lock passphrase never reaches history');
});

test('ssh-add -t: a key added with a lifetime is listed, then gone once the lifetime is over (without asking)', async () => {
  const k = await newKey('short_lived');
  const add = await run('ssh-add', ['-t', '2', k.file], { env: sshEnv });
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stderr + add.stdout, /Lifetime set to 2 seconds/);
  assert.ok((await run('ssh-add', ['-l'], { env: sshEnv })).stdout.includes(k.fp), 'listed while it lives');
  await waitFor(async () => !(await run('ssh-add', ['-l'], { env: sshEnv })).stdout.includes(k.fp), 'the key to expire', 10_000, 250);
  const l = await run('ssh-add', ['-L'], { env: sshEnv });
  assert.ok(!l.stdout.includes(k.pub.split(' ')[1]!), 'its public key is gone too');
  assert.ok(l.stdout.includes(storedPub.split(' ')[1]!), 'the stored key stays');
  assert.equal((await pendingList(ui)).length, 0, 'expiry asks nobody');
});

test('ssh-add KEY does not ask, but is recorded: which process added which key (fingerprint, lifetime, confirm), never the key itself', async () => {
  const k = await newKey('recorded_add');
  const add = await run('ssh-add', ['-c', '-t', '600', k.file], { env: sshEnv });
  assert.equal(add.code, 0, add.stderr);
  assert.equal((await pendingList(ui)).length, 0, 'adding asks nobody');
  const row = (await history(['--source', 'ssh', '-n', '10'])).find((e) => e.resource === 'ssh-agent:add-key' && (e.args as { key?: string } | null)?.key === k.fp);
  assert.ok(row, 'the ssh-add has its row');
  assert.equal(row.tool, 'ssh-agent');
  assert.equal(row.decision, 'allow');
  assert.match(row.summary, /recorded_add/);
  assert.deepEqual([(row.args as { lifetimeSec?: number }).lifetimeSec, (row.args as { confirm?: boolean }).confirm], [600, true]);
  assert.ok(row.process && row.process.pid > 0 && JSON.stringify(row.process).includes('ssh-add'), `who: ssh-add: ${JSON.stringify(row.process)}`);
  const priv = fs.readFileSync(k.file, 'utf8').split('\n').slice(1, -2).join('');
  const h = await airlock(['history', '--json', '-n', '50'], { env });
  assert.ok(!h.stdout.includes(priv.slice(0, 40)), 'no private key material in history');
});

test('ssh-add -c: a signature with a confirm-constrained key always asks, even where an allow grant would answer, and says so', async () => {
  const k = await newKey('confirm_me');
  const add = await run('ssh-add', ['-c', k.file], { env: sshEnv });
  assert.equal(add.code, 0, add.stderr);
  const g = await ui.call('grants.create', { action: 'sign', source: 'ssh', resource: 'sshsig:git', effect: 'allow', note: 'bb3 confirm' });
  assert.equal(g.error, undefined, JSON.stringify(g));
  const gid = (g.result as { grant?: { id: string }; id?: string }).grant?.id ?? (g.result as { id: string }).id;
  try {
    // The grant answers the stored key's signature without a prompt…
    const data = path.join(root, 'confirm.txt');
    fs.writeFileSync(data, 'payload\n');
    const plain = await run('ssh-keygen', ['-Y', 'sign', '-n', 'git', '-f', path.join(root, 'work.pub'), data], { env: sshEnv, timeoutMs: 20_000 });
    assert.equal(plain.code, 0, plain.stderr);
    fs.rmSync(data + '.sig');
    // …but a key added with -c is confirmed every time (ssh-agent's promise for -c).
    const signing = run('ssh-keygen', ['-Y', 'sign', '-n', 'git', '-f', k.file + '.pub', data], { env: sshEnv, timeoutMs: 30_000 });
    const p = await waitPending(ui, (x) => x.source === 'ssh' && x.ssh?.fingerprint === k.fp, 'the prompt for the -c key', 20_000);
    assert.equal((p.args as Record<string, unknown>).confirmRequired, true, JSON.stringify(p.args));
    await decide(p, 'allow');
    assert.equal((await signing).code, 0);
    assert.ok(fs.existsSync(data + '.sig'));
  } finally {
    await ui.call('grants.revoke', { id: gid });
  }
});

test('ssh-add -d asks first: denied → the key stays; allowed → it is gone; both recorded', async () => {
  const k = await newKey('to_delete');
  assert.equal((await run('ssh-add', [k.file], { env: sshEnv })).code, 0);
  const denied = run('ssh-add', ['-d', k.file], { env: sshEnv, timeoutMs: 30_000 });
  const p1 = await waitPending(ui, (x) => x.resource === 'ssh-agent:remove-key', 'the remove-key prompt', 20_000);
  await decide(p1, 'deny');
  assert.notEqual((await denied).code, 0);
  assert.ok((await run('ssh-add', ['-l'], { env: sshEnv })).stdout.includes(k.fp), 'denied: the key stays');
  const allowed = run('ssh-add', ['-d', k.file], { env: sshEnv, timeoutMs: 30_000 });
  await decide(await waitPending(ui, (x) => x.resource === 'ssh-agent:remove-key', 'the second remove-key prompt', 20_000), 'allow');
  const a = await allowed;
  assert.equal(a.code, 0, a.stderr);
  assert.ok(!(await run('ssh-add', ['-l'], { env: sshEnv })).stdout.includes(k.fp), 'allowed: the key is gone');
  const rows = (await history(['--source', 'ssh', '-n', '10'])).filter((e) => e.resource === 'ssh-agent:remove-key');
  assert.deepEqual(rows.map((e) => e.decision), ['allow', 'deny'], 'newest first: the allow, then the deny');
});

test('git commit -S with gpg.format=ssh (the README line): prompt "sign, namespace git"; allowed → git verifies the commit; denied → no commit', async () => {
  const repo = path.join(root, 'repo');
  fs.mkdirSync(repo);
  const git = (args: string[]) => run('git', args, { env: { ...sshEnv, GIT_AUTHOR_NAME: 'bb', GIT_AUTHOR_EMAIL: 'bb@example.com', GIT_COMMITTER_NAME: 'bb', GIT_COMMITTER_EMAIL: 'bb@example.com' }, cwd: repo, timeoutMs: 30_000 });
  assert.equal((await git(['init', '-q'])).code, 0);
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  assert.equal((await git(['add', 'a.txt'])).code, 0);
  // As README: git -c gpg.format=ssh -c user.signingkey="$(ssh-add -L | head -1)" commit -S -m msg
  const signingKey = (await run('ssh-add', ['-L'], { env: sshEnv })).stdout.split('\n')[0]!;
  assert.match(signingKey, /^ssh-ed25519 /);
  const commit = git(['-c', 'gpg.format=ssh', '-c', `user.signingkey=${signingKey}`, 'commit', '-S', '-m', 'signed by airlock']);
  const p = await waitPending(ui, (x) => x.source === 'ssh' && x.resource === 'sshsig:git', 'the commit signature prompt', 20_000);
  assert.match(p.summary, /sign, namespace git/);
  assert.equal(p.ssh?.purpose, 'sshsig');
  assert.ok(JSON.stringify(p.process?.tree ?? []).includes('git'), `who: git in the tree: ${JSON.stringify(p.process?.tree)}`);
  await decide(p, 'allow');
  const c = await commit;
  assert.equal(c.code, 0, c.stderr);
  const signers = path.join(root, 'allowed_signers');
  fs.writeFileSync(signers, `bb@example.com ${storedPub}\n`);
  const v = await git(['-c', `gpg.ssh.allowedSignersFile=${signers}`, 'verify-commit', 'HEAD']);
  assert.equal(v.code, 0, v.stderr);
  assert.match(v.stderr, /Good "git" signature/);

  fs.writeFileSync(path.join(repo, 'b.txt'), 'b\n');
  assert.equal((await git(['add', 'b.txt'])).code, 0);
  const refused = git(['-c', 'gpg.format=ssh', '-c', `user.signingkey=${signingKey}`, 'commit', '-S', '-m', 'never signed']);
  await decide(await waitPending(ui, (x) => x.source === 'ssh' && x.resource === 'sshsig:git', 'the second commit prompt', 20_000), 'deny');
  assert.notEqual((await refused).code, 0);
  assert.equal((await git(['log', '--format=%s'])).stdout.trim(), 'signed by airlock', 'the denied commit was not made');
  const rows = (await history(['--source', 'ssh', '-n', '5'])).filter((e) => e.resource === 'sshsig:git');
  assert.equal(rows[0]!.decision, 'deny');
  assert.equal(rows[0]!.ssh?.fingerprint, storedFp);
  assert.equal(rows[0]!.ssh?.namespace, 'git');
});

test('a signing client that goes away mid-prompt: the prompt leaves the queue, and history says it was denied because the requester left', async () => {
  const data = path.join(root, 'gone.txt');
  fs.writeFileSync(data, 'payload\n');
  const child = spawn('ssh-keygen', ['-Y', 'sign', '-n', 'file', '-f', path.join(root, 'work.pub'), data], { env: sshEnv, stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const p = await waitPending(ui, (x) => x.source === 'ssh' && x.resource === 'sshsig:file', 'the prompt of the client about to leave', 20_000);
  child.kill('SIGKILL');
  await exited;
  await waitFor(async () => !(await pendingList(ui)).some((x) => x.id === p.id), 'the prompt to leave the queue', 10_000, 100);
  const late = await ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
  assert.equal(late.error?.code, -32004, `a prompt that is gone cannot be answered: ${JSON.stringify(late)}`);
  await waitFor(async () => (await history(['--source', 'ssh', '-n', '3'])).some((e) => e.resource === 'sshsig:file'), 'the row of the abandoned signature', 10_000, 200);
  const row = (await history(['--source', 'ssh', '-n', '3'])).find((e) => e.resource === 'sshsig:file')!;
  assert.equal(row.decision, 'deny');
  assert.match(row.reason, /disconnect|went away|gone|left|closed/i, row.reason);
  assert.equal(fs.existsSync(data + '.sig'), false);
});
