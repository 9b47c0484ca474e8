// bubblewrap sandbox for `airlock exec --sandbox` and `airlock task start --sandbox`.
//
// What the sandboxed process sees: the system read-only (/usr, /etc, /bin…), the working
// directory read-write, an empty in-memory home and /tmp, and of Airlock only its task's
// own directory (tasks/<id>/: the task's request.sock, SSH agent.sock and egress files,
// read-only) — never the shared request.sock (a request there could leave the task out
// and escape its deny grants, or start another task), no ui.sock (it cannot approve
// itself), no database; without a task nothing of Airlock at all. And never the network: the sandbox has its own empty network namespace, and
// its only way out is its task's egress proxy (egress.sock, reached through the relay in
// main/integrations/egress/relay.ts), where every new destination is a request. New
// session (no TIOCSTI into our terminal) and it dies with us.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SandboxSpec {
  /** Bound read-write at its own path; a real path (the caller resolves links). */
  cwd: string;
  /** The user's home: replaced by an empty tmpfs. */
  home: string | null;
  /** Ignored: the network is always unshared (kept so older callers still compile). The way out is `egress`. */
  network?: boolean;
  /** The task's egress proxy: its socket and the read-only files the sandbox needs (CA bundle, Node preload). */
  egress?: SandboxEgress | null;
  /**
   * The task's own socket directory (tasks/<id>/), bound read-only at the same path, so
   * AIRLOCK_REQUEST_SOCK and SSH_AUTH_SOCK point at its request.sock and agent.sock inside.
   * Null: no Airlock socket at all.
   */
  task: { id: string; dir: string } | null;
  /** Paths hidden even when they lie inside cwd or a --ro path (Airlock's own directories: ui.sock, db, keys). Real paths. */
  hide: string[];
  /** Extra read-only paths the user asked for (`--ro PATH`). */
  readOnly: string[];
  /** The caller's environment variables the sandbox does not get (sandbox-env.ts: credentials). */
  withhold?: string[];
}

export interface SandboxEgress {
  sock: string;
  caBundle: string | null;
  nodePreload: string | null;
  /** Environment variable → placeholder (never a secret's value). */
  placeholders: Record<string, string>;
}

/** Where clients look for a CA bundle; each points at the task's bundle when it has one. */
export const CA_BUNDLE_VARS = ['SSL_CERT_FILE', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'GIT_SSL_CAINFO', 'CURL_CA_BUNDLE'] as const;

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
// Of systemd-resolved's directory only the files /etc/resolv.conf may link to: beside them
// is its varlink socket (io.systemd.Resolve), which looks names up on the real network for
// whoever connects, a way for data out of a sandbox that has no network.
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix', '/run/systemd/resolve/resolv.conf', '/run/systemd/resolve/stub-resolv.conf'];

const NIX_DAEMON_SOCKETS = '/nix/var/nix/daemon-socket';

const inside = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith('/') ? parent : parent + '/');

/**
 * Why this cwd cannot be sandboxed (it would expose the home directory, or it lies inside
 * one of Airlock's own directories, `airlock`: its sockets, database, keys and other tasks'
 * sockets), or null. Every path is a real path (symbolic links resolved): bwrap binds what a
 * link leads to, so a check on the link's own name would let `--cwd LINK-TO-HOME` through.
 */
export function unsafeSandboxCwd(cwd: string, home: string | null, airlock: readonly string[] = []): string | null {
  if (cwd === '/') return 'the working directory is / (everything would be writable)';
  if (home && inside(home, cwd)) return `the working directory ${cwd} holds your home directory (~/.ssh would be visible); run from a project directory`;
  const own = airlock.find((a) => inside(cwd, a));
  if (own) return `the working directory ${cwd} is inside Airlock's own directory ${own} (its sockets, database and keys would be visible); run from a project directory`;
  return null;
}

/**
 * The host's kernel trees: the sandbox has its own /proc (its pid namespace) and /dev (a few
 * safe devices); a `--ro` bind of the host's would lay them over those — every process's
 * command line (another task's `airlock exec --task TOKEN`), and without a user namespace
 * `/proc/PID/root` of the human's processes, a way to the real, writable files; the host's
 * device list and /dev/shm; the kernel's and devices' state in /sys.
 */
const HOST_TREES = ['/proc', '/dev', '/sys'];

/**
 * Why `--ro PATH` cannot be shared, or null: it lies inside one of Airlock's own
 * directories, is or holds one of the host's kernel trees (HOST_TREES: `--ro /` too), or
 * holds the home directory (~/.ssh, as for a working directory). Real paths.
 */
export function unsafeSandboxReadOnly(p: string, airlock: readonly string[], home: string | null = null): string | null {
  const own = airlock.find((a) => inside(p, a));
  if (own) return `--ro ${p} is inside Airlock's own directory ${own} (its sockets, database and keys never go into a sandbox); share a project directory`;
  const tree = HOST_TREES.find((t) => inside(p, t) || inside(t, p));
  if (tree) return `--ro ${p} ${inside(p, tree) ? 'is inside' : 'holds'} ${tree}, the host's ${tree === '/proc' ? 'processes (their command lines, and a way to their files)' : tree === '/dev' ? 'devices and shared memory' : 'kernel and device state'}; the sandbox has its own /proc and /dev: share a project directory`;
  if (home && inside(home, p)) return `--ro ${p} holds your home directory (~/.ssh would be visible); share a project directory`;
  return null;
}

