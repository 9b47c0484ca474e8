// `~user` as bash expands it: that user's home directory from the password database.
// A shell command may write `~alice/.bashrc`; the classifier keeps such a word as written
// (it reads no environment), and the daemon adds the directory it means, so a grant or deny
// on `/home/alice/**` judges it (blackbox9). Only /etc/passwd is read (no NSS modules):
// a user it does not list gets no expansion, and the request keeps a path no grant covers.
import * as fs from 'node:fs';
import * as os from 'node:os';

let cache: { at: number; homes: Map<string, string> } | null = null;
const FRESH_MS = 10_000;

function passwdHomes(): Map<string, string> {
  const now = Date.now();
  if (cache && now - cache.at < FRESH_MS) return cache.homes;
  const homes = new Map<string, string>();
  try {
    for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f.length >= 7 && f[0] && f[5]?.startsWith('/') && !homes.has(f[0])) homes.set(f[0], f[5]);
    }
  } catch {
    // No readable password database: only the current user is known.
  }
  cache = { at: now, homes };
  return homes;
}

/** The home directory `~name` means, or null when no such user is known. */
export function homeOfUser(name: string): string | null {
  if (name === '') return os.homedir();
  try {
    // `~me` is my entry in the database, not $HOME (bash asks getpwnam for it).
    const me = os.userInfo();
    if (me.username === name && me.homedir) return me.homedir;
  } catch {
    // A uid with no name: fall through to the database.
  }
  return passwdHomes().get(name) ?? null;
}

/** `~`, `~/…`, `~name`, `~name/…` → the absolute path bash makes of it; null when not such a path. */
export function expandTilde(p: string): string | null {
  const m = /^~([A-Za-z0-9._][A-Za-z0-9._-]*\$?)?(?=\/|$)/.exec(p);
  if (!m) return null;
  const home = homeOfUser(m[1] ?? '');
  return home === null ? null : home.replace(/\/+$/, '') + p.slice(m[0].length);
}
