import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS, migrate, schemaVersion, Store, ftsQuery, type NewEvent } from '../../main/store';
import { GENESIS, rowHash } from '../../main/store/chain';

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

test('ftsQuery quotes every word; the last one is a prefix unless it is one letter', () => {
  assert.equal(ftsQuery('git push'), '"git" "push"*');
  assert.equal(ftsQuery('a"b'), '"a""b"*');
  assert.equal(ftsQuery('git p'), '"git" "p"');
  assert.equal(ftsQuery('   '), null);
  assert.equal(ftsQuery('git\u0000push\u0007'), '"git" "push"*', 'control characters (a NUL ends an FTS5 query early) separate words');
  assert.equal(ftsQuery('\u0000'), null);
});

test('history search finds a word from its first letters, as it is typed (git pu → git push); punctuation-only and FTS-looking words are still plain text', () => {
  const s = new Store(tmpDb());
  s.appendEvent(ev(1, { summary: 'git push origin main', resource: '/repo' }));
  s.appendEvent(ev(2, { summary: 'git pull --rebase', resource: '/repo' }));
  s.appendEvent(ev(3, { summary: 'rm -rf build', resource: '/repo/build' }));
  const found = (text: string) => s.queryHistory({ text }).events.map((e) => e.summary).sort();
  assert.deepEqual(found('git pu'), ['git pull --rebase', 'git push origin main']);
  assert.deepEqual(found('git pus'), ['git push origin main']);
  assert.deepEqual(found('git push'), ['git push origin main']);
  assert.deepEqual(found('pu git'), [], 'only the last word is a prefix');
  for (const odd of ['**', '.', '"', '*', 'NEAR(', 'OR', '-', 'git "pu']) assert.doesNotThrow(() => found(odd), odd);
  s.close();
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
  assert.deepEqual(migrate(db, 5), [5]);
  assert.equal((db.prepare('SELECT upto FROM search_index_mark').get() as { upto: number }).upto, 1);
  assert.equal(db.prepare("SELECT rowid FROM events_fts WHERE events_fts MATCH 'indexed'").all().length, 1, 'rebuilt');
});

test('migration 006: grants keep a condition and a set of actions; learned MCP tools are kept per server', () => {
  const file = tmpDb();
  const db = new Database(file);
  migrate(db, 5);
  db.prepare(`INSERT INTO grants (id, task, source, tool, action, resource, key, effect, expires_at, uses_left, forwarded, note, created_at, created_by)
    VALUES ('g_old', NULL, '*', 'x', 'write', '**', NULL, 'allow', NULL, NULL, 0, NULL, 1, 'human')`).run();
  assert.deepEqual(migrate(db, 6), [6]);
  migrate(db);
  db.close();
  const s = new Store(file);
  assert.equal(s.getGrant('g_old')!.when, null, 'an old grant has no condition');
  const g = { ...s.getGrant('g_old')!, id: 'g_new', action: ['write', 'delete'] as ['write', 'delete'], when: 'args.amount <= 50' };
  s.insertGrant(g);
  assert.deepEqual(s.getGrant('g_new')!.action, ['write', 'delete']);
  assert.equal(s.getGrant('g_new')!.when, 'args.amount <= 50');
  assert.equal(s.getMcpTool('gmail', 'send'), null);
  s.putMcpTools('gmail', [{ name: 'send', annotations: { openWorldHint: true }, description: 'Sends a mail' }], 5);
  s.putMcpTools('other', [{ name: 'send', annotations: { readOnlyHint: true }, description: null }], 6);
  assert.deepEqual(s.getMcpTool('gmail', 'send'), { annotations: { openWorldHint: true }, description: 'Sends a mail', learnedAt: 5 });
  s.putMcpTools('gmail', [{ name: 'send', annotations: null, description: null }], 7);
  assert.deepEqual(s.getMcpTool('gmail', 'send'), { annotations: null, description: null, learnedAt: 7 }, 'one row per server and tool');
  assert.deepEqual(s.getMcpTool('other', 'send')!.annotations, { readOnlyHint: true });
  s.close();
});

