// Grant patterns. Path patterns (starting with / or ~/) follow path rules: `*` stays
// inside one directory, `**` crosses them. Every other pattern (commands, hosts,
// URLs, tool names like fs/write_file) lets `*` match anything, as a human reads it.
import * as os from 'node:os';
import picomatch from 'picomatch';

const cache = new Map<string, (s: string) => boolean>();
const MAX_CACHE = 20_000;

export function isPathPattern(glob: string): boolean {
  return glob.startsWith('/') || glob.startsWith('~/');
}

export function compileGlob(glob: string): (s: string) => boolean {
  let m = cache.get(glob);
  if (m) return m;
  if (glob === '*' || glob === '**') m = () => true;
  else if (isPathPattern(glob)) {
    const expanded = glob.startsWith('~/') ? os.homedir() + glob.slice(1) : glob;
    m = regexMatcher(expanded, { dot: true });
  } else m = regexMatcher(glob, { dot: true, bash: true });
  if (cache.size >= MAX_CACHE) cache.clear();
  cache.set(glob, m);
  return m;
}

/**
 * What picomatch's own matcher does with these options on POSIX ('' never matches, the
 * glob itself does, else its regex), without the result object it builds on every call:
 * ~5× faster, which is what keeps a decision cheap with thousands of grants
 * (test/bench/growth.bench.ts).
 */
function regexMatcher(glob: string, opts: picomatch.PicomatchOptions): (s: string) => boolean {
  const re = picomatch.makeRe(glob, opts);
  // The literal text before the first special character must start any match: a cheap
  // test that rejects most grants before the regex runs (`/work/p17/**`, `npm run t5 *`).
  // Without its trailing slash: `/x/private/**` matches `/x/private` itself (picomatch), and a
  // prefix of `/x/private/` made a deny on it miss the directory (`rm -rf /x/private` was
  // allowed by an allow on `/x/**`; test/integration/redteam-paths.test.ts).
  const lit = /^[^*?[\]{}()!+@\\"'|,]*/.exec(glob)![0].replace(/\/+$/, '');
  if (lit.length >= 2 && !lit.startsWith('.')) return (s) => s.startsWith(lit) && (s === glob || re.test(s));
  return (s) => s !== '' && (s === glob || re.test(s));
}

export function globMatches(glob: string, value: string): boolean {
  // Most grants say "any source" or "any tool": answer those without a cache lookup.
  if (glob === '*' || glob === '**') return true;
  return compileGlob(glob)(value);
}

/**
 * A pattern that matches exactly this string and nothing else. Every punctuation mark is
 * escaped: picomatch gives meaning to quotes, `$`, `~`, `#` and more, not only to `*?[]{}`.
 */
export function escapeGlob(s: string): string {
  return s.replace(/[^A-Za-z0-9/ _.:@=-]/g, (c) => `\\${c}`);
}
