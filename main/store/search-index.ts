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

/** Indexes the events with `from < id <= to` into an FTS table (the index, or a read-only connection's tail of it): the same columns for both. */
const fillSql = (table: string) =>
  `INSERT INTO ${table}(rowid, summary, resource, tool, reason)
   SELECT id, summary, coalesce(resource, ''), tool, reason FROM events WHERE id > ? AND id <= ? ORDER BY id`;

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
  const index = db.prepare(fillSql('events_fts'));
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

/**
 * A read-only connection (`airlock history --text` without the daemon, or with --db while it
 * runs) cannot fill the index, and the daemon indexes only in pauses (background-index.ts):
 * up to MAX_BACKLOG events can be committed and not indexed yet, or stay so after a kill -9.
 * Searching the index alone missed exactly the newest events. So such a connection indexes
 * the tail (events past the mark) itself, in a TEMP table of its own, in memory: nothing is
 * written to the database. Returns the name of that table, or null when there is no tail.
 * Rebuilt only when the tail changed; a tail is at most what the daemon left unindexed.
 */
const tails = new WeakMap<Database, { from: number; to: number }>();
export const TAIL_TABLE = 'temp.events_fts_tail';

export function indexTail(db: Database): string | null {
  let from: number;
  try {
    from = indexedUpTo(db);
  } catch {
    // A file from before the mark (migration 005): its index was filled by a trigger, no tail.
    return null;
  }
  const to = (db.prepare('SELECT coalesce(max(id), 0) AS m FROM events').get() as { m: number }).m;
  if (to <= from) return null;
  const had = tails.get(db);
  if (had && had.from === from && had.to === to) return TAIL_TABLE;
  if (!had) {
    db.pragma('temp_store = MEMORY');
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${TAIL_TABLE} USING fts5(summary, resource, tool, reason, tokenize = 'unicode61')`);
  }
  db.exec(`DELETE FROM ${TAIL_TABLE}`);
  db.prepare(fillSql(TAIL_TABLE)).run(from, to);
  tails.set(db, { from, to });
  return TAIL_TABLE;
}
