// The installed hook talks only to the daemon whose directory it was installed for. A
// project's `.claude/settings.json` can set `env` for the session, and the hook inherits it:
// AIRLOCK_REQUEST_SOCK, AIRLOCK_HOME or XDG_RUNTIME_DIR set there would lead the hook to a
// socket the agent serves itself (same user), which answers "allow" with nothing recorded.
// `airlock hook claude-code --install` therefore writes AIRLOCK_HOOK_HOME (the resolved
// directory that holds request.sock and tasks/) into the command line itself, after
// anything the environment could say; the hook then connects only to <dir>/request.sock or a
// task's <dir>/tasks/<id>/request.sock (what `airlock exec` / `task start [--sandbox]` hand
// an agent), compared as real paths. Where neither AIRLOCK_REQUEST_SOCK nor AIRLOCK_HOME is
// set (a Claude Code started from a launcher or a shell without the user's AIRLOCK_HOME), the
// pin is also where the hook looks: <dir>/request.sock, where a daemon run with
// AIRLOCK_HOME=<dir> (or the runtime directory the pin was taken from) listens. XDG_RUNTIME_DIR
// and TMPDIR then play no part, so a settings `env` that sets them steers nothing. Without
// AIRLOCK_HOOK_HOME (the hook run by hand, an old install, `--install --unpinned` on a server
// reached by `airlock remote`) nothing changes.
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

/** The pin as the hooks use it: an absolute path without `.` or `..`, else null (then it is refused). */
function usablePin(env: NodeJS.ProcessEnv): string | null {
  const pinned = env[HOOK_HOME_ENV];
  return pinned !== undefined && path.isAbsolute(pinned) && !hasDotSegment(pinned) ? pinned : null;
}

/**
 * The request socket the hook connects to: AIRLOCK_REQUEST_SOCK, else AIRLOCK_HOME's (both
 * still checked against the pin below), else, under a pin, the pinned directory's request.sock
 * (not XDG_RUNTIME_DIR's or the temp dir's); without a pin, where every client looks.
 * The native client finds the same path (airlock-hook.c hook_request_socket).
 */
export function hookRequestSocket(env: NodeJS.ProcessEnv = process.env): string {
  const pin = usablePin(env);
  if (pin !== null && !env.AIRLOCK_REQUEST_SOCK && !env.AIRLOCK_HOME) return path.join(pin, 'request.sock');
  return defaultRequestSocket(env);
}

/**
 * The reason the hook gives when nothing answers at its socket. Under a pin it names the socket
 * and says what to do when the daemon now runs elsewhere (same words in airlock-hook.c).
 */
export function daemonNotRunning(env: NodeJS.ProcessEnv = process.env): string {
  if (usablePin(env) === null) return 'the Airlock daemon is not running';
  return `the Airlock daemon is not running (nothing answers at ${path.resolve(hookRequestSocket(env))}, where the hook was installed to find it; if the daemon now runs with another AIRLOCK_HOME, re-run \`airlock hook claude-code --install\` with that AIRLOCK_HOME exported)`;
}

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
  const sock = hookRequestSocket(env);
  const real = realPathOf(sock);
  if (real === path.join(home, 'request.sock')) return null;
  const rel = path.relative(path.join(home, 'tasks'), real).split(path.sep);
  if (rel.length === 2 && TASK_DIR.test(rel[0]) && rel[1] === 'request.sock') return null;
  if (env.AIRLOCK_REQUEST_SOCK) return outside('AIRLOCK_REQUEST_SOCK', env.AIRLOCK_REQUEST_SOCK);
  if (env.AIRLOCK_HOME) return outside('AIRLOCK_HOME', env.AIRLOCK_HOME);
  // Neither is set: the socket is the pinned directory's own request.sock, which leads elsewhere
  // (a symbolic link put in its place). Never followed out of the directory.
  return `${sock} leads outside Airlock's directory ${home} (to ${JSON.stringify(real.slice(0, 200))}), which the hook was installed for: something replaced the daemon's socket with a link. Remove it and restart the daemon; ${again}`;
}
