// Where Airlock keeps things (DESIGN.md "Contracts"). AIRLOCK_HOME, when set, holds
// everything; otherwise data goes to the platform's app-data dir and sockets to
// $XDG_RUNTIME_DIR/airlock (or a private dir in the temp dir).
// `import x = require()`: no esbuild namespace copy in the hook bundle (see integrations/claude-code/hook.ts).
import fs = require('node:fs');
import os = require('node:os');
import path = require('node:path');

export interface AirlockPaths {
  home: string;
  sockets: string;
  requestSock: string;
  uiSock: string;
  agentSock: string;
  tasksDir: string;
  /** remotes/<name>/request.sock: one request socket per remote (airlock remote, ssh -R). */
  remotesDir: string;
  db: string;
  keysDir: string;
  /** Secrets of the egress proxy, sealed like the keys. */
  secretsDir: string;
}

function dataDir(env: NodeJS.ProcessEnv): string {
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', 'Airlock');
  if (process.platform === 'win32') return path.join(env.APPDATA ?? os.homedir(), 'Airlock');
  return path.join(env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share'), 'airlock');
}

function socketDir(env: NodeJS.ProcessEnv): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && fs.existsSync(runtime)) return path.join(runtime, 'airlock');
  return path.join(os.tmpdir(), `airlock-${process.getuid?.() ?? 'user'}`);
}

export function airlockPaths(env: NodeJS.ProcessEnv = process.env): AirlockPaths {
  const explicit = env.AIRLOCK_HOME ? path.resolve(env.AIRLOCK_HOME) : null;
  const home = explicit ?? dataDir(env);
  const sockets = explicit ?? socketDir(env);
  return {
    home,
    sockets,
    requestSock: path.join(sockets, 'request.sock'),
    uiSock: path.join(sockets, 'ui.sock'),
    agentSock: path.join(sockets, 'agent.sock'),
    tasksDir: path.join(sockets, 'tasks'),
    remotesDir: path.join(sockets, 'remotes'),
    db: path.join(home, 'airlock.db'),
    keysDir: path.join(home, 'keys'),
    secretsDir: path.join(home, 'secrets'),
  };
}

/**
 * Creates a directory 0700 and refuses one that others can enter or that is not ours. The
 * name is looked at first without following it (lstat): in the shared temp dir another user
 * can plant `airlock-<uid>` as a symbolic link to a directory of ours, keep the link (sticky
 * /tmp: only its owner may replace it) and later point it at a directory of their own. A link
 * of ours is followed (dotfile setups); its target must then be ours too.
 */
export function ensurePrivateDir(dir: string): void {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  let link: fs.Stats | null = null;
  try {
    link = fs.lstatSync(dir);
  } catch {
    /* missing: made below */
  }
  if (link?.isSymbolicLink() && uid !== undefined && link.uid !== uid) {
    throw new Error(
      `${dir} is a symbolic link of uid ${link.uid}, not yours: another user may have planted it. Remove it (ask root if you cannot), or set XDG_RUNTIME_DIR to your private runtime directory or AIRLOCK_HOME to a directory only you can write`,
    );
  }
  if (!link) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory: remove it, or choose another AIRLOCK_HOME`);
  if (uid !== undefined && st.uid !== uid) {
    throw new Error(
      `${dir} belongs to uid ${st.uid}, not to you: another user may have planted it. Remove it (ask root if you cannot), or set XDG_RUNTIME_DIR to your private runtime directory or AIRLOCK_HOME to a directory only you can write`,
    );
  }
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}
