// Group commit (issue 15, main/store/group-commit.ts): events appended in one turn of the
// event loop are written in one transaction, in chain order; nothing is visible to another
// connection (so nothing may be answered) before that commit; a lone event waits only for
// the end of the current turn; reads see every staged event; a failed batch gives no answer
// and the chain goes on from the last committed event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { Store, type NewEvent } from '../../main/store';
import { GENESIS, rowHash } from '../../main/store/chain';
import type { Grant } from '../../main/contract/approver';

function tmpDb(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'al-gc-')), 'airlock.db');
}

function ev(i: number, p: Partial<NewEvent> = {}): NewEvent {
  return {
    ts: 1_700_000_000_000 + i, task: null, source: 'api', tool: 'fs.write', action: 'write', resource: `/r/${i}`, resources: [`/r/${i}`],
    summary: `write number ${i}`, args: null, cwd: null, process: null, ssh: null, risk: { level: 'low', reasons: [] },
    decision: 'allow', decidedBy: 'grant', grant: null, scope: null, reason: 'ok', ...p,
  };
}

/** commitStats without the time spent writing (checked on its own: it is a duration, > 0 once anything was written). */
function counts(s: Store): { batches: number; items: number; largest: number } {
  const { writeMs, ...rest } = s.commitStats();
  assert.ok(writeMs > 0 && Number.isFinite(writeMs), `writeMs ${writeMs}`);
  return rest;
}

function grant(id: string, p: Partial<Grant> = {}): Grant {
  return {
    id, task: null, source: 'api', tool: 'fs.write', action: 'write', resource: '**', key: null, effect: 'allow', expiresAt: null,
    usesLeft: null, forwarded: false, note: null, createdAt: 1, createdBy: 'human', revokedAt: null, lastUsedAt: null, ...p,
  };
}

