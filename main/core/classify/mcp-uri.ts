// What an MCP resource URI reaches (`resources/read`, `resources/subscribe`, Claude Code's
// ReadMcpResourceTool): a `file:` URI is the path(s) it can name, a network URL is a
// transfer to its host, anything else is the server's own name for something.
//
// Servers read a URI in different ways: Node's `fileURLToPath(new URL(uri))` (WHATWG: case,
// tabs, backslashes, `%2e%2e` and `localhost` folded), or by cutting `file://` off the text
// (then `file://etc/passwd` is `etc/passwd`, relative, and `%2F` stays). A URI is judged as
// every path one of these readings gives: more resources only ever make a request riskier
// (an allow grant must cover all of them, a deny grant on any one denies, a secret in any
// one is a secret read), so a spelling cannot hide a path from the risk rules.
import type { Action } from '../../contract/constants';

/** Longer URIs are refused, not judged: a path cut to fit could drop the secret at its end. */
export const MAX_URI_CHARS = 3072;

/** Schemes whose URL makes the server fetch from the network: what the URL holds leaves. */
const NETWORK_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'ftps:', 'gopher:', 'sftp:', 'scp:', 'smb:', 'ldap:', 'ldaps:']);

/** Tabs and newlines anywhere, C0 controls and spaces at the ends: what WHATWG URL drops first. */
function tidyUri(uri: string): string {
  return uri.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
}

function tryDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function parse(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

/** A path as a server would open it: absolute, `~`, or joined to the working directory. */
function anchored(p: string, cwd: string | undefined): string {
  if (p.startsWith('/') || p === '~' || p.startsWith('~/')) return p;
  if (cwd && cwd.startsWith('/')) return `${cwd.replace(/\/+$/, '')}/${p}`;
  return p;
}

/**
 * The paths a `file:` URI can name (each reading above, decoded and as written), or null
 * when the URI is not a `file:` URI in any reading.
 */
export function fileUriPaths(uri: string, cwd?: string): string[] | null {
  const text = tidyUri(uri);
  const url = parse(text);
  const raw = /^file:(.*)$/is.exec(text);
  if (!raw && url?.protocol !== 'file:') return null;
  const out: string[] = [];
  const add = (p: string) => {
    if (p && !out.includes(p)) out.push(p);
  };
  if (url?.protocol === 'file:') add(tryDecode(url.pathname));
  if (raw) {
    const rest = raw[1]!;
    for (const r of new Set([rest, tryDecode(rest)])) {
      if (r.startsWith('//')) {
        const after = r.slice(2);
        // `file:///x` → `/x`; `file://host/x` → `/x` (host dropped) and `host/x` (cut naively).
        if (after.startsWith('/') || after.startsWith('~')) add(anchored(after, cwd));
        else {
          const slash = after.indexOf('/');
          add(slash >= 0 ? after.slice(slash) : '/');
          add(anchored(after, cwd));
        }
      } else add(anchored(r, cwd));
    }
  }
  return out.length ? out : ['/'];
}

export interface UriTarget {
  action: Action;
  /** Paths for `file:` URIs, the host for network URLs, `mcp:SERVER:URI` otherwise. */
  resources: string[];
  reasons: { level: 'low' | 'medium' | 'high'; reason: string }[];
}

/** What reading `uri` through MCP server `server` reaches. */
export function uriTarget(uri: string, server: string, cwd?: string): UriTarget {
  const reasons: UriTarget['reasons'] = [];
  const paths = fileUriPaths(uri, cwd);
  if (paths) {
    const url = parse(tidyUri(uri));
    if (url?.hostname) {
      // Kept whole as well (first): no grant for paths covers it, and a deny on any reading denies it.
      reasons.push({ level: 'medium', reason: `the file URI names a host (${url.hostname.slice(0, 100)}): servers differ on what it means, every reading is judged` });
      return { action: 'read', resources: [uri, ...paths.filter((p) => p !== uri)], reasons };
    }
    if (paths.length > 1) reasons.push({ level: 'low', reason: `the file URI can be read as ${paths.length} paths by different servers: every one is judged` });
    return { action: 'read', resources: paths, reasons };
  }
  const url = parse(tidyUri(uri));
  if (url && NETWORK_SCHEMES.has(url.protocol) && url.hostname) {
    reasons.push({ level: 'medium', reason: `a ${url.protocol.slice(0, -1)} resource: the server fetches it from ${url.hostname.slice(0, 100)}, and what the URL holds leaves with the request` });
    return { action: 'transfer', resources: [url.hostname.toLowerCase()], reasons };
  }
  const resources = [`mcp:${server}:${uri}`];
  // No scheme at all: a lenient server may take it as a path (`.env`, `/etc/passwd`).
  if (!url && !/^[a-z][a-z0-9+.-]*:/i.test(uri)) resources.push(anchored(uri, cwd));
  // A scheme of the server's own naming an absolute path (`res:///home/u/.ssh/id_ed25519`,
  // `notes:/etc/x`): a server may map its scheme onto the file system, so the path is judged
  // as a file read too (a key there is a secret read; a deny on its directory denies it).
  else if (url && !url.host && url.pathname.startsWith('/')) {
    for (const p of new Set([url.pathname, tryDecode(url.pathname)])) resources.push(p);
    reasons.push({ level: 'low', reason: `the ${url.protocol.slice(0, 40)} URI names the path ${url.pathname.slice(0, 200)}: judged as a file read too` });
  }
  return { action: 'read', resources, reasons };
}

/**
 * The paths a name a server chose may stand for (a prompt's name): a `file:` URI's paths, a
 * name that reads as a path (`/…`, `~/…`, `./…`, `a/b`) where it leads; none otherwise.
 */
export function namePaths(name: string, cwd?: string): string[] {
  const file = fileUriPaths(name, cwd);
  if (file) return file;
  return /^[~.]|\//.test(name) ? [anchored(name, cwd)] : [];
}
