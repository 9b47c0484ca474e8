// Where a path really leads: symbolic links resolved the way the kernel walks them, so
// grants and risk judge the target (`dir/h/pre-commit` with `h → .git/hooks` is a git
// hook). Like realpath(3) for the part that exists, then the rest appended: a write may
// create the last components, and a dangling link is followed to the file it would create.
//
// Bounded, because it runs on the daemon's event loop for every request that names paths:
// at most MAX_LINKS links per path (ELOOP, as Linux's 40), MAX_STEPS lstat/readlink calls
// and BUDGET_MS per request. /proc is not followed: its "magic links" (/proc/self/cwd,
// /proc/<pid>/root, fd/N) mean the *daemon's* process there, not the agent's, and some read
// as "pipe:[…]"; such a path stays as written (risk.ts marks it as a place to be careful).
import * as fs from 'node:fs';
import { LinkBudgetSpent, protectedOtherName } from './hard-links';
import { expandTilde } from './user-homes';
import { expandGlob, GlobTooBig, MAX_GLOB_ENTRIES, MAX_GLOB_MATCHES } from './glob-paths';

export const MAX_LINKS = 40;
export const MAX_STEPS = 2000;
/**
 * Wall-clock budget per request. 50 ms was too tight on a loaded machine (the soak saw
 * ordinary requests run out and get asked); 200 ms is still far below a human's notice.
 * Running out never reads as "no link": the request is asked (core/real-paths.ts), never
 * allowed as a read.
 */
export const BUDGET_MS = 200;
/** Paths resolved per request; the rest are reported as not resolved. */
export const MAX_PATHS = 64;

export interface RealPaths {
  /** literal → where it really leads, only for the paths where the two differ. */
  real: Map<string, string>;
  /** Why some paths were not resolved (budget, link loop), or null. */
  incomplete: string | null;
  /** literal → a protected file that is the same file under another name (a hard link, main/os/hard-links.ts). */
  hardLinks: Map<string, string>;
  /** A glob asked for (`globs`) → the paths bash makes of it, each with its real target beside it when that differs (glob-paths.ts). */
  globs: Map<string, string[]>;
}

interface Budget {
  steps: number;
  deadline: number;
}

class OutOfBudget extends Error {}

function expandHome(p: string): string | null {
  if (p.startsWith('~')) return expandTilde(p);
  return p.startsWith('/') ? p : null;
}

/**
 * The kernel's walk: each component lstat'ed, links spliced in, `..` taken from the real parent.
 * `final.st` is the lstat of the last component when it exists (for the hard-link check).
 */
function walk(abs: string, b: Budget, final: { st?: fs.Stats } = {}): string | 'loop' {
  let queue = abs.split('/').filter((s) => s !== '' && s !== '.');
  let cur = '';
  let exists = true;
  let links = 0;
  while (queue.length) {
    const seg = queue.shift()!;
    if (seg === '..') {
      cur = cur.slice(0, cur.lastIndexOf('/'));
      continue;
    }
    const next = `${cur}/${seg}`;
    if (!exists || next === '/proc') {
      // Past the first missing component (or into /proc) nothing more can be a link we know.
      exists = false;
      cur = next;
      continue;
    }
    if (--b.steps < 0 || Date.now() > b.deadline) throw new OutOfBudget();
    let st: fs.Stats | undefined;
    try {
      // throwIfNoEntry: a missing component (ENOENT, ENOTDIR) is the common case — a file a
      // write would create — and building the exception for it cost most of this walk
      // (the profile of issue 15: ~80 µs a request, more than the commit).
      st = fs.lstatSync(next, { throwIfNoEntry: false });
    } catch {
      st = undefined; // EACCES and the like: the same as missing.
    }
    if (st === undefined) {
      // It would be created (or cannot be looked into): the rest is taken as written.
      exists = false;
      cur = next;
      continue;
    }
    if (!st.isSymbolicLink()) {
      cur = next;
      if (queue.length === 0) final.st = st;
      continue;
    }
    if (++links > MAX_LINKS) return 'loop';
    let target: string;
    try {
      target = fs.readlinkSync(next);
    } catch {
      exists = false;
      cur = next;
      continue;
    }
    if (target.startsWith('/')) cur = '';
    queue = [...target.split('/').filter((s) => s !== '' && s !== '.'), ...queue];
  }
  return cur === '' ? '/' : cur;
}

/**
 * Resolves every absolute (or `~/`) path of a request under one budget. A path is listed in
 * `real` when its target differs from the path as written.
 */
