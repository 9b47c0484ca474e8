// bubblewrap sandbox for `airlock exec --sandbox` and `airlock task start --sandbox`.
//
// What the sandboxed process sees: the system read-only (/usr, /etc, /bin…), the working
// directory read-write, an empty in-memory home and /tmp, Airlock's request.sock and the
// task's SSH socket — nothing else of the user's files, no ui.sock (it cannot approve
// itself), and no network unless the approved request was a network transfer. New
// session (no TIOCSTI into our terminal) and it dies with us.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SandboxSpec {
  cwd: string;
  /** The user's home: replaced by an empty tmpfs. */
  home: string | null;
  network: boolean;
  /** Bound at the same path, so AIRLOCK_REQUEST_SOCK keeps working inside. */
  requestSock: string | null;
  sshAuthSock: string | null;
  /** Paths hidden even when they lie inside cwd (Airlock's own home: ui.sock, db, keys). */
  hide: string[];
  /** Extra read-only paths the user asked for (`--ro PATH`). */
  readOnly: string[];
}

export type PathKind = { kind: 'dir' | 'file' | 'missing' } | { kind: 'symlink'; target: string };

export function probePath(p: string): PathKind {
  try {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return { kind: 'symlink', target: fs.readlinkSync(p) };
    return { kind: st.isDirectory() ? 'dir' : 'file' };
  } catch {
    return { kind: 'missing' };
  }
}

/** System locations shared read-only (merged-/usr systems have symlinks for /bin, /lib…). */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix', '/run/systemd/resolve'];

const inside = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith('/') ? parent : parent + '/');

/** Why this cwd cannot be sandboxed (it would expose the home directory), or null. */
export function unsafeSandboxCwd(cwd: string, home: string | null): string | null {
  if (cwd === '/') return 'the working directory is / (everything would be writable)';
  if (home && inside(home, cwd)) return `the working directory ${cwd} holds your home directory (~/.ssh would be visible); run from a project directory`;
  return null;
}

/** The bwrap argv (without the command). Pure apart from `probe`. */
export function bwrapArgs(spec: SandboxSpec, probe: (p: string) => PathKind = probePath): string[] {
  const a: string[] = ['--die-with-parent', '--new-session', '--unshare-all'];
  if (spec.network) a.push('--share-net');
  for (const p of SYSTEM) {
    const k = probe(p);
    if (k.kind === 'symlink') a.push('--symlink', k.target, p);
    else if (k.kind !== 'missing') a.push('--ro-bind', p, p);
  }
  a.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  // An empty home first; when cwd is inside it, the workspace is bound into it below.
  if (spec.home) a.push('--tmpfs', spec.home);
  for (const p of spec.readOnly) if (probe(p).kind !== 'missing') a.push('--ro-bind', p, p);
  a.push('--bind', spec.cwd, spec.cwd);
  // Airlock's own files must stay out of reach even when they live under the workspace.
  for (const h of spec.hide) {
    if (!inside(h, spec.cwd)) continue;
    const k = probe(h);
    if (k.kind === 'dir') a.push('--tmpfs', h);
    else if (k.kind !== 'missing') a.push('--ro-bind', '/dev/null', h);
  }
  if (spec.requestSock && probe(spec.requestSock).kind !== 'missing') a.push('--bind', spec.requestSock, spec.requestSock);
  if (spec.sshAuthSock && probe(spec.sshAuthSock).kind !== 'missing') a.push('--bind', spec.sshAuthSock, spec.sshAuthSock);
  a.push('--chdir', spec.cwd);
  if (spec.requestSock) a.push('--setenv', 'AIRLOCK_REQUEST_SOCK', spec.requestSock);
  if (spec.sshAuthSock) a.push('--setenv', 'SSH_AUTH_SOCK', spec.sshAuthSock);
  else a.push('--unsetenv', 'SSH_AUTH_SOCK');
  // Inside, AIRLOCK_HOME would point at a hidden directory; the request socket is explicit.
  a.push('--unsetenv', 'AIRLOCK_HOME');
  return a;
}

/** bwrap on PATH, or null. */
export function findBwrap(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.AIRLOCK_BWRAP) return fs.existsSync(env.AIRLOCK_BWRAP) ? env.AIRLOCK_BWRAP : null;
  for (const dir of (env.PATH ?? '/usr/bin:/bin').split(':')) {
    if (!dir) continue;
    const p = path.join(dir, 'bwrap');
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
}

export const NO_BWRAP =
  '--sandbox needs bubblewrap (bwrap), which is not installed or not on PATH; install it (Debian/Ubuntu: apt install bubblewrap, Fedora: dnf install bubblewrap). Nothing was run.';
