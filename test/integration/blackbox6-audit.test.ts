// Black-box, sixth wave: `airlock audit verify` and `audit.verify` after the database was
// edited with the sqlite3 shell while the daemon was stopped — as anyone with the user's rights
// could (README "History and audit": altering, removing or reordering any row, or cutting the
// tail, is reported). Each edit must give ok:false, exit 1 and a firstBad naming the row where
// history stops being what Airlock wrote; the daemon started on such a file says TAMPERED,
// keeps serving, and what it records next does not wash the gap out. Also: an empty history,
// and 100,000 events (a time bound, and a daemon that keeps answering while it verifies).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Wire, airlock } from '../helpers/blackbox';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { seedHistory } from '../helpers/seed-history';

let root: string;
let home: string;
let base: string;
let last = 0;
before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb6a-'));
  home = path.join(root, 'h');
  const d = await startDaemon({ home });
  try {
    const agent = await Wire.open(d.requestSock);
    const t = await agent.ok<{ task: string }>('task.start', { name: 'bb6 audit task' });
    void t;
    for (let i = 0; i < 30; i++) {
      const r = await agent.ok<{ event: number }>('request', { source: 'api', tool: 'cat', action: 'read', resource: `/bb6a/${i}`, summary: `bb6 audit row ${i}` });
      last = r.event;
    }
    agent.close();
  } finally {
    await d.stop();
  }
  base = path.join(root, 'base.db');
  fs.copyFileSync(path.join(home, 'airlock.db'), base);
  for (const ext of ['-wal', '-shm']) assert.equal(fs.existsSync(path.join(home, `airlock.db${ext}`)), false, 'a clean stop leaves one file');
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

const env = (): NodeJS.ProcessEnv => ({ ...process.env, AIRLOCK_HOME: home });

/** A fresh copy of the intact database in the home, edited with the sqlite3 shell. */
function tamper(sql: string): void {
  fs.copyFileSync(base, path.join(home, 'airlock.db'));
  for (const ext of ['-wal', '-shm']) fs.rmSync(path.join(home, `airlock.db${ext}`), { force: true });
  if (sql) execFileSync('sqlite3', [path.join(home, 'airlock.db'), sql]);
}

interface Verdict {
  ok: boolean;
  count: number;
  firstBad?: { id: number; reason: string };
}

async function verifyCli(): Promise<{ code: number | null; v: Verdict; err: string }> {
  const r = await airlock(['audit', 'verify', '--json'], { env: env() });
  return { code: r.code, v: JSON.parse(r.stdout) as Verdict, err: r.stderr };
}

const COLS = 'ts,task,source,tool,action,resource,resources,summary,args,cwd,process,ssh,risk_level,risk_reasons,decision,decided_by,grant_id,scope,reason,prev_hash,hash,remote';