/** The bwrap argv (without the command). Pure apart from `probe`. */
export function bwrapArgs(spec: SandboxSpec, probe: (p: string) => PathKind = probePath): string[] {
  // --unshare-all includes the network, and nothing here ever shares it back.
  // --cap-drop ALL: bwrap keeps every capability when it runs as root, and with CAP_SYS_ADMIN
  // the agent could remount a read-only bind (a --ro path, its task's socket directory, /etc)
  // writable and write through it to the real files.
  const a: string[] = ['--die-with-parent', '--new-session', '--unshare-all', '--cap-drop', 'ALL'];
  for (const p of SYSTEM) {
    const k = probe(p);
    if (k.kind === 'symlink') a.push('--symlink', k.target, p);
    else if (k.kind !== 'missing') a.push('--ro-bind', p, p);
  }
  // /nix holds the Nix daemon's socket: through it a build (a fixed-output one has the
  // network) runs outside the sandbox. The store stays readable; the socket does not go in.
  if (probe(NIX_DAEMON_SOCKETS).kind === 'dir') a.push('--tmpfs', NIX_DAEMON_SOCKETS);
  a.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  // An empty home first; when cwd is inside it, the workspace is bound into it below.
  if (spec.home) a.push('--tmpfs', spec.home);
  // Binds and hides in the order of their paths, parents first, so each one shows through
  // the ones above it: Airlock's directory (or another program's socket directory) inside the
  // workspace is hidden after the workspace is bound, and a workspace inside a hidden
  // directory (a project under a temp directory shared with --ro) is bound after the hiding.
  // At the same path a hide comes first: what the caller named explicitly is what shows.
  const mounts: { at: string; args: string[]; hide: boolean }[] = [];
  for (const p of spec.readOnly) if (probe(p).kind !== 'missing') mounts.push({ at: p, args: ['--ro-bind', p, p], hide: false });
  mounts.push({ at: spec.cwd, args: ['--bind', spec.cwd, spec.cwd], hide: false });
  // Airlock's own files (and other programs' sockets) must stay out of reach even when they
  // live under the workspace or under a path shared with --ro (`--ro /tmp` holds
  // <tmp>/airlock-<uid>/ui.sock, and tmux's socket).
  for (const h of spec.hide) {
    if (!inside(h, spec.cwd) && !spec.readOnly.some((r) => inside(h, r))) continue;
    const k = probe(h);
    if (k.kind === 'dir') mounts.push({ at: h, args: ['--tmpfs', h], hide: true });
    else if (k.kind !== 'missing') mounts.push({ at: h, args: ['--ro-bind', '/dev/null', h], hide: true });
  }
  const depth = (p: string) => p.split('/').filter(Boolean).length;
  for (const m of mounts.map((m, i) => ({ ...m, i })).sort((x, y) => depth(x.at) - depth(y.at) || Number(y.hide) - Number(x.hide) || x.i - y.i)) a.push(...m.args);
  // The directory, not the sockets one by one: connecting works on a read-only bind, the
  // agent cannot plant files there, and the task's egress files are in it too.
  const dir = spec.task && probe(spec.task.dir).kind === 'dir' ? spec.task.dir : null;
  if (dir) a.push('--ro-bind', dir, dir);
  const inDir = (f: string) => dir !== null && f.startsWith(dir + '/');
  const eg = spec.egress && probe(spec.egress.sock).kind !== 'missing' ? spec.egress : null;
  if (eg) {
    if (!inDir(eg.sock)) a.push('--bind', eg.sock, eg.sock);
    for (const f of [eg.caBundle, eg.nodePreload]) if (f && !inDir(f) && probe(f).kind !== 'missing') a.push('--ro-bind', f, f);
  }
  a.push('--chdir', spec.cwd);
  // Before anything Airlock sets: a placeholder of the same name is set after, so it wins.
  for (const n of spec.withhold ?? []) a.push('--unsetenv', n);
  if (eg) {
    a.push('--setenv', 'AIRLOCK_EGRESS_SOCK', eg.sock);
    if (eg.caBundle) for (const v of CA_BUNDLE_VARS) a.push('--setenv', v, eg.caBundle);
    // The sandbox sees only placeholders, whatever the caller's environment held under those names.
    for (const [name, placeholder] of Object.entries(eg.placeholders)) a.push('--setenv', name, placeholder);
  }
  const requestSock = dir ? path.join(dir, 'request.sock') : null;
  const sshAuthSock = dir ? path.join(dir, 'agent.sock') : null;
  if (requestSock && probe(requestSock).kind !== 'missing') a.push('--setenv', 'AIRLOCK_REQUEST_SOCK', requestSock);
  else a.push('--unsetenv', 'AIRLOCK_REQUEST_SOCK');
  if (sshAuthSock && probe(sshAuthSock).kind !== 'missing') a.push('--setenv', 'SSH_AUTH_SOCK', sshAuthSock);
  else a.push('--unsetenv', 'SSH_AUTH_SOCK');
  if (spec.task) a.push('--setenv', 'AIRLOCK_TASK', spec.task.id);
  else a.push('--unsetenv', 'AIRLOCK_TASK');
  // Inside, AIRLOCK_HOME would point at a hidden directory; the request socket is explicit.
  // The token is for the shared socket, which is not there: it does not go in either.
  a.push('--unsetenv', 'AIRLOCK_HOME', '--unsetenv', 'AIRLOCK_TASK_TOKEN');
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
