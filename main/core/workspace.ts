// The task's working directory as the workspace that suggestions and command-pattern grants
// are confined to — or none, when that directory would confine nothing.
import * as os from 'node:os';
import * as path from 'node:path';
import { isWithin } from './classify/path-within';

/**
 * The task's directory as a workspace to suggest patterns in, or null. A directory that is
 * `/` or holds the home directory is none: every path (`/usr/local/bin`, `~/.local/bin`,
 * `~/.config` …) would be "under the task's directory", and whoever starts a task picks its
 * cwd (`task.start {cwd: "/"}` made "allow for this task" suggest `/usr/**` and `/etc/**`).
 * `--sandbox` refuses such a directory for the same reason; writes there are answered one
 * at a time (or with a pattern the human types).
 */
export function workspaceOf(cwd: string | null, home: string = os.homedir()): string | null {
  if (!cwd || !path.isAbsolute(cwd)) return null;
  const dir = path.resolve(cwd);
  const h = path.resolve(home);
  if (dir === '/' || dir === h || isWithin(h, dir)) return null;
  return dir;
}