test('migration 007: remotes, the remote of events (in the chain) and grants, and stored keys\' last use', () => {
  const file = tmpDb();
  const db = new Database(file);
  migrate(db, 6);
  // A row written before 007, hashed the way it was then (no remote column).
  const cols = {
    id: 1, ts: 1, task: null, source: 'api', tool: 'deploy', action: 'execute', resource: null, resources: '[]', summary: 'old row',
    args: null, cwd: null, process: null, ssh: null, risk_level: 'medium', risk_reasons: '[]', decision: 'allow', decided_by: 'human',
    grant_id: null, scope: null, reason: 'ok', remote: null,
  };
  const old: Record<string, unknown> = { ...cols };
  delete old.remote;
  const hash = rowHash(GENESIS, cols);
  db.prepare(`INSERT INTO events (id, ts, task, source, tool, action, resource, resources, summary, args, cwd, process, ssh, risk_level,
    risk_reasons, decision, decided_by, grant_id, scope, reason, prev_hash, hash) VALUES (@id, @ts, @task, @source, @tool, @action, @resource,
    @resources, @summary, @args, @cwd, @process, @ssh, @risk_level, @risk_reasons, @decision, @decided_by, @grant_id, @scope, @reason, @prev_hash, @hash)`)
    .run({ ...old, prev_hash: GENESIS, hash });
  db.prepare('INSERT INTO chain_head (one, id, hash) VALUES (1, 1, ?)').run(hash);
  db.prepare(`INSERT INTO grants (id, task, source, tool, action, resource, key, effect, expires_at, uses_left, forwarded, note, created_at, created_by)
    VALUES ('g_old', NULL, '*', 'x', 'write', '**', NULL, 'allow', NULL, NULL, 0, NULL, 1, 'human')`).run();
  assert.deepEqual(migrate(db, 7), [7]);
  db.close();

  const s = new Store(file);
  assert.equal(s.verifyChain().ok, true, 'rows from before 007 still verify');
  assert.equal(s.getEvent(1)!.remote, null);
  assert.equal(s.getGrant('g_old')!.remote, null, 'old grants are local-only');
  const remote = { name: 'build', via: 'ssh me@build:22 (pid 7)' };
  const e2 = s.appendEvent(ev(2, { remote }));
  assert.deepEqual(s.getEvent(e2.id)!.remote, remote);
  s.insertGrant({ ...s.getGrant('g_old')!, id: 'g_remote', remote: 'build' });
  assert.equal(s.getGrant('g_remote')!.remote, 'build');
  assert.equal(s.verifyChain().ok, true);
  // Clearing the remote of a remote row is tampering like any other edit.
  s.db.prepare('UPDATE events SET remote = NULL WHERE id = ?').run(e2.id);
  const v = s.verifyChain();
  assert.equal(v.ok, false);
  assert.equal(v.firstBad?.id, e2.id);

  assert.deepEqual(s.listRemotes(), []);
  assert.equal(s.addRemote('build', 5).createdAt, 5);
  assert.equal(s.addRemote('build', 9).createdAt, 5, 'adding again keeps the first');
  assert.deepEqual(s.listRemotes(), [{ name: 'build', createdAt: 5 }]);
  assert.equal(s.removeRemote('build'), true);
  assert.equal(s.removeRemote('build'), false);

  s.touchKey('SHA256:k', 10);
  s.touchKey('SHA256:k', 8);
  assert.deepEqual([...s.keyUsage()], [['SHA256:k', 10]], 'last use only moves forward');
  s.forgetKey('SHA256:k');
  assert.equal(s.keyUsage().size, 0);
  s.close();
});

