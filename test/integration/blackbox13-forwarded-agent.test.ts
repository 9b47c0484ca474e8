// Black-box, wave 13: the forwarded agent of a remote, held by a hostile server. `airlock
// remote add` prints `ssh -R … -o ForwardAgent=<agent.sock>`; the server then holds this
// machine's SSH agent for the whole session. Run for real: a loopback sshd is the "server"
// (and the third host it logs in to), the ssh line is the printed options, and on the server
// either OpenSSH's own ssh/ssh-add or a raw agent-protocol client speaks to $SSH_AUTH_SOCK.
// What a server asks through the forward is the remote's: the prompt names the remote, a
// grant made from it is the remote's only, a local grant never answers it, the remote's
// prompt cap holds it, removing the remote stops it; and it cannot change this machine's agent.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Grant, HistoryEvent, Prompt } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import { CLI, startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { makeKey, run, type RunResult } from '../helpers/ssh';
import { sshArgs, startSshd, USER, type Sshd } from '../helpers/sshd';

let d: Daemon;
let home: string;
let ui: RpcClient;
let sshd: Sshd | undefined;
let skip: string | undefined;
let clientKey = '';
let knownHosts = '';
let stepsJs = '';
let workFp = '';

// The raw agent client run on the server: each argument is one step on its own connection,
// in order; prints one JSON line per answer. `sign USER` (a login signature with the first
// key listed, for a fresh session id), `lock`, `unlock`, `removeAll`, `add` (a fresh
// ed25519 key), `flood N` (N connections at once, each a sign for its own user, answers
// printed as they come), `junk` (an over-long and an unknown message, then a list, on one
// connection), `twins USER` (two connections at once, each the same login for
// USER, as two clients on the server would ask), `wait FILE` (until FILE exists, at most 60 s).
const STEPS = String.raw`
const net = require('net'), crypto = require('crypto'), fs = require('fs');
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const str = (b) => { b = Buffer.isBuffer(b) ? b : Buffer.from(b); return Buffer.concat([u32(b.length), b]); };
const frame = (body) => Buffer.concat([u32(body.length), body]);
function ask(body) {
  return new Promise((resolve) => {
    const s = net.connect(process.env.SSH_AUTH_SOCK, () => s.write(frame(body)));
    let buf = Buffer.alloc(0);
    s.on('data', (d) => { buf = Buffer.concat([buf, d]); if (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) { s.end(); resolve(buf.subarray(4, 4 + buf.readUInt32BE(0))); } });
    s.on('error', () => resolve(Buffer.from([0])));
    s.on('close', () => resolve(Buffer.from([0])));
  });
}
async function firstKey() {
  const a = await ask(Buffer.from([11]));
  if (a[0] !== 12 || a.readUInt32BE(1) === 0) throw new Error('no key listed');
  return a.subarray(9, 9 + a.readUInt32BE(5));
}
function signBody(blob, user) {
  const alg = blob.subarray(4, 4 + blob.readUInt32BE(0));
  const data = Buffer.concat([str(crypto.randomBytes(32)), Buffer.from([50]), str(user), str('ssh-connection'), str('publickey'), Buffer.from([1]), str(alg), str(blob)]);
  return Buffer.concat([Buffer.from([13]), str(blob), str(data), u32(0)]);
}
const name = (t) => ({ 0: 'closed', 5: 'failure', 6: 'success', 12: 'identities', 14: 'signature' })[t] || String(t);
(async () => {
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const step = args[i];
    if (step === 'sign') { const user = args[++i]; console.log(JSON.stringify({ step, user, answer: name((await ask(signBody(await firstKey(), user)))[0]) })); }
    else if (step === 'lock' || step === 'unlock') console.log(JSON.stringify({ step, answer: name((await ask(Buffer.concat([Buffer.from([step === 'lock' ? 22 : 23]), str('hunter2')])))[0]) }));
    else if (step === 'removeAll') console.log(JSON.stringify({ step, answer: name((await ask(Buffer.from([19])))[0]) }));
    else if (step === 'add') {
      const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
      const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
      const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d, 'base64url');
      const body = Buffer.concat([Buffer.from([17]), str('ssh-ed25519'), str(pub), str(Buffer.concat([seed, pub])), str('work')]);
      console.log(JSON.stringify({ step, answer: name((await ask(body))[0]) }));
    } else if (step === 'flood') {
      const n = Number(args[++i]); const blob = await firstKey();
      for (let k = 0; k < n; k++) ask(signBody(blob, 'flood' + k)).then((a) => console.log(JSON.stringify({ step, k, answer: name(a[0]) })));
    } else if (step === 'twins') {
      const user = args[++i]; const blob = await firstKey();
      for (let k = 0; k < 2; k++) ask(signBody(blob, user)).then((a) => console.log(JSON.stringify({ step, k, answer: name(a[0]) })));
    } else if (step === 'junk') {
      // One connection: a 300 KiB message (over the 256 KiB cap), an unknown type, then a list.
      const big = Buffer.alloc(300 * 1024, 0x41); big[0] = 13;
      const got = await new Promise((resolve) => {
        const s = net.connect(process.env.SSH_AUTH_SOCK, () => s.write(Buffer.concat([frame(big), frame(Buffer.from([99, 1, 2])), frame(Buffer.from([11]))])));
        let buf = Buffer.alloc(0); const out = [];
        s.on('data', (d) => { buf = Buffer.concat([buf, d]); while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) { out.push(name(buf[4])); buf = buf.subarray(4 + buf.readUInt32BE(0)); } if (out.length === 3) { s.end(); resolve(out); } });
        s.on('close', () => resolve(out));
      });
      console.log(JSON.stringify({ step, answer: got.join(',') }));
    } else if (step === 'wait') {
      const f = args[++i]; const until = Date.now() + 60000;
      while (!fs.existsSync(f) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    } else throw new Error('unknown step ' + step);
  }
})().catch((e) => { console.error(e.message); process.exit(2); });
`;

