// Red team: an agent on request.sock saying `source: "ssh"`. DESIGN.md lets any requester
// name that source, but only Airlock's SSH agent (agent.sock) sees real signatures. Before,
// a forged "sign in to git@github.com" prompt, allowed "always", made the grant
// `{source: ssh, action: sign, resource: git@github.com, key: null}`: `key: null` answers
// real signatures with EVERY key, so the agent could then sign silently with a key the
// human never chose. Now such a prompt is critical (Deny or Allow once in every UI), an
// allow grant from it is refused on ui.sock too, and a real signature's prompt still makes
// its grant (for its key) as before.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Daemon } from '../helpers/daemon';
import { Wire, airlock, closeBlackboxSession, openBlackboxSession, pendingList, waitPending } from '../helpers/blackbox';
import { run } from '../helpers/ssh';

let d: Daemon;
let ui: Wire;
let root: string;
let env: NodeJS.ProcessEnv;

before(async () => {
  ({ root, d, ui } = await openBlackboxSession('rfs-'));
  env = { ...process.env, AIRLOCK_HOME: d.home, SSH_AUTH_SOCK: d.agentSock };
});
after(() => closeBlackboxSession({ root, d, ui }));

async function grants(): Promise<{ source: string; action: string; resource: string | null; key: string | null; effect: string }[]> {
  return (await ui.ok<{ grants: { source: string; action: string; resource: string | null; key: string | null; effect: string }[] }>('grants.list')).grants;
}

test('a forged SSH signature on request.sock is critical, and no allow grant can be made from it (it would cover every key)', async () => {
  const agent = await Wire.open(d.requestSock);
  try {
    const asked = agent.call('request', { source: 'ssh', tool: 'ssh-sign', action: 'sign', resource: 'git@github.com', summary: 'log in to github.com as git' }, 60_000);
    const p = await waitPending(ui, (x) => x.resource === 'git@github.com', 'the forged prompt');
    assert.equal(p.risk.level, 'critical', JSON.stringify(p.risk));
    assert.match(JSON.stringify(p.risk.reasons), /came through request\.sock, not Airlock's SSH agent/);
    for (const scope of ['always', 'duration']) {
      const r = await ui.call('pending.decide', { id: p.id, decision: 'allow', scope });
      assert.equal(r.error?.code, -32602, `${scope}: ${JSON.stringify(r)}`);
      // Refused as critical (friction.ts: a critical prompt is allowed only once).
      assert.match(r.error!.message, /critical request is allowed only once/);
    }
    assert.deepEqual(await grants(), [], 'no grant was made');
    assert.ok((await pendingList(ui)).some((x) => x.id === p.id), 'the prompt is still open after the refusals');
    const once = await ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
    assert.equal(once.error, undefined, JSON.stringify(once));
    assert.equal((await asked).result?.decision, 'allow', 'allow once still answers it (it signs nothing)');
  } finally {
    agent.close();
  }
});

test('a forged ssh-add -D on request.sock is critical too, and a deny grant from a forged prompt is still allowed (it only narrows)', async () => {
  const agent = await Wire.open(d.requestSock);
  try {
    const asked = agent.call('request', { source: 'ssh', tool: 'ssh-agent', action: 'delete', resource: 'ssh-agent:remove-all', summary: 'ssh-add -D' }, 60_000);
    const p = await waitPending(ui, (x) => x.resource === 'ssh-agent:remove-all', 'the forged ssh-add -D prompt');
    assert.equal(p.risk.level, 'critical');
    const always = await ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'always' });
    assert.equal(always.error?.code, -32602, JSON.stringify(always));
    const deny = await ui.call('pending.decide', { id: p.id, decision: 'deny', scope: 'always' });
    assert.equal(deny.error, undefined, JSON.stringify(deny));
    assert.equal((await asked).result?.decision, 'deny');
    const g = await grants();
    assert.equal(g.length, 1);
    assert.equal(g[0]!.effect, 'deny');
  } finally {
    agent.close();
  }
});

test('control: a real signature through agent.sock is not marked, and "always" makes a grant for its key that answers the next one', async () => {
  const gen = await airlock(['keys', 'generate', 'work', '--type', 'ed25519'], { env });
  assert.equal(gen.code, 0, gen.stderr);
  const pub = gen.stdout.split('\n').find((l) => l.startsWith('ssh-ed25519 '))!;
  const pubFile = path.join(root, 'work.pub');
  fs.writeFileSync(pubFile, pub + '\n');
  const data = path.join(root, 'msg.txt');
  fs.writeFileSync(data, 'payload\n');
  const signing = run('ssh-keygen', ['-Y', 'sign', '-n', 'forgetest', '-f', pubFile, data], { env, timeoutMs: 60_000 });
  const p = await waitPending(ui, (x) => x.resource === 'sshsig:forgetest', 'the real signature prompt');
  assert.ok(p.ssh?.fingerprint, 'a real signature carries its key');
  assert.notEqual(p.risk.level, 'critical', JSON.stringify(p.risk));
  assert.doesNotMatch(JSON.stringify(p.risk.reasons), /request\.sock/);
  const r = await ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'always' });
  assert.equal(r.error, undefined, JSON.stringify(r));
  assert.equal((await signing).code, 0);
  const made = (await grants()).find((g) => g.resource === 'sshsig:forgetest');
  assert.equal(made?.key, p.ssh!.fingerprint, 'the grant names the key that signed');
  fs.rmSync(`${data}.sig`);
  const again = await run('ssh-keygen', ['-Y', 'sign', '-n', 'forgetest', '-f', pubFile, data], { env, timeoutMs: 60_000 });
  assert.equal(again.code, 0, 'the grant answered the next real signature without a prompt');
});
