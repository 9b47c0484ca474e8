// Name resolution for the egress proxy. The sandbox has no DNS: names are resolved here.
//
// A DNS query is itself data leaving the machine (`<secret>.attacker.example` reaches the
// attacker's name server before any connection is made), so a name is looked up in DNS
// only after the connection was allowed. Before the decision the prompt shows an address
// only when it is known without a query: an IP literal, or a name in /etc/hosts.
import * as dns from 'node:dns';
import * as fs from 'node:fs';
import * as net from 'node:net';

export interface ResolverOptions {
  hostsFile?: string;
  /** Test-only fixed answers (AIRLOCK_EGRESS_TEST_HOSTS, see docs/egress.md). */
  fixed?: ReadonlyMap<string, string>;
  lookup?: (host: string) => Promise<string>;
}

/**
 * Test-only DNS answers (AIRLOCK_EGRESS_TEST_DNS): unlike `fixed`, these names are not
 * known before the decision, exactly like a name in real DNS (how the rebinding rule is tested).
 */
export function fixedDnsLookup(answers: ReadonlyMap<string, string>): (host: string) => Promise<string> {
  return async (host) => {
    const a = answers.get(host);
    if (!a) throw new Error(`${host} has no address (test DNS)`);
    return a;
  };
}

/** `name=address,name=address` → map; entries that do not parse are skipped. */
export function parseFixedHosts(spec: string | undefined): Map<string, string> {
  const m = new Map<string, string>();
  for (const part of (spec ?? '').split(',')) {
    const [name, addr] = part.split('=').map((s) => s.trim());
    if (name && addr && net.isIP(addr)) m.set(name.toLowerCase(), addr);
  }
  return m;
}

async function dnsLookup(host: string): Promise<string> {
  // IPv4 first: most test servers and many networks have no working IPv6 route.
  const all = await dns.promises.lookup(host, { all: true, verbatim: false });
  const v4 = all.find((a) => a.family === 4);
  const pick = v4 ?? all[0];
  if (!pick) throw new Error(`${host} has no address`);
  return pick.address;
}

export class Resolver {
  private hostsCache: { mtimeMs: number; map: Map<string, string> } | null = null;

  constructor(private readonly o: ResolverOptions = {}) {}

  private hostsEntries(): Map<string, string> {
    const file = this.o.hostsFile ?? '/etc/hosts';
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      return new Map();
    }
    if (this.hostsCache && this.hostsCache.mtimeMs === st.mtimeMs) return this.hostsCache.map;
    const map = new Map<string, string>();
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8').slice(0, 1 << 20);
    } catch {
      /* unreadable: no entries */
    }
    for (const line of text.split('\n')) {
      const words = line.replace(/#.*/, '').trim().split(/\s+/);
      const addr = words[0];
      if (!addr || !net.isIP(addr)) continue;
      for (const name of words.slice(1)) {
        const key = name.toLowerCase();
        // The first IPv4 entry wins, as with the IPv4-first lookup below.
        const prev = map.get(key);
        if (!prev || (net.isIPv6(prev) && net.isIPv4(addr))) map.set(key, addr);
      }
    }
    this.hostsCache = { mtimeMs: st.mtimeMs, map };
    return map;
  }

  /** The address when it is known without sending a DNS query, else null. */
  known(host: string): string | null {
    if (net.isIP(host)) return host;
    return this.o.fixed?.get(host) ?? this.hostsEntries().get(host) ?? null;
  }

  /** The address to connect to; may query DNS (call only once the connection is allowed). */
  async resolve(host: string): Promise<string> {
    const k = this.known(host);
    if (k) return k;
    return (this.o.lookup ?? dnsLookup)(host);
  }
}
