// A grant condition sees the tool's arguments as the agent wrote them. A human who writes
// `args.path.startsWith("/repo/")` means "a file under /repo", and the agent can send
// `/repo/../home/me/.ssh/id_ed25519`, which starts with "/repo/" and is not under it.
// Rewriting the arguments is not an option (the condition may be about the spelling, and
// which strings are paths is the tool's business), so a request whose arguments hold a path
// spelled with `.`/`..` segments, doubled slashes, a leading `~` or the home directory is
// checked in each of those spellings too (PathForm). An allow holds only if it holds as
// written and in the plain form; a deny holds if it holds for any (grants.ts, conditionOutcome).
import * as os from 'node:os';
import * as path from 'node:path';

/** `.` or `..` as a whole segment, or `//`. */
const ODD_SEGMENTS = /(^|\/)\.\.?(\/|$)|\/\//;

/**
 * How a path-like string is rewritten for one more check:
 * - `plain`: `.`/`..` segments and doubled slashes resolved; `~/…` stays `~/…` while it stays
 *   under the home directory;
 * - `absolute`: plain, with a leading `~` spelled out as the home directory;
 * - `tilde`: plain, with the home directory spelled `~`.
 * An allow must hold as written and `plain`; a deny holds if it holds for any form, so a deny
 * on `/home/me/.ssh` also stops `~/.ssh/…` and the other way round.
 */
export type PathForm = 'plain' | 'absolute' | 'tilde';

/**
 * A relative path resolved against the directory the tool runs in (an MCP server is started
 * in the request's cwd): a deny on `/etc/` holds for `../../etc/passwd` from /srv/app, and one
 * on `/.ssh/` for `.ssh/id_ed25519` from the home directory. Only strings that look like a
 * relative path (a `/` or a leading `.`, no whitespace, no scheme); for a deny only.
 */
export function cwdForm(s: string, cwd: string): string | null {
  if (!cwd.startsWith('/') || s.length === 0 || s.includes('\0') || /\s/.test(s)) return null;
  if (s.startsWith('/') || s.startsWith('~') || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) return null;
  if (!s.includes('/') && !s.startsWith('.')) return null;
  return path.posix.resolve(cwd, s);
}

/** The `form` of a string an agent may mean as a path, or null when that is the string itself (or it is no path). */
export function pathForm(s: string, form: PathForm, home: string = os.homedir()): string | null {
  if (s.length === 0 || s.includes('\0')) return null;
  // Another URL is not a path (a web URL only as a client resolves it, below), nor is prose with a stray `./`; but a path may hold
  // spaces, so anything that starts like one is one (`/repo/../my docs/x`).
  const uri = /^file:\/\/(?:localhost)?(\/.*)$/is.exec(s);
  if (uri) return fileUriForm(s, uri[1]!);
  if (/^(https?|wss?|ftp):/i.test(s)) return webUrlForm(s);
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) return null;
  if (!/^(\/|~(\/|$)|\.\.?(\/|$))/.test(s) && /\s/.test(s)) return null;
  const tilde = s === '~' || s.startsWith('~/');
  if (!tilde && !ODD_SEGMENTS.test(s) && !(form === 'tilde' && isUnder(s, home))) return null;
  let out = tilde ? path.posix.normalize(home + s.slice(1)) : ODD_SEGMENTS.test(s) ? path.posix.normalize(s) : s;
  const underHome = isUnder(out, home);
  if (form === 'tilde' || (form === 'plain' && tilde)) {
    if (underHome) out = out === home ? '~' : `~${out.slice(home.length)}`;
  }
  return out === s ? null : out;
}

/**
 * A `file:` URI's plain form: its path with percent escapes read (`%2e%2e` is `..` to a server)
 * and dot segments resolved, as `file://` + path (the same for every PathForm).
 */
function fileUriForm(s: string, uriPath: string): string | null {
  let p: string;
  try {
    p = decodeURIComponent(uriPath);
  } catch {
    return null; // a broken escape: no server reads it as a path either
  }
  if (p.includes('\0')) return null;
  const out = `file://${path.posix.normalize(p)}`;
  return out === s ? null : out;
}

/**
 * A web URL's plain form, when what a client sends differs from what is written: fetch,
 * curl and httpx resolve `..`/`.` segments in the path (`%2e` too), read `\` as `/`, and drop
 * tabs and newlines, so `https://api.x/repos/me/%2e%2e/other` asks for /repos/other. Then the
 * URL as a WHATWG parser reads it (the same for every PathForm); otherwise null (a URL with
 * `//` in its path is sent as written).
 */
function webUrlForm(s: string): string | null {
  if (!/[\t\n\r\\]|\/(\.|%2e){1,2}([/?#]|$)/i.test(s)) return null;
  let out: string;
  try {
    out = new URL(s).href;
  } catch {
    return null; // no client sends it either
  }
  return out === s ? null : out;
}

function isUnder(p: string, home: string): boolean {
  return home.length > 1 && (p === home || p.startsWith(home.endsWith('/') ? home : `${home}/`));
}

/**
 * The arguments with every path-like string in `form`, or null when nothing changes (the
 * common case: then only the arguments as written are checked). Walks at most `limit`
 * values; a bigger input is left to the condition's own size check.
 */
export function argsInPathForm(args: unknown, form: PathForm | { cwd: string }, home: string = os.homedir(), limit = 20_000): unknown {
  let changed = false;
  let seen = 0;
  const walk = (v: unknown, depth: number): unknown => {
    if (++seen > limit || depth > 64) return v;
    if (typeof v === 'string') {
      const p = typeof form === 'string' ? pathForm(v, form, home) : cwdForm(v, form.cwd);
      if (p === null) return v;
      changed = true;
      return p;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (v && typeof v === 'object') {
      // defineProperty: a key named __proto__ stays a plain key, as celArgs reads own keys.
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        Object.defineProperty(out, k, { value: walk(x, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return v;
  };
  const out = walk(args, 0);
  return changed ? out : null;
}
