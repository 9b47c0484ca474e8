// Remote agents over SSH (issue 12): an agent on a "server" asks the "laptop"'s Airlock
// through `ssh -R` forwarding of the remote's own request socket. Real loopback sshd, the
// exact options `airlock remote add` prints, `airlock exec` on the far side, decisions on
// the near side. The far side reaches the agent side only — never ui.sock.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Grant, HistoryEvent, Prompt } from '../../main/contract/approver';
import type { RemotePlan } from '../../main/cli/commands/remote';
import type { RpcClient } from '../../main/client/rpc-client';
import { CLI, startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { run } from '../helpers/ssh';
import { sshArgs, startSshdForClient, USER, type Sshd } from '../helpers/sshd';

let d: Daemon;
let home: string;
let sshd: Sshd | undefined;
let skip: string | undefined;
let ui: RpcClient;
let plan: RemotePlan;
let clientKey: string;
let knownHosts: string;

before(async () => {
  home = tempHome('alrm-');
  d = await startDaemon({ home });
  ui = await d.ui();
  if (!fs.existsSync('/usr/sbin/sshd')) {
    skip = 'OpenSSH server not installed (scripts/install-system-deps.sh)';
    return;
  }
  plan = await freshPlan();
  ({ sshd, clientKey, knownHosts } = await startSshdForClient(path.join(home, 'sshd'), home));
});
after(async () => {
  ui?.close();
  await sshd?.stop();
  await d?.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

async function freshPlan(): Promise<RemotePlan> {
  const r = await run(process.execPath, [CLI, 'remote', 'add', 'build', 'ci@build.example', '--json'], { env: d.env, timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as RemotePlan;
}

/**
 * Runs `command` on the "server" through the ssh options `airlock remote add` printed —
 * a fresh plan per connection, as documented (sshd leaves the last session's socket behind).
 */
async function onServer(command: string, timeoutMs = 60_000) {
  const p = await freshPlan();
  const args = sshArgs(sshd!, knownHosts, ['-i', clientKey, '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', ...p.sshOptions]);
  return run('ssh', [...args, `AIRLOCK_REQUEST_SOCK=${p.env.AIRLOCK_REQUEST_SOCK} ${command}`], { env: { ...process.env, SSH_AUTH_SOCK: '' }, timeoutMs });
}
const exec = (file: string) => `${process.execPath} ${CLI} exec -- touch ${file}`;

/** The next prompt; fails with the requester's output if it ends first (so a failure says why). */
async function nextPrompt(requester?: Promise<{ code: number | null; stdout: string; stderr: string }>): Promise<Prompt> {
  let found: Prompt | undefined;
  let ended: { code: number | null; stdout: string; stderr: string } | undefined;
  void requester?.then((r) => (ended = r));
  await waitFor(async () => {
    found = (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts[0];
    return found !== undefined || ended !== undefined;
  }, 'a prompt on the laptop', 30_000, 50);
  if (!found) throw new Error(`the requester ended without a prompt: exit ${ended!.code}\n${ended!.stdout}${ended!.stderr}`);
  return found;
}

test('airlock remote add prints one ssh command that forwards only the remote\'s request socket', async (t) => {
  if (skip) return t.skip(skip);
  assert.equal(plan.remote.socket, path.join(home, 'remotes', 'build', 'request.sock'));
  assert.equal(fs.statSync(plan.remote.socket).mode & 0o777, 0o600);
  const forwards = plan.sshOptions.filter((o) => o === '-R' || o === '-L' || o === '-D');
  assert.deepEqual(forwards, ['-R'], 'exactly one forward');
  assert.equal(plan.sshOptions[plan.sshOptions.indexOf('-R') + 1], `${plan.serverSocket}:${plan.remote.socket}`);
  assert.ok(!plan.command.includes('ui.sock'), 'ui.sock is never forwarded');
  assert.match(plan.serverSocket, /^\/tmp\/airlock-build-[0-9a-f]{12}\.sock$/);
  assert.ok(plan.sshOptions.includes('ExitOnForwardFailure=yes'));
  const text = await run(process.execPath, [CLI, 'remote', 'add', 'build', 'ci@build.example'], { env: d.env });
  assert.match(text.stdout, /^ {2}ssh -o ExitOnForwardFailure=yes -R \/tmp\/airlock-build-[0-9a-f]{12}\.sock:\S+\/remotes\/build\/request\.sock -o ForwardAgent=\S+agent\.sock -t ci@build\.example 'export AIRLOCK_REQUEST_SOCK=/m);
  assert.match(text.stdout, /export AIRLOCK_REQUEST_SOCK=\/tmp\/airlock-build-/);
  const list = await run(process.execPath, [CLI, 'remote', 'list'], { env: d.env });
  assert.match(list.stdout, /build\s+\S+ \S+\s+\S+remotes\/build\/request\.sock/);
});

test('airlock exec on the server is prompted on the laptop, marked remote: denied, then allowed', async (t) => {
  if (skip) return t.skip(skip);
  const target = path.join(home, 'made-by-remote');
  let running = onServer(exec(target));
  let p = await nextPrompt(running);
  assert.equal(p.remote?.name, 'build');
  assert.equal(p.remote!.via.replace(/\d+\)$/, 'N)'), `ssh ${USER}@127.0.0.1:${sshd!.port} (pid N)`, 'the SSH connection it came through');
  assert.equal(p.action, 'write');
  await ui.call('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
  let r = await running;
  assert.equal(r.code, 126, r.stdout + r.stderr);
  assert.match(r.stderr, /denied/);
  assert.ok(!fs.existsSync(target));

  running = onServer(exec(target));
  p = await nextPrompt(running);
  assert.equal(p.remote?.name, 'build');
  await ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
  r = await running;
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.ok(fs.existsSync(target), 'the command ran on the server');

  const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { source: 'exec', limit: 10 });
  const mine = events.filter((e) => e.resources.includes(target));
  assert.deepEqual(mine.map((e) => [e.decision, e.remote?.name]), [['allow', 'build'], ['deny', 'build']], 'history marks both as remote');
  assert.match(mine[0]!.remote!.via, /^ssh \S+@127\.0\.0\.1:\d+ \(pid \d+\)$/);
  const verify = await ui.call<{ ok: boolean }>('audit.verify', {});
  assert.equal(verify.ok, true, 'remote rows are part of the chain');
});

test('a grant made from a remote\'s prompt is for that remote only; local grants do not reach remotes', async (t) => {
  if (skip) return t.skip(skip);
  // airlock check (source api): the grant's pattern is exactly this resource.
  const target = path.join(home, 'deploy-target');
  const check = (res: string) => `${process.execPath} ${CLI} check -a transfer -t deploy -r ${res} -s deploy`;
  let running = onServer(check(target));
  const p = await nextPrompt(running);
  assert.equal(p.remote?.name, 'build');
  const { grant } = await ui.call<{ grant: Grant }>('pending.decide', { id: p.id, decision: 'allow', scope: 'always' });
  assert.equal(grant.remote, 'build', 'the grant is limited to the remote it came from');
  assert.equal((await running).code, 0);

  // The same request from the remote again: answered by the grant, no prompt.
  let r = await onServer(check(target));
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.length, 0);
  const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { limit: 1 });
  assert.equal(events[0]?.grant, grant.id);
  assert.equal(events[0]?.remote?.name, 'build');

  // The same request on this machine: the remote's grant does not apply, it asks.
  const local = (res: string) => run(process.execPath, [CLI, 'check', '-a', 'transfer', '-t', 'deploy', '-r', res, '-s', 'deploy'], { env: d.env, timeoutMs: 60_000 });
  running = local(target);
  const here = await nextPrompt(running);
  assert.equal(here.remote, undefined);
  await ui.call('pending.decide', { id: here.id, decision: 'deny', scope: 'once' });
  assert.equal((await running).code, 126);

  // A local allow grant does not reach the remote either (a deny grant does: deny is everywhere).
  const other = path.join(home, 'local-only');
  const g = await ui.call<{ grant: Grant }>('grants.create', { action: 'transfer', resource: other, effect: 'allow' });
  assert.equal(g.grant.remote, null);
  running = onServer(check(other));
  const asked = await nextPrompt(running);
  assert.equal(asked.remote?.name, 'build');
  await ui.call('pending.decide', { id: asked.id, decision: 'deny', scope: 'once' });
  assert.equal((await running).code, 126);
  r = await local(other);
  assert.equal(r.code, 0, 'the local grant works locally');
  await ui.call('grants.create', { action: 'transfer', resource: target, effect: 'deny' });
  r = await onServer(check(target));
  assert.equal(r.code, 126, 'a deny grant without a remote denies remote requests too');
  assert.match(r.stderr, /denied by grant/);
});

test('the far side reaches the agent side only: no ui.sock methods, no claiming to be another remote', async (t) => {
  if (skip) return t.skip(skip);
  // Straight JSON-RPC through the forwarded socket, from the server.
  const script = [
    "const s=require('net').connect(process.env.AIRLOCK_REQUEST_SOCK);let b='';",
    "s.on('data',(d)=>{b+=d;if(b.split('\\n').length>3){console.log(b);process.exit(0)}});",
    "s.write(JSON.stringify({jsonrpc:'2.0',id:1,method:'pending.list',params:{}})+'\\n');",
    "s.write(JSON.stringify({jsonrpc:'2.0',id:2,method:'grants.create',params:{action:'*',effect:'allow'}})+'\\n');",
    "s.write(JSON.stringify({jsonrpc:'2.0',id:3,method:'request',params:{source:'api',tool:'x',action:'read',summary:'s',remote:'other'}})+'\\n');",
    "setTimeout(()=>{console.log(b);process.exit(1)},20000);",
  ].join('');
  const r = await onServer(`${process.execPath} -e ${JSON.stringify(script).replace(/\$/g, '\\$')}`);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const replies = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: number; error?: { code: number } });
  const byId = new Map(replies.map((x) => [x.id, x]));
  assert.equal(byId.get(1)?.error?.code, -32601, 'pending.list does not exist on the agent side');
  assert.equal(byId.get(2)?.error?.code, -32601, 'grants.create does not exist on the agent side');
  assert.equal(byId.get(3)?.error?.code, -32602, 'a request cannot name its own remote');
  const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', {});
  assert.ok(!grants.some((g) => g.action === '*'), 'nothing was granted');
});

test('remotes survive a daemon restart; removing one closes its socket', async (t) => {
  if (skip) return t.skip(skip);
  ui.close();
  await d.stop();
  d = await d.restart();
  ui = await d.ui();
  assert.ok(fs.existsSync(plan.remote.socket), 'the remote socket is back');
  const last = await freshPlan();
  const r = await run(process.execPath, [CLI, 'remote', 'remove', 'build'], { env: d.env });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!fs.existsSync(plan.remote.socket));
  const args = sshArgs(sshd!, knownHosts, ['-i', clientKey, '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', ...last.sshOptions]);
  const gone = await run('ssh', [...args, `AIRLOCK_REQUEST_SOCK=${last.env.AIRLOCK_REQUEST_SOCK} ${exec(path.join(home, 'x'))}`], { env: { ...process.env, SSH_AUTH_SOCK: '' }, timeoutMs: 30_000 });
  assert.equal(gone.code, 69, `nothing to ask on this side any more: exec says the daemon is unreachable and runs nothing (${gone.stderr})`);
  assert.ok(!fs.existsSync(path.join(home, 'x')));
});
