// Black-box: the SSH agent as DESIGN.md "SSH requests" and the README promise, driven with
// OpenSSH's own clients: `airlock keys generate|list`, `ssh-add -l/-L` on agent.sock,
// `ssh-keygen -Y sign -n git` (resource sshsig:git, purpose sshsig), an `ssh` login to a
// throw-away sshd on 127.0.0.1 (resource user@host from known_hosts; the host key's
// fingerprint when no entry names it), `ssh-add -D` asking first, a task's own agent socket.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, type Daemon } from '../helpers/daemon';
import { Wire, airlock, waitPending, type Pending } from '../helpers/blackbox';
import { run } from '../helpers/ssh';
import { USER, sshArgs, startSshd, type Sshd } from '../helpers/sshd';

let d: Daemon;
let ui: Wire;
let root: string;
let env: NodeJS.ProcessEnv;
let sshEnv: NodeJS.ProcessEnv;
let pub: string;
let fp: string;
let sshd: Sshd;
let fakeHome: string;

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bbs-'));
  // The daemon's ~ (for ~/.ssh/known_hosts) is a temp dir: nothing of the real home is read or written.
  fakeHome = path.join(root, 'home');
  fs.mkdirSync(path.join(fakeHome, '.ssh'), { recursive: true, mode: 0o700 });
  d = await startDaemon({ home: path.join(root, 'h'), env: { HOME: fakeHome } });
  ui = await Wire.open(d.uiSock);
  env = { ...process.env, AIRLOCK_HOME: d.home, HOME: fakeHome };
  sshEnv = { ...env, SSH_AUTH_SOCK: d.agentSock };
  sshd = await startSshd(path.join(root, 'sshd'));
});
after(async () => {
  ui?.close();
  await sshd?.stop();
  await d?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

async function decideNext(pred: (p: Pending) => boolean, decision: 'allow' | 'deny', what: string): Promise<Pending> {
  const p = await waitPending(ui, pred, what, 20_000);
  const r = await ui.call('pending.decide', { id: p.id, decision, scope: 'once' });
  assert.equal(r.error, undefined, JSON.stringify(r));
  return p;
}

test('keys generate prints the public key; keys list and ssh-add -l / -L on agent.sock show the same key', async () => {
  const g = await airlock(['keys', 'generate', 'work', '--type', 'ed25519'], { env });
  assert.equal(g.code, 0, g.stderr);
  pub = g.stdout.split('\n').find((l) => l.startsWith('ssh-ed25519 '))!;
  assert.ok(pub, `the public key is printed: ${g.stdout}`);
  const l = await airlock(['keys', 'list'], { env });
  assert.equal(l.code, 0, l.stderr);
  fp = /SHA256:[A-Za-z0-9+/]{43}/.exec(l.stdout)![0];
  assert.match(l.stdout, /work/);
  const al = await run('ssh-add', ['-l'], { env: sshEnv });
  assert.equal(al.code, 0, al.stderr);
  assert.ok(al.stdout.includes(fp), `ssh-add -l shows ${fp}: ${al.stdout}`);
  assert.match(al.stdout, /ED25519/);
  const aL = await run('ssh-add', ['-L'], { env: sshEnv });
  assert.equal(aL.code, 0);
  assert.equal(aL.stdout.trim().split(' ').slice(0, 2).join(' '), pub.split(' ').slice(0, 2).join(' '));
  const bad = await airlock(['keys', 'generate', 'nope', '--type', 'dsa'], { env });
  assert.notEqual(bad.code, 0, 'an unknown key type is refused');
});

test('ssh-keygen -Y sign -n git: a sign request for sshsig:git; allowed → a signature that verifies; denied → no signature', async () => {
  const pubFile = path.join(root, 'work.pub');
  fs.writeFileSync(pubFile, pub + '\n');
  const data = path.join(root, 'msg.txt');
  fs.writeFileSync(data, 'commit payload\n');
  const signing = run('ssh-keygen', ['-Y', 'sign', '-n', 'git', '-f', pubFile, data], { env: sshEnv, timeoutMs: 30_000 });
  const p = await decideNext((x) => x.source === 'ssh' && x.resource === 'sshsig:git', 'allow', 'the sshsig prompt');
  assert.equal(p.tool, 'ssh-sign');
  assert.equal(p.action, 'sign');
  assert.ok(p.ssh, 'the prompt carries ssh details');
  assert.equal(p.ssh!.purpose, 'sshsig');
  assert.equal(p.ssh!.namespace, 'git');
  assert.equal(p.ssh!.fingerprint, fp);
  assert.equal(p.ssh!.forwarded, false);
  assert.ok(JSON.stringify(p.process?.tree ?? []).includes('ssh-keygen'), 'who: ssh-keygen in the process tree');
  const s = await signing;
  assert.equal(s.code, 0, s.stderr);
  const allowed = path.join(root, 'allowed_signers');
  fs.writeFileSync(allowed, `me@example.com ${pub}\n`);
  const v = await run('ssh-keygen', ['-Y', 'verify', '-f', allowed, '-I', 'me@example.com', '-n', 'git', '-s', data + '.sig'], { input: 'commit payload\n' });
  assert.equal(v.code, 0, v.stderr + v.stdout);
  fs.rmSync(data + '.sig');
  const denied = run('ssh-keygen', ['-Y', 'sign', '-n', 'git', '-f', pubFile, data], { env: sshEnv, timeoutMs: 30_000 });
  await decideNext((x) => x.source === 'ssh' && x.resource === 'sshsig:git', 'deny', 'the second sshsig prompt');
  assert.notEqual((await denied).code, 0);
  assert.equal(fs.existsSync(data + '.sig'), false);
});

test('ssh login to an unknown host: resource user@<host key fingerprint>, purpose login; allowed → ssh -T runs', async () => {
  fs.appendFileSync(sshd.authorizedKeys, pub + '\n');
  const knownHosts = path.join(root, 'client_known_hosts');
  fs.writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${sshd.hostKeyPub}\n`);
  const hostFp = (await run('ssh-keygen', ['-lf', knownHosts])).stdout.split(' ')[1];
  const login = run('ssh', [...sshArgs(sshd, knownHosts), '-T', 'echo logged-in'], { env: sshEnv, timeoutMs: 30_000 });
  const p = await decideNext((x) => x.source === 'ssh' && x.ssh?.purpose === 'login', 'allow', 'the login prompt');
  assert.equal(p.action, 'sign');
  assert.equal(p.ssh!.user, USER);
  assert.equal(p.resource, `${USER}@${hostFp}`, 'no known_hosts entry names it: the host key fingerprint');
  // DESIGN's ssh fields: the key (its name), its fingerprint, the host key the server proved.
  assert.equal(typeof p.ssh!.key, 'string');
  assert.equal(p.ssh!.fingerprint, fp);
  assert.ok(JSON.stringify((p.ssh as Record<string, unknown>).hostKey ?? '').includes(hostFp) || JSON.stringify((p.ssh as Record<string, unknown>).hostKey ?? '').includes(sshd.hostKeyPub.split(' ')[1]), `hostKey: ${JSON.stringify(p.ssh)}`);
  const r = await login;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /logged-in/);
});

test('ssh login to a host known_hosts names: resource user@host; denied → ssh fails', async () => {
  const knownHosts = path.join(root, 'client_known_hosts');
  fs.writeFileSync(path.join(fakeHome, '.ssh', 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostKeyPub}\n`);
  const login = run('ssh', [...sshArgs(sshd, knownHosts), '-T', 'echo logged-in'], { env: sshEnv, timeoutMs: 30_000 });
  const p = await decideNext((x) => x.source === 'ssh' && x.ssh?.purpose === 'login', 'deny', 'the login prompt');
  assert.equal(p.ssh!.host !== undefined && String(p.ssh!.host).includes('127.0.0.1'), true, `host from known_hosts: ${JSON.stringify(p.ssh)}`);
  assert.ok(String(p.resource).startsWith(`${USER}@`) && String(p.resource).includes('127.0.0.1'), String(p.resource));
  assert.match(p.summary, /login as/);
  const r = await login;
  assert.notEqual(r.code, 0);
  assert.doesNotMatch(r.stdout, /logged-in/);
  const h = await airlock(['history', '--json', '--source', 'ssh', '-n', '5'], { env });
  assert.match(h.stdout, /"decision":"deny"/);
});

test('ssh -A: a signature through the forwarded agent is marked forwarded, and a grant without --forwarded does not answer it', async () => {
  const pubFile = path.join(root, 'work.pub');
  const data = path.join(root, 'fwd.txt');
  fs.writeFileSync(data, 'forwarded payload\n');
  const g = await airlock(['grants', 'add', '-a', 'sign', '--source', 'ssh', '-r', 'sshsig:git', '--note', 'bb local signing'], { env });
  assert.equal(g.code, 0, g.stderr);
  const gid = /g_[A-Za-z0-9_-]+/.exec(g.stdout)![0];
  try {
    // Locally the grant answers: no prompt.
    const local = await run('ssh-keygen', ['-Y', 'sign', '-n', 'git', '-f', pubFile, data], { env: sshEnv, timeoutMs: 30_000 });
    assert.equal(local.code, 0, local.stderr);
    fs.rmSync(data + '.sig');
    // Through ssh -A (login allowed by the human), the same signature on the "server" asks, marked forwarded.
    const knownHosts = path.join(root, 'client_known_hosts');
    const remote = run('ssh', [...sshArgs(sshd, knownHosts, ['-A']), '-T', `ssh-keygen -Y sign -n git -f ${pubFile} ${data}`], { env: sshEnv, timeoutMs: 60_000 });
    await decideNext((x) => x.source === 'ssh' && x.ssh?.purpose === 'login', 'allow', 'the login prompt');
    const p = await decideNext((x) => x.source === 'ssh' && x.resource === 'sshsig:git', 'deny', 'the forwarded signature prompt');
    assert.equal(p.ssh!.forwarded, true);
    const r = await remote;
    assert.notEqual(r.code, 0);
    assert.equal(fs.existsSync(data + '.sig'), false);
  } finally {
    await airlock(['grants', 'revoke', gid], { env });
  }
});

test('ssh-add of a memory key does not ask; ssh-add -D asks first, removes only ssh-add keys and says the stored ones stayed', async () => {
  const keyFile = path.join(root, 'mem_key');
  assert.equal((await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'memkey', '-f', keyFile])).code, 0);
  const add = await run('ssh-add', [keyFile], { env: sshEnv });
  assert.equal(add.code, 0, add.stderr);
  const l = await run('ssh-add', ['-l'], { env: sshEnv });
  assert.equal(l.stdout.trim().split('\n').length, 2, l.stdout);
  const delAll = run('ssh-add', ['-D'], { env: sshEnv, timeoutMs: 30_000 });
  await decideNext((x) => x.source === 'ssh' && x.resource === 'ssh-agent:remove-all', 'allow', 'the remove-all prompt');
  const r = await delAll;
  assert.match(r.stderr + r.stdout, /Failed to remove all identities/);
  const l2 = await run('ssh-add', ['-l'], { env: sshEnv });
  assert.ok(l2.stdout.includes(fp) && !l2.stdout.includes('memkey'), l2.stdout);
});

