import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS, migrate, schemaVersion, Store, ftsQuery, type NewEvent } from '../../main/store';

function tmpDb(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'al-store-')), 'airlock.db');
}

function ev(i: number, p: Partial<NewEvent> = {}): NewEvent {
  return {
    ts: 1_700_000_000_000 + i, task: null, source: 'api', tool: 'fs.write', action: 'write', resource: `/r/${i}`, resources: [`/r/${i}`],
    summary: `write number ${i}`, args: JSON.stringify({ i }), cwd: null, process: null, ssh: null, risk: { level: 'medium', reasons: [] },
    decision: 'allow', decidedBy: 'policy', grant: null, scope: null, reason: 'ok', ...p,
  };
}

test('migration 001 creates tasks, grants, events, chain_head and settings', () => {
  const db = new Database(':memory:');
  assert.deepEqual(migrate(db, 1), [1]);
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  for (const t of ['chain_head', 'events', 'grants', 'settings', 'tasks']) assert.ok(tables.includes(t), t);
  assert.equal(schemaVersion(db), 1);
});

test('migration 002 adds FTS over existing events and indexes new ones', () => {
  const db = new Database(':memory:');
  migrate(db, 1);
  db.prepare(`INSERT INTO events (id, ts, source, tool, action, resources, summary, risk_level, risk_reasons, decision, decided_by, reason, prev_hash, hash)
    VALUES (1, 1, 'api', 'deploy', 'execute', '[]', 'deploy the staging cluster', 'medium', '[]', 'allow', 'human', 'ok', 'x', 'y')`).run();
  assert.deepEqual(migrate(db, 2), [2]);
  const hit = db.prepare("SELECT rowid FROM events_fts WHERE events_fts MATCH 'staging'").all();
  assert.equal(hit.length, 1);
  db.prepare(`INSERT INTO events (id, ts, source, tool, action, resources, summary, risk_level, risk_reasons, decision, decided_by, reason, prev_hash, hash)
    VALUES (2, 2, 'api', 'deploy', 'execute', '[]', 'deploy production', 'medium', '[]', 'allow', 'human', 'ok', 'x', 'y')`).run();
  assert.equal(db.prepare("SELECT rowid FROM events_fts WHERE events_fts MATCH 'production'").all().length, 1);
});

test('migrations are idempotent and refuse a newer schema', () => {
  const db = new Database(':memory:');
  migrate(db);
  assert.deepEqual(migrate(db), []);
  assert.equal(schemaVersion(db), MIGRATIONS.length);
  db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  assert.throws(() => migrate(db), /newer than this Airlock/);
});

test('store: database file is 0600 and in WAL mode', () => {
  const file = tmpDb();
  const s = new Store(file);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(s.db.pragma('journal_mode', { simple: true }), 'wal');
  s.close();
});

test('chain: verify passes, then names the altered row', () => {
  const file = tmpDb();
  const s = new Store(file);
  for (let i = 0; i < 20; i++) s.appendEvent(ev(i));
  assert.deepEqual(s.verifyChain(), { ok: true, count: 20 });
  s.db.prepare("UPDATE events SET decision = 'deny' WHERE id = 7").run();
  const r = s.verifyChain();
  assert.equal(r.ok, false);
  assert.equal(r.firstBad?.id, 7);
  assert.match(r.firstBad!.reason, /altered/);
  s.close();
});

test('chain: a deleted middle row and a deleted tail are found', () => {
  const s = new Store(tmpDb());
  for (let i = 0; i < 10; i++) s.appendEvent(ev(i));
  s.db.prepare('DELETE FROM events WHERE id = 4').run();
  assert.deepEqual(s.verifyChain().firstBad?.id, 4);
  const t = new Store(tmpDb());
  for (let i = 0; i < 10; i++) t.appendEvent(ev(i));
  t.db.prepare('DELETE FROM events WHERE id >= 9').run();
  const r = t.verifyChain();
  assert.equal(r.ok, false);
  assert.equal(r.firstBad?.id, 9);
  assert.match(r.firstBad!.reason, /removed/);
});

test('chain: a rewritten row with a recomputed own hash still breaks the next link', () => {
  const s = new Store(tmpDb());
  for (let i = 0; i < 5; i++) s.appendEvent(ev(i));
  s.db.prepare("UPDATE events SET hash = 'f00' WHERE id = 2").run();
  const r = s.verifyChain();
  assert.equal(r.firstBad?.id, 2);
});

