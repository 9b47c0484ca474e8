// Black-box, third wave: history as the README's "History and audit" promises it — paging
// with limit + cursor (every event exactly once, newest first), the filters of
// `history.query` and of the README's CLI lines, and `audit verify` catching a row edited,
// deleted or reordered, or the tail cut, in the live database (edited directly with SQLite,
// as an attacker with the user's rights would) and in a copy read with --db.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { Wire, airlock, closeBlackboxSession, openBlackboxSession, waitPending, type BlackboxSession } from '../helpers/blackbox';

let s: BlackboxSession;
let env: NodeJS.ProcessEnv;
let agent: Wire;

interface Event {
  id: number;
  ts: number;
  task: string | null;
  source: string;
  tool: string;
  action: string;
  resource: string | null;
  summary: string;
  decision: string;
  decidedBy: string;
}

before(async () => {
  s = await openBlackboxSession('bb3h-');
  env = { ...process.env, AIRLOCK_HOME: s.d.home };
  agent = await Wire.open(s.d.requestSock);
});
after(async () => {
  agent?.close();
  await closeBlackboxSession(s);
});

async function query(params: Record<string, unknown>): Promise<{ events: Event[]; cursor: unknown }> {
  return s.ui.ok<{ events: Event[]; cursor: unknown }>('history.query', params);
}

let taskId = '';
const readIds: number[] = [];

test('history.query pages with limit + cursor: every event exactly once, newest first, the last page ends with cursor null', async () => {
  for (let i = 0; i < 23; i++) {
    const r = await agent.ok<{ event: number }>('request', { source: 'api', tool: 'cat', action: 'read', resource: `/bb3/r${i}`, summary: `bb3 page read ${i}` });
    readIds.push(r.event);
  }
  const t = await agent.ok<{ task: string; requestSock: string }>('task.start', { name: 'bb3 history task' });
  taskId = t.task;
  const wt = await Wire.open(t.requestSock);
  try {
    const pending = wt.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/bb3/w', summary: 'bb3 denied write' }, 60_000);
    const p = await waitPending(s.ui, (x) => x.resource === '/bb3/w', 'the write prompt', 20_000);
    await s.ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    await pending;
  } finally {
    wt.close();
  }
  const all = (await query({ limit: 1000 })).events;
  const seen: number[] = [];
  let cursor: unknown = undefined;
  for (let page = 0; page < 20; page++) {
    const r = await query({ limit: 7, ...(cursor === undefined ? {} : { cursor }) });
    assert.ok(r.events.length <= 7);
    seen.push(...r.events.map((e) => e.id));
    cursor = r.cursor;
    if (cursor === null || cursor === undefined) break;
  }
  assert.equal(cursor ?? null, null, 'the last page says there is no more');
  assert.deepEqual(seen, all.map((e) => e.id), 'the pages together are the whole history, in the same order');
  assert.equal(new Set(seen).size, seen.length, 'no event twice');
  assert.deepEqual([...seen].sort((a, b) => b - a), seen, 'newest first');
  assert.ok(seen.length >= 24);
  // A new event arriving while paging does not shift the pages (the cursor is a position, not an offset).
  const first = await query({ limit: 5 });
  await agent.ok('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb3/late', summary: 'bb3 late read' });
  const second = await query({ limit: 5, cursor: first.cursor });
  assert.ok(second.events.every((e) => e.id < first.events.at(-1)!.id), 'the second page continues where the first stopped');
});

