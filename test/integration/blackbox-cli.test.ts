// Black-box: the `airlock` CLI as the README and DESIGN.md describe it — `check`, `exec`
// (exit codes: the command's own, 126 denied with one line on stderr, 69 no daemon, 124
// timeout, 64 usage), `task start --env|list|end`, `grants add|list|revoke`, `history`
// (filters, --json lines, --db, without the daemon), `audit verify` (0 / 1 tampered /
// 65 damaged / 66 missing). Run through bin/airlock; the human answers over ui.sock.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { waitFor, type Daemon } from '../helpers/daemon';
import { AIRLOCK_BIN, Wire, closeBlackboxSession, openBlackboxSession, airlock, waitPending } from '../helpers/blackbox';

let d: Daemon;
let ui: Wire;
let root: string;
let env: NodeJS.ProcessEnv;
let work: string;

before(async () => {
  ({ root, d, ui } = await openBlackboxSession('bbc-'));
  work = path.join(root, 'work');
  fs.mkdirSync(work);
  env = { ...process.env, AIRLOCK_HOME: d.home };
  delete env.AIRLOCK_TASK;
  delete env.AIRLOCK_TASK_TOKEN;
  delete env.AIRLOCK_REQUEST_SOCK;
});
after(() => closeBlackboxSession({ root, d, ui }));

async function answer(pred: (summary: string, p: Record<string, unknown>) => boolean, decision: 'allow' | 'deny', what: string): Promise<void> {
  const p = await waitPending(ui, (x) => pred(x.summary, x as unknown as Record<string, unknown>), what);
  const r = await ui.call('pending.decide', { id: p.id, decision, scope: 'once' });
  assert.equal(r.error, undefined, JSON.stringify(r));
}

test('with no daemon: check and exec exit 69 and say how to start it; the command does not run', async () => {
  const emptyHome = path.join(root, 'nodaemon');
  fs.mkdirSync(emptyHome, { mode: 0o700 });
  const e = { ...env, AIRLOCK_HOME: emptyHome };
  const c = await airlock(['check', '-a', 'write', '-t', 'fs.write', '-r', '/tmp/x', '-s', 'x'], { env: e });
  assert.equal(c.code, 69, c.stderr);
  assert.match(c.stderr, /airlock serve/);
  const marker = path.join(work, 'ran-without-daemon');
  const x = await airlock(['exec', '--', 'touch', marker], { env: e, cwd: work });
  assert.equal(x.code, 69, x.stderr);
  assert.equal(fs.existsSync(marker), false);
});

test('usage errors exit 64: an unknown command, a bad action, exec without a command', async () => {
  const u1 = await airlock(['no-such-command'], { env });
  assert.equal(u1.code, 64, u1.stderr);
  const u2 = await airlock(['check', '-a', 'explode', '-t', 't', '-r', 'r', '-s', 's'], { env });
  assert.equal(u2.code, 64, u2.stderr);
  assert.match(u2.stderr, /action/);
  const u3 = await airlock(['exec'], { env, cwd: work });
  assert.equal(u3.code, 64, u3.stderr);
});

