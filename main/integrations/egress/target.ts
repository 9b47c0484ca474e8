// Where a sandbox wants to go, normalised once so grants and secrets see one spelling:
// `EXAMPLE.com.:443`, `example.com:443` and `[::1]` vs `0:0::1` are each one destination,
// and IPv4 written as `0x7f.1` or `2130706433` is the dotted quad it means (the WHATWG
// URL parser does this, the same parser browsers use), so a deny on `127.0.0.1:*` cannot
// be walked around with another spelling.
import * as net from 'node:net';

export interface Target {
  /** Lower-case host name without a trailing dot, dotted-quad IPv4, or IPv6 without brackets. */
  host: string;
  port: number;
  /** `host:port`, IPv6 in brackets: the resource of an egress request. */
  resource: string;
}

const HOST_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** The resource spelling: `host:port`, `[v6]:port`. */
export function resourceOf(host: string, port: number): string {
  return `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/** The Host header for a target: the port only when it is not the scheme's default. */
export function hostHeaderOf(t: Target, defaultPort: number): string {
  const host = net.isIPv6(t.host) ? `[${t.host}]` : t.host;
  return t.port === defaultPort ? host : `${host}:${t.port}`;
}

/** A host as the URL parser normalises it, or null when it is not a plain host name or address. */
export function normalizeHost(raw: string): string | null {
  if (raw.length === 0 || raw.length > 255) return null;
  let u: URL;
  try {
    u = new URL(`http://${raw}/`);
  } catch {
    return null;
  }
  // Anything the parser would treat as userinfo, port or path is not a bare host.
  if (u.username || u.password || u.port || u.pathname !== '/' || u.search || u.hash) return null;
  let host = u.hostname;
  if (host.startsWith('[') && host.endsWith(']')) {
    host = host.slice(1, -1);
    return net.isIPv6(host) ? canonicalAddress(host) : null;
  }
  host = host.replace(/\.$/, '');
  if (net.isIPv4(host)) return host;
  const labels = host.split('.');
  if (labels.length === 0 || labels.some((l) => !HOST_LABEL.test(l))) return null;
  return host;
}

/**
 * One spelling per address: an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`)
 * is that IPv4 address on a dual-stack socket, so it takes the dotted form and a grant on
 * `127.0.0.1:*` covers it too; other IPv6 is lower case as the URL parser writes it.
 */
export function canonicalAddress(address: string): string {
  if (!net.isIPv6(address)) return address;
  let v6: string;
  try {
    v6 = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address.toLowerCase(); // a zone id (`fe80::1%eth0`): the URL parser has no spelling for it
  }
  return /^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(v6) ? (embeddedIPv4(v6) ?? v6) : v6;
}

function port(raw: string): number | null {
  if (!/^\d{1,5}$/.test(raw)) return null;
  const n = Number(raw);
  return n >= 1 && n <= 65535 ? n : null;
}

/** A CONNECT authority `host:port` (`[v6]:port`); the port is required, as RFC 9110 says. */
export function parseAuthority(authority: string): Target | null {
  const m = /^(\[[^\]]*\]|[^:]*):(\d+)$/.exec(authority);
  if (!m) return null;
  const host = normalizeHost(m[1]!);
  const p = port(m[2]!);
  if (host === null || p === null) return null;
  return { host, port: p, resource: resourceOf(host, p) };
}

/** An absolute-form `http://host[:port]/path` of a plain proxy request. */
export function parseAbsoluteUrl(url: string): (Target & { path: string }) | null {
  if (!/^http:\/\//i.test(url)) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.username || u.password) return null;
  const host = normalizeHost(u.hostname);
  const p = u.port ? port(u.port) : 80;
  if (host === null || p === null) return null;
  return { host, port: p, resource: resourceOf(host, p), path: `${u.pathname}${u.search}` };
}

/** The IPv4 address inside an IPv6 one that reaches it: mapped (`::ffff:a.b.c.d`), compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`). */
function embeddedIPv4(v6: string): string | null {
  // The URL parser (target.ts's only source of literals) writes these in hex: `::ffff:7f00:1`.
  const m = /^(::ffff:|::|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(v6);
  if (!m) return null;
  if (m[2]) return m[2];
  const hi = parseInt(m[3]!, 16);
  const lo = parseInt(m[4]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Addresses that reach this machine or the local network rather than the internet. */
export function localAddressKind(address: string): string | null {
  if (net.isIPv4(address)) {
    const [a, b] = address.split('.').map(Number) as [number, number];
    if (a === 127) return 'this machine (loopback)';
    if (a === 0) return 'this machine (0.0.0.0)';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'the local network';
    if (a === 169 && b === 254) return 'a link-local address (cloud metadata services live here)';
    if (a === 100 && b >= 64 && b <= 127) return 'a carrier-grade NAT address';
    if (a >= 224) return 'a multicast or broadcast address (the local network)';
    return null;
  }
  const v6 = address.toLowerCase();
  if (v6 === '::1' || v6 === '::') return 'this machine (loopback)';
  // `[::ffff:127.0.0.1]` reaches 127.0.0.1 through a dual-stack socket.
  const v4 = embeddedIPv4(v6);
  if (v4) return localAddressKind(v4);
  if (/^f[cd]/.test(v6)) return 'the local network';
  if (/^fe[89ab]/.test(v6)) return 'a link-local address';
  if (/^fe[c-f]/.test(v6)) return 'the local network (site-local)';
  if (/^ff/.test(v6)) return 'a multicast address (the local network)';
  return null;
}