before(async () => {
  home = tempHome('bb13f-');
  fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
  knownHosts = path.join(home, '.ssh', 'known_hosts');
  d = await startDaemon({ home: path.join(home, 'h'), env: { HOME: home } });
  ui = await d.ui();
  if (!fs.existsSync('/usr/sbin/sshd')) {
    skip = 'OpenSSH server not installed (scripts/install-system-deps.sh)';
    return;
  }
  sshd = await startSshd(path.join(home, 'sshd'));
  clientKey = await makeKey(fs.mkdtempSync(path.join(home, 'fx-')), 'client', ['-t', 'ed25519']);
  const { key } = await ui.call<{ key: { publicKey: string; fingerprint: string } }>('keys.generate', { type: 'ed25519', name: 'work' });
  workFp = key.fingerprint;
  // The server lets in the laptop's own key (the outer login, not through Airlock) and the
  // Airlock key (the hop the server makes with the forwarded agent).
  fs.writeFileSync(sshd.authorizedKeys, `${fs.readFileSync(clientKey + '.pub', 'utf8').trim()}\n${key.publicKey}\n`);
  fs.writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${sshd.hostKeyPub}\n`);
  stepsJs = path.join(home, 'agent-steps.js');
  fs.writeFileSync(stepsJs, STEPS);
  for (const name of ['build', 'other']) assert.equal((await airlock(['remote', 'add', name, 'ci@build.example'])).code, 0);
});
after(async () => {
  ui?.close();
  await sshd?.stop();
  await d?.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

const airlock = (args: string[]) => run(process.execPath, [CLI, ...args], { env: d.env, timeoutMs: 30_000 });

/**
 * Runs `command` on the "server" through the ssh options `airlock remote add NAME` prints (a
 * fresh plan each time). The outer login uses the laptop's own key file; SSH_AUTH_SOCK is
 * Airlock's agent, as for a user whose agent Airlock is (OpenSSH forwards only then).
 */
async function onServer(remote: string, command: string, timeoutMs = 60_000): Promise<RunResult> {
  const r = await airlock(['remote', 'add', remote, 'ci@build.example', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout) as { sshOptions: string[]; env: { AIRLOCK_REQUEST_SOCK: string } };
  const args = sshArgs(sshd!, knownHosts, ['-i', clientKey, '-o', 'IdentitiesOnly=yes', ...plan.sshOptions]);
  return run('ssh', [...args, command], { env: { ...process.env, HOME: home, SSH_AUTH_SOCK: d.agentSock }, timeoutMs });
}

/** The same, with plain `ssh -A`: a forwarded agent that is no remote's. */
function plainForward(command: string): Promise<RunResult> {
  const args = sshArgs(sshd!, knownHosts, ['-i', clientKey, '-o', 'IdentitiesOnly=yes', '-A']);
  return run('ssh', [...args, command], { env: { ...process.env, HOME: home, SSH_AUTH_SOCK: d.agentSock }, timeoutMs: 60_000 });
}

/** On the server: log in to the third host (the same sshd) with the forwarded agent. */
const hop = () => `ssh -F /dev/null -o UserKnownHostsFile=${knownHosts} -o StrictHostKeyChecking=yes -o BatchMode=yes -o IdentitiesOnly=no -p ${sshd!.port} ${USER}@127.0.0.1 echo third-hop-ok`;
const steps = (...s: string[]) => `${process.execPath} ${stepsJs} ${s.join(' ')}`;

const pending = async () => (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts;

/** The next prompt, or the requester's output if it ends first (so a failure says why). */
async function nextPrompt(requester: Promise<RunResult>): Promise<Prompt> {
  let found: Prompt | undefined;
  let ended: RunResult | undefined;
  void requester.then((r) => (ended = r));
  await waitFor(async () => {
    found = (await pending())[0];
    return found !== undefined || ended !== undefined;
  }, 'a prompt on the laptop', 30_000, 50);
  if (!found) throw new Error(`the requester ended without a prompt: exit ${ended!.code}\n${ended!.stdout}${ended!.stderr}`);
  return found;
}

/** Denies whatever is still waiting (a failed test must not leave prompts to the next one). */
async function denyAll(): Promise<void> {
  for (const p of await pending()) await ui.call('pending.decide', { id: p.id, decision: 'deny', scope: 'once' }).catch(() => undefined);
}

const answers = (r: RunResult) => r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { step: string; answer: string; k?: number });

test('a signature asked through a remote\'s forwarded agent names the remote; a grant made from it is that remote\'s only, and a local grant never answers it', async (t) => {
  if (skip) return t.skip(skip);
  try {
    // A local grant for forwarded signatures to that host: for this machine only.
    await ui.call('grants.create', { source: 'ssh', action: 'sign', resource: `${USER}@127.0.0.1:${sshd!.port}`, key: workFp, effect: 'allow', forwarded: true, note: 'local forwarding' });
    let session = onServer('build', hop());
    const p = await nextPrompt(session);
    assert.equal(p.ssh?.forwarded, true, 'marked forwarded');
    assert.equal(p.resource, `${USER}@127.0.0.1:${sshd!.port}`);
    assert.equal(p.remote?.name, 'build', 'the prompt says which remote asks');
    assert.match(p.remote!.via, new RegExp(`^ssh \\S+@127\\.0\\.0\\.1:${sshd!.port} \\(pid \\d+\\)$`), 'and the ssh connection it came through');
    const { grant } = await ui.call<{ grant: Grant }>('pending.decide', { id: p.id, decision: 'allow', scope: 'duration', durationSec: 900 });
    assert.equal(grant.remote, 'build', 'the grant is the remote\'s only');
    assert.equal(grant.forwarded, true);
    let r = await session;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /third-hop-ok/);

    // The same remote again: its grant answers, nothing is asked.
    r = await onServer('build', hop());
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /third-hop-ok/);
    assert.equal((await pending()).length, 0);

    // Another remote: neither build's grant nor the local one answers it.
    session = onServer('other', hop());
    const q = await nextPrompt(session);
    assert.equal(q.remote?.name, 'other');
    await ui.call('pending.decide', { id: q.id, decision: 'deny', scope: 'once' });
    r = await session;
    assert.doesNotMatch(r.stdout, /third-hop-ok/, 'denied: no login');

    // A plain `ssh -A` (no remote): build's grant does not answer it; the local one does.
    r = await plainForward(hop());
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /third-hop-ok/);
    assert.equal((await pending()).length, 0);

    const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { source: 'ssh', limit: 10 });
    const signs = events.filter((e) => e.tool === 'ssh-sign').slice(0, 4).map((e) => [e.decision, e.remote?.name ?? 'here']);
    assert.deepEqual(signs, [['allow', 'here'], ['deny', 'other'], ['allow', 'build'], ['allow', 'build']], 'history says where each came from');
  } finally {
    await denyAll();
  }
});

test('through a remote\'s forwarded agent, ssh-add -D, adding a key, lock and unlock are refused at once and recorded with the remote; the agent is unchanged', async (t) => {
  if (skip) return t.skip(skip);
  // A key added here with ssh-add: what -D would remove.
  const local = await makeKey(fs.mkdtempSync(path.join(home, 'fx-')), 'added', ['-t', 'ed25519']);
  const added = await run('ssh-add', [local], { env: { ...process.env, SSH_AUTH_SOCK: d.agentSock } });
  assert.equal(added.code, 0, added.stderr);
  const listed = async () => (await run('ssh-add', ['-l'], { env: { ...process.env, SSH_AUTH_SOCK: d.agentSock } })).stdout;
  const before = await listed();
  const since = Date.now();
  // Nothing may be asked: a prompt seen meanwhile is denied and fails the test.
  const seen: Prompt[] = [];
  let done = false;
  const watching = (async () => {
    for (let i = 0; i < 2000 && !done; i++) {
      for (const p of await pending()) {
        seen.push(p);
        await ui.call('pending.decide', { id: p.id, decision: 'deny', scope: 'once' }).catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const r = await onServer('build', `ssh-add -D; ${steps('removeAll', 'add', 'lock', 'unlock')}`);
  done = true;
  await watching;
  assert.deepEqual(seen.map((p) => p.resource), [], 'nothing was asked');
  assert.deepEqual(answers(r).map((a) => [a.step, a.answer]), [['removeAll', 'failure'], ['add', 'failure'], ['lock', 'failure'], ['unlock', 'failure']], r.stdout + r.stderr);
  assert.match(r.stderr, /Failed to remove all identities/);
  assert.equal(await listed(), before, 'the agent still lists the same keys: not locked, nothing removed or added');
  const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { source: 'ssh', decision: 'reject', since, limit: 20 });
  const refusals = events.filter((e) => e.tool === 'ssh-agent');
  assert.ok(refusals.length >= 5, `each refusal is recorded: ${refusals.map((e) => e.summary).join(' | ')}`);
  for (const e of refusals) assert.equal(e.remote?.name, 'build', `recorded with the remote: ${e.summary}`);
  // This machine's own ssh-add still changes the agent (after the human allows -D).
  const removing = run('ssh-add', ['-d', local + '.pub'], { env: { ...process.env, SSH_AUTH_SOCK: d.agentSock } });
  const p = await nextPrompt(removing);
  assert.equal(p.remote, undefined);
  await ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
  assert.equal((await removing).code, 0);
});

test('a flood of signatures through a remote\'s forwarded agent waits on at most the remote\'s share; this machine is still asked', async (t) => {
  if (skip) return t.skip(skip);
  await ui.call('settings.set', { maxPendingPerConnection: 3, maxPendingTotal: 6 });
  const go = path.join(home, 'flood-done');
  try {
    const session = onServer('build', `${steps('flood', '10', 'wait', go)}`);
    await waitFor(async () => (await pending()).length >= 3, 'the remote\'s first prompts', 30_000, 50);
    // Let the rest of the flood arrive (each of the 10 is answered or waits).
    await new Promise((r) => setTimeout(r, 1500));
    const ps = await pending();
    assert.ok(ps.every((p) => p.remote?.name === 'build'), 'each flood prompt is the remote\'s');
    assert.ok(ps.length <= 3, `at most the remote's share waits: ${ps.length}`);
    // A local agent is still asked.
    const local = run(process.execPath, [CLI, 'check', '-a', 'write', '-t', 'Write', '-r', path.join(home, 'local.txt'), '-s', 'write a local file'], { env: d.env, timeoutMs: 30_000 });
    await waitFor(async () => (await pending()).some((p) => p.remote === undefined), 'the local prompt', 30_000, 50);
    const mine = (await pending()).find((p) => p.remote === undefined)!;
    await ui.call('pending.decide', { id: mine.id, decision: 'deny', scope: 'once' });
    assert.equal((await local).code, 126, 'asked and denied, not refused for a full queue');
    fs.writeFileSync(go, '');
    await denyAll();
    const r = await session;
    assert.equal(answers(r).filter((a) => a.answer === 'signature').length, 0, r.stdout);
  } finally {
    fs.writeFileSync(go, '');
    await denyAll();
    await ui.call('settings.set', { maxPendingPerConnection: 50, maxPendingTotal: 100 });
  }
});

