// Sockets of the agent: per-task sockets (bound task, key scope, signing only), the peer
// uid check, and fronting an upstream agent (OpenSSH's ssh-agent).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fingerprintOf } from '../../main/ssh/key-material';
import { MSG } from '../../main/ssh/protocol';
import { Writer } from '../../main/ssh/wire';
import { tempHome, waitFor } from '../helpers/daemon';
import { RawAgentClient, makeKey, publicBlobOfFile, run, startChild, startTestAgent, type TestAgent } from '../helpers/ssh';

describe('per-task sockets', () => {
  let a: TestAgent;
  let k1: string;
  let k2: string;
  before(async () => {
    a = await startTestAgent();
    k1 = await makeKey(a.home, 'task1', ['-t', 'ed25519']);
    k2 = await makeKey(a.home, 'task2', ['-t', 'ecdsa', '-b', '256']);
    await a.agent.keyService.import({ path: k1 });
    await a.agent.keyService.import({ path: k2 });
    fs.rmSync(k1);
    fs.rmSync(k2);
  });
  after(async () => {
    await a?.close();
  });

  test('requests there belong to the task, list only the keys its grants name, and cannot change keys', async () => {
    const sock = await a.agent.taskSockets.open('t_demo');
    assert.equal(sock, path.join(a.home, 'tasks', 't_demo', 'agent.sock'));
    assert.equal(fs.statSync(sock).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(sock)).mode & 0o777, 0o700);
    const env = { ...a.env, SSH_AUTH_SOCK: sock };

    // No scope yet: every key visible.
    let r = await run('ssh-add', ['-l'], { env });
    assert.equal(r.stdout.trim().split('\n').length, 2);

    const fp1 = fingerprintOf(publicBlobOfFile(k1 + '.pub'));
    a.scope.set('t_demo', new Set([fp1]));
    r = await run('ssh-add', ['-l'], { env });
    assert.equal(r.stdout.trim().split('\n').length, 1);
    assert.ok(r.stdout.includes(fp1));

    fs.writeFileSync(path.join(a.home, 'm'), 'x');
    a.asked.length = 0;
    r = await run('ssh-keygen', ['-Y', 'sign', '-f', k1 + '.pub', '-n', 'file', path.join(a.home, 'm')], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(a.asked.length, 1);
    assert.equal(a.asked[0]!.ctx.boundTask, 't_demo');

    // The other key is not even signable through this socket, and nobody is asked.
    fs.rmSync(path.join(a.home, 'm.sig'));
    r = await run('ssh-keygen', ['-Y', 'sign', '-f', k2 + '.pub', '-n', 'file', path.join(a.home, 'm')], { env });
    assert.notEqual(r.code, 0);
    assert.equal(a.asked.length, 1);

    // Signing only: ssh-add, -D, -x fail on a task socket.
    const extra = await makeKey(a.home, 'extra', ['-t', 'ed25519']);
    assert.notEqual((await run('ssh-add', [extra], { env })).code, 0);
    assert.notEqual((await run('ssh-add', ['-D'], { env })).code, 0);
    const c = await RawAgentClient.connect(sock);
    assert.equal((await c.request(new Writer().byte(MSG.LOCK).string('pw').toBuffer()))[0], MSG.FAILURE);
    c.close();

    await a.agent.taskSockets.close('t_demo');
    assert.ok(!fs.existsSync(path.dirname(sock)), 'closing removes the socket dir');
  });

  test('task ids that could escape the tasks dir are refused', async () => {
    await assert.rejects(a.agent.taskSockets.open('..'));
    await assert.rejects(a.agent.taskSockets.open('a/b'));
    await assert.rejects(a.agent.taskSockets.open('.hidden'));
  });

  test('a peer with another uid is refused even when the socket is reachable', { skip: process.getuid?.() !== 0 && 'needs root to run a client as another uid' }, async () => {
    // Open the permissions so only the peer-credential check stands in the way.
    fs.chmodSync(a.home, 0o755);
    fs.chmodSync(a.sock, 0o777);
    try {
      const asNobody = await new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) => {
        const p = spawn('ssh-add', ['-l'], { env: { PATH: process.env.PATH, SSH_AUTH_SOCK: a.sock }, uid: 65534, gid: 65534 });
        let out = '';
        p.stdout.on('data', (d) => (out += d));
        p.stderr.on('data', (d) => (out += d));
        const t = setTimeout(() => p.kill('SIGKILL'), 10_000);
        p.on('close', (code, signal) => {
          clearTimeout(t);
          resolve({ code, signal, out });
        });
      });
      assert.notEqual(asNobody.code, 0, `other uid: ${asNobody.out}`);
      // It connected (file permissions did not stop it) and was then dropped by the uid check:
      // ssh-add reports a failed exchange, or dies of SIGPIPE writing to the closed socket.
      assert.doesNotMatch(asNobody.out, /Could not open a connection/);
      assert.ok(/communication with agent failed/.test(asNobody.out) || asNobody.signal === 'SIGPIPE', JSON.stringify(asNobody));
      assert.doesNotMatch(asNobody.out, /SHA256:/);
      // Refused and handed over for recording in history (the daemon writes a rejected event), not only logged.
      assert.deepEqual(a.foreign, [{ sock: a.sock, uid: 65534 }]);
      const asMe = await run('ssh-add', ['-l'], { env: a.env });
      assert.equal(asMe.code, 0, 'our own uid still works');
    } finally {
      fs.chmodSync(a.sock, 0o600);
      fs.chmodSync(a.home, 0o700);
    }
  });
});

