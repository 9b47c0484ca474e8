// A directory an agent could fill with plain files so that git takes it as a bare repository:
// HEAD, objects/, refs/, a config naming a textconv program, info/attributes using it. None of
// it is under `.git/`. Running `git log -p` there runs the program, which touches `marker`.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export function gitEnv(root: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
}

/** Plants the look-alike at `dir` (made from a real repository's `.git`); returns the marker path. */
export function plantRepository(root: string, dir: string): string {
  const env = gitEnv(root);
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, stdio: 'ignore', timeout: 10_000 });
  const src = path.join(root, 'src');
  git(root, 'init', '-q', src);
  writeFileSync(path.join(src, 'f'), 'a\n');
  git(src, 'add', 'f');
  git(src, 'commit', '-qm', 'm');
  cpSync(path.join(src, '.git'), dir, { recursive: true });
  const marker = path.join(root, 'ran');
  const tc = path.join(root, 'tc.sh');
  writeFileSync(tc, `#!/bin/sh\ntouch '${marker}'\ncat "$1"\n`, { mode: 0o755 });
  git(dir, '--bare', 'config', 'diff.x.textconv', tc);
  mkdirSync(path.join(dir, 'info'), { recursive: true });
  writeFileSync(path.join(dir, 'info', 'attributes'), '* diff=x\n');
  return marker;
}
