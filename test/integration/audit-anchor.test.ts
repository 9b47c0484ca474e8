// Anchoring history outside the database. The chain alone is tamper-evident only against edits
// that do not recompute it: anyone who can write airlock.db can rewrite an event and recompute
// every hash after it and the chain head (rowHash is in the open), and `audit verify` then passes.
// An anchor (`airlock audit head`: the head's id and hash, kept off this machine) closes that:
// `audit verify --anchor ID:HASH` fails unless that event is still there with that hash, and its
// hash covers every event up to it. This file does the rewrite for real with better-sqlite3 on a
// stopped daemon's file, the way a same-user process could.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { rowHash, type ChainedColumns } from '../../main/store/chain';
import { Wire, airlock } from '../helpers/blackbox';
import { startDaemon } from '../helpers/daemon';

let root: string;
let home: string;
let base: string;
let anchor: string; // ID:HASH as `airlock audit head` printed it with the daemon up
let anchorId = 0;
let last = 0;
let total = 0;

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'anch-'));
  home = path.join(root, 'h');
  const d = await startDaemon({ home });
  try {
    const agent = await Wire.open(d.requestSock);
    const ui = await Wire.open(d.uiSock);
    for (let i = 0; i < 10; i++) await agent.ok('request', { source: 'api', tool: 'cat', action: 'read', resource: `/anchor/${i}`, summary: `anchor row ${i}` });
    const head = await ui.ok<{ id: number; hash: string; ts: number | null; anchor: string }>('audit.head');
    const cli = await airlock(['audit', 'head'], { env: { ...process.env, AIRLOCK_HOME: home } });
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stdout, `${head.anchor}\n`, 'stdout is the anchor alone');
    assert.match(head.anchor, /^\d+:[0-9a-f]{64}$/);
    assert.equal(head.anchor, `${head.id}:${head.hash}`);
    assert.equal(typeof head.ts, 'number');
    anchor = head.anchor;
    anchorId = head.id;
    for (let i = 10; i < 15; i++) last = (await agent.ok<{ event: number }>('request', { source: 'api', tool: 'cat', action: 'read', resource: `/anchor/${i}`, summary: `anchor row ${i}` })).event;
    // Untampered, on ui.sock: the anchor is reported, in the order given.
    const v = await ui.ok<{ ok: boolean; count: number; anchors?: { id: number; ok: boolean }[] }>('audit.verify', { anchors: [{ id: head.id, hash: head.hash }, { id: 0, hash: '0'.repeat(64) }] });
    assert.deepEqual([v.ok, v.count, v.anchors?.map((a) => [a.id, a.ok])], [true, last, [[head.id, true], [0, true]]]);
    // Without anchors the answer keeps its documented shape.
    assert.deepEqual(await ui.ok('audit.verify', {}), { ok: true, count: last });
    // A malformed anchor is invalid params naming the field, not a failed verification.
    for (const bad of [{ id: 1, hash: 'abc' }, { id: -1, hash: head.hash }, { id: 1, hash: head.hash.toUpperCase() }, { id: 1, hash: head.hash, extra: 1 }]) {
      const m = await ui.call('audit.verify', { anchors: [bad] });
      assert.equal(m.error?.code, -32602, JSON.stringify(bad));
      assert.match(m.error?.message ?? '', /anchors/);
    }
    agent.close();
    ui.close();
  } finally {
    await d.stop();
  }
  assert.ok(anchorId > 1 && anchorId < last);
  base = path.join(root, 'base.db');
  fs.copyFileSync(path.join(home, 'airlock.db'), base);
  // Everything the daemon wrote, its own rows after the requests included.
  const db = new Database(base, { readonly: true });
  total = (db.prepare('SELECT id FROM chain_head').get() as { id: number }).id;
  db.close();
  assert.ok(total >= last);
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

type Row = ChainedColumns & { prev_hash: string; hash: string };

/** A fresh copy of the intact database, then `edit` and the chain recomputed from event 1 on, head included. */
function rewrite(edit: (db: Database.Database) => void): string {
  const file = path.join(root, `rewritten-${Math.random().toString(36).slice(2)}.db`);
  fs.copyFileSync(base, file);
  const db = new Database(file);
  edit(db);
  let prev = '0'.repeat(64);
  const rows = db.prepare('SELECT * FROM events ORDER BY id').all() as Row[];
  const set = db.prepare('UPDATE events SET prev_hash = ?, hash = ? WHERE id = ?');
  for (const r of rows) {
    const h = rowHash(prev, r);
    set.run(prev, h, r.id);
    prev = h;
  }
  db.prepare('UPDATE chain_head SET id = ?, hash = ? WHERE one = 1').run(rows[rows.length - 1]?.id ?? 0, prev);
  db.close();
  return file;
}