test('removing a remote while its ssh session stays open: its forwarded agent\'s prompt is denied at once, and what it asks next is refused, recorded', async (t) => {
  if (skip) return t.skip(skip);
  assert.equal((await airlock(['remote', 'add', 'going', 'ci@build.example'])).code, 0);
  const go = path.join(home, 'removed');
  try {
    const session = onServer('going', steps('sign', 'first', 'wait', go, 'sign', 'second'));
    const p = await nextPrompt(session);
    assert.equal(p.remote?.name, 'going');
    const since = Date.now();
    assert.equal((await airlock(['remote', 'remove', 'going'])).code, 0);
    assert.deepEqual((await pending()).map((x) => x.id), [], 'the prompt is gone');
    fs.writeFileSync(go, '');
    // Nothing more is asked for it: the next signature is refused without a prompt.
    let r: RunResult | undefined;
    void session.then((x) => (r = x));
    await waitFor(async () => r !== undefined || (await pending()).length > 0, 'the session to end', 30_000, 50);
    assert.deepEqual((await pending()).map((x) => x.resource), [], 'no prompt for the removed remote');
    r = await session;
    // The second step lists the keys first to pick one: that list is refused too (remoteleft-removed-remote.test.ts).
    assert.deepEqual(answers(r).map((a) => [a.step, a.answer]), [['sign', 'failure']], r.stdout + r.stderr);
    assert.match(r.stderr, /no key listed/, 'the removed remote could not even list the keys');
    const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { source: 'ssh', since, limit: 20 });
    assert.ok(events.some((e) => e.decision === 'deny' && e.remote?.name === 'going' && e.tool === 'ssh-sign'), 'the open prompt was denied, recorded with the remote');
    assert.ok(events.some((e) => e.decision === 'reject' && e.remote?.name === 'going' && /removed remote going/.test(e.summary)), 'the next one was refused, recorded with the remote');
  } finally {
    fs.writeFileSync(go, '');
    await denyAll();
  }
});

