// Exit codes of `airlock` (documented in the README and in `airlock --help`).
export const EXIT = {
  ok: 0,
  /** A check failed: `audit verify` found tampering, `check` was denied. */
  failed: 1,
  /** Bad usage or bad arguments. */
  usage: 64,
  /** The daemon is not running / not reachable. */
  unavailable: 69,
  /** Something broke inside Airlock. */
  internal: 70,
  /** `exec`/`check`: the request was denied (as a shell reports "cannot execute"). */
  denied: 126,
} as const;

export const EXIT_HELP = `Exit codes:
  0    success (for check/exec: allowed; exec returns the command's own code)
  1    check failed (audit verify found tampering)
  64   usage error (bad option or argument)
  69   the Airlock daemon is not running (start it: airlock serve)
  70   internal error
  126  denied (check, exec): one line on stderr says who denied and why`;