const env = (): NodeJS.ProcessEnv => ({ ...process.env, AIRLOCK_HOME: path.join(root, 'no-daemon-here') });

test('a history rewritten with every hash and the head recomputed passes audit verify alone, and fails against an anchor taken before, naming the anchored event', async () => {
  // The rewrite: an allowed read becomes a denied one, and its summary says something else.
  const file = rewrite((db) => db.prepare("UPDATE events SET decision = 'deny', summary = 'nothing read' WHERE id = 3").run());
  const alone = await airlock(['audit', 'verify', '--db', file], { env: env() });
  assert.equal(alone.code, 0, 'the limit this closes: a recomputed chain verifies on its own');
  const anchored = await airlock(['audit', 'verify', '--db', file, '--anchor', anchor], { env: env() });
  assert.equal(anchored.code, 1, anchored.stdout + anchored.stderr);
  assert.match(anchored.stderr, new RegExp(`^TAMPERED: event ${anchorId} is not the event the anchor names .*history up to event ${anchorId} was rewritten since the anchor was taken`));
  const json = await airlock(['audit', 'verify', '--db', file, '--anchor', anchor, '--json'], { env: env() });
  const v = JSON.parse(json.stdout) as { ok: boolean; count: number; firstBad?: { id: number }; anchors?: { ok: boolean }[] };
  assert.deepEqual([json.code, v.ok, v.count, v.firstBad?.id, v.anchors?.map((a) => a.ok)], [1, false, total, anchorId, [false]]);
  // The intact copy passes with the same anchor (control).
  const intact = await airlock(['audit', 'verify', '--db', base, '--anchor', anchor], { env: env() });
  assert.equal(intact.code, 0, intact.stderr);
  assert.match(intact.stdout, /^ok: \d+ events, chain intact; the anchor matches$/m);
});

test('a history cut back to before the anchor and rebuilt fails against it: the anchored event is gone', async () => {
  const file = rewrite((db) => db.prepare('DELETE FROM events WHERE id >= ?').run(anchorId));
  assert.equal((await airlock(['audit', 'verify', '--db', file], { env: env() })).code, 0, 'verifies alone');
  const r = await airlock(['audit', 'verify', '--db', file, '--anchor', anchor], { env: env() });
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`event ${anchorId} of the anchor is not in history any more \\(history holds ${anchorId - 1} events\\)`));
});

test('an anchor proves history up to it: a rewrite after it passes that anchor and fails a later one', async () => {
  const later = (() => {
    const db = new Database(base, { readonly: true });
    const h = db.prepare('SELECT id, hash FROM chain_head').get() as { id: number; hash: string };
    db.close();
    return `${h.id}:${h.hash}`;
  })();
  const file = rewrite((db) => db.prepare("UPDATE events SET summary = 'edited later' WHERE id = ?").run(total));
  assert.equal((await airlock(['audit', 'verify', '--db', file, '--anchor', anchor], { env: env() })).code, 0);
  const both = await airlock(['audit', 'verify', '--db', file, '--anchor', anchor, '--anchor', later, '--json'], { env: env() });
  const v = JSON.parse(both.stdout) as { ok: boolean; firstBad?: { id: number }; anchors?: { id: number; ok: boolean }[] };
  assert.deepEqual([both.code, v.ok, v.firstBad?.id, v.anchors?.map((a) => [a.id, a.ok])], [1, false, total, [[anchorId, true], [total, false]]]);
});

test('audit head works with the daemon stopped and on a copy; a malformed --anchor is a usage error (64), not a verdict', async () => {
  const h = await airlock(['audit', 'head', '--db', base, '--json'], { env: env() });
  assert.equal(h.code, 0, h.stderr);
  const head = JSON.parse(h.stdout) as { id: number; hash: string; anchor: string };
  assert.deepEqual([head.id, head.anchor], [total, `${total}:${head.hash}`]);
  const stopped = await airlock(['audit', 'head'], { env: { ...process.env, AIRLOCK_HOME: home } });
  assert.equal(stopped.code, 0, stopped.stderr);
  for (const bad of ['12', '12:xyz', `x:${head.hash}`, `1:${head.hash}00`, `${head.hash}`]) {
    const r = await airlock(['audit', 'verify', '--db', base, '--anchor', bad], { env: env() });
    assert.equal(r.code, 64, `${bad}: ${r.stderr}`);
    assert.match(r.stderr, /--anchor .*not an anchor; give ID:HASH exactly as `airlock audit head` printed it/);
  }
});
