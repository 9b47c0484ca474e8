// The SSH agent behaves like the agents users know (issue 12): `ssh-add -D` says what it
// really did, ssh-add keys are memory-only like ssh-agent's, and a stored key's "last
// used" survives a restart. Real daemon, real ssh-add and ssh-keygen.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Key } from '../../main/contract/approver';
import { CLI, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { makeKey, run, type RunResult } from '../helpers/ssh';

let d: Daemon;
let home: string;
before(async () => {
  home = tempHome('alsa-');
  d = await startDaemon({ home });
});
after(async () => {
  await d?.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

const airlock = (args: string[]) => run(process.execPath, [CLI, ...args], { env: d.env, timeoutMs: 30_000 });
const sshEnv = () => ({ ...d.env, SSH_AUTH_SOCK: d.agentSock });
const keyFiles = () => fs.readdirSync(path.join(home, 'keys')).filter((f) => f.endsWith('.key'));
/** ssh-add -D that removes ssh-add keys asks the human first (main/ssh/agent-admin.ts): a person allows it. */
async function removeAllAllowed(): Promise<RunResult> {
  const ui = await d.ui();
  try {
    const human = await Human.on(ui);
    const pending = run('ssh-add', ['-D'], { env: sshEnv() });
    const p = await human.next();
    assert.equal(p.tool, 'ssh-agent');
    assert.equal(p.resource, 'ssh-agent:remove-all');
    await human.decide(p.id, 'allow');
    return await pending;
  } finally {
    ui.close();
  }
}
async function keys(): Promise<Key[]> {
  const r = await airlock(['keys', 'list', '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Key[];
}

test('ssh-add -D removes only what ssh-add added and says it did not remove all; ssh-add keys are memory-only', async () => {
  assert.equal((await airlock(['keys', 'generate', 'stored', '--type', 'ed25519'])).code, 0);
  const fx = fs.mkdtempSync(path.join(home, 'fx-'));
  const added = await makeKey(fx, 'added', ['-t', 'ed25519']);
  let r = await run('ssh-add', [added], { env: sshEnv() });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(keyFiles().length, 1, 'the ssh-add key is not written to disk, only the stored one is');
  assert.equal((await keys()).length, 2);

  r = await removeAllAllowed();
  assert.notEqual(r.code, 0, 'not "All identities removed.": the stored key stays');
  assert.match(r.stderr, /Failed to remove all identities/);
  assert.doesNotMatch(r.stdout + r.stderr, /All identities removed/);
  r = await run('ssh-add', ['-l'], { env: sshEnv() });
  assert.match(r.stdout, /stored/);
  assert.doesNotMatch(r.stdout, /test-added/, 'the ssh-add key is gone');
  assert.match(d.output(), /ssh-add -D removed 1 key\(s\) added by ssh-add; kept 1 stored key\(s\) \(stored\)/);

  // Memory-only across a restart, like ssh-agent: added again, then the daemon restarts.
  assert.equal((await run('ssh-add', [added], { env: sshEnv() })).code, 0);
  await d.stop();
  d = await d.restart();
  const after = await keys();
  assert.deepEqual(after.map((k) => k.name), ['stored'], 'ssh-add keys do not survive a restart; stored keys do');

  // With only ssh-add keys, -D removes everything and says so, as ssh-agent does.
  assert.equal((await airlock(['keys', 'remove', after[0]!.fingerprint])).code, 0);
  assert.equal((await run('ssh-add', [added], { env: sshEnv() })).code, 0);
  r = await removeAllAllowed();
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr + r.stdout, /All identities removed/);
  assert.equal((await keys()).length, 0);
});

test('"last used" of a stored key survives a restart', async () => {
  const fx = fs.mkdtempSync(path.join(home, 'fx-'));
  const r0 = await airlock(['keys', 'generate', 'signer', '--type', 'ed25519']);
  assert.equal(r0.code, 0, r0.stderr);
  const pub = path.join(fx, 'signer.pub');
  fs.writeFileSync(pub, r0.stdout);
  const key = (await keys()).find((k) => k.name === 'signer')!;
  assert.equal(key.lastUsedAt, null);
  const g = await airlock(['grants', 'add', '-a', 'sign', '--source', 'ssh', '-r', 'sshsig:file', '--key', key.fingerprint]);
  assert.equal(g.code, 0, g.stderr);
  const msg = path.join(fx, 'msg');
  fs.writeFileSync(msg, 'hello');
  const s = await run('ssh-keygen', ['-Y', 'sign', '-f', pub, '-n', 'file', msg], { env: sshEnv() });
  assert.equal(s.code, 0, s.stderr);
  const used = (await keys()).find((k) => k.name === 'signer')!.lastUsedAt;
  assert.ok(used !== null && Math.abs(Date.now() - used) < 60_000, `lastUsedAt is set: ${used}`);

  await d.stop();
  d = await d.restart();
  assert.equal((await keys()).find((k) => k.name === 'signer')!.lastUsedAt, used, 'the same time after a restart');
});