test('check: a read is allowed by default (exit 0); a write asks — allowed exits 0, denied exits 126 with one stderr line saying who and why', async () => {
  const r = await airlock(['check', '-a', 'read', '-t', 'fs.read', '-r', '/etc/hostname', '-s', 'bb read hostname'], { env });
  assert.equal(r.code, 0, r.stderr);
  const allowed = airlock(['check', '-a', 'write', '-t', 'fs.write', '-r', path.join(work, 'a.txt'), '-s', 'bb check allow'], { env });
  await answer((s) => s === 'bb check allow', 'allow', 'the check prompt');
  assert.equal((await allowed).code, 0);
  const denied = airlock(['check', '-a', 'write', '-t', 'fs.write', '-r', path.join(work, 'b.txt'), '-s', 'bb check deny'], { env });
  await answer((s) => s === 'bb check deny', 'deny', 'the check prompt');
  const dr = await denied;
  assert.equal(dr.code, 126);
  const lines = dr.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr: ${dr.stderr}`);
  assert.match(lines[0], /denied/);
  assert.match(lines[0], /human/, 'says who denied');
  const json = airlock(['check', '--json', '-a', 'write', '-t', 'fs.write', '-r', path.join(work, 'c.txt'), '-s', 'bb check json'], { env });
  await answer((s) => s === 'bb check json', 'allow', 'the --json prompt');
  const jr = await json;
  assert.equal(jr.code, 0);
  const parsed = JSON.parse(jr.stdout) as { decision: string; event: number };
  assert.equal(parsed.decision, 'allow');
  assert.equal(typeof parsed.event, 'number');
});

test('exec: allowed → the command runs with stdio passed through and exits with its own code; denied → 126, one line, nothing runs', async () => {
  const script = path.join(work, 'seven.sh');
  fs.writeFileSync(script, '#!/bin/sh\necho "out:$1"\necho "err:$1" >&2\nexit 7\n', { mode: 0o755 });
  const run = airlock(['exec', '--', script, 'hello'], { env, cwd: work });
  const p = await waitPending(ui, (x) => x.source === 'exec' && JSON.stringify(x).includes('seven.sh'), 'the exec prompt');
  assert.equal(p.action, 'execute');
  await ui.ok('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
  const r = await run;
  assert.equal(r.code, 7);
  assert.equal(r.stdout, 'out:hello\n');
  assert.match(r.stderr, /err:hello/);

  const marker = path.join(work, 'must-not-exist');
  const denied = airlock(['exec', '--', 'touch', marker], { env, cwd: work });
  const p2 = await waitPending(ui, (x) => x.source === 'exec' && JSON.stringify(x).includes('must-not-exist'), 'the touch prompt');
  assert.equal(p2.action, 'write', 'touch writes a file');
  await ui.ok('pending.decide', { id: p2.id, decision: 'deny', scope: 'once' });
  const dr = await denied;
  assert.equal(dr.code, 126);
  assert.equal(dr.stderr.trim().split('\n').length, 1, dr.stderr);
  assert.match(dr.stderr, /denied/);
  assert.equal(fs.existsSync(marker), false);
});

test('exec --shell: shell text is classified part by part (a delete inside && is seen)', async () => {
  fs.mkdirSync(path.join(work, 'build'), { recursive: true });
  const run = airlock(['exec', '--shell', '--', 'echo hi && rm -rf build'], { env, cwd: work });
  const p = await waitPending(ui, (x) => x.source === 'exec' && JSON.stringify(x).includes('rm -rf build'), 'the shell prompt');
  assert.equal(p.action, 'delete');
  await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
  assert.equal((await run).code, 126);
  assert.ok(fs.existsSync(path.join(work, 'build')), 'denied: build/ is still there');
});

test('exec --timeout: a command that runs too long is stopped, exit 124', async () => {
  const g = await airlock(['grants', 'add', '-a', 'execute', '-t', '*', '-r', 'sleep *', '--note', 'bb sleep'], { env });
  assert.equal(g.code, 0, g.stderr);
  const id = /g_[A-Za-z0-9_-]+/.exec(g.stdout + g.stderr)?.[0];
  assert.ok(id, `grants add prints the grant id: ${g.stdout}`);
  const t0 = Date.now();
  const r = await airlock(['exec', '--timeout', '1', '--', 'sleep', '20'], { env, cwd: work });
  assert.equal(r.code, 124, r.stderr);
  assert.ok(Date.now() - t0 < 15_000);
  const rv = await airlock(['grants', 'revoke', id], { env });
  assert.equal(rv.code, 0, rv.stderr);
});

test('grants add / list / revoke; a grant decides `check` without a prompt; --deny beats it', async () => {
  const a = await airlock(['grants', 'add', '-a', 'write', '-t', 'fs.write', '-r', `${work}/gr/**`, '--note', 'bb allow gr'], { env });
  assert.equal(a.code, 0, a.stderr);
  const allowId = /g_[A-Za-z0-9_-]+/.exec(a.stdout)![0];
  const dn = await airlock(['grants', 'add', '-a', 'write', '--deny', '-r', `${work}/gr/secret/**`, '--note', 'bb deny secret'], { env });
  assert.equal(dn.code, 0, dn.stderr);
  const denyId = /g_[A-Za-z0-9_-]+/.exec(dn.stdout)![0];
  const l = await airlock(['grants', 'list'], { env });
  assert.equal(l.code, 0);
  assert.ok(l.stdout.includes(allowId) && l.stdout.includes(denyId), l.stdout);
  const ok = await airlock(['check', '-a', 'write', '-t', 'fs.write', '-r', `${work}/gr/x/y.txt`, '-s', 'bb granted'], { env });
  assert.equal(ok.code, 0, ok.stderr);
  const no = await airlock(['check', '-a', 'write', '-t', 'fs.write', '-r', `${work}/gr/secret/k`, '-s', 'bb deny grant'], { env });
  assert.equal(no.code, 126);
  assert.match(no.stderr, /grant|g_/, `says a grant denied: ${no.stderr}`);
  for (const id of [allowId, denyId]) assert.equal((await airlock(['grants', 'revoke', id], { env })).code, 0);
  const l2 = await airlock(['grants', 'list'], { env });
  assert.ok(!l2.stdout.includes(allowId), 'revoked grants are not listed as active');
  const bad = await airlock(['grants', 'add', '-a', 'transfer', '-t', 'pay', '--when', 'args.amount <= <= 1'], { env });
  assert.notEqual(bad.code, 0, 'a condition that does not compile is refused');
  assert.match(bad.stderr, /when|condition|compile|syntax/i);
  const unknown = await airlock(['grants', 'revoke', 'g_doesnotexist'], { env });
  assert.notEqual(unknown.code, 0);
});

test('task start --env exports AIRLOCK_TASK, AIRLOCK_TASK_TOKEN and SSH_AUTH_SOCK; task list; a task grant; task end', async () => {
  const s = await airlock(['task', 'start', 'bb cli task', '--env'], { env, cwd: work });
  assert.equal(s.code, 0, s.stderr);
  const vars: Record<string, string> = {};
  // Let a real shell evaluate it, as `eval "$(airlock task start … --env)"` does.
  const sh = spawnSync('sh', ['-c', `${s.stdout}\nprintf '%s\\n' "$AIRLOCK_TASK" "$AIRLOCK_TASK_TOKEN" "$SSH_AUTH_SOCK"`], { encoding: 'utf8' });
  [vars.task, vars.token, vars.sock] = sh.stdout.trim().split('\n');
  assert.match(vars.task, /\S/);
  assert.ok(vars.token.startsWith(vars.task), 'the token names its task');
  assert.ok(fs.statSync(vars.sock).isSocket(), 'SSH_AUTH_SOCK is the task socket');
  const l = await airlock(['task', 'list'], { env });
  assert.ok(l.stdout.includes(vars.task) && l.stdout.includes('bb cli task'), l.stdout);
  const tenv = { ...env, AIRLOCK_TASK: vars.task, AIRLOCK_TASK_TOKEN: vars.token };
  const g = await airlock(['grants', 'add', '-a', 'write', '-t', 'fs.write', '-r', `${work}/t/**`, '--task', vars.task], { env: tenv });
  assert.equal(g.code, 0, g.stderr);
  const inTask = await airlock(['check', '-a', 'write', '-t', 'fs.write', '-r', `${work}/t/a`, '-s', 'bb in task'], { env: tenv });
  assert.equal(inTask.code, 0, `the task grant answers for the task's check: ${inTask.stderr}`);
  const e = await airlock(['task', 'end', vars.task], { env: tenv });
  assert.equal(e.code, 0, e.stderr);
  const l2 = await airlock(['task', 'list'], { env });
  assert.ok(!l2.stdout.includes(vars.task), `ended tasks leave the default list: ${l2.stdout}`);
  const all = await airlock(['task', 'list', '--all'], { env });
  assert.ok(all.stdout.includes(vars.task), '--all still shows it');
});

test('history: newest first, filters, --json one event per line, --text search', async () => {
  const h = await airlock(['history', '-n', '5'], { env });
  assert.equal(h.code, 0, h.stderr);
  assert.match(h.stdout, /bb /);
  const j = await airlock(['history', '--json', '--text', 'bb check'], { env });
  assert.equal(j.code, 0, j.stderr);
  const events = j.stdout.trim().split('\n').map((l) => JSON.parse(l) as { summary: string; decision: string; createdAt?: unknown; id?: number });
  const summaries = events.map((e) => e.summary);
  for (const s of ['bb check allow', 'bb check deny', 'bb check json']) assert.ok(summaries.includes(s), `${s} in ${summaries.join(', ')}`);
  assert.ok(summaries.indexOf('bb check json') < summaries.indexOf('bb check allow'), 'newest first');
  const dj = await airlock(['history', '--json', '--decision', 'deny', '--since', '1d', '--text', 'bb check'], { env });
  const denied = dj.stdout.trim().split('\n').map((l) => JSON.parse(l) as { summary: string; decision: string });
  assert.deepEqual(denied.map((e) => e.summary), ['bb check deny']);
  const bad = await airlock(['history', '--decision', 'perhaps'], { env });
  assert.equal(bad.code, 64, bad.stderr);
});

test('audit verify: 0 on an intact history; a copy altered with sqlite3 → 1 and the first bad event; garbage → 65; missing → 66', async () => {
  const v = await airlock(['audit', 'verify'], { env });
  assert.equal(v.code, 0, v.stderr + v.stdout);
  // A consistent copy of the live database (sqlite3's online backup), then tamper with it.
  const copy = path.join(root, 'copy.db');
  const b = spawnSync('sqlite3', [path.join(d.home, 'airlock.db'), `.backup '${copy}'`], { encoding: 'utf8' });
  assert.equal(b.status, 0, b.stderr);
  const vc = await airlock(['audit', 'verify', '--db', copy], { env });
  assert.equal(vc.code, 0, vc.stderr + vc.stdout);
  const hc = await airlock(['history', '--db', copy, '--json', '--text', 'bb check deny'], { env });
  assert.equal(hc.code, 0, hc.stderr);
  assert.match(hc.stdout, /bb check deny/);
  const tables = spawnSync('sqlite3', [copy, ".tables"], { encoding: 'utf8' }).stdout;
  assert.match(tables, /\bevents\b/, `an events table: ${tables}`);
  const u = spawnSync('sqlite3', [copy, "UPDATE events SET summary = 'bb check allow (edited)' WHERE summary = 'bb check deny';"], { encoding: 'utf8' });
  assert.equal(u.status, 0, u.stderr);
  const t = await airlock(['audit', 'verify', '--db', copy], { env });
  assert.equal(t.code, 1, t.stdout + t.stderr);
  assert.match(t.stdout + t.stderr, /\d/, 'names the first bad event');
  const garbage = path.join(root, 'garbage.db');
  fs.writeFileSync(garbage, 'this is not a database, not even close '.repeat(200));
  const g = await airlock(['audit', 'verify', '--db', garbage], { env });
  assert.equal(g.code, 65, g.stdout + g.stderr);
  assert.match(g.stderr, /damaged/);
  const m = await airlock(['audit', 'verify', '--db', path.join(root, 'nope.db')], { env });
  assert.equal(m.code, 66, m.stdout + m.stderr);
  assert.equal(fs.existsSync(path.join(root, 'nope.db')), false, 'nothing created');
});

test('exec forwards signals: SIGTERM to `airlock exec` reaches the command, and its exit code comes back', async () => {
  const g = await airlock(['grants', 'add', '-a', '*', '--source', 'exec', '-r', '*', '--note', 'bb signals'], { env });
  assert.equal(g.code, 0, g.stderr);
  const id = /g_[A-Za-z0-9_-]+/.exec(g.stdout)![0];
  try {
    const p = spawn(process.execPath, [AIRLOCK_BIN, 'exec', '--shell', '--', 'trap "echo got-term; exit 42" TERM; echo started; sleep 30 & wait'], { env, cwd: work });
    let out = '';
    p.stdout.on('data', (b) => (out += b.toString()));
    const exited = new Promise<number | null>((r) => p.on('exit', (c) => r(c)));
    await waitFor(() => out.includes('started'), 'the command to start', 20_000);
    p.kill('SIGTERM');
    assert.equal(await exited, 42);
    assert.match(out, /got-term/);
  } finally {
    await airlock(['grants', 'revoke', id], { env });
  }
});
