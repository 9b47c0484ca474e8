// What a git command that rewrites the work tree from the repository's objects would write
// (checkout, switch, reset --hard, merge, cherry-pick, revert, rebase, stash pop/apply/push,
// restore, checkout-index), as a question for the daemon: which target, compared with what.
// Those files are the target tree's, not the command line's: `git checkout evil` writes
// whatever the agent committed on `evil` (`.claude/settings.json`, a hook under
// core.hooksPath, package.json), so naming only the repository let a grant for the task's
// tree answer writes a Write of the same file would be asked for. This file stays pure: it
// only reads the words. The daemon asks git, read-only (main/os/git-tree.ts), and lists the
// paths as the part's resources (core/git-tree-paths.ts).
//
// Anything it cannot pose as a question is `unknown` (the part is placed nowhere: no grant for
// the tree covers it): an option it does not know, a word computed at run time, a target that
// is not a plain revision (`-evil`, whitespace), `git pull` (what it merges is fetched first),
// `--abort`/`--continue` (the state to restore is git's own), bisect, read-tree -u,
// `--recurse-submodules`, stash branch, `--pathspec-from-file`.
import * as path from 'node:path';
import type { GitTreeSpec } from '../ports';
import { resolvePath, type WordValue } from './sh-words';

export type GitTreeVerdict = { spec: GitTreeSpec } | { unknown: string } | null;

/**
 * A word git would take as a revision and nothing else: no option (`-x`), no whitespace or
 * control character, no shell-looking character, bounded. `HEAD@{1}`, `evil~2`, `v1.0^{}`,
 * `FETCH_HEAD`, `:/message` and a commit id pass; the daemon still passes it after
 * `--end-of-options`.
 */
export const PLAIN_REV = /^(?!-)[A-Za-z0-9._/@{}~^:+=,!-]{1,200}$/;

interface Parsed {
  pos: WordValue[];
  /** Words after `--`. */
  after: WordValue[];
  dashdash: boolean;
  opts: Map<string, string | true>;
  unknown: string | null;
}

/**
 * git's options for one subcommand: `flags` take no value, `values` take the next word (or
 * `--x=v`). Any other word starting with `-` makes the whole thing unknown, so an option this
 * file does not know can never change what is compared (`-fq`, `--no-overlay=x`, an abbreviation).
 */
function parse(args: WordValue[], flags: string, values = ''): Parsed {
  const f = new Set(flags.split(' ').filter(Boolean));
  const v = new Set(values.split(' ').filter(Boolean));
  const out: Parsed = { pos: [], after: [], dashdash: false, opts: new Map(), unknown: null };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.dynamic || a.mayBeOption) return { ...out, unknown: `a word computed at run time (${a.text.slice(0, 40)})` };
    if (out.dashdash) {
      out.after.push(a);
      continue;
    }
    if (a.text === '--') {
      out.dashdash = true;
      continue;
    }
    if (a.text === '-') {
      // `git checkout -`, `git merge -`, `git rebase -`, `git cherry-pick -`: the branch checked
      // out before (git reads `-` as `@{-1}`), never a path.
      out.pos.push({ ...a, text: '@{-1}' });
      continue;
    }
    if (!a.text.startsWith('-')) {
      out.pos.push(a);
      continue;
    }
    const eq = a.text.indexOf('=');
    const name = a.text.startsWith('--') && eq > 0 ? a.text.slice(0, eq) : a.text;
    if (f.has(name) && name === a.text) out.opts.set(name, true);
    else if (v.has(name)) {
      if (name !== a.text) out.opts.set(name, a.text.slice(eq + 1));
      else if (i + 1 < args.length && !args[i + 1].dynamic) out.opts.set(name, args[++i].text);
      else return { ...out, unknown: `the value of ${name} is not known` };
    } else return { ...out, unknown: `git option ${a.text.slice(0, 40)} is not one Airlock knows the effect of` };
  }
  return out;
}

const rev = (w: string | true | undefined | WordValue): string | null => {
  const t = typeof w === 'object' ? w.text : w;
  return typeof t === 'string' && PLAIN_REV.test(t) ? t : null;
};

