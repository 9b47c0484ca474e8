// "Does any of these patterns match?" in one scan (issue 15). risk.ts asks it of every path a
// request names, several times per decision (what runs code later, holds secrets, switches
// Airlock off; and grants.ts asks which part of a path is sensitive): ~35 regular expressions
// tried one by one, ~3.5 µs per decision with one path, ~5% of a decision's CPU at 32 clients,
// for paths that nearly always match none of them. An alternation of the same patterns matches
// a string exactly when one of them does, so it can say "none" in one scan; when it says
// "some", the caller still tries them one by one (to learn which, as before).
//
// The alternation is exact only if no pattern refers to its own groups by number or name (the
// numbers move when sources are joined) and no flag keeps state (g, y); such a list is tried
// one by one instead. Patterns are grouped by their flags (`i` or none): one regex per group.

export interface Pattern {
  test: RegExp;
}

const REFERS_TO_GROUPS = /\\[1-9]|\\k<|\(\?<(?![=!])/;

export function anyPattern(list: readonly Pattern[]): (s: string) => boolean {
  const oneByOne = (s: string) => list.some((x) => x.test.test(s));
  const byFlags = new Map<string, string[]>();
  for (const { test: re } of list) {
    if (REFERS_TO_GROUPS.test(re.source) || /[gy]/.test(re.flags)) return oneByOne;
    const sources = byFlags.get(re.flags) ?? [];
    sources.push(`(?:${re.source})`);
    byFlags.set(re.flags, sources);
  }
  const joined = [...byFlags].map(([flags, sources]) => new RegExp(sources.join('|'), flags));
  if (joined.length === 1) {
    const only = joined[0]!;
    return (s) => only.test(s);
  }
  return (s) => joined.some((re) => re.test(s));
}