test('chain continues across reopen', () => {
  const file = tmpDb();
  const a = new Store(file);
  for (let i = 0; i < 3; i++) a.appendEvent(ev(i));
  a.close();
  const b = new Store(file);
  b.appendEvent(ev(3));
  assert.deepEqual(b.verifyChain(), { ok: true, count: 4 });
});

test('history: filters, FTS search, cursor paging', () => {
  const s = new Store(tmpDb());
  for (let i = 0; i < 30; i++) s.appendEvent(ev(i, { decision: i % 3 === 0 ? 'deny' : 'allow', summary: i === 17 ? 'push to origin main' : `write number ${i}` }));
  const denies = s.queryHistory({ decision: 'deny', limit: 100 });
  assert.equal(denies.events.length, 10);
  assert.ok(denies.events.every((e) => e.decision === 'deny'));
  const found = s.queryHistory({ text: 'origin' });
  assert.deepEqual(found.events.map((e) => e.id), [18]);
  const p1 = s.queryHistory({ limit: 12 });
  assert.equal(p1.events[0]!.id, 30);
  assert.ok(p1.cursor);
  const p2 = s.queryHistory({ limit: 12, cursor: p1.cursor });
  assert.equal(p2.events[0]!.id, 18);
  const p3 = s.queryHistory({ limit: 12, cursor: p2.cursor });
  assert.equal(p3.events.length, 6);
  assert.equal(p3.cursor, null);
  assert.equal(s.queryHistory({ text: '"NEAR( OR *' }).events.length, 0, 'FTS syntax in user text is treated as words');
});

test('ftsQuery quotes every word', () => {
  assert.equal(ftsQuery('git push'), '"git" "push"');
  assert.equal(ftsQuery('a"b'), '"a""b"');
  assert.equal(ftsQuery('   '), null);
});

test('migration 003 drops the per-row FTS trigger; search still sees every event', () => {
  const db = new Database(':memory:');
  migrate(db, 2);
  assert.ok(db.prepare("SELECT 1 FROM sqlite_master WHERE type='trigger' AND name='events_fts_insert'").get());
  assert.deepEqual(migrate(db, 3), [3]);
  assert.equal(db.prepare("SELECT 1 FROM sqlite_master WHERE type='trigger' AND name='events_fts_insert'").get(), undefined);
  const s = new Store(tmpDb());
  for (let i = 0; i < 5; i++) s.appendEvent(ev(i, { summary: `event alpha ${i}` }));
  assert.equal(s.queryHistory({ text: 'alpha' }).events.length, 5, 'unindexed events are indexed before a search');
  s.appendEvent(ev(5, { summary: 'event beta' }));
  assert.equal(s.queryHistory({ text: 'beta' }).events.length, 1);
  s.close();
});

test('migration 004 adds the source+decision index and the planner uses it', () => {
  const db = new Database(':memory:');
  migrate(db, 3);
  assert.deepEqual(migrate(db, 4), [4]);
  const plan = db.prepare("EXPLAIN QUERY PLAN SELECT * FROM events e WHERE e.source = 'ssh' AND e.decision = 'deny' ORDER BY e.id DESC LIMIT 50").all() as { detail: string }[];
  assert.ok(plan.some((p) => /events_by_source_decision/.test(p.detail)), JSON.stringify(plan));
});

test('migration 005: the search index mark starts at the last event; events after a crash get indexed', () => {
  const file = tmpDb();
  const a = new Store(file);
  for (let i = 0; i < 3; i++) a.appendEvent(ev(i, { summary: `before crash ${i}` }));
  // No close(): like a kill -9, nothing was indexed yet.
  const b = new Store(file);
  b.appendEvent(ev(3, { summary: 'after restart' }));
  assert.equal(b.queryHistory({ text: 'crash' }).events.length, 3);
  assert.equal(b.queryHistory({ text: 'restart' }).events.length, 1);
  const db = new Database(':memory:');
  migrate(db, 4);
  db.prepare(`INSERT INTO events (id, ts, source, tool, action, resources, summary, risk_level, risk_reasons, decision, decided_by, reason, prev_hash, hash)
    VALUES (1, 1, 'api', 'deploy', 'execute', '[]', 'never indexed before', 'medium', '[]', 'allow', 'human', 'ok', 'x', 'y')`).run();
  assert.deepEqual(migrate(db), [5]);
  assert.equal((db.prepare('SELECT upto FROM search_index_mark').get() as { upto: number }).upto, 1);
  assert.equal(db.prepare("SELECT rowid FROM events_fts WHERE events_fts MATCH 'indexed'").all().length, 1, 'rebuilt');
});