export function resolveRealPaths(paths: readonly string[], budget: number | { claudeDirs?: readonly string[]; globs?: readonly string[] } = BUDGET_MS, ownFiles: readonly string[] = [], claudeDirs: readonly string[] = [], globs: readonly string[] = []): RealPaths {
  // The port's form (core/ports.ts PathResolver) passes the request's CLAUDE_CONFIG_DIR directories and globs second.
  const budgetMs = typeof budget === 'number' ? budget : BUDGET_MS;
  if (typeof budget !== 'number') {
    claudeDirs = budget.claudeDirs ?? claudeDirs;
    globs = budget.globs ?? globs;
  }
  const real = new Map<string, string>();
  const hardLinks = new Map<string, string>();
  const b: Budget = { steps: MAX_STEPS, deadline: Date.now() + budgetMs };
  // The hard-link look shares what it saw across the request's paths (main/os/hard-links.ts).
  const linkLook = Object.assign(b, { seen: new Map<string, fs.Stats | null>(), listed: new Map<string, string[]>() });
  let incomplete: string | null = null;
  let n = 0;
  for (const p of paths) {
    if (real.has(p)) continue;
    const abs = expandHome(p);
    if (abs === null) continue;
    if (++n > MAX_PATHS) {
      incomplete = `more than ${MAX_PATHS} paths to resolve`;
      break;
    }
    let r: string | 'loop';
    const final: { st?: fs.Stats } = {};
    try {
      r = walk(abs, b, final);
      // A file with more than one name may be a protected file under another one.
      const other = r !== 'loop' && final.st && final.st.nlink > 1 ? protectedOtherName(r, final.st, linkLook, ownFiles, claudeDirs) : null;
      if (other !== null) hardLinks.set(p, other);
    } catch (e) {
      if (e instanceof LinkBudgetSpent) {
        incomplete = `looking for the other names of ${p.slice(0, 120)} (a hard link) took too long`;
        break;
      }
      if (!(e instanceof OutOfBudget)) throw e;
      incomplete = `resolving symbolic links took too long (over ${MAX_STEPS} steps or ${budgetMs} ms)`;
      break;
    }
    if (r === 'loop') {
      incomplete = `${p}: too many levels of symbolic links (a loop)`;
      continue;
    }
    // Listed whenever the target is not the path as written: a link on the way, `.`/`..`
    // segments (a path glob never matches those, so the target is what a grant must cover),
    // or a `~` the path was written with: a grant or deny on `/home/me/mail/**` (or on
    // `~/mail/**`, which a pattern expands) never matched the word `~/mail/x` itself, so
    // `echo x > ~/mail/x` passed a deny on that directory (blackbox9).
    if (r !== p) real.set(p, r);
  }
  const expanded = new Map<string, string[]>();
  // A match that is a hard link to a protected file is that file too.
  const protectedName = (r: string, st: fs.Stats) => (st.nlink > 1 ? protectedOtherName(r, st, linkLook, ownFiles, claudeDirs) : null);
  if (!incomplete && globs.length) incomplete = expandGlobs(globs, b, expanded, protectedName);
  return { real, incomplete, hardLinks, globs: expanded };
}

/** Fills `out` with what each glob becomes (its matches and their real targets); returns why it stopped short, or null. */
function expandGlobs(globs: readonly string[], b: Budget, out: Map<string, string[]>, protectedName: (real: string, st: fs.Stats) => string | null): string | null {
  const gb = { matches: MAX_GLOB_MATCHES, entries: MAX_GLOB_ENTRIES, deadline: b.deadline };
  for (const g of globs) {
    if (out.has(g)) continue;
    const abs = expandHome(g);
    if (abs === null) continue;
    try {
      const paths: string[] = [];
      for (const m of expandGlob(abs, gb)) {
        paths.push(m);
        const final: { st?: fs.Stats } = {};
        const r = walk(m, b, final);
        if (r === 'loop') return `${m.slice(0, 120)}: too many levels of symbolic links (a loop)`;
        if (r !== m && !paths.includes(r)) paths.push(r);
        const other = final.st ? protectedName(r, final.st) : null;
        if (other !== null && !paths.includes(other)) paths.push(other);
      }
      if (paths.length) out.set(g, paths);
    } catch (e) {
      if (e instanceof GlobTooBig) return `expanding ${g.slice(0, 120)}: ${e.message}`;
      if (e instanceof LinkBudgetSpent) return `looking for the other names of a match of ${g.slice(0, 120)} (a hard link) took too long`;
      if (e instanceof OutOfBudget) return `expanding globs took too long (over ${MAX_STEPS} steps or the time budget)`;
      throw e;
    }
  }
  return null;
}