test('every edit made with the sqlite3 shell while the daemon is stopped is caught, exit 1, firstBad at the row where history stops being what Airlock wrote', async () => {
  tamper('');
  const intact = await verifyCli();
  assert.equal(intact.code, 0, JSON.stringify(intact));
  assert.equal(intact.v.count, last);
  const k = 12;
  const cases: [string, string, number, RegExp][] = [
    ['a field edited', `UPDATE events SET summary = 'nothing happened' WHERE id = ${k}`, k, /altered/],
    ['a decision flipped', `UPDATE events SET decision = 'deny' WHERE id = ${k}`, k, /altered/],
    ['a middle row deleted', `DELETE FROM events WHERE id = ${k}`, k, /missing/],
    ['the last row deleted', `DELETE FROM events WHERE id = ${last}`, last, /removed/],
    ['the last three rows deleted', `DELETE FROM events WHERE id > ${last - 3}`, last - 2, /removed/],
    ['two rows swapped (ids kept)', `UPDATE events SET id = -1 WHERE id = ${k}; UPDATE events SET id = ${k} WHERE id = ${k + 1}; UPDATE events SET id = ${k + 1} WHERE id = -1`, k, /follow|altered/],
    ['a row inserted after the last (a copy, next id)', `INSERT INTO events (id,${COLS}) SELECT ${last + 1},${COLS} FROM events WHERE id = ${last}`, last + 1, /after the chain head|altered|follow/],
    ['a row inserted far after the last', `INSERT INTO events (id,${COLS}) SELECT 1000,${COLS} FROM events WHERE id = ${last}`, 1000, /after the chain head/],
    ['a row inserted before the first', `INSERT INTO events (id,${COLS}) SELECT 0,${COLS} FROM events WHERE id = 1`, 0, /inserted|not part/],
    ['a row inserted with a negative id', `INSERT INTO events (id,${COLS}) SELECT -7,${COLS} FROM events WHERE id = 1`, -7, /inserted|not part/],
    ['the table emptied', 'DELETE FROM events', 1, /removed/],
    ['the chain head cut back to an earlier event', `UPDATE chain_head SET id = ${last - 2}, hash = (SELECT hash FROM events WHERE id = ${last - 2})`, last - 1, /after the chain head|head/],
    ['the chain head pushed forward', `UPDATE chain_head SET id = ${last + 5}`, last + 1, /removed/],
  ];
  for (const [what, sql, id, reason] of cases) {
    tamper(sql);
    const r = await verifyCli();
    assert.equal(r.code, 1, `${what}: ${JSON.stringify(r)}`);
    assert.equal(r.v.ok, false, what);
    assert.equal(r.v.firstBad?.id, id, `${what}: firstBad ${JSON.stringify(r.v.firstBad)}`);
    assert.match(r.v.firstBad!.reason, reason, `${what}: ${r.v.firstBad!.reason}`);
  }
  // The head row removed: the events are intact, but nothing says where history ends.
  tamper('DELETE FROM chain_head');
  const headless = await verifyCli();
  assert.equal(headless.code, 1, JSON.stringify(headless));
  assert.match(headless.v.firstBad!.reason, /chain head is missing/, headless.v.firstBad!.reason);
  assert.doesNotMatch(headless.v.firstBad!.reason, /events were removed/, 'nothing was removed but the head');
  // The plain-text form names the row too.
  tamper(`DELETE FROM events WHERE id = ${k}`);
  const text = await airlock(['audit', 'verify'], { env: env() });
  assert.equal(text.code, 1);
  assert.match(text.stdout + text.stderr, new RegExp(`TAMPERED: event ${k} is missing`));
});

test('DROP TABLE chain_head with the sqlite3 shell: audit verify, history and serve each say TAMPERED in one line and exit 1 — no internal error, no stack trace', async () => {
  tamper('DROP TABLE chain_head');
  for (const args of [['audit', 'verify'], ['audit', 'verify', '--db', path.join(home, 'airlock.db')], ['history', '-n', '1'], ['serve']]) {
    const r = await airlock(args, { env: env(), timeoutMs: 20_000 });
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `${args.join(' ')}: one line: ${r.stderr}`);
    assert.match(lines[0]!, /TAMPERED/);
    assert.match(lines[0]!, /chain_head/);
    assert.doesNotMatch(r.stderr, /internal error| {4}at /);
  }
});

test('the daemon started on a tampered file says TAMPERED, keeps serving, and audit.verify on ui.sock names the same row after new events (they do not wash the gap out)', async () => {
  const k = 20;
  tamper(`DELETE FROM events WHERE id = ${k}`);
  let d: Daemon | null = await startDaemon({ home });
  try {
    await waitFor(() => /TAMPERED/.test(d!.output()), 'the TAMPERED line at start', 10_000).catch(() => undefined);
    const ui = await Wire.open(d.uiSock);
    const agent = await Wire.open(d.requestSock);
    const r = await agent.ok<{ decision: string; event: number }>('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb6a/after', summary: 'bb6 after tamper' });
    assert.equal(r.decision, 'allow');
    assert.ok(r.event > last, `recording goes on past the old head: ${r.event}`);
    const v = await ui.ok<Verdict>('audit.verify');
    assert.equal(v.ok, false, JSON.stringify(v));
    assert.equal(v.firstBad?.id, k, JSON.stringify(v));
    ui.close();
    agent.close();
    await d.stop();
    d = null;
    const again = await verifyCli();
    assert.equal(again.code, 1);
    assert.equal(again.v.firstBad?.id, k, 'still the same row after a restart and new events');
  } finally {
    await d?.stop();
  }
  // A gap near the end is seen at start (the daemon looks at the recent chain).
  tamper(`DELETE FROM events WHERE id = ${last - 1}`);
  d = await startDaemon({ home });
  try {
    await waitFor(() => /TAMPERED/.test(d!.output()), 'the TAMPERED line at start', 10_000);
    const ui = await Wire.open(d.uiSock);
    assert.equal((await ui.ok<Verdict>('audit.verify')).firstBad?.id, last - 1);
    ui.close();
  } finally {
    await d.stop();
  }
});