/** Pathspecs as absolute paths, or null when one is a pattern (`*.ts`, `:(glob)…`): then nothing is filtered out. */
function within(words: WordValue[], cwd: string): string[] | null {
  if (words.some((w) => /[*?[\\]/.test(w.text) || w.text.startsWith(':'))) return null;
  return words.map((w) => path.posix.normalize(resolvePath(w.text, cwd)).replace(/(.)\/+$/, '$1'));
}

const QUIET = '-q --quiet --progress --no-progress';

/**
 * What the command would write in the work tree, as a question for the daemon; `unknown` when
 * it cannot be asked; null when the command does not write the work tree from the repository
 * (`git reset --soft`, `git stash list`, `git commit`).
 */
export function gitTreeChange(sub: string, rest: WordValue[], cwd: string | undefined): GitTreeVerdict {
  const ask = (op: GitTreeSpec['op']): GitTreeVerdict => (cwd === undefined || !cwd.startsWith('/') ? { unknown: 'the directory git runs in is not known' } : { spec: { cwd, op } });
  const bad = (p: Parsed): GitTreeVerdict => ({ unknown: p.unknown! });
  const dir = cwd ?? '/';
  switch (sub) {
    case 'checkout': {
      const p = parse(rest, `${QUIET} -f --force -m --merge --detach --ours --theirs -p --patch --overlay --no-overlay --no-track --guess --no-guess --ignore-skip-worktree-bits --ignore-other-worktrees -l -t --track --no-recurse-submodules`, '-b -B --orphan --conflict');
      if (p.unknown) return bad(p);
      const force = p.opts.has('-f') || p.opts.has('--force');
      const created = p.opts.get('-b') ?? p.opts.get('-B') ?? p.opts.get('--orphan');
      if (created !== undefined && !rev(created)) return { unknown: 'the new branch name is not a plain name' };
      const first = p.pos[0];
      if (first && !rev(first) && p.dashdash) return { unknown: `${first.text.slice(0, 40)} is not a plain revision` };
      // `-b NAME [start]`: a switch to start (HEAD when none); no pathspec then.
      if (created !== undefined) return p.pos.length > 1 || p.after.length ? { unknown: 'git checkout -b with paths' } : ask({ kind: 'switch', rev: first ? first.text : 'HEAD', force });
      // `checkout REV -- paths`, `checkout -- paths`: the paths from REV (or the index).
      if (p.dashdash) return ask({ kind: 'tree', rev: first ? first.text : null, within: within(p.after, dir) });
      if (!first) return force ? ask({ kind: 'switch', rev: 'HEAD', force }) : null;
      // Without `--` git decides: a revision when the first word names one, paths otherwise. A
      // word that is not a plain revision may still name one (`HEAD@{1 day ago}`): unknown.
      if (!rev(first)) return { unknown: `${first.text.slice(0, 40)} may name a revision Airlock does not read` };
      return ask({ kind: 'checkout', word: rev(first), path: within([first], dir), rest: within(p.pos.slice(1), dir), force });
    }
    case 'switch': {
      const p = parse(rest, `${QUIET} -f --force --discard-changes -m --merge --detach --guess --no-guess --no-track -t --track --ignore-other-worktrees --no-recurse-submodules`, '-c -C --create --force-create --conflict');
      if (p.unknown) return bad(p);
      if (p.opts.has('--orphan')) return { unknown: 'git switch --orphan empties the work tree' };
      const created = p.opts.get('-c') ?? p.opts.get('-C') ?? p.opts.get('--create') ?? p.opts.get('--force-create');
      if (created !== undefined && !rev(created)) return { unknown: 'the new branch name is not a plain name' };
      if (p.after.length || p.pos.length > (created !== undefined ? 1 : 1)) return { unknown: 'git switch with more words than a target' };
      const target = p.pos[0] ? rev(p.pos[0]) : created !== undefined ? 'HEAD' : null;
      if (!target) return { unknown: p.pos[0] ? `${p.pos[0].text.slice(0, 40)} is not a plain revision` : 'git switch without a target switches to what its configuration says' };
      return ask({ kind: 'switch', rev: target, force: p.opts.has('-f') || p.opts.has('--force') || p.opts.has('--discard-changes') });
    }
    case 'restore': {
      const p = parse(rest, `${QUIET} -W --worktree -S --staged --ours --theirs -m --merge -p --patch --overlay --no-overlay --ignore-unmerged --ignore-skip-worktree-bits --no-recurse-submodules`, '-s --source --conflict');
      if (p.unknown) return bad(p);
      const staged = p.opts.has('-S') || p.opts.has('--staged');
      const worktree = p.opts.has('-W') || p.opts.has('--worktree');
      if (staged && !worktree) return null; // the index only
      const source = p.opts.get('-s') ?? p.opts.get('--source');
      if (source !== undefined && !rev(source)) return { unknown: 'the source is not a plain revision' };
      // --staged --worktree without a source restores both from HEAD.
      const from = typeof source === 'string' ? source : staged ? 'HEAD' : null;
      return ask({ kind: 'tree', rev: from, within: within([...p.pos, ...p.after], dir) });
    }
    case 'reset': {
      const p = parse(rest, `${QUIET} --hard --soft --mixed --keep --merge -N --intent-to-add --no-refresh --refresh -p --patch --no-recurse-submodules`);
      if (p.unknown) return bad(p);
      const hard = p.opts.has('--hard');
      const keep = p.opts.has('--keep') || p.opts.has('--merge');
      if (!hard && !keep) return null; // the index and HEAD only
      if (p.pos.length > 1 || p.after.length) return { unknown: 'git reset with paths' };
      const target = p.pos[0] ? rev(p.pos[0]) : 'HEAD';
      if (!target) return { unknown: `${p.pos[0]!.text.slice(0, 40)} is not a plain revision` };
      // --hard makes the tree the target's whatever it held; --keep/--merge like a checkout.
      return ask(hard ? { kind: 'tree', rev: target, within: null } : { kind: 'switch', rev: target, force: false });
    }
    case 'merge': {
      const p = parse(rest, `${QUIET} --commit --no-commit --ff --no-ff --ff-only --squash --no-squash --stat -n --no-stat --log --no-log --signoff --no-signoff --verify --no-verify --allow-unrelated-histories --autostash --no-autostash --rerere-autoupdate --no-rerere-autoupdate --overwrite-ignore --no-overwrite-ignore --no-edit -v --verbose --summary --no-summary --verify-signatures --no-verify-signatures`, '-m -s --strategy -X --strategy-option --cleanup --into-name');
      if (p.unknown) return bad(p);
      if (p.pos.length === 0) return { unknown: 'git merge without a target merges what its configuration names' };
      const revs = p.pos.map(rev);
      if (revs.some((r) => r === null) || p.dashdash) return { unknown: 'a merge target that is not a plain revision' };
      return ask({ kind: 'merge', revs: revs as string[] });
    }
    case 'cherry-pick':
    case 'revert': {
      const p = parse(rest, `${QUIET} -n --no-commit -e --edit --no-edit -x -s --signoff --ff --allow-empty --allow-empty-message --keep-redundant-commits --rerere-autoupdate --no-rerere-autoupdate`, '-m --mainline --cleanup --strategy -X --strategy-option');
      if (p.unknown) return bad(p);
      if (p.pos.length === 0) return { unknown: `git ${sub} without a commit` };
      // A range (`A..B`, `^A B`) replays commits one by one; each is asked for as a list below.
      const revs = p.pos.map((w) => (w.text.includes('..') || w.text.startsWith('^') ? null : rev(w)));
      if (revs.some((r) => r === null) || p.dashdash) return { unknown: `git ${sub} of a range or of something that is not a plain revision` };
      return ask({ kind: 'pick', revs: revs as string[] });
    }
    case 'rebase': {
      const p = parse(rest, `${QUIET} -f --force-rebase --no-ff --fork-point --no-fork-point --autostash --no-autostash --autosquash --no-autosquash --keep-empty --no-keep-empty --reapply-cherry-picks --no-reapply-cherry-picks --rerere-autoupdate --no-rerere-autoupdate --signoff --committer-date-is-author-date --ignore-date --reset-author-date --no-verify --verify --stat -n --no-stat -v --verbose --keep-base --apply -m --merge --update-refs --no-update-refs`, '--onto -s --strategy -X --strategy-option --whitespace -C --empty');
      if (p.unknown) return bad(p);
      if (p.pos.length === 0) return { unknown: 'git rebase without an upstream rebases onto what its configuration names' };
      if (p.pos.length > 2 || p.dashdash) return { unknown: 'git rebase with more words than upstream and branch' };
      const [upstream, branch] = p.pos.map(rev);
      const onto = p.opts.get('--onto');
      if (!upstream || (p.pos[1] && !branch) || (onto !== undefined && !rev(onto))) return { unknown: 'a rebase target that is not a plain revision' };
      return ask({ kind: 'rebase', upstream, onto: typeof onto === 'string' ? onto : null, branch: branch ?? null });
    }
    case 'stash': {
      const verb = rest[0] && !rest[0].text.startsWith('-') ? rest[0].text : 'push';
      const args = rest[0] && !rest[0].text.startsWith('-') ? rest.slice(1) : rest;
      if (verb === 'list' || verb === 'show' || verb === 'drop' || verb === 'clear' || verb === 'create' || verb === 'store') return null;
      if (verb === 'pop' || verb === 'apply') {
        const p = parse(args, `${QUIET} --index`);
        if (p.unknown) return bad(p);
        if (p.pos.length > 1 || p.after.length) return { unknown: 'git stash apply with more than one stash' };
        const s = p.pos[0] ? (/^\d+$/.test(p.pos[0].text) ? `stash@{${p.pos[0].text}}` : rev(p.pos[0])) : 'stash@{0}';
        if (!s) return { unknown: `${p.pos[0]!.text.slice(0, 40)} is not a plain stash name` };
        return ask({ kind: 'stash', rev: s });
      }
      if (verb === 'push' || verb === 'save') {
        const p = parse(args, `${QUIET} -k --keep-index --no-keep-index -p --patch -S --staged`, '-m --message');
        if (p.unknown) return bad(p);
        // It puts the tree back to HEAD (the changes go into the stash).
        return ask({ kind: 'tree', rev: 'HEAD', within: verb === 'push' && (p.pos.length || p.after.length) ? within([...p.pos, ...p.after], dir) : null });
      }
      return { unknown: `git stash ${verb.slice(0, 40)} is not one Airlock knows the effect of` };
    }
    case 'checkout-index': {
      const p = parse(rest, `${QUIET} -a --all -f --force -u --index -n --no-create --ignore-skip-worktree-bits`);
      if (p.unknown) return bad(p);
      const all = p.opts.has('-a') || p.opts.has('--all');
      return ask({ kind: 'tree', rev: null, within: all ? null : within([...p.pos, ...p.after], dir) });
    }
    case 'worktree': {
      if (rest[0]?.text !== 'add') return null;
      const p = parse(rest.slice(1), `${QUIET} -f --force --detach --checkout --lock --track --no-track --guess-remote --no-guess-remote --no-checkout --orphan`, '-b -B --reason');
      if (p.unknown) return bad(p);
      if (p.opts.has('--no-checkout') || p.opts.has('--orphan')) return null;
      const where = p.pos[0];
      if (!where || p.pos.length > 2 || p.after.length) return { unknown: 'git worktree add without a plain directory and commit' };
      const target = p.pos[1] ? rev(p.pos[1]) : null;
      if (p.pos[1] && !target) return { unknown: `${p.pos[1].text.slice(0, 40)} is not a plain revision` };
      const dirAbs = path.posix.normalize(resolvePath(where.text, dir));
      const named = p.opts.has('-b') || p.opts.has('-B') || p.opts.has('--detach');
      const guess = target === null && !named ? rev(path.posix.basename(dirAbs)) : null;
      return ask({ kind: 'worktree', dir: dirAbs, rev: target ?? (named ? 'HEAD' : null), guess });
    }
    case 'read-tree':
      return rest.some((a) => a.dynamic || a.text === '-u' || /^-[a-z]*u/.test(a.text) || a.text === '--reset') ? { unknown: 'git read-tree -u writes the trees it reads into the work tree' } : null;
    case 'pull':
      return { unknown: 'git pull merges what it fetches, which is not in the repository yet' };
    case 'bisect':
      return rest[0] && /^(log|visualize|view|run)$/.test(rest[0].text) ? null : { unknown: 'git bisect checks out commits it chooses' };
    default:
      return null;
  }
}
