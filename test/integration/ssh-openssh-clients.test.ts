// The agent against real clients: OpenSSH 9's ssh-add and ssh-keygen -Y, git commit -S
// (gpg.format=ssh), and Python's paramiko. The agent runs in this process with a scripted
// Asker, so every prompt it would show is checked here.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '../helpers/daemon';
import { KEY_TYPES, makeKey, run, startTestAgent, type TestAgent } from '../helpers/ssh';

let a: TestAgent;
let dir: string;

before(async () => {
  a = await startTestAgent();
  dir = path.join(a.home, 'fixtures');
  fs.mkdirSync(dir, { mode: 0o700 });
  // ssh-add -x/-X and encrypted keys read passphrases through SSH_ASKPASS.
  const askpass = path.join(dir, 'askpass.sh');
  fs.writeFileSync(askpass, '#!/bin/sh\nprintf "%s\\n" "$TEST_PASS"\n', { mode: 0o700 });
  a.env = { ...a.env, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' };
});
after(async () => {
  await a?.close();
});

const sshAdd = (args: string[], pass?: string) => run('ssh-add', args, { env: { ...a.env, TEST_PASS: pass ?? '' } });

describe('ssh-add against the agent', () => {
  test('-l / -L on an empty agent, then add, list, -d, -D', async () => {
    let r = await sshAdd(['-l']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /no identities/);

    const ed = await makeKey(dir, 'add-ed', ['-t', 'ed25519']);
    const rsa = await makeKey(dir, 'add-rsa', ['-t', 'rsa', '-b', '2048']);
    r = await sshAdd([ed]);
    assert.equal(r.code, 0, r.stderr);
    r = await sshAdd([rsa]);
    assert.equal(r.code, 0, r.stderr);

    r = await sshAdd(['-l']);
    assert.equal(r.code, 0);
    const fpEd = (await run('ssh-keygen', ['-lf', ed + '.pub'])).stdout.split(' ')[1]!;
    assert.ok(r.stdout.includes(fpEd), `${r.stdout} lacks ${fpEd}`);
    assert.equal(r.stdout.trim().split('\n').length, 2);

    r = await sshAdd(['-L']);
    const pubEd = fs.readFileSync(ed + '.pub', 'utf8').trim().split(' ').slice(0, 2).join(' ');
    assert.ok(r.stdout.includes(pubEd), 'ssh-add -L prints the public key');

    r = await sshAdd(['-d', ed]);
    assert.equal(r.code, 0, r.stderr);
    r = await sshAdd(['-l']);
    assert.ok(!r.stdout.includes(fpEd), 'removed key is gone');
    assert.equal(r.stdout.trim().split('\n').length, 1);

    r = await sshAdd(['-D']);
    assert.equal(r.code, 0, r.stderr);
    r = await sshAdd(['-l']);
    assert.equal(r.code, 1);
  });

  test('-c marks the key confirm-only; the prompt says so', async () => {
    const k = await makeKey(dir, 'confirm', ['-t', 'ed25519']);
    let r = await sshAdd(['-c', k]);
    assert.equal(r.code, 0, r.stderr);
    fs.rmSync(k);
    const keys = await a.agent.keyService.list();
    const entry = keys.find((x) => x.comment === 'test-confirm');
    assert.ok(entry?.confirm, 'key is marked confirm');
    fs.writeFileSync(path.join(dir, 'msg-c'), 'hello');
    a.asked.length = 0;
    r = await run('ssh-keygen', ['-Y', 'sign', '-f', k + '.pub', '-n', 'file', path.join(dir, 'msg-c')], { env: a.env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(a.asked.length, 1);
    assert.equal((a.asked[0]!.req.args as { confirmRequired?: boolean }).confirmRequired, true);
    await sshAdd(['-d', k]);
  });

  test('-t lifetime: the key disappears after it', async () => {
    const k = await makeKey(dir, 'lifetime', ['-t', 'ed25519']);
    // 4 s: long enough for the listing below to come first on a loaded machine (with 1 s,
    // two ssh-add runs could outlast it), short enough to wait for.
    const t0 = Date.now();
    let r = await sshAdd(['-t', '4', k]);
    assert.equal(r.code, 0, r.stderr);
    r = await sshAdd(['-l']);
    if (Date.now() - t0 < 3500) assert.match(r.stdout, /test-lifetime/);
    const keys = await a.agent.keyService.list();
    const expiresAt = keys.find((x) => x.comment === 'test-lifetime')?.expiresAt;
    if (Date.now() - t0 < 3500) assert.ok(expiresAt, 'expiry is shown');
    await waitFor(async () => !/test-lifetime/.test((await sshAdd(['-l'])).stdout), 'the key to disappear', 30_000, 250);
    assert.ok(Date.now() - t0 >= 3500, `gone after ${Date.now() - t0} ms, before its 4 s lifetime`);
  });

  test('-x locks (no keys listed, no signing), -X with a wrong then the right passphrase unlocks', async () => {
    const k = await makeKey(dir, 'lock', ['-t', 'ed25519']);
    assert.equal((await sshAdd([k])).code, 0);
    // Without the private key file, ssh-keygen can only sign through the agent.
    fs.rmSync(k);
    let r = await sshAdd(['-x'], 'lockpw');
    assert.equal(r.code, 0, r.stderr);
    r = await sshAdd(['-l']);
    assert.equal(r.code, 1, 'a locked agent lists nothing');
    fs.writeFileSync(path.join(dir, 'msg-l'), 'hello');
    a.asked.length = 0;
    r = await run('ssh-keygen', ['-Y', 'sign', '-f', k + '.pub', '-n', 'file', path.join(dir, 'msg-l')], { env: a.env });
    assert.notEqual(r.code, 0, 'a locked agent does not sign');
    assert.equal(a.asked.length, 0, 'and does not even ask');
    r = await sshAdd(['-X'], 'wrong');
    assert.notEqual(r.code, 0);
    r = await sshAdd(['-X'], 'lockpw');
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await run('ssh-keygen', ['-Y', 'sign', '-f', k + '.pub', '-n', 'file', path.join(dir, 'msg-l')], { env: a.env })).code, 0, 'unlocked: signs again');
    r = await sshAdd(['-l']);
    assert.match(r.stdout, /test-lock/);
    await sshAdd(['-D']);
  });

  test('-x with an empty passphrase is refused (as OpenSSH does): the agent stays unlocked and keeps signing', async () => {
    const k = await makeKey(dir, 'emptylock', ['-t', 'ed25519']);
    assert.equal((await sshAdd([k])).code, 0);
    fs.rmSync(k);
    fs.writeFileSync(path.join(dir, 'msg-e'), 'hello');
    // The askpass answers an empty line to both "Enter lock password" and "Again".
    let r = await sshAdd(['-x'], '');
    assert.notEqual(r.code, 0, `an empty lock password must fail: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /Failed to lock agent/);
    r = await sshAdd(['-l']);
    assert.equal(r.code, 0, 'still unlocked: keys are listed');
    assert.match(r.stdout, /test-emptylock/);
    assert.equal((await run('ssh-keygen', ['-Y', 'sign', '-f', k + '.pub', '-n', 'file', path.join(dir, 'msg-e')], { env: a.env })).code, 0, 'still signs');
    // An empty unlock of an unlocked agent fails too, and a real lock then still works.
    assert.notEqual((await sshAdd(['-X'], '')).code, 0);
    assert.equal((await sshAdd(['-x'], 'pw2')).code, 0);
    r = await sshAdd(['-X'], '');
    assert.notEqual(r.code, 0, 'an empty passphrase never unlocks a locked agent');
    assert.equal((await sshAdd(['-l'])).code, 1, 'still locked');
    assert.equal((await sshAdd(['-X'], 'pw2')).code, 0);
    await sshAdd(['-D']);
  });

  test('a passphrase-protected key added with ssh-add', async () => {
    const k = await makeKey(dir, 'enc', ['-t', 'ecdsa', '-b', '384'], 'sekrit');
    const r = await sshAdd([k], 'sekrit');
    assert.equal(r.code, 0, r.stderr);
    assert.match((await sshAdd(['-l'])).stdout, /test-enc/);
    await sshAdd(['-D']);
  });
});

describe('ssh-keygen -Y sign through the agent, verified by ssh-keygen -Y verify', () => {
  for (const kt of KEY_TYPES) {
    test(`${kt.label}: allowed → valid signature; denied → no signature`, async () => {
      const k = await makeKey(dir, `sig-${kt.label}`, kt.args);
      // Half the types are imported into Airlock (sealed store), half ssh-added.
      if (kt.label === 'ed25519' || kt.label === 'ecdsa-p384' || kt.label === 'rsa') {
        await a.agent.keyService.import({ path: k, name: `imported-${kt.label}` });
      } else {
        assert.equal((await sshAdd([k])).code, 0);
      }
      fs.rmSync(k); // only the agent can sign now
      const msg = path.join(dir, `msg-${kt.label}`);
      fs.writeFileSync(msg, `message for ${kt.label}\n`);
      a.asked.length = 0;
      a.decide = () => 'allow';
      let r = await run('ssh-keygen', ['-Y', 'sign', '-f', k + '.pub', '-n', 'file', msg], { env: a.env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(a.asked.length, 1, 'asked exactly once');
      const { req, ctx } = a.asked[0]!;
      assert.equal(req.source, 'ssh');
      assert.equal(req.tool, 'ssh-sign');
      assert.equal(req.action, 'sign');
      assert.equal(req.resource, 'sshsig:file');
      assert.match(req.summary, /^sign, namespace file, with key/);
      assert.equal(ctx.ssh?.purpose, 'sshsig');
      assert.equal(ctx.ssh?.namespace, 'file');
      assert.equal(ctx.ssh?.forwarded, false);
      assert.match(ctx.ssh?.fingerprint ?? '', /^SHA256:/);
      assert.ok(ctx.process && ctx.process.pid > 0, 'who: peer process');
      assert.ok(ctx.process!.tree.some((n) => (n.exe ?? '').endsWith('ssh-keygen')), 'process tree names ssh-keygen');
      assert.ok(!JSON.stringify(req).includes('PRIVATE'), 'no key material in the request');

      const allowed = path.join(dir, `allowed-${kt.label}`);
      fs.writeFileSync(allowed, `tester ${fs.readFileSync(k + '.pub', 'utf8')}`);
      r = await run('ssh-keygen', ['-Y', 'verify', '-f', allowed, '-I', 'tester', '-n', 'file', '-s', msg + '.sig'], {
        env: a.env,
        input: fs.readFileSync(msg, 'utf8'),
      });
      assert.equal(r.code, 0, `verify: ${r.stdout}${r.stderr}`);
      r = await run('ssh-keygen', ['-Y', 'verify', '-f', allowed, '-I', 'tester', '-n', 'file', '-s', msg + '.sig'], { env: a.env, input: 'tampered' });
      assert.notEqual(r.code, 0, 'a tampered message does not verify (the check can fail)');

      fs.rmSync(msg + '.sig');
      a.decide = () => 'deny';
      r = await run('ssh-keygen', ['-Y', 'sign', '-f', k + '.pub', '-n', 'file', msg], { env: a.env });
      a.decide = () => 'allow';
      assert.notEqual(r.code, 0, 'denied: ssh-keygen fails');
      assert.ok(!fs.existsSync(msg + '.sig'));
    });
  }
});

test('git commit -S with gpg.format=ssh is verified by git verify-commit; the prompt says "sign, namespace git"', async () => {
  const k = await makeKey(dir, 'git', ['-t', 'ed25519']);
  await a.agent.keyService.import({ path: k, name: 'git-key' });
  fs.rmSync(k);
  const repo = path.join(dir, 'repo');
  fs.mkdirSync(repo);
  const allowed = path.join(dir, 'allowed-git');
  fs.writeFileSync(allowed, `tester@example.com ${fs.readFileSync(k + '.pub', 'utf8')}`);
  const git = (args: string[]) =>
    run('git', ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${k}.pub`, '-c', `gpg.ssh.allowedSignersFile=${allowed}`, '-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', ...args], {
      env: { ...a.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
      cwd: repo,
    });
  assert.equal((await git(['init', '-q'])).code, 0);
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  assert.equal((await git(['add', 'a.txt'])).code, 0);
  a.asked.length = 0;
  let r = await git(['commit', '-q', '-S', '-m', 'signed']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(a.asked.length, 1);
  assert.match(a.asked[0]!.req.summary, /^sign, namespace git, with key 'git-key'/);
  assert.equal(a.asked[0]!.req.resource, 'sshsig:git');
  assert.ok(a.asked[0]!.ctx.process!.tree.some((n) => (n.exe ?? '').endsWith('/git')), 'process tree shows git');
  r = await git(['verify-commit', 'HEAD']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Good "git" signature/);

  a.decide = () => 'deny';
  fs.writeFileSync(path.join(repo, 'b.txt'), 'b\n');
  await git(['add', 'b.txt']);
  r = await git(['commit', '-q', '-S', '-m', 'denied']);
  a.decide = () => 'allow';
  assert.notEqual(r.code, 0, 'a denied signature fails the commit');
});

test('paramiko (another client implementation) lists keys and gets a valid signature', async () => {
  const k = await makeKey(dir, 'paramiko', ['-t', 'ed25519']);
  await a.agent.keyService.import({ path: k, name: 'paramiko-key' });
  const script = `
import sys, paramiko
from paramiko.message import Message
agent = paramiko.Agent()
keys = agent.get_keys()
want = open(sys.argv[1]).read().split()[1]
match = [k for k in keys if k.get_base64() == want]
print("count", len(keys))
assert match, "key not listed"
data = b"paramiko test data"
sig = match[0].sign_ssh_data(data)
pub = paramiko.Ed25519Key(data=match[0].asbytes())
print("verify", pub.verify_ssh_sig(data, Message(sig)))
print("bad", pub.verify_ssh_sig(b"other data", Message(sig)))
`;
  a.asked.length = 0;
  const r = await run('/usr/bin/python3', ['-c', script, k + '.pub'], { env: a.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /verify True/);
  assert.match(r.stdout, /bad False/);
  assert.equal(a.asked.length, 1);
  assert.equal(a.asked[0]!.ctx.ssh?.purpose, 'unknown', 'raw data is neither a login nor SSHSIG');
  assert.equal(a.asked[0]!.req.resource, 'unknown-data');
});
