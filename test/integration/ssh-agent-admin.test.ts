// Red team: an agent on the shared agent.sock (it is every agent's SSH_AUTH_SOCK) tries to
// remove the human's keys, lock the human out, or brute-force an unlock — with real
// ssh-add and with raw agent messages. Each change to the agent is a request the human
// answers (main/ssh/agent-admin.ts); the agent runs in this process with a scripted human.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { MSG } from '../../main/ssh/protocol';
import { Writer } from '../../main/ssh/wire';
import { makeKey, publicBlobOfFile, RawAgentClient, run, startTestAgent, type TestAgent } from '../helpers/ssh';

let a: TestAgent;
let dir: string;
/** What the scripted human answers to changes of the agent (signatures are always allowed). */
let agentChanges: 'allow' | 'deny' = 'deny';

before(async () => {
  a = await startTestAgent({ decide: (req) => (req.tool === 'ssh-agent' ? agentChanges : 'allow') });
  dir = path.join(a.home, 'fixtures');
  fs.mkdirSync(dir, { mode: 0o700 });
  const askpass = path.join(dir, 'askpass.sh');
  fs.writeFileSync(askpass, '#!/bin/sh\nprintf "%s\\n" "$TEST_PASS"\n', { mode: 0o700 });
  a.env = { ...a.env, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' };
});
after(async () => {
  await a?.close();
});
beforeEach(() => {
  agentChanges = 'deny';
  a.asked.length = 0;
});

const sshAdd = (args: string[], pass = '') => run('ssh-add', args, { env: { ...a.env, TEST_PASS: pass } });
const listed = async (): Promise<string> => (await sshAdd(['-l'])).stdout;
const changesAsked = () => a.asked.filter((x) => x.req.tool === 'ssh-agent');

describe('changes to the agent from agent.sock ask the human', () => {
  test('ssh-add -d and -D: denied → the human\'s ssh-add keys stay; the prompt names the keys and the process', async () => {
    const k = await makeKey(dir, 'human', ['-t', 'ed25519']);
    agentChanges = 'allow';
    assert.equal((await sshAdd([k])).code, 0, 'adding does not ask');
    assert.equal(changesAsked().length, 0);
    agentChanges = 'deny';

    let r = await sshAdd(['-d', k]);
    assert.notEqual(r.code, 0, r.stdout + r.stderr);
    assert.match(await listed(), /test-human/, 'denied: the key stays');
    const asked = changesAsked();
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.req.action, 'delete');
    assert.equal(asked[0]!.req.resource, 'ssh-agent:remove-key');
    assert.match(asked[0]!.req.summary, /remove key 'test-human' \(SHA256:/);
    assert.ok(asked[0]!.ctx.process && asked[0]!.ctx.process.pid > 0, 'who asked comes from the kernel');
    assert.match((asked[0]!.ctx.process.argv ?? []).join(' '), /ssh-add/);

    r = await sshAdd(['-D']);
    assert.notEqual(r.code, 0);
    assert.match(await listed(), /test-human/, 'denied: -D removed nothing');
    assert.equal(changesAsked()[1]!.req.resource, 'ssh-agent:remove-all');
    assert.match(changesAsked()[1]!.req.summary, /remove the 1 key\(s\) added by ssh-add .*test-human/);

    // Raw REMOVE_IDENTITY with the blob, and REMOVE_ALL, on one connection: same answer.
    const c = await RawAgentClient.connect(a.sock);
    try {
      const blob = publicBlobOfFile(k + '.pub');
      assert.equal((await c.request(new Writer().byte(MSG.REMOVE_IDENTITY).string(blob).toBuffer()))[0], MSG.FAILURE);
      assert.equal((await c.request(Buffer.from([MSG.REMOVE_ALL_IDENTITIES])))[0], MSG.FAILURE);
    } finally {
      c.close();
    }
    assert.match(await listed(), /test-human/);

    agentChanges = 'allow';
    r = await sshAdd(['-d', k]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(await listed(), /test-human/, 'allowed: removed');
  });

  test('nothing is asked when nothing would change: unknown key, stored keys only, empty passphrase, unlocked agent', async () => {
    const stored = await a.agent.keyService.generate({ type: 'ed25519', name: 'stored-key' });
    const pub = path.join(dir, 'stored.pub');
    fs.writeFileSync(pub, stored.publicKey + '\n');
    const stray = await makeKey(dir, 'stray', ['-t', 'ed25519']);
    assert.notEqual((await sshAdd(['-d', pub])).code, 0, 'a stored key cannot be removed from the agent socket');
    assert.notEqual((await sshAdd(['-d', stray])).code, 0);
    assert.notEqual((await sshAdd(['-D'])).code, 0, 'the stored key stays, so -D reports failure');
    assert.notEqual((await sshAdd(['-x'], '')).code, 0);
    assert.notEqual((await sshAdd(['-X'], 'whatever')).code, 0, 'not locked');
    assert.equal(changesAsked().length, 0);
    assert.match(await listed(), /stored-key/);
    await a.agent.keyService.remove(stored.fingerprint);
  });

  test('ssh-add -x denied → not locked; allowed → locked; -X with the right passphrase still needs an allow', async () => {
    const k = await makeKey(dir, 'lockme', ['-t', 'ed25519']);
    agentChanges = 'allow';
    assert.equal((await sshAdd([k])).code, 0);
    agentChanges = 'deny';
    let r = await sshAdd(['-x'], 'only-the-agent-knows');
    assert.notEqual(r.code, 0, 'denied: an agent cannot lock the human out');
    assert.match(await listed(), /test-lockme/, 'still unlocked');
    assert.equal(changesAsked()[0]!.req.resource, 'ssh-agent:lock');

    agentChanges = 'allow';
    r = await sshAdd(['-x'], 'pw');
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await sshAdd(['-l'])).code, 1, 'locked');

    agentChanges = 'deny';
    r = await sshAdd(['-X'], 'pw');
    assert.notEqual(r.code, 0, 'the right passphrase without an allow does not unlock');
    assert.equal((await sshAdd(['-l'])).code, 1, 'still locked');
    assert.equal(changesAsked().at(-1)!.req.resource, 'ssh-agent:unlock');

    agentChanges = 'allow';
    r = await sshAdd(['-X'], 'pw');
    assert.equal(r.code, 0, r.stderr);
    assert.match(await listed(), /test-lockme/, 'unlocked');
    await sshAdd(['-D']);
  });

  test('brute force: every guess is a request; denied guesses never reach the passphrase check', async () => {
    agentChanges = 'allow';
    const c = await RawAgentClient.connect(a.sock);
    const clients: RawAgentClient[] = [];
    try {
      assert.equal((await c.request(new Writer().byte(MSG.LOCK).string('correct horse').toBuffer()))[0], MSG.SUCCESS);
      agentChanges = 'deny';
      a.asked.length = 0;
      for (let i = 0; i < 8; i++) clients.push(await RawAgentClient.connect(a.sock));
      const t0 = Date.now();
      const answers = await Promise.all(clients.map((x, i) => x.request(new Writer().byte(MSG.UNLOCK).string(i === 7 ? 'correct horse' : `guess${i}`).toBuffer(), 20_000)));
      assert.ok(answers.every((b) => b[0] === MSG.FAILURE), 'no guess unlocks, not even the right one, without an allow');
      assert.equal(changesAsked().length, 8, 'each guess was asked');
      // Denied guesses are not counted as failures, so they never slow down the human's own unlock.
      assert.ok(Date.now() - t0 < 5_000);
      agentChanges = 'allow';
      const t1 = Date.now();
      assert.equal((await c.request(new Writer().byte(MSG.UNLOCK).string('correct horse').toBuffer(), 20_000))[0], MSG.SUCCESS);
      assert.ok(Date.now() - t1 < 3_000, 'no delay piled up from denied guesses');
    } finally {
      c.close();
      for (const x of clients) x.close();
    }
  });

  test('allowed guesses from many connections at once are checked one at a time, each after the previous delay', async () => {
    agentChanges = 'allow';
    const c = await RawAgentClient.connect(a.sock);
    const clients: RawAgentClient[] = [];
    try {
      assert.equal((await c.request(new Writer().byte(MSG.LOCK).string('pw-2').toBuffer()))[0], MSG.SUCCESS);
      for (let i = 0; i < 5; i++) clients.push(await RawAgentClient.connect(a.sock));
      const t0 = Date.now();
      const answers = await Promise.all(clients.map((x, i) => x.request(new Writer().byte(MSG.UNLOCK).string(`wrong${i}`).toBuffer(), 30_000)));
      const took = Date.now() - t0;
      assert.ok(answers.every((b) => b[0] === MSG.FAILURE));
      // 0.1 + 0.2 + 0.3 + 0.4 + 0.5 s when serialized; ~0.5 s if all ran at once.
      assert.ok(took >= 1400, `5 parallel wrong guesses took only ${took} ms`);
      assert.equal((await c.request(new Writer().byte(MSG.UNLOCK).string('pw-2').toBuffer(), 30_000))[0], MSG.SUCCESS);
    } finally {
      c.close();
      for (const x of clients) x.close();
    }
  });

  test('a task socket refuses every change without asking', async () => {
    a.scope.set('t_admin', new Set());
    const sock = await a.agent.taskSockets.open('t_admin');
    const c = await RawAgentClient.connect(sock);
    try {
      agentChanges = 'allow';
      for (const body of [
        Buffer.from([MSG.REMOVE_ALL_IDENTITIES]),
        new Writer().byte(MSG.LOCK).string('pw').toBuffer(),
        new Writer().byte(MSG.UNLOCK).string('pw').toBuffer(),
      ]) {
        assert.equal((await c.request(body))[0], MSG.FAILURE);
      }
      assert.equal(changesAsked().length, 0);
    } finally {
      c.close();
      await a.agent.taskSockets.close('t_admin');
    }
  });
});
