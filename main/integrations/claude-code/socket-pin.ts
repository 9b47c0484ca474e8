// The installed hook talks only to the daemon whose directory it was installed for. A
// project's `.claude/settings.json` can set `env` for the session, and the hook inherits it:
// AIRLOCK_REQUEST_SOCK, AIRLOCK_HOME or XDG_RUNTIME_DIR set there would lead the hook to a
// socket the agent serves itself (same user), which answers "allow" with nothing recorded.
// `airlock hook claude-code --install` therefore writes AIRLOCK_HOOK_HOME (the resolved
// directory that holds request.sock and tasks/) into the command line itself, after
// anything the environment could say; the hook then connects only to <dir>/request.sock or a
// task's <dir>/tasks/<id>/request.sock (what `airlock exec` / `task start [--sandbox]` hand
// an agent), compared as real paths. Without AIRLOCK_HOOK_HOME (the hook run by hand, an old
// install, `--install --unpinned` on a server reached by `airlock remote`) nothing changes.
// `import x = require()`: no esbuild namespace copy in the hook bundle (see hook.ts).
import fs = require('node:fs');
import path = require('node:path');
import { defaultRequestSocket } from '../../client';

export const HOOK_HOME_ENV = 'AIRLOCK_HOOK_HOME';

/** A task id as it names its directory under tasks/ (`t_` + base64url; contract/task-ref.ts). */
const TASK_DIR = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The real path of `p`: symbolic links resolved by the kernel's rules (realpath), for the
 * part that exists; the missing rest appended as written (nothing there to be a link).
 */
export function realPathOf(p: string): string {
  const abs = path.resolve(p);
  const rest: string[] = [];
  for (let d = abs; ; d = path.dirname(d)) {
    try {
      return path.join(fs.realpathSync(d), ...rest);
    } catch {
      if (path.dirname(d) === d) return abs;
      rest.unshift(path.basename(d));
    }
  }
}

/**
 * `..` and `.` are refused rather than normalised: path.resolve folds `link/..` by the
 * letters, the kernel by where the link leads, so the two could name different sockets.
 */
const hasDotSegment = (p: string) => p.split(/[\\/]+/).some((s) => s === '..' || s === '.');

/** Why the socket the environment names is not the pinned daemon's (null: it is, or no pin). */
export function pinnedSocketProblem(env: NodeJS.ProcessEnv = process.env): string | null {
  const pinned = env[HOOK_HOME_ENV];
  if (pinned === undefined) return null;
  const again = 're-run `airlock hook claude-code --install` if you moved AIRLOCK_HOME or the runtime directory';
  if (!path.isAbsolute(pinned) || hasDotSegment(pinned)) return `${HOOK_HOME_ENV} in the hook's command line is not an absolute path (${JSON.stringify(pinned.slice(0, 200))}); ${again}`;
  const home = realPathOf(pinned);
  const outside = (name: string, value: string) =>
    `${name} points outside Airlock's directory ${home} (${JSON.stringify(value.slice(0, 200))}), which the hook was installed for: a project's .claude/settings.json \`env\` may be steering it to another "daemon". Remove ${name} from that env; ${again}; on a server reached by \`airlock remote\`, install with \`--unpinned\``;
  for (const name of ['AIRLOCK_REQUEST_SOCK', 'AIRLOCK_HOME'] as const) {
    const v = env[name];
    if (v && hasDotSegment(v)) return outside(name, v);
  }
  if (env.AIRLOCK_HOME && realPathOf(env.AIRLOCK_HOME) !== home) return outside('AIRLOCK_HOME', env.AIRLOCK_HOME);
  const sock = defaultRequestSocket(env);
  const real = realPathOf(sock);
  if (real === path.join(home, 'request.sock')) return null;
  const rel = path.relative(path.join(home, 'tasks'), real).split(path.sep);
  if (rel.length === 2 && TASK_DIR.test(rel[0]) && rel[1] === 'request.sock') return null;
  if (env.AIRLOCK_REQUEST_SOCK) return outside('AIRLOCK_REQUEST_SOCK', env.AIRLOCK_REQUEST_SOCK);
  if (env.AIRLOCK_HOME) return outside('AIRLOCK_HOME', env.AIRLOCK_HOME);
  // Neither AIRLOCK_REQUEST_SOCK nor AIRLOCK_HOME is set: most often a Claude Code started
  // where the user's AIRLOCK_HOME is not exported (a launcher, another shell), not an attack;
  // say so, since "remove XDG_RUNTIME_DIR" alone is no help when it is unset or the system's.
  return `${outside('XDG_RUNTIME_DIR', env.XDG_RUNTIME_DIR ?? '(unset)')}; if the daemon runs with AIRLOCK_HOME=${home}, export it where you start Claude Code`;
}

/** The directory of session → task files: the pinned one when there is a pin. */
export function pinnedRuntimeDir(env: NodeJS.ProcessEnv): string | null {
  const pinned = env[HOOK_HOME_ENV];
  return pinned && path.isAbsolute(pinned) ? pinned : null;
}
