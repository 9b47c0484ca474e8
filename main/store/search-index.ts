// Filling the FTS index in small batches: a full catch-up before any search (so search
// always sees every event), and slices in the background when the daemon is quiet
// (background-index.ts). Each batch reads and moves the high-water mark (search_index_mark)
// inside its own write transaction, so no event is indexed twice.
import type { Database, Statement, Transaction } from 'better-sqlite3';

interface Prepared {
  mark: Statement;
  upto: Statement;
  index: Statement;
  setMark: Statement;
  run: Transaction<(limit: number) => number>;
}

/**
 * Statements are prepared once per connection (issue 15: the daemon runs a slice every
 * 50 ms, and preparing four statements each time showed in its profile).
 */
const prepared = new WeakMap<Database, Prepared>();

function prepare(db: Database): Prepared {
  let p = prepared.get(db);
  if (p) return p;
  const mark = db.prepare('SELECT upto FROM search_index_mark WHERE one = 1');
  const upto = db.prepare('SELECT coalesce(max(id), ?) AS m FROM (SELECT id FROM events WHERE id > ? ORDER BY id LIMIT ?)');
  const index = db.prepare(
    `INSERT INTO events_fts(rowid, summary, resource, tool, reason)
     SELECT id, summary, coalesce(resource, ''), tool, reason FROM events WHERE id > ? AND id <= ? ORDER BY id`,
  );
  const setMark = db.prepare('INSERT INTO search_index_mark (one, upto) VALUES (1, ?) ON CONFLICT(one) DO UPDATE SET upto = excluded.upto');
  const run = db.transaction((limit: number): number => {
    const from = (mark.get() as { upto: number } | undefined)?.upto ?? 0;
    const to = (upto.get(from, from, limit) as { m: number }).m;
    if (to <= from) return 0;
    index.run(from, to);
    setMark.run(to);
    return to - from;
  });
  p = { mark, upto, index, setMark, run };
  prepared.set(db, p);
  return p;
}

/** The id of the last event in the search index. */
export function indexedUpTo(db: Database): number {
  return (prepare(db).mark.get() as { upto: number } | undefined)?.upto ?? 0;
}

export function indexBatch(db: Database, limit: number): number {
  return prepare(db).run.immediate(limit);
}
