// Black-box, eleventh wave: a signature prompt outliving its key. While the human looks at
// "sign with key k1", the key goes away — `airlock keys remove`, an `ssh-add -t` lifetime
// running out, or the agent locked with `ssh-add -x`. The prompt must not stay on screen as
// if an answer could still sign: it is answered at once (deny, by the system, saying why),
// a late "allow" decides nothing, and history never says a signature was allowed that was
// never made. Driven with the real OpenSSH tools against `airlock serve` and ui.sock.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '../helpers/daemon';
import { airlock, closeBlackboxSession, openBlackboxSession, pendingList, waitPending, type BlackboxSession } from '../helpers/blackbox';
import { makeKey, run } from '../helpers/ssh';

let s: BlackboxSession;
let env: NodeJS.ProcessEnv;

before(async () => {
  s = await openBlackboxSession('bb11s-');
  env = { ...process.env, AIRLOCK_HOME: s.d.home, SSH_AUTH_SOCK: s.d.agentSock };
});
after(() => closeBlackboxSession(s));

interface HistoryEvent {
  id: number;
  tool: string;
  resource: string | null;
  decision: string;
  decidedBy: string;
  reason: string;
}

/** `ssh-keygen -Y sign` of a fresh file with the key whose public half is `pub`; resolves when it exits. */
function signFile(pub: string, label: string): { done: Promise<{ code: number | null; sig: boolean }> } {
  const msg = path.join(s.root, `${label}.txt`);
  fs.writeFileSync(msg, `bb11 ${label}\n`);
  const done = run('ssh-keygen', ['-Y', 'sign', '-n', `bb11-${label}`, '-f', pub, msg], { env, timeoutMs: 60_000 }).then((r) => ({ code: r.code, sig: fs.existsSync(`${msg}.sig`) }));
  return { done };
}

async function signEvents(label: string): Promise<HistoryEvent[]> {
  const h = await s.ui.ok<{ events: HistoryEvent[] }>('history.query', { limit: 50 });
  return h.events.filter((e) => e.tool === 'ssh-sign' && e.resource === `sshsig:bb11-${label}`);
}

/** Waits for the prompt of a signature in namespace bb11-<label>. */
const promptFor = (label: string) => waitPending(s.ui, (p) => p.resource === `sshsig:bb11-${label}`, `the signature prompt (${label})`);

/** The prompt leaves the queue without anyone answering it (bounded). */
async function gone(id: string, what: string): Promise<void> {
  await waitFor(async () => !(await pendingList(s.ui)).some((p) => p.id === id), what, 10_000);
}

async function storedKey(name: string): Promise<{ pub: string; fingerprint: string }> {
  const g = await airlock(['keys', 'generate', name, '--type', 'ed25519'], { env });
  assert.equal(g.code, 0, g.stderr);
  const pub = path.join(s.root, `${name}.pub`);
  fs.writeFileSync(pub, `${g.stdout.trim().split('\n')[0]}\n`);
  const list = await s.ui.ok<{ keys: { name: string; fingerprint: string }[] }>('keys.list');
  return { pub, fingerprint: list.keys.find((k) => k.name === name)!.fingerprint };
}