describe('upstream agent', () => {
  let a: TestAgent;
  let up: ReturnType<typeof startChild>;
  let upSock: string;
  let key: string;
  before(async () => {
    const dir = fs.mkdtempSync('/tmp/alup-');
    upSock = path.join(dir, 'agent.sock');
    up = startChild('ssh-agent', ['-D', '-a', upSock]);
    await waitFor(() => fs.existsSync(upSock), 'ssh-agent socket');
    key = await makeKey(dir, 'upstream', ['-t', 'rsa', '-b', '3072']);
    const r = await run('ssh-add', [key], { env: { ...process.env, SSH_AUTH_SOCK: upSock } });
    assert.equal(r.code, 0, r.stderr);
    fs.rmSync(key);
    a = await startTestAgent({ upstream: upSock });
  });
  after(async () => {
    await a?.close();
    await up?.stop();
  });

  test("its keys are listed beside ours and sign only after approval", async () => {
    const own = await a.agent.keyService.generate({ type: 'ed25519', name: 'own' });
    let r = await run('ssh-add', ['-l'], { env: a.env });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(own.fingerprint));
    assert.match(r.stdout, /test-upstream/);
    const keys = await a.agent.keyService.list();
    const upKey = keys.find((k) => k.origin === 'upstream');
    assert.ok(upKey, 'keys.list shows the upstream key');
    assert.equal(upKey.type, 'ssh-rsa');

    const msg = path.join(a.home, 'up.txt');
    fs.writeFileSync(msg, 'via upstream\n');
    a.asked.length = 0;
    a.decide = () => 'deny';
    r = await run('ssh-keygen', ['-Y', 'sign', '-f', key + '.pub', '-n', 'file', msg], { env: a.env });
    assert.notEqual(r.code, 0, 'denied: upstream never signs');
    assert.equal(a.asked.length, 1);
    assert.equal((a.asked[0]!.req.args as { keyOrigin?: string }).keyOrigin, 'upstream');

    a.decide = () => 'allow';
    r = await run('ssh-keygen', ['-Y', 'sign', '-f', key + '.pub', '-n', 'file', msg], { env: a.env });
    assert.equal(r.code, 0, r.stderr);
    const allowed = path.join(a.home, 'allowed');
    fs.writeFileSync(allowed, `me ${fs.readFileSync(key + '.pub', 'utf8')}`);
    r = await run('ssh-keygen', ['-Y', 'verify', '-f', allowed, '-I', 'me', '-n', 'file', '-s', msg + '.sig'], { env: a.env, input: 'via upstream\n' });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Good "file" signature/);

    // The setting can change at run time: without an upstream its keys are gone.
    a.agent.setUpstream(null);
    r = await run('ssh-add', ['-l'], { env: a.env });
    assert.doesNotMatch(r.stdout, /test-upstream/);
    a.agent.setUpstream(upSock);
    assert.match((await run('ssh-add', ['-l'], { env: a.env })).stdout, /test-upstream/);
  });
});

describe('upstream loops', () => {
  test("Airlock's own socket is refused as its upstream", async () => {
    const home = tempHome('alloop-');
    const a = await startTestAgent({ home, upstream: path.join(home, 'agent.sock') });
    try {
      await a.agent.keyService.generate({ type: 'ed25519', name: 'mine' });
      const t0 = Date.now();
      assert.match((await run('ssh-add', ['-l'], { env: a.env })).stdout, /mine/);
      // A loop would hold the list until the upstream timeout (5 s, main/ssh/upstream.ts); 4 s
      // leaves a loaded machine room for ssh-add while staying under it.
      assert.ok(Date.now() - t0 < 4000, `no self-loop: answered at once (${Date.now() - t0} ms)`);
      assert.ok((await a.agent.keyService.list()).every((k) => k.origin !== 'upstream'));
      assert.throws(() => a.agent.setUpstream(path.join(home, 'agent.sock')), /own socket/);
    } finally {
      await a.close();
    }
  });

  test('two agents fronting each other answer a list in bounded time', async () => {
    const homeA = tempHome('alla-');
    const homeB = tempHome('allb-');
    const a = await startTestAgent({ home: homeA, upstream: path.join(homeB, 'agent.sock') });
    const b = await startTestAgent({ home: homeB, upstream: path.join(homeA, 'agent.sock') });
    try {
      await a.agent.keyService.generate({ type: 'ed25519', name: 'in-a' });
      const t0 = Date.now();
      const r = await run('ssh-add', ['-l'], { env: a.env, timeoutMs: 20_000 });
      assert.match(r.stdout, /in-a/);
      assert.ok(Date.now() - t0 < 15_000, `took ${Date.now() - t0} ms`);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