test('an edit deep in a long history (far before the recent events the start-up look reads) is said at start too: TAMPERED naming the row, while the daemon serves', async () => {
  const h = path.join(root, 'deep');
  fs.mkdirSync(h, { mode: 0o700 });
  seedHistory(path.join(h, 'airlock.db'), 5_000);
  execFileSync('sqlite3', [path.join(h, 'airlock.db'), "UPDATE events SET decision = 'allow', summary = 'harmless' WHERE id = 7"]);
  const d = await startDaemon({ home: h });
  try {
    const agent = await Wire.open(d.requestSock);
    const r = await agent.ok<{ decision: string }>('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb6a/deep', summary: 'bb6 deep' });
    agent.close();
    assert.equal(r.decision, 'allow', 'serving');
    await waitFor(() => /TAMPERED: event 7 was altered/.test(d.output()), 'the TAMPERED line naming event 7', 20_000);
    assert.equal(d.output().match(/TAMPERED/g)?.length, 1, `said once: ${d.output()}`);
  } finally {
    await d.stop();
  }
});

test('an empty history verifies: ok, count 0, exit 0 (a daemon that never recorded anything)', async () => {
  const h = path.join(root, 'empty');
  const d = await startDaemon({ home: h });
  try {
    const ui = await Wire.open(d.uiSock);
    const v = await ui.ok<Verdict>('audit.verify');
    ui.close();
    assert.deepEqual({ ok: v.ok, count: v.count, firstBad: v.firstBad }, { ok: true, count: 0, firstBad: undefined });
  } finally {
    await d.stop();
  }
  const r = await airlock(['audit', 'verify', '--json'], { env: { ...process.env, AIRLOCK_HOME: h } });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal((JSON.parse(r.stdout) as Verdict).count, 0);
});

test('100,000 events: audit verify finishes within its bound, and while audit.verify runs on ui.sock the daemon still answers requests (it does not stall for the whole walk)', async () => {
  const h = path.join(root, 'big');
  fs.mkdirSync(h, { mode: 0o700 });
  seedHistory(path.join(h, 'airlock.db'), 100_000);
  const t0 = Date.now();
  const cli = await airlock(['audit', 'verify', '--json', '--db', path.join(h, 'airlock.db')], { env: { ...process.env, AIRLOCK_HOME: h }, timeoutMs: 60_000 });
  const took = Date.now() - t0;
  assert.equal(cli.code, 0, cli.stdout + cli.stderr);
  assert.equal((JSON.parse(cli.stdout) as Verdict).count, 100_000);
  assert.ok(took < 30_000, `verify of 100,000 events took ${took} ms`);
  const d = await startDaemon({ home: h });
  try {
    const ui = await Wire.open(d.uiSock);
    const agent = await Wire.open(d.requestSock);
    const order: string[] = [];
    const verifying = ui.call('audit.verify', {}, 60_000).then((m) => (order.push('verify'), m));
    await new Promise((r) => setTimeout(r, 150));
    const answered = agent.call('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb6a/during', summary: 'bb6 during verify' }, 60_000).then((m) => (order.push('request'), m));
    const [v, a] = await Promise.all([verifying, answered]);
    assert.equal((v.result as unknown as Verdict).ok, true, JSON.stringify(v));
    assert.equal((a.result as { decision: string }).decision, 'allow');
    assert.deepEqual(order, ['request', 'verify'], 'the request sent during the walk was answered before the walk ended');
    // The event recorded during the walk is part of the chain the walk reported or the next one.
    const after = await ui.ok<Verdict>('audit.verify', {}, 60_000);
    assert.equal(after.ok, true);
    assert.equal(after.count, 100_001);
    ui.close();
    agent.close();
  } finally {
    await d.stop();
  }
});