test("a task's own agent socket: every key while its grants name none; only the named keys once they do; no ssh-add there", async () => {
  const other = await airlock(['keys', 'generate', 'other'], { env });
  assert.equal(other.code, 0, other.stderr);
  const otherFp = /SHA256:[A-Za-z0-9+/]{43}/.exec((await airlock(['keys', 'list'], { env })).stdout.split('\n').find((l) => l.includes('other'))!)![0];
  const s = await airlock(['task', 'start', 'bb ssh task', '--env'], { env });
  assert.equal(s.code, 0, s.stderr);
  const sock = /SSH_AUTH_SOCK='?([^'\s;]+)/.exec(s.stdout)![1];
  const taskEnv = { ...env, SSH_AUTH_SOCK: sock };
  // Documented (docs/ssh-agent.md "Task sockets"): no key named → every key, as with ssh-agent; each signature asks.
  const all = await run('ssh-add', ['-l'], { env: taskEnv });
  assert.equal(all.code, 0, all.stdout + all.stderr);
  assert.ok(all.stdout.includes(fp) && all.stdout.includes(otherFp), all.stdout);
  const task = /AIRLOCK_TASK='?([^'\s;]+)/.exec(s.stdout)![1];
  const g = await ui.call('grants.create', { task, action: 'sign', source: 'ssh', key: fp, resource: 'sshsig:git', effect: 'allow' });
  assert.equal(g.error, undefined, JSON.stringify(g));
  const some = await run('ssh-add', ['-l'], { env: taskEnv });
  assert.equal(some.code, 0, some.stdout + some.stderr);
  assert.ok(some.stdout.includes(fp), some.stdout);
  assert.ok(!some.stdout.includes(otherFp), `a key the task's grants do not name is not listed: ${some.stdout}`);
  const keyFile = path.join(root, 'task_add_key');
  assert.equal((await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile])).code, 0);
  const add = await run('ssh-add', [keyFile], { env: taskEnv });
  assert.notEqual(add.code, 0, 'a task socket signs only: no ssh-add');
});
