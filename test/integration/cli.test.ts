// The `airlock` command as a user types it: output, exit codes and errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { CLI, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { RpcClient } from '../../main/client/rpc-client';

let d: Daemon;
before(async () => {
  d = await startDaemon();
});
after(async () => {
  await d?.stop();
});

function airlock(args: string[], env: NodeJS.ProcessEnv = d.env) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('--help lists the commands and the exit codes', () => {
  const r = airlock(['--help']);
  assert.equal(r.code, 0);
  for (const c of ['serve', 'watch', 'check', 'task', 'grants', 'history', 'audit']) assert.match(r.out, new RegExp(`\\b${c}\\b`));
  assert.match(r.out, /126 +denied/);
});

test('unknown options are usage errors (64) with a hint', () => {
  const r = airlock(['grants', 'add', '-a', 'write', '--bogus']);
  assert.equal(r.code, 64);
  assert.match(r.err, /unknown option '--bogus'/);
});

test('without a daemon: exit 69 and what to do', () => {
  const r = airlock(['grants', 'list'], { ...process.env, AIRLOCK_HOME: tempHome() });
  assert.equal(r.code, 69);
  assert.match(r.err, /not running .*airlock serve/);
});

test('task list says where each task was started: this machine, or the remote it came through', async () => {
  const ui = await d.ui();
  const { remote } = await ui.call<{ remote: { socket: string } }>('remotes.add', { name: 'cli-far' });
  const far = await RpcClient.connect(remote.socket);
  try {
    const there = await far.call<{ task: string; token: string }>('task.start', { name: 'far task' });
    const start = airlock(['task', 'start', 'near task', '--env']);
    const here = /AIRLOCK_TASK=(\S+)/.exec(start.out)![1]!;
    const out = airlock(['task', 'list']).out;
    assert.match(out, /FROM/);
    assert.match(out, new RegExp(`${there.task}.*far task +remote cli-far`), out);
    assert.match(out, new RegExp(`${here}.*near task +this machine`), out);
    await far.call('task.end', { task: there.token });
    assert.equal(airlock(['task', 'end', here]).code, 0);
  } finally {
    far.close();
    await ui.call('remotes.remove', { name: 'cli-far' });
    ui.close();
  }
});

test('task start/list/end, grants add/list/revoke, check and history', async () => {
  const start = airlock(['task', 'start', 'cli task', '--env', '--cwd', '/repo']);
  assert.equal(start.code, 0, start.err);
  const task = /AIRLOCK_TASK=(\S+)/.exec(start.out)![1]!;
  // --env exports the token too; check (like every client of ours) sends it beside the id.
  const token = /AIRLOCK_TASK_TOKEN=(\S+)/.exec(start.out)![1]!;
  assert.ok(token.startsWith(`${task}.`) && token.length >= task.length + 43, 'a 256-bit token');
  const taskEnv = { ...d.env, AIRLOCK_TASK_TOKEN: token };
  assert.match(airlock(['task', 'list']).out, new RegExp(`${task}.*cli task`));

  const add = airlock(['grants', 'add', '-a', 'write', '-t', 'fs.write', '-r', '/repo/src/**', '--task', task, '--uses', '1', '--json']);
  assert.equal(add.code, 0, add.err);
  const grant = JSON.parse(add.out) as { id: string; usesLeft: number };
  assert.equal(grant.usesLeft, 1);
  assert.match(airlock(['grants', 'list']).out, new RegExp(grant.id));

  const ok = airlock(['check', '-a', 'write', '-t', 'fs.write', '-r', '/repo/src/a.ts', '--task', task], taskEnv);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, new RegExp(`allowed: allowed by grant ${grant.id}`));

  // The single use is spent: the next check prompts; a human denies it → exit 126.
  const ui = await d.ui();
  const human = await Human.on(ui);
  const p = spawn(process.execPath, [CLI, 'check', '-a', 'write', '-t', 'fs.write', '-r', '/repo/src/b.ts', '--task', task], { env: taskEnv });
  let err = '';
  p.stderr.on('data', (x) => (err += x));
  const prompt = await human.next();
  await human.decide(prompt.id, 'deny', 'once');
  const code = await new Promise<number | null>((r) => p.on('close', r));
  assert.equal(code, 126);
  assert.match(err, /^airlock: denied once by the human \(event \d+\)\n$/);
  ui.close();

  const hist = airlock(['history', '--task', task, '--json']);
  const events = hist.out.trim().split('\n').map((l) => JSON.parse(l) as { tool: string; decision: string; decidedBy: string });
  // Newest first: the two checks, then the task's start (asked nothing: policy).
  assert.deepEqual(events.map((e) => `${e.tool} ${e.decision}/${e.decidedBy}`), ['fs.write deny/human', 'fs.write allow/grant', 'task.start allow/policy']);
  assert.match(airlock(['history', '--decision', 'deny']).out, /deny +human/);

  assert.match(airlock(['grants', 'revoke', grant.id]).out, /revoked/);
  assert.equal(airlock(['grants', 'revoke', 'g_nope']).code, 64);
  assert.match(airlock(['task', 'end', task]).out, /ended/);
  assert.doesNotMatch(airlock(['task', 'list']).out, new RegExp(task));
  assert.match(airlock(['task', 'list', '--all']).out, new RegExp(task));
});

test('history and audit verify work with the daemon stopped (read-only)', async () => {
  const d2 = await startDaemon();
  const c = await d2.agent();
  await c.call('request', { source: 'api', tool: 'x', action: 'read', summary: 'offline history check' });
  c.close();
  await d2.stop();
  const h = airlock(['history', '--text', 'offline'], d2.env);
  assert.equal(h.code, 0, h.err);
  assert.match(h.out, /offline history check/);
  const v = airlock(['audit', 'verify'], d2.env);
  assert.equal(v.code, 0);
  assert.match(v.out, /ok: 1 events/);
});

test('a second daemon on the same home refuses to start with one clear line (exit 70)', () => {
  const r = spawnSync(process.execPath, [CLI, 'serve'], { env: d.env, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 70);
  assert.match(r.stderr, /^airlock: cannot start: another (Airlock|agent) is already (serving|listening on) .*\n$/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});