test('the same login asked by two clients on the server through the forward: a prompt each, and allowing one signs only that one', async (t) => {
  if (skip) return t.skip(skip);
  const go = path.join(home, 'twins-done');
  try {
    const session = onServer('build', steps('twins', 'git', 'wait', go));
    await waitFor(async () => (await pending()).length >= 1, 'the first prompt', 30_000, 50);
    // Both connections' requests have arrived once one is answered or both are shown.
    await waitFor(async () => (await pending()).length >= 2, 'a prompt for each client', 5_000, 50).catch(() => undefined);
    const ps = await pending();
    assert.equal(ps.length, 2, 'two sessions to sign, two prompts (one shared prompt would sign both on one answer)');
    assert.ok(ps.every((p) => p.remote?.name === 'build' && p.ssh?.forwarded === true && p.resource === ps[0]!.resource));
    await ui.call('pending.decide', { id: ps[0]!.id, decision: 'allow', scope: 'once' });
    await ui.call('pending.decide', { id: ps[1]!.id, decision: 'deny', scope: 'once' });
    fs.writeFileSync(go, '');
    const r = await session;
    assert.deepEqual(answers(r).map((a) => a.answer).sort(), ['failure', 'signature'], r.stdout + r.stderr);
  } finally {
    fs.writeFileSync(go, '');
    await denyAll();
  }
});

test('an over-long and an unknown message through a remote\'s forward: answered FAILURE, the connection stays in step, each recorded with the remote', async (t) => {
  if (skip) return t.skip(skip);
  const since = Date.now();
  const r = await onServer('build', steps('junk'));
  assert.deepEqual(answers(r).map((a) => [a.step, a.answer]), [['junk', 'failure,failure,identities']], r.stdout + r.stderr);
  const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { source: 'ssh', decision: 'reject', since, limit: 20 });
  assert.equal(events.length, 2, events.map((e) => e.summary).join(' | '));
  for (const e of events) assert.equal(e.remote?.name, 'build', `recorded with the remote: ${e.summary}`);
});
