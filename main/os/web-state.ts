// What the web UI keeps across daemon restarts (issue 11 item 7: the browser reconnects on
// its own): its token and port, in `web.json` (0600) in Airlock's private home directory.
//
// Why on disk: a per-run token meant an open tab could never reconnect after a restart;
// the human had to find the new URL. Persisting it adds no reader: the file is 0600 in a
// 0700 directory, so only the same user can read it — who can already connect to ui.sock
// and decide (SECURITY.md "An unsandboxed agent running as the same user"); a sandboxed
// task sees neither. A file with group/other bits or another owner is not trusted (a new
// token is made). `airlock serve --web --new-web-token` rotates it, which signs out every
// open tab.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface WebState {
  token: string;
  /** The port of the last run, tried first when no port is asked for. */
  port: number | null;
}

const TOKEN = /^[A-Za-z0-9_-]{43,128}$/;

export function webStatePath(home: string): string {
  return path.join(home, 'web.json');
}

/** The saved token and port, when the file is ours, private and well-formed; else null. */
export function readWebState(home: string): WebState | null {
  const file = webStatePath(home);
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || (st.mode & 0o077) !== 0 || (process.getuid && st.uid !== process.getuid()) || st.size > 4096) return null;
    const v = JSON.parse(fs.readFileSync(fd, 'utf8')) as { token?: unknown; port?: unknown };
    if (typeof v.token !== 'string' || !TOKEN.test(v.token)) return null;
    const port = typeof v.port === 'number' && Number.isInteger(v.port) && v.port > 0 && v.port < 65536 ? v.port : null;
    return { token: v.token, port };
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes the state atomically with mode 0600 (temp file + rename; never through a link). */
export function writeWebState(home: string, s: WebState): void {
  const file = webStatePath(home);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  try {
    fs.writeFileSync(fd, JSON.stringify(s) + '\n');
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** The token to serve with: the saved one, or a new one (also when `rotate`, which keeps the port: open tabs then learn the token is gone). */
export function loadWebState(home: string, rotate = false): WebState {
  const saved = readWebState(home);
  if (saved && !rotate) return saved;
  return { token: randomBytes(32).toString('base64url'), port: saved?.port ?? null };
}
