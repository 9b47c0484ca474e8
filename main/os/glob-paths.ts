// Globs in a shell command's paths, expanded the way bash will expand them. The classifier
// keeps `.gi?/hooks/pre-commit` or `.g*/hooks/` as written (it cannot list a directory), and a
// grant judged that text: `cp x .g*/hooks/` under a grant for writes in the project wrote a
// git hook (the write fuzzer, seed 11). Like the symbolic-link walk (real-path.ts), this looks
// at the file system when the request is decided, so risk and grants judge what bash will
// write. bash's rules (no dotglob: shopt and GLOBIGNORE are execute and ask): `*` any run of
// characters, `?` one, `[…]` a class (`[!…]`, `[^…]` negated); a name starting with `.` only
// for a pattern starting with `.`; every component of a match exists; a pattern with no match
// stays as written (already a resource). Bounded: the entries looked at and the matches.
import * as fs from 'node:fs';

/** Matches of one request's globs, at most (more: the request is asked, not judged). */
export const MAX_GLOB_MATCHES = 256;
/** Directory entries looked at per request, at most. */
export const MAX_GLOB_ENTRIES = 20_000;

export interface GlobBudget {
  matches: number;
  entries: number;
  deadline: number;
}

export class GlobTooBig extends Error {}

/** A component with a bash pattern character (`[` only with its closing `]`). */
const GLOB_COMPONENT = /[*?]|\[.+\]/;

/** Whether bash would expand `p` as a glob (some component holds a pattern character). */
export function hasGlob(p: string): boolean {
  return p.split('/').some((c) => GLOB_COMPONENT.test(c));
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** One component's pattern as a regular expression over a directory entry's name. */
function componentRe(pat: string): RegExp {
  let re = '';
  for (let i = 0; i < pat.length; i++) {
    const ch = pat[i]!;
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else if (ch === '[') {
      // A class runs to the next `]` that is not its first character; without one, `[` is itself.
      let j = i + 1;
      if (pat[j] === '!' || pat[j] === '^') j++;
      if (pat[j] === ']') j++;
      while (j < pat.length && pat[j] !== ']') j++;
      if (j >= pat.length) {
        re += '\\[';
        continue;
      }
      let body = pat.slice(i + 1, j);
      if (body.includes('[')) {
        // `[[:alpha:]]` and other POSIX classes: taken as any one character (more matches, never fewer).
        re += '[^/]';
        i = pat.indexOf(']', j + 1) >= 0 && body.includes('[:') ? pat.indexOf(']', j + 1) : j;
        continue;
      }
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      // Inside a class only `\`, `]` and `^` mean something to a RegExp; ranges (`a-z`) stay.
      const cls = body.replace(/[\\\]^]/g, '\\$&');
      re += negated ? `[^/${cls}]` : `[${cls}]`;
      i = j;
    } else re += escapeRe(ch);
  }
  return new RegExp(`^${re}$`, 's');
}

function spend(b: GlobBudget, entries: number): void {
  b.entries -= entries;
  if (b.entries < 0) throw new GlobTooBig(`more than ${MAX_GLOB_ENTRIES} directory entries to look at`);
  if (Date.now() > b.deadline) throw new GlobTooBig('it took too long');
}

/**
 * The paths bash makes of the absolute path `abs` by pathname expansion: every match, each
 * component of which exists (a trailing `/` matches directories only). [] when nothing matches
 * (bash keeps the word). Throws GlobTooBig when the budget runs out.
 */
export function expandGlob(abs: string, b: GlobBudget): string[] {
  const trailingSlash = abs.endsWith('/');
  const comps = abs.split('/').filter((c) => c !== '');
  let found: string[] = [''];
  for (let i = 0; i < comps.length; i++) {
    const comp = comps[i]!;
    const last = i === comps.length - 1;
    if (!GLOB_COMPONENT.test(comp)) {
      found = found.map((d) => `${d}/${comp}`);
      continue;
    }
    const re = componentRe(comp);
    const next: string[] = [];
    for (const dir of found) {
      let names: string[];
      try {
        names = fs.readdirSync(dir || '/');
      } catch {
        continue; // not a directory, or not there: nothing matches under it
      }
      spend(b, names.length);
      for (const name of names.sort()) {
        if (name.startsWith('.') && !comp.startsWith('.')) continue;
        if (!re.test(name)) continue;
        next.push(`${dir}/${name}`);
        if (next.length > MAX_GLOB_MATCHES) throw new GlobTooBig(`more than ${MAX_GLOB_MATCHES} names match ${abs.slice(0, 120)}`);
      }
    }
    // Past a pattern, only directories lead on (followed through links, as bash does).
    found = last ? next : next.filter((p) => isDir(p));
    if (found.length === 0) return [];
  }
  const out = found.filter((p) => (trailingSlash ? isDir(p) : exists(p)));
  b.matches -= out.length;
  if (b.matches < 0) throw new GlobTooBig(`more than ${MAX_GLOB_MATCHES} names match the command's globs`);
  return out;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
