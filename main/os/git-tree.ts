// What a git command that rewrites the work tree would write (core/ports.ts GitTreeSpec),
// worked out by the daemon before anything runs: `git checkout evil` writes what differs
// between HEAD (or the index) and evil, `git merge x` what x changed since the merge base,
// `git stash pop` what the stash holds, and so on. The repository belongs to the agent, so
// running git on it is itself an attack surface: every look goes through git-plumbing.ts
// (no configured program runs, no network, a 2 s deadline, an output cap). Anything that
// fails, times out, overflows or is not a plain answer is `unknown`, which the core turns
// into "placed nowhere" (asked), never into "covered by the repository's grant".
import * as path from 'node:path';
import { GIT_TREE_LIMITS, Looker, PLAIN_REV, Unknown, type Entry } from './git-plumbing';

// The shapes of core/ports.ts GitTreeSpec and GitTreeAnswer, repeated here: main/os is a leaf
// and imports nothing of the core (TypeScript checks the two agree where the daemon wires them).
type Op =
  | { kind: 'switch'; rev: string; force: boolean }
  | { kind: 'tree'; rev: string | null; within: string[] | null }
  | { kind: 'checkout'; word: string | null; path: string[] | null; rest: string[] | null; force: boolean }
  | { kind: 'merge'; revs: string[] }
  | { kind: 'pick'; revs: string[] }
  | { kind: 'rebase'; upstream: string; onto: string | null; branch: string | null }
  | { kind: 'stash'; rev: string }
  | { kind: 'worktree'; dir: string; rev: string | null; guess: string | null };
export interface TreeSpec {
  cwd: string;
  op: Op;
  afterCommit?: boolean;
}
export type TreeAnswer = { paths: string[]; links: { path: string; target: string }[]; hooksDir: string | null } | { unknown: string };


/**
 * The daemon's time for looks, shared by every request: a look runs synchronously while the
 * request is judged (as the real-path check does), so a flood of `git checkout` requests
 * from one agent at up to 2 s each would stall every prompt, signature and UI call behind
 * them. Within any `windowMs` the looks together may take `spendMs`; past it a look is not
 * made and the request is asked ("unknown"), which costs the flooding agent a prompt and
 * everyone else nothing. The daemon holds one (api/daemon.ts); a caller without one has a fresh one.
 */
export class LookBudget {
  private spent: { at: number; ms: number }[] = [];
  constructor(
    private readonly windowMs = 10_000,
    private readonly spendMs = 4_000,
    private readonly now: () => number = Date.now,
  ) {}
  /** The ms a look may take now (0: none). */
  left(): number {
    const t = this.now();
    this.spent = this.spent.filter((s) => t - s.at < this.windowMs);
    return Math.max(0, this.spendMs - this.spent.reduce((n, s) => n + s.ms, 0));
  }
  record(ms: number): void {
    this.spent.push({ at: this.now(), ms });
    if (this.spent.length > 10_000) this.spent.splice(0, this.spent.length - 10_000);
  }
}
/** Answers a GitTreeSpec; never throws, never runs a program the repository names. */
export function gitTreeWrites(spec: TreeSpec, ms = GIT_TREE_LIMITS.ms, budget: LookBudget = new LookBudget()): TreeAnswer {
  if (!path.isAbsolute(spec.cwd)) return { unknown: 'the directory git runs in is not known' };
  const left = budget.left();
  if (left <= 0) return { unknown: 'Airlock has spent its time for looking into git repositories for now (many such requests at once)' };
  const started = Date.now();
  try {
    return lookAt(spec, Math.min(ms, left));
  } finally {
    budget.record(Date.now() - started);
  }
}

function lookAt(spec: TreeSpec, ms: number): TreeAnswer {
  const l = new Looker(spec.cwd, ms);
  try {
    const top = l.git(['rev-parse', '--show-toplevel']).toString().replace(/\n$/, '');
    if (!path.isAbsolute(top)) return { unknown: 'the repository has no work tree' };
    l.top = top;
    const fmt = l.git(['rev-parse', '--show-object-format']).toString().trim();
    if (fmt !== 'sha1' && fmt !== 'sha256') return { unknown: `object format ${fmt.slice(0, 20)}` };
    l.format = fmt;
    const { entries, within } = look(l, spec);
    const byPath = new Map<string, Entry>();
    for (const e of entries) byPath.set(e.path, e);
    // worktree add writes the tree under its new directory, not under this work tree.
    const base = spec.op.kind === 'worktree' ? spec.op.dir : top;
    let paths = [...byPath.keys()].map((p) => path.join(base, p));
    if (within) paths = paths.filter((p) => within.some((w) => p === w || p.startsWith(w.endsWith('/') ? w : `${w}/`)));
    paths = [...new Set(paths)].sort();
    if (paths.length > GIT_TREE_LIMITS.paths) return { unknown: `it writes ${paths.length} files: too many to judge one by one` };
    const linkOids = new Map<string, string>();
    for (const e of entries) if (e.mode === '120000' && linkOids.size < 16) linkOids.set(path.join(base, e.path), e.oid);
    const links = [...linkOids].filter(([p]) => paths.includes(p)).map(([p, oid]) => ({ path: p, target: l.linkTarget(oid) }));
    return { paths, links, hooksDir: l.hooksDir() };
  } catch (e) {
    if (e instanceof Unknown) return { unknown: e.message };
    return { unknown: `looking at the repository failed (${e instanceof Error ? e.message.slice(0, 120) : 'error'})` };
  }
}

