// The files a git command that rewrites the work tree would write, listed as its part's
// resources (and the request's), so the critical-path rules and the grants judge them one by
// one like a Write of each: `git checkout evil` that brings `.claude/settings.json` is as
// critical as writing that file. The question comes from the classifier
// (classify/sh-git-tree.ts, part.gitTree), the answer from the daemon (GitTreeProbe,
// main/os/git-tree.ts). What could not be worked out, or is too long to judge one by one,
// makes the part `unlisted`: no grant for the tree covers it, it is asked.
import { LIMITS } from '../contract/common';
import type { CoreRequest } from './request';
import type { CommandClassification, GitTreeProbe } from './ports';

/** Paths named in the reason the prompt shows; the rest are counted. */
const SHOWN = 8;

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const within = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/**
 * Answers every part's `gitTree` question with `probe` (none: every such part is unlisted),
 * adding the paths to the part and to `resources`, the reasons to `risk`; removes the question.
 */
export function applyGitTrees(parts: CommandClassification['parts'], resources: string[], risk: CoreRequest['classifierRisk'], probe: GitTreeProbe | undefined): void {
  for (const part of parts) {
    const spec = part.gitTree;
    if (!spec) continue;
    delete part.gitTree;
    const unlisted = (why: string) => {
      part.unlisted ??= `\`${clip(part.command, 60)}\` writes the files its target holds, and Airlock could not list them (${why})`;
      risk.push({ level: 'medium', reason: `${part.unlisted}: no grant covers that, so it asks each time` });
    };
    if (!probe) {
      unlisted('the daemon does not look at repositories here');
      continue;
    }
    const a = probe(spec);
    if ('unknown' in a) {
      unlisted(a.unknown);
      continue;
    }
    // A path longer than a resource may be would be cut, and its dangerous end with it.
    if (a.paths.some((p) => p.length > LIMITS.text)) {
      unlisted('a path in it is too long to show');
      continue;
    }
    const fresh = a.paths.filter((p) => !resources.includes(p));
    if (resources.length + fresh.length > LIMITS.resources) {
      unlisted(`${a.paths.length} files: too many to judge one by one`);
      continue;
    }
    resources.push(...fresh);
    for (const p of a.paths) if (!part.resources.includes(p)) part.resources.push(p);
    if (a.paths.length) {
      const shown = a.paths.slice(0, SHOWN).map((p) => clip(p, 160)).join(', ');
      const more = a.paths.length > SHOWN ? ` and ${a.paths.length - SHOWN} more` : '';
      risk.push({ level: 'low', reason: `\`${clip(part.command, 60)}\` writes or removes ${a.paths.length} file${a.paths.length === 1 ? '' : 's'}: ${shown}${more}` });
    }
    for (const l of a.links) risk.push({ level: 'low', reason: `it makes ${clip(l.path, 160)} a symbolic link to ${clip(l.target, 160)}` });
    // A file in the directory core.hooksPath names is a git hook, which the next git command
    // runs; the path rules know .git/hooks, not this directory, so it is said here and no grant
    // for the tree covers it.
    const hooks = a.hooksDir ? a.paths.filter((p) => within(p, a.hooksDir!) && p !== a.hooksDir) : [];
    if (hooks.length) {
      part.unlisted ??= `it writes git hooks in the directory core.hooksPath names (${clip(hooks.slice(0, 3).join(', '), 200)})`;
      risk.push({ level: 'high', reason: `${part.unlisted}: the next git command runs them, so no grant covers that` });
    }
  }
}
