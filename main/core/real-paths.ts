// Paths are judged by what they really are (issue 10): a request's paths and each shell
// part's paths get their real targets added beside them (symbolic links resolved by the
// PathResolver port, main/os/real-path.ts). Grants must cover every resource, so both the
// literal and the real path must be granted for an allow, and a deny on either denies;
// risk rules see the real target (`dir/h/pre-commit` with `h → .git/hooks` is a git hook).
// A hard link to a protected file (main/os/hard-links.ts) adds that file the same way.
import * as os from 'node:os';
import * as path from 'node:path';
import { LIMITS } from '../contract/common';
import type { CommandClassification, PathResolver } from './ports';
import type { CoreRequest } from './request';
import { holdsSecrets } from './risk';

type Part = CommandClassification['parts'][number];

/** Absolute, or a tilde word bash expands (`~`, `~/x`, `~alice/x`; main/os/user-homes.ts). */
const isPath = (r: string) => r.startsWith('/') || /^~([A-Za-z0-9._][A-Za-z0-9._-]*\$?)?(\/|$)/.test(r);
/** A path bash expands as a glob: some component holds `*`, `?` or a `[…]` class. */
const isGlob = (r: string) => isPath(r) && r.split('/').some((c) => /[*?]|\[.+\]/.test(c));

function add(list: string[], r: string): void {
  if (!list.includes(r) && list.length < LIMITS.resources) list.push(r);
}

/**
 * Adds real targets to `req.resources` and to each part's resources, and says in the
 * risk reasons where a path is not what it looks like. `rawParts` are the same parts
 * classified with paths as written (`..` kept), when the command line has `..` in it.
 * `claudeDirs`: the request's CLAUDE_CONFIG_DIR directories, whose settings a hard link may be.
 * Requests without paths cost nothing (the resolver is not called).
 */