function look(l: Looker, spec: TreeSpec): { entries: Entry[]; within: string[] | null } {
  const out: Entry[] = [];
  const head = l.resolve('HEAD');
  // After `git add`/`git commit` in the same line, HEAD and the index are not what they are now:
  // the work tree's changes (what they will hold) are listed too.
  if (spec.afterCommit) {
    out.push(...l.workTree());
    if (head) out.push(...l.diffIndex(head));
  }
  const toCommit = (rev: string, force: boolean) => {
    const target = l.resolve(rev) ?? guessed(rev);
    if (head) out.push(...l.diffTrees(head, target));
    out.push(...l.diffIndex(target));
    if (force) out.push(...l.workTree());
  };
  // `git switch NAME` / `git checkout NAME` without a branch NAME take the one remote branch of
  // that name (--guess, on by default); more than one, or none: unknown.
  const guessed = (rev: string): string => {
    const g = remoteGuesses(l, rev);
    if (g.length !== 1) throw new Unknown(`${rev.slice(0, 40)} names no commit in this repository (a fetch first, a typo?)`);
    return l.must(g[0]);
  };
  const fromTree = (rev: string | null) => {
    if (rev !== null) out.push(...l.diffIndex(l.must(rev, 'tree')));
    out.push(...l.workTree());
  };
  const op = spec.op;
  switch (op.kind) {
    case 'switch':
      toCommit(op.rev, op.force);
      return { entries: out, within: null };
    case 'tree':
      fromTree(op.rev);
      return { entries: out, within: op.within };
    case 'checkout': {
      // git takes WORD as a revision when it names one (or, guessing, one remote's branch of
      // that name), as a path otherwise; when it could be both, both are listed.
      const asRev = op.word !== null ? l.resolve(op.word) : null;
      const inside = (ws: string[]) => (e: Entry) => {
        const p = path.join(l.top, e.path);
        return ws.some((w) => p === w || p.startsWith(`${w}/`));
      };
      if (op.rest === null || op.rest.length) {
        if (asRev) {
          fromTree(op.word);
          return { entries: out, within: op.rest };
        }
        const tree = l.workTree();
        return { entries: op.path === null || op.rest === null ? tree : tree.filter(inside([...op.path, ...op.rest])), within: null };
      }
      if (asRev) toCommit(op.word!, op.force);
      else if (op.word !== null && remoteGuesses(l, op.word).length) toCommit(op.word, op.force);
      const tree = l.workTree();
      return { entries: [...out, ...(op.path === null ? tree : tree.filter(inside(op.path)))], within: null };
    }
    case 'merge':
      for (const rev of op.revs) {
        const target = l.must(rev);
        const bases = head ? l.git(['merge-base', '--all', '--end-of-options', head, target]).toString().trim() : '';
        if (!bases) out.push(...l.allOf(target));
        else for (const b of bases.split('\n')) out.push(...l.diffTrees(b, target));
      }
      return { entries: out, within: null };
    case 'pick':
      for (const rev of op.revs) {
        const c = l.must(rev);
        const parents = l.parents(c);
        if (!parents.length) out.push(...l.allOf(c));
        for (const p of parents) out.push(...l.diffTrees(p, c));
      }
      return { entries: out, within: null };
    case 'rebase': {
      if (op.branch !== null) toCommit(op.branch, false);
      const start = l.must(op.branch ?? 'HEAD');
      const base = l.must(op.onto ?? op.upstream);
      out.push(...l.diffTrees(start, base), ...l.replayed(l.must(op.upstream), start));
      return { entries: out, within: null };
    }
    case 'worktree': {
      // `git worktree add DIR` without a commit takes the branch named like DIR's last part
      // when there is one (or one remote's), a new branch from HEAD otherwise.
      const guessed = op.rev === null && op.guess !== null ? (l.resolve(op.guess) ?? (remoteGuesses(l, op.guess).length === 1 ? l.resolve(remoteGuesses(l, op.guess)[0]) : null)) : null;
      out.push(...l.allOf(op.rev !== null ? l.must(op.rev) : (guessed ?? l.must('HEAD'))));
      return { entries: out, within: null };
    }
    case 'stash': {
      const s = l.must(op.rev);
      const [base, index, untracked] = l.parents(s);
      if (!base || !index) throw new Unknown(`${op.rev} is not a stash`);
      out.push(...l.diffTrees(base, s), ...l.diffTrees(base, index));
      if (untracked) out.push(...l.allOf(untracked));
      return { entries: out, within: null };
    }
  }
}

/** The remote branches `git checkout NAME` / `git switch NAME` would guess (refs/remotes/<any>/NAME). */
function remoteGuesses(l: Looker, name: string): string[] {
  if (!PLAIN_REV.test(name)) return [];
  const out = l.git(['for-each-ref', '--format=%(refname)', `refs/remotes/*/${name}`]).toString().trim();
  return out ? out.split('\n').filter((r) => PLAIN_REV.test(r)).slice(0, 8) : [];
}