test('migration 008: tasks keep only a hash of their token; tasks from before have none (nothing can act as them)', () => {
  const db = new Database(':memory:');
  migrate(db, 7);
  db.prepare(`INSERT INTO tasks (id, name, cwd, created_at, ended_at, ssh_auth_sock) VALUES ('t_old', 'old', NULL, 1, NULL, NULL)`).run();
  assert.deepEqual(migrate(db, 8), [8]);
  assert.equal((db.prepare('SELECT token_hash FROM tasks WHERE id = ?').get('t_old') as { token_hash: string | null }).token_hash, null);
  const s = new Store(tmpDb());
  s.insertTask({ id: 't_new', name: 'n', cwd: null, createdAt: 1, endedAt: null, sshAuthSock: null, remote: null }, 'ab'.repeat(32));
  assert.equal(s.taskTokenHash('t_new'), 'ab'.repeat(32));
  assert.equal(s.taskTokenHash('t_missing'), null);
  assert.ok(!('tokenHash' in s.getTask('t_new')!) && !JSON.stringify(s.listTasks(true)).includes('abab'), 'the hash never leaves the store in a Task');
  s.close();
});

test('migration 009: a task records where it was started (a remote, or null: this machine); tasks from before count as local', () => {
  const db = new Database(':memory:');
  migrate(db, 8);
  db.prepare(`INSERT INTO tasks (id, name, cwd, created_at, ended_at, ssh_auth_sock, token_hash) VALUES ('t_old', 'old', NULL, 1, NULL, NULL, NULL)`).run();
  assert.deepEqual(migrate(db, 9), [9]);
  assert.equal((db.prepare('SELECT remote FROM tasks WHERE id = ?').get('t_old') as { remote: string | null }).remote, null, 'an older task is local');
  db.close();
  const s = new Store(tmpDb());
  s.insertTask({ id: 't_here', name: 'here', cwd: null, createdAt: 1, endedAt: null, sshAuthSock: null, remote: null }, 'ab'.repeat(32));
  s.insertTask({ id: 't_there', name: 'there', cwd: null, createdAt: 2, endedAt: null, sshAuthSock: null, remote: 'build' }, 'cd'.repeat(32));
  assert.equal(s.getTask('t_here')!.remote, null);
  assert.equal(s.getTask('t_there')!.remote, 'build');
  assert.deepEqual(s.listTasks(true).map((t) => [t.id, t.remote]), [['t_there', 'build'], ['t_here', null]]);
  s.endTask('t_there', 3);
  assert.equal(s.getTask('t_there')!.remote, 'build', 'kept after the task ends');
  s.close();
});

test('migration 010: the CLAUDE_CONFIG_DIR directories seen are kept in the order first seen, only ever added, at most the cap', () => {
  const db = new Database(':memory:');
  migrate(db, 9);
  assert.deepEqual(migrate(db, 10), [10]);
  assert.deepEqual(db.prepare('SELECT count(*) AS n FROM claude_config_dirs').get(), { n: 0 });
  db.close();
  const file = tmpDb();
  let s = new Store(file);
  assert.equal(s.keepClaudeConfigDir('/b', 1, 3), true);
  assert.equal(s.keepClaudeConfigDir('/a', 2, 3), true);
  assert.equal(s.keepClaudeConfigDir('/b', 3, 3), true, 'kept before: still kept, not added twice');
  assert.equal(s.keepClaudeConfigDir('/c', 4, 3), true);
  assert.equal(s.keepClaudeConfigDir('/d', 5, 3), false, 'over the cap: not kept');
  s.close();
  s = new Store(file);
  assert.deepEqual(s.claudeConfigDirs(10), ['/b', '/a', '/c'], 'kept across a reopen, oldest first');
  assert.deepEqual(s.claudeConfigDirs(2), ['/b', '/a']);
  assert.equal(s.keepClaudeConfigDir('/c', 6, 3), true, 'at the cap, one already kept still reads as kept');
  s.close();
});