test('history.query filters: task, decision, action, source, text, since/until — each result satisfies the filter', async () => {
  const byTask = (await query({ task: taskId })).events;
  assert.ok(byTask.length >= 1 && byTask.every((e) => e.task === taskId), JSON.stringify(byTask.map((e) => e.task)));
  const denies = (await query({ decision: 'deny' })).events;
  assert.ok(denies.some((e) => e.summary === 'bb3 denied write') && denies.every((e) => e.decision === 'deny'));
  const writes = (await query({ action: 'write' })).events;
  assert.ok(writes.length >= 1 && writes.every((e) => e.action === 'write'));
  assert.equal((await query({ source: 'ssh' })).events.length, 0);
  const text = (await query({ text: 'page read 17' })).events;
  assert.ok(text.some((e) => e.summary === 'bb3 page read 17'), `full-text search: ${JSON.stringify(text.map((e) => e.summary))}`);
  const all = (await query({ limit: 1000 })).events;
  const mid = all.find((e) => e.id === readIds[10])!;
  const until = (await query({ until: mid.ts, limit: 1000 })).events;
  assert.ok(until.length >= 1 && until.every((e) => e.ts <= mid.ts), 'until: nothing after');
  const since = (await query({ since: mid.ts, limit: 1000 })).events;
  assert.ok(since.length >= 1 && since.every((e) => e.ts >= mid.ts), 'since: nothing before');
  const none = (await query({ since: Date.now() + 3600_000 })).events;
  assert.equal(none.length, 0, 'since in the future: nothing');
  for (const [k, v] of [['decision', 'maybe'], ['action', 'fly'], ['limit', -1], ['limit', 'ten']] as const) {
    const r = await s.ui.call('history.query', { [k]: v });
    assert.equal(r.error?.code, -32602, `${k}=${String(v)}: ${JSON.stringify(r)}`);
    assert.match(r.error!.message, new RegExp(k), 'the message names the field');
  }
  // A typo in a filter is an error, not "no events": through the daemon and with --db alike.
  const copy = copyOfLive('filters.db');
  for (const args of [['--action', 'writes'], ['--decision', 'maybe'], ['-n', '0']]) {
    for (const db of [[], ['--db', copy]]) {
      const r = await airlock(['history', ...args, ...db], { env });
      assert.equal(r.code, 64, `history ${args.join(' ')} ${db.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, new RegExp(args[0] === '-n' ? 'limit' : args[0]!.slice(2)), 'the message names the field');
      assert.doesNotMatch(r.stdout, /no events/);
    }
  }
  // The README's CLI lines.
  const cli = await airlock(['history', '--task', taskId, '--json'], { env });
  assert.equal(cli.code, 0, cli.stderr);
  const rows = cli.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Event);
  assert.ok(rows.length >= 1 && rows.every((e) => e.task === taskId));
  const d = await airlock(['history', '--decision', 'deny', '--since', '1d'], { env });
  assert.equal(d.code, 0, d.stderr);
  assert.match(d.stdout, /bb3 denied write/);
  assert.doesNotMatch(d.stdout, /bb3 page read/);
  const t = await airlock(['history', '--text', 'bb3 late'], { env });
  assert.match(t.stdout, /bb3 late read/);
  assert.doesNotMatch(t.stdout, /bb3 page read/);
});

/** Runs `fn` on the live database directly (as a process with the user's rights could), then `audit.verify`. */
async function tamperLive(fn: (db: Database.Database) => void): Promise<{ ok: boolean; count: number; firstBad?: unknown }> {
  const db = new Database(path.join(s.d.home, 'airlock.db'));
  try {
    db.pragma('busy_timeout = 5000');
    fn(db);
  } finally {
    db.close();
  }
  return s.ui.ok<{ ok: boolean; count: number; firstBad?: unknown }>('audit.verify');
}

function copyOfLive(name: string): string {
  const copy = path.join(s.root, name);
  const db = new Database(path.join(s.d.home, 'airlock.db'), { readonly: true });
  try {
    db.exec(`VACUUM INTO '${copy}'`);
  } finally {
    db.close();
  }
  return copy;
}

async function verifyCopy(copy: string): Promise<{ code: number | null; out: string }> {
  const r = await airlock(['audit', 'verify', '--db', copy], { env });
  return { code: r.code, out: r.stdout + r.stderr };
}

test('audit verify catches a deleted row, two rows swapped, and the tail cut — on copies read with --db', async () => {
  const intact = await s.ui.ok<{ ok: boolean; count: number }>('audit.verify');
  assert.equal(intact.ok, true);
  const base = copyOfLive('intact.db');
  assert.equal((await verifyCopy(base)).code, 0);
  const victim = readIds[5]!;

  const deleted = copyOfLive('deleted.db');
  new Database(deleted).prepare('DELETE FROM events WHERE id = ?').run(victim);
  const del = await verifyCopy(deleted);
  assert.equal(del.code, 1, del.out);
  assert.match(del.out, new RegExp(`event ${victim}\\b`), `names the missing event: ${del.out}`);

  // Swap the contents of two rows (ids kept): the order of what happened is changed.
  const swapped = copyOfLive('swapped.db');
  const sw = new Database(swapped);
  const a = sw.prepare('SELECT * FROM events WHERE id = ?').get(readIds[7]) as Record<string, unknown>;
  const b = sw.prepare('SELECT * FROM events WHERE id = ?').get(readIds[8]) as Record<string, unknown>;
  const cols = Object.keys(a).filter((c) => c !== 'id');
  const upd = sw.prepare(`UPDATE events SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`);
  sw.transaction(() => {
    upd.run({ ...b, id: a.id });
    upd.run({ ...a, id: b.id });
  })();
  sw.close();
  const swr = await verifyCopy(swapped);
  assert.equal(swr.code, 1, swr.out);

  // The newest event removed: every remaining row still links to its predecessor; only the chain head can tell.
  const cut = copyOfLive('cut.db');
  const c = new Database(cut);
  const maxId = (c.prepare('SELECT max(id) AS m FROM events').get() as { m: number }).m;
  c.prepare('DELETE FROM events WHERE id = ?').run(maxId);
  c.close();
  const cr = await verifyCopy(cut);
  assert.equal(cr.code, 1, `cutting the last event is caught by the chain head: ${cr.out}`);

  const untouched = await verifyCopy(base);
  assert.equal(untouched.code, 0, 'the intact copy still verifies');
});

test('audit.verify on the live database (daemon running): an edited summary → {ok: false, firstBad}; the daemon keeps serving and keeps recording', async () => {
  const victim = readIds[3]!;
  const r = await tamperLive((db) => db.prepare("UPDATE events SET summary = 'nothing to see' WHERE id = ?").run(victim));
  assert.equal(r.ok, false, JSON.stringify(r));
  assert.ok(JSON.stringify(r.firstBad).includes(String(victim)), `firstBad names event ${victim}: ${JSON.stringify(r)}`);
  const cli = await airlock(['audit', 'verify'], { env });
  assert.equal(cli.code, 1, cli.stdout + cli.stderr);
  assert.ok((cli.stdout + cli.stderr).includes(String(victim)));
  const after = await agent.ok<{ decision: string; event: number }>('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb3/after', summary: 'bb3 after tamper' });
  assert.equal(after.decision, 'allow');
  assert.ok(after.event > 0, 'still recording');
  fs.rmSync(path.join(s.root, 'intact.db'), { force: true });
});
