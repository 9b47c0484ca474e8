// keys.* through the real daemon and the `airlock keys` CLI: import (encrypted too),
// generate, list, remove; keys survive a restart sealed at rest; private key material never
// reaches the database, history or the daemon's output.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Key, Prompt } from '../../main/contract/approver';
import { parsePrivateKey } from '../../main/ssh/key-import';
import { CLI, startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { makeKey, run, startChild } from '../helpers/ssh';

let d: Daemon;
let home: string;
before(async () => {
  home = tempHome('alkd-');
  d = await startDaemon({ home });
});
after(async () => {
  await d?.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

const airlock = (args: string[], input?: string) => run(process.execPath, [CLI, ...args], { env: d.env, input, timeoutMs: 30_000 });

test('airlock keys import/generate/list/remove, persistence across restart, nothing private leaks', async () => {
  const fixtures = fs.mkdtempSync(path.join(home, 'fx-'));
  const enc = await makeKey(fixtures, 'enc', ['-t', 'ed25519'], 'open sesame');
  const secretD = parsePrivateKey(fs.readFileSync(enc, 'utf8'), 'open sesame').key.privateKey.export({ format: 'jwk' }).d!;

  let r = await airlock(['keys', 'import', enc, '--name', 'laptop']);
  assert.notEqual(r.code, 0, 'encrypted key without passphrase is refused');
  assert.match(r.stderr, /encrypted: give its passphrase/);
  r = await airlock(['keys', 'import', enc, '--name', 'laptop', '--passphrase-stdin'], 'wrong\n');
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /wrong passphrase/);
  r = await airlock(['keys', 'import', enc, '--name', 'laptop', '--passphrase-stdin'], 'open sesame\n');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /imported laptop SHA256:/);

  r = await airlock(['keys', 'generate', 'ci', '--type', 'ecdsa-p256']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ecdsa-sha2-nistp256 AAAA\S+ ci\n$/);

  r = await airlock(['keys', 'list', '--json']);
  const keys = JSON.parse(r.stdout) as Key[];
  assert.deepEqual(keys.map((k) => k.name).sort(), ['ci', 'laptop']);
  assert.ok(keys.every((k) => k.origin === 'airlock'));

  // A signature, so history has an ssh event too.
  const env = { ...d.env, SSH_AUTH_SOCK: d.agentSock };
  fs.rmSync(enc);
  const msg = path.join(fixtures, 'm');
  fs.writeFileSync(msg, 'm');
  const signing = run('ssh-keygen', ['-Y', 'sign', '-f', enc + '.pub', '-n', 'file', msg], { env });
  const ui = await d.ui();
  let prompt: Prompt | undefined;
  await waitFor(async () => {
    prompt = (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts[0];
    return prompt !== undefined;
  }, 'the signing prompt');
  assert.match(prompt!.summary, /^sign, namespace file, with key 'laptop'/);
  await ui.call('pending.decide', { id: prompt!.id, decision: 'allow', scope: 'once' });
  assert.equal((await signing).code, 0);
  ui.close();

  // Restart: the keys come back from the sealed store and still sign.
  await d.stop();
  d = await d.restart();
  r = await run('ssh-add', ['-L'], { env: { ...d.env, SSH_AUTH_SOCK: d.agentSock } });
  assert.equal(r.stdout.trim().split('\n').length, 2, r.stdout + r.stderr);

  r = await airlock(['keys', 'remove', keys.find((k) => k.name === 'ci')!.fingerprint]);
  assert.equal(r.code, 0, r.stderr);
  r = await airlock(['keys', 'remove', 'SHA256:nope']);
  assert.notEqual(r.code, 0);
  r = await airlock(['keys', 'list', '--json']);
  assert.deepEqual((JSON.parse(r.stdout) as Key[]).map((k) => k.name), ['laptop']);

  // Nothing private anywhere but the sealed key files.
  await d.stop();
  const haystack = [
    ...['airlock.db', 'airlock.db-wal'].filter((f) => fs.existsSync(path.join(home, f))).map((f) => fs.readFileSync(path.join(home, f)).toString('latin1')),
    d.output(),
  ].join('\n');
  assert.ok(!haystack.includes(secretD), 'the private key is not in the database, history or logs');
  assert.ok(!haystack.includes(Buffer.from(secretD, 'base64url').toString('latin1')), 'not even as raw bytes');
  for (const f of fs.readdirSync(path.join(home, 'keys'))) {
    assert.ok(!fs.readFileSync(path.join(home, 'keys', f), 'utf8').includes(secretD), `${f} holds it only sealed`);
  }
  d = await d.restart();
});

test('git commit -S through the daemon: the prompt says "sign, namespace git"; git verify-commit accepts it', async () => {
  const fixtures = fs.mkdtempSync(path.join(home, 'git-'));
  const ui = await d.ui();
  const { key } = await ui.call<{ key: Key }>('keys.generate', { type: 'ed25519', name: 'commits' });
  const pub = path.join(fixtures, 'commits.pub');
  fs.writeFileSync(pub, key.publicKey + '\n');
  const allowed = path.join(fixtures, 'allowed');
  fs.writeFileSync(allowed, `t@example.com ${key.publicKey}\n`);
  const repo = path.join(fixtures, 'repo');
  fs.mkdirSync(repo);
  const env = { ...d.env, SSH_AUTH_SOCK: d.agentSock, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  const git = (args: string[]) =>
    run('git', ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${pub}`, '-c', `gpg.ssh.allowedSignersFile=${allowed}`, '-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { env, cwd: repo, timeoutMs: 30_000 });
  await git(['init', '-q']);
  fs.writeFileSync(path.join(repo, 'f'), 'f\n');
  await git(['add', 'f']);
  const commit = git(['commit', '-q', '-S', '-m', 'signed through airlock']);
  let prompt: Prompt | undefined;
  await waitFor(async () => {
    prompt = (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts[0];
    return prompt !== undefined;
  }, 'the commit-signing prompt');
  assert.match(prompt!.summary, /^sign, namespace git, with key 'commits'/);
  assert.equal(prompt!.resource, 'sshsig:git');
  assert.equal(prompt!.ssh?.namespace, 'git');
  assert.equal(prompt!.ssh?.key, key.fingerprint);
  assert.ok(prompt!.process?.tree.some((n) => (n.exe ?? '').endsWith('/git')), 'who: git is in the process tree');
  await ui.call('pending.decide', { id: prompt!.id, decision: 'allow', scope: 'once' });
  const r = await commit;
  assert.equal(r.code, 0, r.stderr);
  const v = await git(['verify-commit', 'HEAD']);
  assert.equal(v.code, 0, v.stderr);
  assert.match(v.stderr, /Good "git" signature/);
  // History holds the event with its SSH facts.
  const h = await ui.call<{ events: { source: string; ssh: { namespace?: string } | null; decision: string }[] }>('history.query', { source: 'ssh', limit: 5 });
  assert.ok(h.events.some((e) => e.ssh?.namespace === 'git' && e.decision === 'allow'));
  ui.close();
});

test('AIRLOCK_KEY_PASSPHRASE seals keys with a passphrase; a wrong one stops the daemon from starting', async () => {
  const h = tempHome('alkp-');
  try {
    let dd = await startDaemon({ home: h, env: { AIRLOCK_KEY_PASSPHRASE: 'right one' } });
    const ui = await dd.ui();
    await ui.call('keys.generate', { type: 'ed25519', name: 'pp' });
    ui.close();
    await dd.stop();
    assert.ok(fs.existsSync(path.join(h, 'keys', 'passphrase.json')));
    assert.ok(!fs.existsSync(path.join(h, 'keys', 'master.secret')), 'no master key file in passphrase mode');
    await assert.rejects(startDaemon({ home: h, env: { AIRLOCK_KEY_PASSPHRASE: 'wrong one' } }), /wrong key passphrase/);
    dd = await startDaemon({ home: h, env: { AIRLOCK_KEY_PASSPHRASE: 'right one' } });
    const r = await run('ssh-add', ['-l'], { env: { ...dd.env, SSH_AUTH_SOCK: dd.agentSock } });
    assert.match(r.stdout, / pp \(ED25519\)/);
    await dd.stop();
  } finally {
    fs.rmSync(h, { recursive: true, force: true });
  }
});

test('a client that goes away while its prompt is open withdraws the prompt', async () => {
  const ui = await d.ui();
  const { key } = await ui.call<{ key: Key }>('keys.generate', { type: 'ed25519', name: 'leaver' });
  const dir = fs.mkdtempSync(path.join(home, 'leave-'));
  const pub = path.join(dir, 'k.pub');
  fs.writeFileSync(pub, key.publicKey + '\n');
  fs.writeFileSync(path.join(dir, 'm'), 'm');
  const child = spawn('ssh-keygen', ['-Y', 'sign', '-f', pub, '-n', 'leaving', path.join(dir, 'm')], {
    env: { ...d.env, SSH_AUTH_SOCK: d.agentSock },
    stdio: 'ignore',
  });
  const exited = new Promise((r) => child.once('exit', r));
  let prompt: Prompt | undefined;
  await waitFor(async () => {
    prompt = (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.find((p) => p.resource === 'sshsig:leaving');
    return prompt !== undefined;
  }, 'the prompt');
  child.kill('SIGKILL');
  await exited;
  await waitFor(async () => (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.every((p) => p.id !== prompt!.id), 'the prompt to be withdrawn', 20_000);
  ui.close();
});

test('airlock serve --upstream PATH lists the upstream agent\'s keys (origin upstream)', async () => {
  const dir = fs.mkdtempSync('/tmp/alsu-');
  const upSock = path.join(dir, 'up.sock');
  const agent = startChild('ssh-agent', ['-D', '-a', upSock]);
  const h = tempHome('alsu-h-');
  let dd: Daemon | undefined;
  try {
    await waitFor(() => fs.existsSync(upSock), 'ssh-agent');
    const k = await makeKey(dir, 'up', ['-t', 'ed25519']);
    assert.equal((await run('ssh-add', [k], { env: { ...process.env, SSH_AUTH_SOCK: upSock } })).code, 0);
    dd = await startDaemon({ home: h, args: ['--upstream', upSock] });
    const r = await run('ssh-add', ['-l'], { env: { ...dd.env, SSH_AUTH_SOCK: dd.agentSock } });
    assert.match(r.stdout, /test-up/);
    const ui = await dd.ui();
    const { keys } = await ui.call<{ keys: Key[] }>('keys.list', {});
    ui.close();
    assert.deepEqual(keys.map((x) => [x.name, x.origin]), [['test-up', 'upstream']]);
  } finally {
    await dd?.stop();
    await agent.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(h, { recursive: true, force: true });
  }
});
