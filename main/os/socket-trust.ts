// May a client trust the daemon socket at this path? Every client (the hook, `airlock check`,
// exec, the MCP proxy, watch, the CLI) asks before connecting: without XDG_RUNTIME_DIR the
// sockets live in the shared temp dir, and another local user can plant
// `/tmp/airlock-<uid>/request.sock` (their own directory, or a symbolic link) while our
// daemon is not running, so that a fake daemon answers "allow". sshd's StrictModes is the
// model: every directory on the way must be ours or root's and not writable by others
// (unless sticky, like /tmp), every symbolic link ours or root's, the socket itself ours or
// root's. The walk stops at the first root-owned directory that others cannot write: only
// root can change what is beneath it. A few lstat calls, no imports beyond fs/path: the
// hook runs this on every tool call.
// `import x = require()`: no esbuild namespace copy in the hook bundle (see integrations/claude-code/hook.ts).
import fs = require('node:fs');
import path = require('node:path');

/** The error a client gets for a socket it must not use; `code` lets callers tell it apart. */
export class UntrustedSocketError extends Error {
  readonly code = 'EUNTRUSTED';
  constructor(
    readonly socketPath: string,
    readonly why: string,
  ) {
    super(
      `Airlock will not connect to ${socketPath}: ${why}. Another user may have planted it to answer in the daemon's place. ` +
        'Remove it (if it is yours to remove), or set XDG_RUNTIME_DIR to your private runtime directory or AIRLOCK_HOME to a directory only you can write, for the daemon and its clients alike.',
    );
    this.name = 'UntrustedSocketError';
  }
}

const lstatOrNull = (p: string): fs.Stats | null => {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
};

/** Why the directories from `dir` upward cannot be trusted, or null. */
function dirChainDistrust(dir: string, uid: number): string | null {
  for (let d = dir; ; d = path.dirname(d)) {
    const st = lstatOrNull(d);
    // Missing: nothing to connect to there; connect() reports ENOENT.
    if (st) {
      const trusted = st.uid === uid || st.uid === 0;
      if (st.isSymbolicLink()) {
        if (!trusted) return `${d} is a symbolic link of uid ${st.uid}, not yours`;
      } else {
        if (!trusted) return `${d} belongs to uid ${st.uid}, not to you`;
        if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) return `${d} is writable by group or others (mode ${(st.mode & 0o7777).toString(8)})`;
        if (st.uid === 0 && st.uid !== uid && st.isDirectory()) return null;
      }
    }
    if (path.dirname(d) === d) return null;
  }
}

/** Why `sock` must not be connected to, or null when it may (always null without uids: Windows). */
export function socketDistrust(sock: string, uid: number | undefined = process.getuid?.()): string | null {
  if (uid === undefined) return null;
  const abs = path.resolve(sock);
  const dir = path.dirname(abs);
  const literal = dirChainDistrust(dir, uid);
  if (literal) return literal;
  let realDir: string;
  try {
    realDir = fs.realpathSync(dir);
  } catch {
    return null;
  }
  // A link of ours (dotfile setups) is followed: where it leads must hold up too.
  if (realDir !== dir) {
    const real = dirChainDistrust(realDir, uid);
    if (real) return real;
  }
  const st = lstatOrNull(abs);
  if (!st) return null;
  if (st.uid !== uid && st.uid !== 0) return `${abs} belongs to uid ${st.uid}, not to you`;
  if (st.isSymbolicLink()) {
    let target: string;
    try {
      target = fs.realpathSync(abs);
    } catch {
      return null;
    }
    const t = fs.lstatSync(target);
    if (t.uid !== uid && t.uid !== 0) return `${abs} leads to ${target}, which belongs to uid ${t.uid}, not to you`;
    return dirChainDistrust(path.dirname(target), uid);
  }
  return null;
}

/** Throws UntrustedSocketError when `sock` must not be connected to. */
export function assertTrustedSocket(sock: string): void {
  const why = socketDistrust(sock);
  if (why) throw new UntrustedSocketError(sock, why);
}
