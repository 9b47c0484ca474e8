// Other programs' sockets must stay out of a sandbox, not only Airlock's. A Unix socket
// can be connected to through a read-only bind, and several of the ones a desktop session
// keeps in its temp and runtime directories run whatever they are sent, outside the sandbox:
// tmux (`tmux new-window CMD`, or send-keys into the human's `airlock watch`), the X server
// (type into a terminal), the D-Bus session bus and the systemd user manager (start a unit),
// the human's own ssh-agent (sign without Airlock), an editor's server (emacsclient --eval).
// So a sandbox working directory or `--ro` path that is or holds such a directory gets it
// hidden: the session directories (runtime dir, tmux's, X11's) wholesale, and in the shared
// temp directories every entry that is or holds a socket when the sandbox starts. Named
// pipes count as sockets: one opens for writing through a read-only bind too, and some
// programs take commands from one (mpv's --input-file runs `run CMD`). A working
// directory that IS a shared temp directory, or lies inside a session directory, is refused:
// read-write, whatever socket a program makes there later would be the agent's too.
import * as fs from 'node:fs';
import * as path from 'node:path';

const inside = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith('/') ? parent : parent + '/');

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

const uniq = (xs: string[]) => [...new Set(xs)];

/** Temp directories every program of the user shares (and where tmux, X11, ssh-agent put sockets). Real paths. */
export function sharedTempDirs(env: NodeJS.ProcessEnv): string[] {
  return uniq(['/tmp', '/var/tmp', '/dev/shm', env.TMPDIR, env.TMUX_TMPDIR].filter((p): p is string => !!p && path.isAbsolute(p)).map(real));
}

/** Directories that hold only a session's sockets and state: hidden wholesale. Real paths. */
export function sessionDirs(env: NodeJS.ProcessEnv, uid: number): string[] {
  const tmuxRoots = ['/tmp', env.TMUX_TMPDIR].filter((p): p is string => !!p && path.isAbsolute(p));
  return uniq(['/run', env.XDG_RUNTIME_DIR, ...tmuxRoots.map((r) => path.join(r, `tmux-${uid}`)), '/tmp/.X11-unix', '/tmp/.ICE-unix'].filter((p): p is string => !!p && path.isAbsolute(p)).map(real));
}

/** How much of the shared temp directories one sandbox start may look at before it refuses. */
export interface ScanBudget {
  entries: number;
  ms: number;
  perEntry: number;
  depth: number;
  started: number;
  seen: number;
}
export const SCAN_BUDGET: Readonly<Omit<ScanBudget, 'started' | 'seen'>> = { entries: 100_000, ms: 10_000, perEntry: 256, depth: 4 };

/**
 * The entries of `dir` that are a socket or hold one within SCAN_BUDGET.depth levels; an
 * entry too big or unreadable to look through counts as holding one (fail closed). Null
 * when the whole budget is spent (the caller refuses to start the sandbox).
 */
export function socketHolders(dir: string, budget: ScanBudget = { ...SCAN_BUDGET, started: Date.now(), seen: 0 }): string[] | null {
  let top: fs.Dirent[];
  try {
    top = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  const spent = () => budget.seen > budget.entries || Date.now() - budget.started > budget.ms;
  for (const e of top) {
    budget.seen++;
    if (spent()) return null;
    const p = path.join(dir, e.name);
    if (e.isSocket() || e.isFIFO()) out.push(p);
    else if (e.isDirectory() && holdsSocket(p, budget, spent)) out.push(p);
    if (spent()) return null;
  }
  return out;
}

function holdsSocket(dir: string, budget: ScanBudget, spent: () => boolean): boolean {
  let left = budget.perEntry;
  const walk = (d: string, depth: number): boolean => {
    let h: fs.Dir;
    try {
      h = fs.opendirSync(d);
    } catch (e) {
      // Not ours to read (another user's 0700 directory): nothing of it is reachable either.
      return (e as NodeJS.ErrnoException).code !== 'EACCES';
    }
    try {
      for (let x = h.readSync(); x; x = h.readSync()) {
        budget.seen++;
        if (--left < 0 || spent()) return true;
        if (x.isSocket() || x.isFIFO()) return true;
        if (x.isDirectory() && depth > 1 && walk(path.join(d, x.name), depth - 1)) return true;
      }
      return false;
    } finally {
      h.closeSync();
    }
  };
  return walk(dir, budget.depth - 1);
}

export interface SocketPlan {
  /** Why the sandbox cannot start (exit 64), or null. */
  refuse: string | null;
  /** Paths to hide when they lie inside cwd or a --ro path (bwrapArgs' `hide`). */
  hide: string[];
}

/** What to refuse or hide of other programs' sockets for this cwd and these --ro paths (real paths). */
export function sandboxSocketPlan(cwd: string, readOnly: readonly string[], env: NodeJS.ProcessEnv, uid: number): SocketPlan {
  const temps = sharedTempDirs(env);
  const sessions = sessionDirs(env, uid);
  const asTemp = temps.find((t) => t === cwd);
  if (asTemp) return { refuse: `the working directory ${cwd} is a temp directory every program shares (tmux, X11 and ssh-agent keep their sockets there, a way out of the sandbox); run from a project directory`, hide: [] };
  const inSession = sessions.find((s) => inside(cwd, s));
  if (inSession) return { refuse: `the working directory ${cwd} is inside ${inSession}, where your session keeps its sockets (a way out of the sandbox); run from a project directory`, hide: [] };
  for (const r of readOnly) {
    const s = sessions.find((x) => inside(r, x));
    if (s) return { refuse: `--ro ${r} is inside ${s}, where your session keeps its sockets (a way out of the sandbox); share a project directory`, hide: [] };
  }
  const shared = [cwd, ...readOnly];
  const reached = (p: string) => shared.some((x) => inside(p, x));
  const hide = sessions.filter(reached);
  const budget: ScanBudget = { ...SCAN_BUDGET, started: Date.now(), seen: 0 };
  for (const t of temps.filter(reached)) {
    const found = socketHolders(t, budget);
    if (found === null) return { refuse: `${t} is shared with the sandbox and too big to look through for other programs' sockets in time; share a project directory instead`, hide: [] };
    hide.push(...found);
  }
  return { refuse: null, hide: uniq(hide) };
}