export function applyRealPaths(req: CoreRequest, resolve: PathResolver, rawParts?: Part[], claudeDirs: readonly string[] = []): void {
  const parts = req.parts ?? [];
  const raws = rawParts && rawParts.length === parts.length ? rawParts : undefined;
  const all = new Set<string>();
  for (const r of req.resources) if (isPath(r)) all.add(r);
  for (const p of parts) for (const r of p.resources) if (isPath(r)) all.add(r);
  // The raw paths of a part whose classification did not line up are checked as a whole.
  const extra = rawParts && !raws ? rawParts.flatMap((p) => p.resources) : [];
  for (const p of raws ?? []) for (const r of p.resources) if (isPath(r)) all.add(r);
  for (const r of extra) if (isPath(r)) all.add(r);
  if (all.size === 0) return;
  // Globs in what a shell command writes, deletes, sends or runs: bash expands them, so the
  // grant and risk judge what they match (`cp x .g*/hooks/` writes .git/hooks/x). Reads keep
  // theirs as written (`cat src/*.ts` in a large tree is not asked for that).
  const globs = new Set<string>();
  parts.forEach((p, i) => {
    if (p.action === 'read') return;
    for (const r of [...p.resources, ...(raws?.[i]?.resources ?? [])]) if (isGlob(r)) globs.add(r);
  });
  for (const r of extra) if (isGlob(r)) globs.add(r);

  const { real, hardLinks, globs: matched, ...rest } = resolve([...all], { claudeDirs, ...(globs.size ? { globs: [...globs] } : {}) });
  let incomplete = rest.incomplete;
  const told = new Set<string>();
  const tell = (literal: string, target: string) => {
    // `a/./b` or `a/../b` without a link on the way is only spelling: nothing to tell.
    if (told.has(literal) || path.posix.normalize(literal).replace(/\/+$/, '') === target) return;
    // `~/x` is `$HOME/x` without a link: nothing to tell. `~alice/x` is said in words.
    const home = literal === '~' || literal.startsWith('~/') ? path.posix.normalize(os.homedir() + literal.slice(1)).replace(/\/+$/, '') : null;
    if (home === target) return;
    told.add(literal);
    const how = literal.startsWith('~') && !literal.startsWith('~/') && !literal.includes('/..') ? "another user's home directory" : 'a symbolic link on the way';
    if (told.size <= 8) req.classifierRisk.push({ level: 'low', reason: `${literal} is really ${target} (${how})` });
  };
  const realOf = (r: string) => {
    const t = real.get(r);
    if (t !== undefined) tell(r, t);
    return t;
  };

  // What `also` says a path is too is added wherever that path is a resource: to the request,
  // to its own part, and (raw parts that did not line up) to every part.
  const spread = (also: (r: string) => string | undefined) => {
    for (const r of [...req.resources]) {
      const t = also(r);
      if (t !== undefined) add(req.resources, t);
    }
    parts.forEach((p, i) => {
      for (const r of [...p.resources, ...(raws?.[i]?.resources ?? [])]) {
        const t = also(r);
        if (t === undefined) continue;
        add(p.resources, t);
        add(req.resources, t);
      }
    });
    for (const r of extra) {
      const t = also(r);
      if (t === undefined) continue;
      add(req.resources, t);
      for (const p of parts) add(p.resources, t);
    }
  };
  spread(realOf);
  // What each glob matches is a resource wherever the glob is one (on the parts that name it).
  if (matched?.size) {
    let shown = 0;
    parts.forEach((p, i) => {
      for (const r of [...p.resources, ...(raws?.[i]?.resources ?? [])]) {
        const ms = matched.get(r);
        if (!ms) continue;
        if (++shown <= 8) req.classifierRisk.push({ level: 'low', reason: `${r} matches ${ms.slice(0, 4).join(', ')}${ms.length > 4 ? ` and ${ms.length - 4} more` : ''} (bash expands the glob)` });
        // A name starting with `-` made by a glob at the start of a word reaches the program as
        // an option (`cp *` with files `-t` and `h` is `cp -t h …`): what it then writes is not
        // known, so no grant alone may allow it.
        const dash = /(^|\/)[*?[][^/]*$/.test(r) ? ms.find((m) => path.posix.basename(m).startsWith('-')) : undefined;
        if (dash !== undefined) req.classifierRisk.push({ level: 'critical', reason: `${r} matches ${dash}, which the program may take for an option` });
        for (const m of ms) {
          if (p.resources.length >= LIMITS.resources || req.resources.length >= LIMITS.resources) incomplete ??= `${r} matches more paths than a request can hold`;
          add(p.resources, m);
          add(req.resources, m);
        }
      }
    });
    for (const r of extra) for (const m of matched.get(r) ?? []) {
      add(req.resources, m);
      for (const p of parts) add(p.resources, m);
    }
  }
  // A hard link is the protected file itself under another name: the protected path becomes
  // a resource wherever the link's name is one, so risk and grants judge it as that path.
  if (hardLinks?.size) {
    const shown = new Set<string>();
    spread((r) => {
      const t = hardLinks.get(r);
      if (t !== undefined && !shown.has(r)) {
        shown.add(r);
        if (shown.size <= 8) req.classifierRisk.push({ level: 'medium', reason: `${r} is a hard link to ${t} (the same file under another name: writing one writes the other)` });
      }
      return t;
    });
  }
  addSecretReadMatches(req, parts, resolve, claudeDirs);
  if (incomplete) {
    // What was not resolved cannot be judged: no grant alone may allow it (critical), and
    // a read is not allowed by the default policy alone either (high).
    req.classifierRisk.push({
      level: req.action === 'read' ? 'high' : 'critical',
      reason: `Airlock could not tell where every path leads (${incomplete}): asking`,
    });
  }
}

/**
 * Reads keep their globs as written (`cat src/*.ts` in a large tree is not asked), but a glob
 * that matches a secret now (`cat .en[v]`, `cat ~/.ss?/id_*`) is a read of that secret: it is
 * added to the part's resources, so the task remembers it and its next upload is critical, as
 * after `cat .env`. Only secret matches are added, and an expansion cut short (too many names,
 * the time budget) adds what it found and nothing else: the read is a read either way.
 */
function addSecretReadMatches(req: CoreRequest, parts: Part[], resolve: PathResolver, claudeDirs: readonly string[]): void {
  const readGlobs = new Set<string>();
  for (const p of parts) if (p.action === 'read') for (const r of p.resources) if (isGlob(r)) readGlobs.add(r);
  if (readGlobs.size === 0) return;
  const { globs: matched } = resolve([], { claudeDirs, globs: [...readGlobs] });
  if (!matched?.size) return;
  let shown = 0;
  for (const p of parts) {
    if (p.action !== 'read') continue;
    for (const r of [...p.resources]) {
      for (const m of matched.get(r) ?? []) {
        const what = holdsSecrets(m, claudeDirs);
        if (!what) continue;
        if (++shown <= 4) req.classifierRisk.push({ level: 'low', reason: `${r} matches ${m} (${what}): bash expands the glob, so this reads it` });
        add(p.resources, m);
        add(req.resources, m);
      }
    }
  }
}
