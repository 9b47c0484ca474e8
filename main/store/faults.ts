// Database faults as the user meets them (issue 10, item 9): a locked, damaged or
// unreadable airlock.db becomes one StoreFault with one line that names the file and says
// what to do next; the CLI turns its kind into a sysexits code (main/cli/exit-codes.ts).
// Nothing here decides: the daemon denies what it cannot commit (core/broker.ts).

/** How long one attempt to write may wait for another process's lock (busy_timeout), in ms.
 *  Short, because better-sqlite3 waits on the daemon's only thread: nothing else runs meanwhile. */
export const LOCK_TRY_MS = 50;
/** How long a request may wait, in all, for a locked database before it is denied (retries
 *  with back-off between attempts; the daemon answers other work meanwhile). */
export const LOCK_BUDGET_MS = 2000;
/** How long `airlock serve` waits for a lock at start (migrations, clean-up) before giving up. */
export const START_LOCK_WAIT_MS = 2000;

export type FaultKind =
  /** SQLite-level damage (quick_check failed, "malformed", "not a database"): sysexits 65. */
  | 'damaged'
  /** Missing, a directory, no permission: sysexits 66. */
  | 'cannot-open'
  /** Another process holds the write lock: sysexits 75 (try again later). */
  | 'locked'
  /** A sound file whose history tables were edited away (the chain head dropped): exit 1, as tampering. */
  | 'tampered';

export class StoreFault extends Error {
  constructor(
    readonly kind: FaultKind,
    readonly file: string,
    message: string,
  ) {
    // One line, always: SQLite's own texts may hold line breaks.
    super(message.replace(/\s*[\r\n]+\s*/g, '; '));
    this.name = 'StoreFault';
  }
}

/** SQLite's own error code (better-sqlite3's SqliteError.code), or null. */
function sqliteCode(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : null;
}

/** SQLITE_BUSY (another connection holds the lock) or SQLITE_LOCKED, with any extended code. */
export function isLockError(e: unknown): boolean {
  if (e instanceof StoreFault) return e.kind === 'locked';
  const c = sqliteCode(e);
  return c !== null && (c.startsWith('SQLITE_BUSY') || c.startsWith('SQLITE_LOCKED'));
}

export function damaged(file: string, detail: string): StoreFault {
  return new StoreFault(
    'damaged',
    file,
    `${file} is damaged (SQLite: ${detail}): this is corruption of the file itself, not tampering with history; ` +
      `keep it for inspection (mv ${file} ${file}.damaged) and restore a backup, or let airlock serve start a new, empty history`,
  );
}

export function locked(file: string, waitedMs: number): StoreFault {
  return new StoreFault(
    'locked',
    file,
    `${file} is locked by another process (waited ${waitedMs} ms): close the program holding it (a sqlite3 shell, a backup tool) and try again`,
  );
}

function cannotOpen(file: string, why: string, fix: string): StoreFault {
  return new StoreFault('cannot-open', file, `cannot open ${file}: ${why}; ${fix}`);
}

/** Why `file` cannot be a database, judged before SQLite opens it (clearer than its errors). */
export function checkFileKind(file: string, st: { isFile(): boolean; isDirectory(): boolean } | null, mustExist: boolean): StoreFault | null {
  if (st === null) return mustExist ? cannotOpen(file, 'it does not exist', 'check the path (or AIRLOCK_HOME), or start the daemon once to create it') : null;
  if (st.isDirectory()) return cannotOpen(file, 'it is a directory, not a database file', `move it aside (mv ${file} ${file}.old) and start again`);
  if (!st.isFile()) return cannotOpen(file, 'it is not a regular file', `move it aside (mv ${file} ${file}.old) and start again`);
  return null;
}

/** Maps what SQLite (or the file system) threw while opening or reading `file` to a StoreFault; other errors pass unchanged. */
export function faultOf(e: unknown, file: string, waitedMs = LOCK_BUDGET_MS): unknown {
  if (e instanceof StoreFault) return e;
  const errno = (e as NodeJS.ErrnoException | null)?.code;
  if (errno === 'EACCES' || errno === 'EPERM') return cannotOpen(file, 'permission denied', `make it readable and writable by you (chmod 600 ${file})`);
  if (errno === 'EISDIR') return checkFileKind(file, { isFile: () => false, isDirectory: () => true }, true);
  const c = sqliteCode(e);
  if (c === null) return e;
  const msg = (e as Error).message;
  if (c.startsWith('SQLITE_CORRUPT') || c === 'SQLITE_NOTADB') return damaged(file, msg);
  if (isLockError(e)) return locked(file, waitedMs);
  if (c.startsWith('SQLITE_CANTOPEN') || c.startsWith('SQLITE_READONLY') || c === 'SQLITE_PERM' || c === 'SQLITE_AUTH') {
    return cannotOpen(file, `${msg} (${c})`, `check that it and its directory are yours and writable (chmod 600 ${file})`);
  }
  if (c.startsWith('SQLITE_IOERR')) return cannotOpen(file, `${msg} (${c})`, 'check the disk and that the path is a regular file');
  return e;
}
