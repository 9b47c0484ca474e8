// Database faults the way a user meets them (issue 10, item 9), against the real CLI and
// daemon: a lock held by the sqlite3 shell or by a second SQLite connection in another
// process, pages overwritten in the middle of the file, a truncated file, a directory in
// its place, permission 000, a read-only copy, and tampering on a sound file. Each fault
// must give one line naming the file and what to do, its own exit code (65 damaged,
// 66 cannot open, 75 locked; sysexits), no stack trace, within a bounded time.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { seedHistory } from '../helpers/seed-history';

const homes: string[] = [];
const daemons: Daemon[] = [];
after(async () => {
  for (const d of daemons) await d.stop();
  for (const h of homes) {
    spawnSync('chmod', ['-R', 'u+rwx', h]);
    fs.rmSync(h, { recursive: true, force: true });
  }
});

const IS_ROOT = process.getuid?.() === 0;
/** Root reads and writes whatever the mode says: permission tests run as `nobody` then. */
const NOBODY = 65534;

function home(): string {
  const h = tempHome('al-dbf-');
  homes.push(h);
  return h;
}

function airlock(args: string[], env: NodeJS.ProcessEnv, opts: { uid?: number } = {}) {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  return { code: r.status, out: r.stdout, err: r.stderr, ms: Date.now() - t0 };
}