/** What another process (a reader, or the daemon after a crash) would find on disk. */
function onDisk(file: string): { ids: number[]; head: { id: number; hash: string } | undefined } {
  const db = new Database(file, { readonly: true });
  try {
    const ids = (db.prepare('SELECT id FROM events ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    const head = db.prepare('SELECT id, hash FROM chain_head').get() as { id: number; hash: string } | undefined;
    return { ids, head };
  } finally {
    db.close();
  }
}

const turn = () => new Promise<void>((r) => setImmediate(r));

test('events appended in one turn are committed in ONE transaction, in chain order, and not before', async () => {
  const file = tmpDb();
  const s = new Store(file);
  try {
    const evs = Array.from({ length: 50 }, (_, i) => s.stageEvent(ev(i)));
    // Ids and hashes are given at once, chained in call order...
    assert.deepEqual(evs.map((e) => e.id), Array.from({ length: 50 }, (_, i) => i + 1));
    // ...but nothing is on disk yet: no answer may leave on the strength of these.
    assert.deepEqual(onDisk(file).ids, []);
    let settled = 0;
    for (const e of evs) void s.committed(e).then(() => settled++);
    await Promise.resolve();
    assert.equal(settled, 0, 'a commit promise settled before the batch was written');
    await Promise.all(evs.map((e) => s.committed(e)));
    assert.equal(settled, 50);
    assert.deepEqual(counts(s), { batches: 1, items: 50, largest: 50 });
    const disk = onDisk(file);
    assert.deepEqual(disk.ids, evs.map((e) => e.id));
    assert.deepEqual(disk.head, { id: 50, hash: evs[49]!.hash });
    // The chain, row by row, is the one the events were given.
    const db = new Database(file, { readonly: true });
    let prev = GENESIS;
    for (const r of db.prepare('SELECT * FROM events ORDER BY id').all() as (Parameters<typeof rowHash>[1] & { id: number; prev_hash: string; hash: string })[]) {
      assert.equal(r.prev_hash, prev, `event ${r.id} does not follow the one before`);
      assert.equal(r.hash, rowHash(prev, r));
      assert.equal(r.hash, evs[r.id - 1]!.hash);
      prev = r.hash;
    }
    db.close();
    assert.deepEqual(s.verifyChain(), { ok: true, count: 50 });
  } finally {
    s.close();
  }
});

test('a lone event does not wait for company: it is committed by the end of the current turn', async () => {
  const file = tmpDb();
  const s = new Store(file);
  try {
    for (let i = 0; i < 5; i++) {
      const e = s.stageEvent(ev(i));
      let done = false;
      void s.committed(e).then(() => (done = true));
      await turn();
      assert.equal(done, true, `event ${e.id} was not committed within one turn of the event loop`);
      assert.equal(onDisk(file).ids.length, i + 1);
    }
    // One batch per turn: five lone events, five transactions of one.
    assert.deepEqual(counts(s), { batches: 5, items: 5, largest: 1 });
  } finally {
    s.close();
  }
});

test('batches across turns keep one chain; reads (history, verify, getEvent) see staged events at once', async () => {
  const file = tmpDb();
  const s = new Store(file);
  try {
    for (let t = 0; t < 4; t++) {
      const batch = Array.from({ length: 10 + t }, (_, i) => s.stageEvent(ev(t * 100 + i)));
      // Read before the turn ends: the read flushes first, so history never lags decisions.
      const h = s.queryHistory({ limit: 1 });
      assert.equal(h.events[0]!.id, batch[batch.length - 1]!.id);
      assert.equal(s.getEvent(batch[0]!.id)!.hash, batch[0]!.hash);
      await turn();
    }
    assert.deepEqual(s.verifyChain(), { ok: true, count: 10 + 11 + 12 + 13 });
    assert.deepEqual(counts(s), { batches: 4, items: 46, largest: 13 });
  } finally {
    s.close();
  }
});

test('grant effects ride in the batch: a created grant and spent uses are seen by grant reads at once', async () => {
  const s = new Store(tmpDb());
  try {
    s.insertGrant(grant('g_limited', { usesLeft: 2 }));
    const a = s.stageEvent(ev(1, { grant: 'g_limited' }), { consumeGrants: ['g_limited'] });
    const b = s.stageEvent(ev(2, { decidedBy: 'human', scope: 'always' }), { createGrant: grant('g_new') });
    assert.equal(s.getGrant('g_limited')!.usesLeft, 1);
    assert.ok(s.activeGrants(2).some((g) => g.id === 'g_new'));
    await Promise.all([s.committed(a), s.committed(b)]);
    assert.deepEqual(s.verifyChain(), { ok: true, count: 2 });
  } finally {
    s.close();
  }
});

test('uses spent in one batch are written once per grant, and the grant ends as if each event had written its own', async () => {
  // The same decisions through two stores: one batch (uses coalesced per grant) and one
  // transaction per event (appendEvent). The grants must read back identically.
  const decisions = (s: Store, one: (e: NewEvent, fx: Parameters<Store['stageEvent']>[1]) => void) => {
    s.insertGrant(grant('g_lim', { usesLeft: 5 }));
    s.insertGrant(grant('g_open'));
    s.insertGrant(grant('g_other', { usesLeft: 3 }));
    one(ev(1, { ts: 1000 }), { consumeGrants: ['g_lim', 'g_open'] });
    one(ev(2, { ts: 1005 }), { consumeGrants: ['g_open'] });
    // A grant made by a decision and spent by a later one in the same batch.
    one(ev(3, { ts: 1010, decidedBy: 'human', scope: 'always' }), { createGrant: grant('g_made', { usesLeft: 4, createdAt: 1010 }) });
    one(ev(4, { ts: 1020 }), { consumeGrants: ['g_made', 'g_lim'] });
    // The clock stepped back: last_used_at is the last event's time, as one UPDATE per event left it.
    one(ev(5, { ts: 990 }), { consumeGrants: ['g_lim'] });
    one(ev(6, { ts: 1030 }), { consumeGrants: ['g_made'] });
  };
  const batched = new Store(tmpDb());
  const single = new Store(tmpDb());
  try {
    const staged: ReturnType<Store['stageEvent']>[] = [];
    decisions(batched, (e, fx) => staged.push(batched.stageEvent(e, fx)));
    await Promise.all(staged.map((e) => batched.committed(e)));
    assert.equal(counts(batched).largest, 6, 'the six events were not one batch');
    decisions(single, (e, fx) => single.appendEvent(e, fx));
    const read = (s: Store) => ['g_lim', 'g_open', 'g_other', 'g_made'].map((id) => {
      const g = s.getGrant(id)!;
      return { id, usesLeft: g.usesLeft, lastUsedAt: g.lastUsedAt };
    });
    assert.deepEqual(read(batched), [
      { id: 'g_lim', usesLeft: 2, lastUsedAt: 990 },
      { id: 'g_open', usesLeft: null, lastUsedAt: 1005 },
      { id: 'g_other', usesLeft: 3, lastUsedAt: null },
      { id: 'g_made', usesLeft: 2, lastUsedAt: 1030 },
    ]);
    assert.deepEqual(read(batched), read(single));
    // A grant spent to zero in the batch is no longer active.
    assert.equal(batched.activeGrants(2000).some((g) => g.id === 'g_lim'), true);
    const more: ReturnType<Store['stageEvent']>[] = [];
    for (let i = 0; i < 2; i++) more.push(batched.stageEvent(ev(10 + i, { ts: 2000 + i }), { consumeGrants: ['g_lim'] }));
    await Promise.all(more.map((e) => batched.committed(e)));
    assert.equal(batched.getGrant('g_lim')!.usesLeft, 0);
    assert.equal(batched.activeGrants(3000).some((g) => g.id === 'g_lim'), false);
    assert.deepEqual(batched.verifyChain(), { ok: true, count: 8 });
  } finally {
    batched.close();
    single.close();
  }
});

test('a failed batch gives no answer: every commit in it rejects, nothing is written, the chain goes on from the last commit', async () => {
  const file = tmpDb();
  const s = new Store(file);
  try {
    const first = s.stageEvent(ev(1));
    await s.committed(first);
    s.insertGrant(grant('g_dup'));
    // The second event's grant collides with an existing id: the whole transaction fails.
    const a = s.stageEvent(ev(2));
    const b = s.stageEvent(ev(3, { decidedBy: 'human', scope: 'always' }), { createGrant: grant('g_dup') });
    const c = s.stageEvent(ev(4));
    const results = await Promise.allSettled([a, b, c].map((e) => s.committed(e)));
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected', 'rejected']);
    assert.deepEqual(onDisk(file).ids, [1]);
    // The next event chains to event 1 (ids 2-4 were never given out as answers).
    const next = s.stageEvent(ev(5));
    await s.committed(next);
    assert.equal(next.id, 2);
    assert.deepEqual(s.verifyChain(), { ok: true, count: 2 });
  } finally {
    s.close();
  }
});

test('close() commits what is staged', () => {
  const file = tmpDb();
  const s = new Store(file);
  for (let i = 0; i < 3; i++) s.stageEvent(ev(i));
  s.close();
  assert.deepEqual(onDisk(file).ids, [1, 2, 3]);
});

test("a key's last-used time stays off the signing path: kept in memory, written at most once a second and at close", async () => {
  const file = tmpDb();
  const s = new Store(file);
  const usage = () => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('SELECT fingerprint, last_used_at FROM key_usage').all();
    } finally {
      db.close();
    }
  };
  s.touchKey('SHA256:a', 5);
  s.touchKey('SHA256:a', 7);
  assert.deepEqual(usage(), [], 'no write per signature');
  // The daemon's own reads see it at once.
  assert.deepEqual([...s.keyUsage()], [['SHA256:a', 7]]);
  assert.deepEqual(usage(), [{ fingerprint: 'SHA256:a', last_used_at: 7 }]);
  s.touchKey('SHA256:b', 9);
  await new Promise((r) => setTimeout(r, 1300));
  assert.equal(usage().length, 2, 'written by the one-second timer');
  s.touchKey('SHA256:b', 11);
  s.close();
  assert.deepEqual(usage(), [{ fingerprint: 'SHA256:a', last_used_at: 7 }, { fingerprint: 'SHA256:b', last_used_at: 11 }]);
});

