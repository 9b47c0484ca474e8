// Exit codes of `airlock` (documented in the README and in `airlock --help`).
export const EXIT = {
  ok: 0,
  /** A check failed: `audit verify` found tampering, `check` was denied. */
  failed: 1,
  /** Bad usage or bad arguments. */
  usage: 64,
  /** sysexits EX_DATAERR: the database file is damaged (SQLite-level corruption, not tampering). */
  damaged: 65,
  /** sysexits EX_DATAERR too: a file Airlock must edit is not valid (`hook claude-code --install`'s settings.json). */
  dataError: 65,
  /** sysexits EX_NOINPUT: the database cannot be opened (missing, a directory, no permission). */
  cannotOpen: 66,
  /** The daemon is not running / not reachable. */
  unavailable: 69,
  /** Something broke inside Airlock. */
  internal: 70,
  /** sysexits EX_TEMPFAIL: the database is locked by another process; try again. */
  locked: 75,
  /** `exec`/`check`: the request was denied (as a shell reports "cannot execute"). */
  denied: 126,
} as const;

export const EXIT_HELP = `Exit codes:
  0    success (for check/exec: allowed; exec returns the command's own code)
  1    check failed (audit verify found tampering; a dropped chain_head table)
  64   usage error (bad option or argument; --sandbox run from a directory holding
       your home directory, or /)
  65   the database file is damaged (corruption, not tampering), or a file to edit is not
       valid (hook --install's settings.json, left untouched): one line says what to do
  66   the database cannot be opened (missing, a directory, no permission; history and
       audit verify with no database yet)
  69   the Airlock daemon is not running (start it: airlock serve), or --sandbox
       without bubblewrap
  70   internal error
  75   the database is locked by another process: close it and try again
  126  denied (check, exec): one line on stderr says who denied and why`;

/** The exit code for a database fault (main/store/faults.ts). */
export function faultExit(kind: 'damaged' | 'cannot-open' | 'locked' | 'tampered'): number {
  if (kind === 'tampered') return EXIT.failed;
  return kind === 'damaged' ? EXIT.damaged : kind === 'cannot-open' ? EXIT.cannotOpen : EXIT.locked;
}
