// Filling the FTS index in small batches. Shared by the main thread (a full catch-up
// before any search, so search always sees every event) and the maintenance worker
// (small chunks in the background, so no decision waits long for the write lock).
// Each batch reads and moves the high-water mark (search_index_mark) inside its own write
// transaction, so the two never index the same event twice.
import type { Database } from 'better-sqlite3';

export function indexBatch(db: Database, limit: number): number {
  const run = db.transaction((): number => {
    const from = (db.prepare('SELECT upto FROM search_index_mark WHERE one = 1').get() as { upto: number } | undefined)?.upto ?? 0;
    const to = (db.prepare('SELECT coalesce(max(id), ?) AS m FROM (SELECT id FROM events WHERE id > ? ORDER BY id LIMIT ?)').get(from, from, limit) as { m: number }).m;
    if (to <= from) return 0;
    db.prepare(
      `INSERT INTO events_fts(rowid, summary, resource, tool, reason)
       SELECT id, summary, coalesce(resource, ''), tool, reason FROM events WHERE id > ? AND id <= ? ORDER BY id`,
    ).run(from, to);
    db.prepare('INSERT INTO search_index_mark (one, upto) VALUES (1, ?) ON CONFLICT(one) DO UPDATE SET upto = excluded.upto').run(to);
    return to - from;
  });
  return run.immediate();
}