/** A grant's uses and last-used time as another process (or the daemon after a crash) reads them from disk. */
function grantOnDisk(file: string, id: string): { uses_left: number | null; last_used_at: number | null } {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT uses_left, last_used_at FROM grants WHERE id = ?').get(id) as { uses_left: number | null; last_used_at: number | null };
  } finally {
    db.close();
  }
}

test("a grant without a use limit: its last-used time is written at most once a second, every read shows the latest at once, close writes it", () => {
  const file = tmpDb();
  const s = new Store(file);
  try {
    s.insertGrant(grant('g_open'));
    const use = (ts: number) => s.appendEvent(ev(ts, { ts }), { consumeGrants: ['g_open'] });
    use(10_000);
    assert.equal(grantOnDisk(file, 'g_open').last_used_at, 10_000, 'the first use is written');
    use(10_500);
    use(10_999);
    assert.equal(grantOnDisk(file, 'g_open').last_used_at, 10_000, 'uses within the second wait');
    // What the grants view reads (grants.list, the policy's cache) shows the latest use at once.
    assert.equal(s.getGrant('g_open')!.lastUsedAt, 10_999);
    assert.equal(s.listGrants({ now: 20_000 }).find((g) => g.id === 'g_open')!.lastUsedAt, 10_999);
    assert.equal(s.listGrants({ now: 20_000, includeInactive: true }).find((g) => g.id === 'g_open')!.lastUsedAt, 10_999);
    assert.equal(s.activeGrants(20_000).find((g) => g.id === 'g_open')!.lastUsedAt, 10_999);
    use(11_000);
    assert.equal(grantOnDisk(file, 'g_open').last_used_at, 11_000, 'a second after the time on disk, the use writes again');
    // A clock that stepped back writes at once: the time on disk is never ahead of a later use.
    use(9_000);
    assert.equal(grantOnDisk(file, 'g_open').last_used_at, 9_000);
    use(9_400);
    assert.equal(grantOnDisk(file, 'g_open').last_used_at, 9_000);
    assert.equal(grantOnDisk(file, 'g_open').uses_left, null);
    assert.deepEqual(s.verifyChain(), { ok: true, count: 6 });
  } finally {
    s.close();
  }
  assert.equal(grantOnDisk(file, 'g_open').last_used_at, 9_400, 'close writes the time that waited');
});

