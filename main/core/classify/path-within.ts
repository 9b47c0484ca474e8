// One test of "this path is that directory or below it", for absolute paths already
// resolved (no `..`, no links left): by whole components, so `/repo-evil` is not in `/repo`.
// Trailing slashes on the directory are ignored; `/` holds every absolute path. Lives beside
// the classifier (pure, in the hook bundle), and grants and risk use the same one.
export function isWithin(p: string, dir: string): boolean {
  const d = dir.replace(/\/+$/, '');
  return p === d || p.startsWith(`${d}/`);
}
