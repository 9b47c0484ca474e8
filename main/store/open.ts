// Opening airlock.db: for the daemon (read-write, checked, migrated) and for readers
// (`airlock history`, `airlock audit verify` without a daemon, `--db COPY`), which must
// never write anything — not even SQLite's -wal/-shm files next to a read-only copy.
import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkFileKind, damaged, faultOf, LOCK_TRY_MS, START_LOCK_WAIT_MS, StoreFault } from './faults';
import { migrate } from './migrations';
import { sqliteNativeBinding } from './native-binding';

/** A clean history up to this size is read into memory for read-only use (see openReadOnly). */
const IN_MEMORY_MAX_BYTES = 1024 * 1024 * 1024;

function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * SQLite's own structural check (b-tree pages, free list, record formats; not the index
 * contents, which `integrity_check` would add at several times the cost). Damage found here
 * is corruption of the file; a broken hash chain on a file that passes is tampering.
 * Returns null when the file is sound, else what SQLite found (first 3 problems).
 */
export function quickCheck(db: Database.Database): string | null {
  const rows = db.pragma('quick_check(3)') as { quick_check: string }[];
  if (rows.length === 1 && rows[0]!.quick_check === 'ok') return null;
  // Its report has one problem per line, after a "*** in database main ***" header: one line here.
  const problems = rows
    .flatMap((r) => r.quick_check.split('\n'))
    .map((l) => l.trim())
    .filter((l) => l && !/^\*\*\* in database/.test(l));
  return `quick_check: ${problems.slice(0, 3).join('; ')}`;
}

/** The daemon's connection: refuses a damaged file (quick_check) before migrating it. */
export function openForDaemon(file: string): Database.Database {
  let db: Database.Database | null = null;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const st = statOrNull(file);
    const kind = checkFileKind(file, st, false);
    if (kind) throw kind;
    // SQLite would quietly open a file it may not write read-only, and fail at the first answer.
    if (st) fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    db = new Database(file, { nativeBinding: sqliteNativeBinding() });
    // At start a lock may be a backup finishing: wait a little longer than for one answer.
    db.pragma(`busy_timeout = ${START_LOCK_WAIT_MS}`);
    fs.chmodSync(file, 0o600);
    const bad = quickCheck(db);
    if (bad) throw damaged(file, bad);
    // WAL + NORMAL: a committed transaction survives a crash of this process (kill -9);
    // only a power loss can drop the last few (the chain head goes with them: same transaction).
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    const edited = chainTablesMissing(db, file);
    if (edited) throw edited;
    // Checkpoints run in a worker (Store.startMaintenance); the main thread never waits for one.
    // The limit is a safety net should the worker fall behind.
    db.pragma('wal_autocheckpoint = 20000');
    // Still START_LOCK_WAIT_MS per statement: the daemon's own start-up writes follow.
    // Store.serving() shortens it once requests come in.
    return db;
  } catch (e) {
    try {
      db?.close();
    } catch {
      // Closing a connection that failed half-way: the original error is what matters.
    }
    throw faultOf(e, file, START_LOCK_WAIT_MS);
  }
}

/**
 * A reader's connection that writes nothing. A WAL database opened read-only still gets
 * -wal and -shm files created next to it (or fails in a read-only directory), so a clean
 * file (no -wal with content) is read into memory and opened from there, its two header
 * bytes that say "WAL" set to "rollback journal" in the copy (no row changes; the file on
 * disk is never touched). A file with a live -wal (the daemon running, or killed) is opened
 * read-only in place: its committed answers are in that -wal, and its -shm exists already.
 */
export function openReadOnly(file: string): Database.Database {
  let db: Database.Database | null = null;
  try {
    const st = statOrNull(file);
    const kind = checkFileKind(file, st, true);
    if (kind) throw kind;
    fs.accessSync(file, fs.constants.R_OK);
    const wal = statOrNull(`${file}-wal`);
    if ((wal === null || wal.size === 0) && st!.size <= IN_MEMORY_MAX_BYTES) {
      const copy = fs.readFileSync(file);
      if (copy.length === 0) throw notHistory(file);
      if (copy.length >= 20 && copy[18] === 2 && copy[19] === 2) copy[18] = copy[19] = 1;
      db = new Database(copy, { readonly: true, nativeBinding: sqliteNativeBinding() });
    } else {
      db = new Database(file, { readonly: true, fileMustExist: true, nativeBinding: sqliteNativeBinding() });
      db.pragma(`busy_timeout = ${LOCK_TRY_MS}`);
    }
    // A reader must not show a damaged history as if it were whole (nor call it tampered).
    const bad = quickCheck(db);
    if (bad) throw damaged(file, bad);
    if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'`).get()) throw notHistory(file);
    const edited = chainTablesMissing(db, file);
    if (edited) throw edited;
    return db;
  } catch (e) {
    try {
      db?.close();
    } catch {
      // As above.
    }
    throw faultOf(e, file);
  }
}

/**
 * Every Airlock history has had its chain head table since the first migration: a file with
 * events but no chain_head had it dropped (`DROP TABLE chain_head`), which is tampering on a
 * sound file — said as such in one line (exit 1), not an internal error with a stack.
 */
function chainTablesMissing(db: Database.Database, file: string): StoreFault | null {
  if (db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chain_head'`).get()) return null;
  return new StoreFault(
    'tampered',
    file,
    `${file}: TAMPERED: its chain_head table is gone, so where history ends cannot be checked (the file itself is sound: SQLite's quick_check passed; a table was dropped outside Airlock); keep the file for inspection and restore a backup, or move it aside and let \`airlock serve\` start a new history`,
  );
}

function notHistory(file: string): StoreFault {
  return new StoreFault('damaged', file, `${file} holds no Airlock history (no events table): check the path (--db, AIRLOCK_HOME)`);
}