test('uses are never deferred: every commit that spends a limited grant writes its uses and last-used time, within the same second too', async () => {
  const file = tmpDb();
  const s = new Store(file);
  try {
    s.insertGrant(grant('g_lim', { usesLeft: 3 }));
    for (const [i, left] of [[1, 2], [2, 1], [3, 0]] as const) {
      s.appendEvent(ev(i, { ts: 50_000 + i }), { consumeGrants: ['g_lim'] });
      // Read from another connection right after the commit: what a crash now would leave.
      assert.deepEqual(grantOnDisk(file, 'g_lim'), { uses_left: left, last_used_at: 50_000 + i });
    }
    assert.equal(s.activeGrants(60_000).some((g) => g.id === 'g_lim'), false);
    // The same through group commit: one batch spending an open and a limited grant.
    s.insertGrant(grant('g_open'));
    s.insertGrant(grant('g_two', { usesLeft: 2 }));
    s.appendEvent(ev(10, { ts: 70_000 }), { consumeGrants: ['g_open'] });
    const staged = [s.stageEvent(ev(11, { ts: 70_001 }), { consumeGrants: ['g_open', 'g_two'] }), s.stageEvent(ev(12, { ts: 70_002 }), { consumeGrants: ['g_two', 'g_open'] })];
    await Promise.all(staged.map((e) => s.committed(e)));
    assert.deepEqual(grantOnDisk(file, 'g_two'), { uses_left: 0, last_used_at: 70_002 });
    assert.deepEqual(grantOnDisk(file, 'g_open'), { uses_left: null, last_used_at: 70_000 });
    assert.equal(s.getGrant('g_open')!.lastUsedAt, 70_002);
  } finally {
    s.close();
  }
});

test('a batch that rolled back teaches nothing about a grant: the next use of it is written', async () => {
  const file = tmpDb();
  const s = new Store(file);
  try {
    s.insertGrant(grant('g_open'));
    s.insertGrant(grant('g_dup'));
    // The batch spends g_open (its first use) and then fails on a duplicate grant id.
    const a = s.stageEvent(ev(1, { ts: 30_000 }), { consumeGrants: ['g_open'] });
    const b = s.stageEvent(ev(2, { ts: 30_001, decidedBy: 'human', scope: 'always' }), { createGrant: grant('g_dup') });
    const results = await Promise.allSettled([a, b].map((e) => s.committed(e)));
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
    assert.equal(grantOnDisk(file, 'g_open').last_used_at, null);
    assert.equal(s.getGrant('g_open')!.lastUsedAt, null, 'an unanswered decision is no use');
    s.appendEvent(ev(3, { ts: 30_100 }), { consumeGrants: ['g_open'] });
    assert.equal(grantOnDisk(file, 'g_open').last_used_at, 30_100);
  } finally {
    s.close();
  }
});
