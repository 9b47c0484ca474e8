// Which directory git would take as a repository of its own, from a working directory
// (core/ports.ts RepoLookalikeProbe). git's discovery walks up from the working directory:
// a directory holding `.git` is a work tree (its repository is that `.git`), and a
// directory that itself holds HEAD, objects/ and refs/ is taken as a bare repository,
// whose `config` is a plain file an agent may have written — and a config can name
// programs git runs (core.fsmonitor, diff textconv, a pager). So a git "read" in a
// directory below such a look-alike runs what the agent planted.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Deep enough for any real tree; the walk is bounded whatever the path. */
const MAX_LEVELS = 64;

const kind = (p: string): 'file' | 'dir' | 'other' | null => {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  if (!st) return null;
  return st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other';
};

/**
 * The first directory from `cwd` upwards that git would use as a bare repository (HEAD,
 * objects/ and refs/ inside it, no `.git` below it on the way), or null when git would find
 * an ordinary `.git` first or nothing at all. A `.git` directory itself counts (git run
 * inside `.git/` uses it as the repository, config included). Never throws: an unreadable
 * directory ends the walk as "nothing found", and a relative `cwd` is not walked.
 */
export function findRepoLookalike(cwd: string): string | null {
  if (!path.isAbsolute(cwd)) return null;
  let dir = path.resolve(cwd);
  try {
    for (let i = 0; i < MAX_LEVELS; i++) {
      if (kind(path.join(dir, '.git')) !== null) return null;
      const head = kind(path.join(dir, 'HEAD'));
      // git accepts HEAD as a symbolic link too (old repositories); a look-alike needs only to be taken.
      if ((head === 'file' || head === 'other') && kind(path.join(dir, 'objects')) === 'dir' && kind(path.join(dir, 'refs')) === 'dir') return dir;
      const up = path.dirname(dir);
      if (up === dir) return null;
      dir = up;
    }
  } catch {
    return null;
  }
  return null;
}
