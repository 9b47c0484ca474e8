// What one part of a line makes another path mean, for the parts after it. `ln -s ~/.ssh k &&
// cat k/id_x` reads the key, but `k` did not exist when the line was judged, so the daemon's
// real-path check (which follows links that exist) saw a read of ./k/id_x: silent by the
// default policy, and the task never remembered reading a secret. Likewise `cp -a d e && cat
// e/x` reads what d/x is (a link in d included), and `mv`. Each such part leaves an alias: a
// later path at or under it is also judged as the same path under the alias's source (added
// to the part's resources, so risk, grants and the chain rules see it). Pure.
import * as path from 'node:path';

export interface Alias {
  /** The path the part made (a link, a copy, a moved file). */
  path: string;
  /** What it stands for: a link's target, a copy's or a move's source. */
  source: string;
}

const GLOB = /[*?[]/;
const MAX_ADDED = 16;

function segmentMatches(pattern: string, seg: string): boolean {
  if (!GLOB.test(pattern)) return pattern === seg;
  const re = pattern.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]').replace(/\[!/g, '[^');
  try {
    return new RegExp(`^${re}$`).test(seg);
  } catch {
    return true;
  }
}

/**
 * `res` seen through `a`: the same path under the alias's source when `res` is the alias or
 * lies under it (a glob segment that may match the alias's name counts), the source itself
 * when `res` is a directory holding the alias (a recursive read follows into it); else null.
 */
function through(res: string, a: Alias): string | null {
  if (!res.startsWith('/') && !res.startsWith('~')) return null;
  const r = res.split('/');
  const p = a.path.split('/');
  for (let i = 0; i < Math.min(r.length, p.length); i++) {
    if (r[i] === '**') return `${a.source.replace(/\/+$/, '')}/**`;
    if (!segmentMatches(r[i]!, p[i]!)) return null;
  }
  if (r.length < p.length) return a.source;
  const rest = r.slice(p.length).join('/');
  if (!rest) return a.source;
  // `ln -s .. up`: up/.ssh is /.ssh, not //.ssh (a home path keeps its `~`).
  return a.source.startsWith('/') ? path.posix.join(a.source, rest) : `${a.source.replace(/\/+$/, '')}/${rest}`;
}

/** The paths `resources` also name through the aliases made before (each alias's source followed again, a few steps). */
export function throughAliases(resources: readonly string[], aliases: readonly Alias[]): string[] {
  if (aliases.length === 0) return [];
  const out: string[] = [];
  let frontier = [...resources];
  for (let step = 0; step < 4 && frontier.length && out.length < MAX_ADDED; step++) {
    const next: string[] = [];
    for (const res of frontier) {
      for (const a of aliases) {
        const t = through(res, a);
        if (t === null || t === res || resources.includes(t) || out.includes(t)) continue;
        out.push(t);
        next.push(t);
        if (out.length >= MAX_ADDED) return out;
      }
    }
    frontier = next;
  }
  return out;
}

/**
 * The aliases `ln`, `cp` and `mv` make: each DEST (or DEST/NAME, when DEST may be a directory)
 * stands for its source. A symbolic link's relative target is relative to the link's directory
 * (unless `ln -r`); every other source to the working directory. `names` are the positional
 * words as resolved paths, `raw` as written (for a relative link target).
 */
export function aliasesOf(name: string, raw: readonly string[], names: readonly string[], opts: { symbolic: boolean; relative: boolean; targetDir: string | null; cwd: string | undefined }): Alias[] {
  const out: Alias[] = [];
  const add = (link: string, i: number) => {
    const text = raw[i]!;
    const source = opts.symbolic && !opts.relative && !text.startsWith('/') && !text.startsWith('~') && !/[$`]/.test(text)
      ? path.posix.join(path.posix.dirname(link), text)
      : names[i]!;
    if (link !== source) out.push({ path: link, source });
  };
  const base = (i: number) => path.posix.basename(raw[i]!.replace(/\/+$/, '')) || raw[i]!;
  if (opts.targetDir !== null) {
    names.forEach((_, i) => add(`${opts.targetDir}/${base(i)}`, i));
  } else if (names.length === 1 && name === 'ln' && opts.cwd) {
    add(`${opts.cwd}/${base(0)}`, 0);
  } else if (names.length >= 2) {
    const dest = names[names.length - 1]!.replace(/\/+$/, '');
    for (let i = 0; i < names.length - 1; i++) {
      if (names.length === 2) add(dest, i);
      add(`${dest}/${base(i)}`, i);
    }
  }
  return out.slice(0, 32);
}