/** Exactly one line on stderr, `airlock: …`, naming what it must, and no stack trace. */
function oneLine(err: string, ...must: RegExp[]): void {
  assert.match(err, /^airlock: [^\n]+\n$/, `one line expected, got:\n${err}`);
  assert.doesNotMatch(err, /\n\s+at |SqliteError|internal error/, 'no stack trace');
  for (const m of must) assert.match(err, m);
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A history of `n` events written by the real Store, the daemon stopped. */
function seeded(n: number): { env: NodeJS.ProcessEnv; db: string; home: string } {
  const h = home();
  const db = path.join(h, 'airlock.db');
  seedHistory(db, n);
  return { env: { ...process.env, AIRLOCK_HOME: h }, db, home: h };
}

/** Holds SQLite's write lock on `db` from another process until release(). */
async function holdLock(how: 'sqlite3-shell' | 'second-connection', db: string): Promise<{ release(): Promise<void> }> {
  let child: ChildProcessWithoutNullStreams;
  if (how === 'sqlite3-shell') {
    child = spawn('sqlite3', [db]);
    child.stdin.write(`BEGIN EXCLUSIVE;\nSELECT 'held';\n`);
  } else {
    const script = `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))}); const db = new D(${JSON.stringify(db)});
      db.exec('BEGIN EXCLUSIVE'); process.stdout.write('held\\n');
      process.stdin.on('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`;
    child = spawn(process.execPath, ['-e', script]);
  }
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (err += b));
  const deadline = Date.now() + 20_000;
  while (!/held/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the lock holder did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    async release() {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.write(how === 'sqlite3-shell' ? 'COMMIT;\n.quit\n' : 'go\n');
      child.stdin.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

test('a lock held by the sqlite3 shell: a request is denied within the bound, the daemon keeps answering, and all is well after release', async () => {
  const d = await startDaemon({ home: home() });
  daemons.push(d);
  const db = path.join(d.home, 'airlock.db');
  const agent = await d.agent();
  const ui = await d.ui();
  // A watcher (airlock watch, the tray) is told of an event only once history holds it.
  const watcher = await d.ui();
  const recorded: { id: number; summary: string }[] = [];
  watcher.onNotification = (method, params) => {
    if (method === 'event.recorded') recorded.push(params as { id: number; summary: string });
  };
  await watcher.call('subscribe');
  const first = await agent.call<{ decision: string; event: number }>('request', { source: 'api', tool: 'fs.read', action: 'read', resource: '/tmp/before', summary: 'before the lock' });
  assert.equal(first.decision, 'allow');

  const lock = await holdLock('sqlite3-shell', db);
  try {
    const t0 = Date.now();
    let answeredAt = 0;
    const pending = agent
      .call<{ decision: string; reason: string; event: number }>('request', { source: 'api', tool: 'fs.read', action: 'read', resource: '/tmp/during', summary: 'during the lock' })
      .then((a) => ((answeredAt = Date.now()), a));
    // Meanwhile the daemon answers other work at once: reads do not need the write lock.
    await new Promise((r) => setTimeout(r, 150));
    const s0 = Date.now();
    const prompts = await ui.call<{ prompts: unknown[] }>('pending.list', {});
    const hist = await ui.call<{ events: { summary: string }[] }>('history.query', { limit: 1 });
    const statusMs = Date.now() - s0;
    assert.deepEqual(prompts.prompts, []);
    assert.equal(hist.events[0]!.summary, 'before the lock');
    assert.equal(answeredAt, 0, 'status answered while the locked request still waited');
    assert.ok(statusMs < 1500, `status took ${statusMs} ms while the database was locked`);

    const a = await pending;
    const ms = answeredAt - t0;
    assert.equal(a.decision, 'deny', 'a request that cannot be recorded is never allowed');
    assert.equal(a.event, 0, 'nothing was recorded');
    assert.match(a.reason, new RegExp(`locked by another process for 2000 ms.*${esc(db)}`));
    // The bound: LOCK_BUDGET_MS (2 s) of retries, generous for a loaded machine, far below the old 15 s.
    assert.ok(ms >= 1500 && ms < 8000, `denied after ${ms} ms`);

    // The CLI as an agent meets it: exit 126 and one line that says why.
    const check = airlock(['check', '-a', 'read', '-t', 'fs.read', '-r', '/tmp/cli'], d.env);
    assert.equal(check.code, 126);
    oneLine(check.err, /^airlock: denied: the history database stayed locked by another process/, new RegExp(esc(db)));
    assert.doesNotMatch(check.err, /event 0/);
    assert.ok(check.ms < 15_000, `check took ${check.ms} ms`);
  } finally {
    await lock.release();
  }
  const again = await agent.call<{ decision: string; event: number }>('request', { source: 'api', tool: 'fs.read', action: 'read', resource: '/tmp/after', summary: 'after the lock' });
  assert.equal(again.decision, 'allow');
  assert.equal(again.event, first.event + 1, 'the denied requests left no gap in the chain');
  await waitFor(() => recorded.some((n) => n.id === again.event), 'event.recorded for the request after the lock');
  // The events staged during the lock never committed: they were never announced (an
  // announced id would now name another event, "after the lock" took its number).
  assert.deepEqual(
    recorded.map((n) => [n.id, n.summary]),
    [
      [first.event, 'before the lock'],
      [again.event, 'after the lock'],
    ],
  );
  const held = await ui.call<{ events: { id: number; summary: string }[] }>('history.query', { limit: 10 });
  for (const n of recorded) assert.equal(held.events.find((e) => e.id === n.id)?.summary, n.summary, `event ${n.id} as announced is in history`);
  watcher.close();
  agent.close();
  ui.close();
  const v = airlock(['audit', 'verify'], d.env);
  assert.equal(v.code, 0, v.err);
  assert.match(v.out, /ok: 2 events/);
});

test('a second SQLite connection holding the lock: airlock serve exits 75 with one line, within the start-up bound', async () => {
  const { env, db } = seeded(50);
  const lock = await holdLock('second-connection', db);
  try {
    const r = airlock(['serve'], env);
    assert.equal(r.code, 75, r.out + r.err);
    oneLine(r.err, /^airlock: cannot start: /, new RegExp(`${esc(db)} is locked by another process`), /try again/);
    assert.ok(r.ms < 20_000, `serve gave up after ${r.ms} ms`);
  } finally {
    await lock.release();
  }
  // Released: it starts.
  const d = await startDaemon({ home: path.dirname(db) });
  daemons.push(d);
  await d.stop();
});

function overwriteMiddle(db: string): void {
  const size = fs.statSync(db).size;
  const at = Math.floor(size / 2 / 4096) * 4096;
  const fd = fs.openSync(db, 'r+');
  fs.writeSync(fd, Buffer.alloc(3 * 4096, 0xa5), 0, 3 * 4096, at);
  fs.closeSync(fd);
}

/** Every command that opens the database, on a damaged copy: 65 and one line each. */
function damagedEverywhere(damage: (db: string) => void): void {
  const { env, db } = seeded(3000);
  damage(db);
  for (const args of [['serve'], ['history'], ['audit', 'verify'], ['audit', 'verify', '--db', db], ['history', '--db', db]]) {
    const r = airlock(args, env);
    assert.equal(r.code, 65, `${args.join(' ')}: ${r.out}${r.err}`);
    oneLine(r.err, new RegExp(`${esc(db)} is damaged \\(SQLite: `), /not tampering/, /restore a backup/);
    assert.ok(r.ms < 20_000, `${args.join(' ')} took ${r.ms} ms`);
  }
}

test('garbage bytes over pages in the middle: serve, history and audit verify exit 65 with one line (damage, not tampering)', () => {
  damagedEverywhere(overwriteMiddle);
});

test('a truncated file: serve, history and audit verify exit 65 with one line (damage, not tampering)', () => {
  damagedEverywhere((db) => fs.truncateSync(db, Math.floor(fs.statSync(db).size * 0.6)));
});

test('a directory where the database should be: exit 66 with one line for serve, history and audit verify', () => {
  const h = home();
  const db = path.join(h, 'airlock.db');
  fs.mkdirSync(db);
  const env = { ...process.env, AIRLOCK_HOME: h };
  for (const args of [['serve'], ['history'], ['audit', 'verify'], ['audit', 'verify', '--db', db]]) {
    const r = airlock(args, env);
    assert.equal(r.code, 66, `${args.join(' ')}: ${r.err}`);
    oneLine(r.err, new RegExp(`cannot open ${esc(db)}: it is a directory`), /move it aside/);
  }
  const missing = airlock(['audit', 'verify', '--db', path.join(h, 'nope.db')], env);
  assert.equal(missing.code, 66);
  oneLine(missing.err, /nope\.db: it does not exist/);
});

test('permission 000 on the database: exit 66 with one line that says how to fix it', () => {
  const { home: h, db } = seeded(20);
  const uid = IS_ROOT ? NOBODY : process.getuid!();
  if (IS_ROOT) spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, h]);
  fs.chmodSync(db, 0o000);
  const env = { ...process.env, AIRLOCK_HOME: h, HOME: h };
  for (const args of [['serve'], ['history'], ['audit', 'verify'], ['audit', 'verify', '--db', db]]) {
    const r = airlock(args, env, { uid });
    assert.equal(r.code, 66, `${args.join(' ')}: ${r.out}${r.err}`);
    oneLine(r.err, new RegExp(`cannot open ${esc(db)}: permission denied`), new RegExp(`chmod 600 ${esc(db)}`));
  }
  assert.equal(fs.statSync(db).mode & 0o777, 0, 'nothing changed the mode behind the user’s back');
});

test('audit verify and history work on a read-only copy (0444 file in a 0555 directory) and write nothing', () => {
  const { db } = seeded(500);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-rocopy-'));
  homes.push(dir);
  const copy = path.join(dir, 'copy.db');
  fs.copyFileSync(db, copy);
  const before = createHash('sha256').update(fs.readFileSync(copy)).digest('hex');
  fs.chmodSync(copy, 0o444);
  fs.chmodSync(dir, 0o555);
  // As someone who really cannot write there (root could, so the test also runs as nobody).
  const users = IS_ROOT ? [undefined, NOBODY] : [undefined];
  const env = { ...process.env, AIRLOCK_HOME: home() };
  for (const uid of users) {
    const v = airlock(['audit', 'verify', '--db', copy], env, uid === undefined ? {} : { uid });
    assert.equal(v.code, 0, v.err);
    assert.equal(v.out, 'ok: 500 events, chain intact\n');
    const h = airlock(['history', '--db', copy, '-n', '1', '--json'], env, uid === undefined ? {} : { uid });
    assert.equal(h.code, 0, h.err);
    assert.match(h.out, /"id":500/);
  }
  assert.deepEqual(fs.readdirSync(dir), ['copy.db'], 'no -wal, -shm or journal was created');
  assert.equal(createHash('sha256').update(fs.readFileSync(copy)).digest('hex'), before, 'the copy is unchanged');
});

test('tampering on a sound file is told apart from damage: serve warns TAMPERED and runs, audit verify exits 1', async () => {
  const { env, db, home: h } = seeded(300);
  const edit = spawnSync('sqlite3', [db, `UPDATE events SET summary = 'nothing to see' WHERE id = 290;`], { encoding: 'utf8' });
  assert.equal(edit.status, 0, edit.stderr);
  const d = await startDaemon({ home: h });
  daemons.push(d);
  assert.match(d.output(), /history: TAMPERED: event 290 was altered .*the file itself is sound: SQLite's quick_check passed/);
  await d.stop();
  const v = airlock(['audit', 'verify'], env);
  assert.equal(v.code, 1);
  assert.match(v.err, /^TAMPERED: event 290 was altered .*the file itself is sound/);
  // The same file with its pages damaged is reported as damage instead (exit 65).
  overwriteMiddle(db);
  const v2 = airlock(['audit', 'verify'], env);
  assert.equal(v2.code, 65);
  assert.doesNotMatch(v2.err, /TAMPERED/);
});