describe('a signature prompt does not outlive its key', () => {
  test('airlock keys remove while its signature prompt shows: denied at once by the system, a late allow decides nothing, nothing is signed', async () => {
    const k = await storedKey('bb11-removed');
    const sign = signFile(k.pub, 'removed');
    const p = await promptFor('removed');
    const rm = await airlock(['keys', 'remove', k.fingerprint], { env });
    assert.equal(rm.code, 0, rm.stderr);
    await gone(p.id, 'the prompt of the removed key to be answered');
    const late = await s.ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
    assert.equal(late.error?.code, -32004, JSON.stringify(late));
    const r = await sign.done;
    assert.notEqual(r.code, 0);
    assert.equal(r.sig, false, 'no signature file');
    const evs = await signEvents('removed');
    assert.equal(evs.length, 1, JSON.stringify(evs));
    assert.deepEqual([evs[0]!.decision, evs[0]!.decidedBy], ['deny', 'system'], `history must not say a signature was allowed that was never made: ${JSON.stringify(evs[0])}`);
    assert.match(evs[0]!.reason, /removed/);
  });

  test('ssh-add -t: the key\'s lifetime runs out while its signature prompt shows: denied at once, nothing signed', async () => {
    const file = await makeKey(s.root, 'bb11-lifetime', ['-t', 'ed25519']);
    const add = await run('ssh-add', ['-t', '4', file], { env });
    assert.equal(add.code, 0, add.stderr);
    const sign = signFile(`${file}.pub`, 'lifetime');
    const p = await promptFor('lifetime');
    await gone(p.id, 'the prompt of the expired key to be answered');
    assert.equal((await s.ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' })).error?.code, -32004);
    const r = await sign.done;
    assert.equal(r.sig, false);
    const evs = await signEvents('lifetime');
    assert.deepEqual(evs.map((e) => [e.decision, e.decidedBy]), [['deny', 'system']], JSON.stringify(evs));
    assert.match(evs[0]!.reason, /lifetime|expired|removed/);
  });

  test('the agent locked (ssh-add -x, allowed) while a signature prompt shows: denied at once; after unlocking, a new signature asks again', async () => {
    const file = await makeKey(s.root, 'bb11-locked', ['-t', 'ed25519']);
    assert.equal((await run('ssh-add', [file], { env })).code, 0);
    const sign = signFile(`${file}.pub`, 'locked');
    const p = await promptFor('locked');
    const lock = run('ssh-add', ['-x'], { env, input: 'bb11pw\nbb11pw\n', timeoutMs: 60_000 });
    const lp = await waitPending(s.ui, (x) => x.tool === 'ssh-agent' && /lock/.test(x.summary), 'the lock prompt');
    await s.ui.ok('pending.decide', { id: lp.id, decision: 'allow', scope: 'once' });
    assert.equal((await lock).code, 0);
    await gone(p.id, 'the signature prompt to be answered when the agent locked');
    assert.equal((await s.ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' })).error?.code, -32004);
    assert.equal((await sign.done).sig, false);
    const evs = await signEvents('locked');
    assert.deepEqual(evs.map((e) => [e.decision, e.decidedBy]), [['deny', 'system']], JSON.stringify(evs));
    assert.match(evs[0]!.reason, /locked/);
    // Unlock (asked too), then the control: a signature prompt answered "allow" signs.
    const unlock = run('ssh-add', ['-X'], { env, input: 'bb11pw\n', timeoutMs: 60_000 });
    const up = await waitPending(s.ui, (x) => x.tool === 'ssh-agent' && /unlock/.test(x.summary), 'the unlock prompt');
    await s.ui.ok('pending.decide', { id: up.id, decision: 'allow', scope: 'once' });
    assert.equal((await unlock).code, 0);
    const again = signFile(`${file}.pub`, 'unlocked');
    const p2 = await promptFor('unlocked');
    await s.ui.ok('pending.decide', { id: p2.id, decision: 'allow', scope: 'once' });
    assert.equal((await again.done).sig, true);
  });

  test('control: removing another key leaves the prompt as it is, and "allow" signs', async () => {
    const keep = await storedKey('bb11-kept');
    const other = await storedKey('bb11-other');
    const sign = signFile(keep.pub, 'kept');
    const p = await promptFor('kept');
    assert.equal((await airlock(['keys', 'remove', other.fingerprint], { env })).code, 0);
    await new Promise((r) => setTimeout(r, 300));
    assert.ok((await pendingList(s.ui)).some((x) => x.id === p.id), 'still waiting');
    await s.ui.ok('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
    assert.equal((await sign.done).sig, true);
    assert.deepEqual((await signEvents('kept')).map((e) => e.decision), ['allow']);
  });
});
