// Names a host key from the user's known_hosts files (the same trust ssh itself uses).
// Hashed entries (HashKnownHosts yes) cannot be read back, so they are checked against the
// host names the ssh process's argv gives: a name is only shown if the file vouches for it.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function defaultKnownHostsFiles(): string[] {
  return [path.join(os.homedir(), '.ssh', 'known_hosts'), path.join(os.homedir(), '.ssh', 'known_hosts2'), '/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2'];
}

interface Entry {
  marker: 'revoked' | 'cert-authority' | null;
  patterns: string[];
  key: Buffer;
}

export interface HostMatch {
  /** The host as known_hosts names it, e.g. "github.com" or "127.0.0.1:2222". */
  host: string;
  hashed: boolean;
  file: string;
}

export interface HostLookup {
  match: HostMatch | null;
  /** The key is listed as @revoked: the prompt must say so. */
  revoked: boolean;
}

const MAX_FILE = 16 * 1024 * 1024;

/** `[host]:port` → `host:port`; plain host unchanged. */
export function displayHost(pattern: string): string {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(pattern);
  return m ? `${m[1]}:${m[2]}` : pattern;
}

function globToRegExp(glob: string): RegExp {
  const re = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 'i');
}

function hashedMatches(pattern: string, name: string): boolean {
  const parts = pattern.split('|');
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2]!, 'base64');
  const want = Buffer.from(parts[3]!, 'base64');
  const got = crypto.createHmac('sha1', salt).update(name).digest();
  return got.length === want.length && crypto.timingSafeEqual(got, want);
}

function parseLine(line: string): Entry | null {
  const t = line.trim();
  if (t === '' || t.startsWith('#')) return null;
  const f = t.split(/\s+/);
  let marker: Entry['marker'] = null;
  if (f[0] === '@revoked' || f[0] === '@cert-authority') {
    marker = f[0] === '@revoked' ? 'revoked' : 'cert-authority';
    f.shift();
  }
  if (f.length < 3) return null;
  const key = Buffer.from(f[2]!, 'base64');
  if (key.length === 0) return null;
  return { marker, patterns: f[0]!.split(','), key };
}

export class KnownHosts {
  private cache = new Map<string, { mtimeMs: number; size: number; entries: Entry[] }>();

  constructor(private readonly files: string[] = defaultKnownHostsFiles()) {}

  private entries(file: string): Entry[] {
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      return [];
    }
    if (!st.isFile() || st.size > MAX_FILE) return [];
    const hit = this.cache.get(file);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.entries;
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return [];
    }
    const entries = text.split('\n').map(parseLine).filter((e): e is Entry => e !== null);
    this.cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, entries });
    return entries;
  }

  /**
   * @param candidates host names as ssh would look them up ("host" for port 22,
   *   "[host]:port" otherwise), most specific first, taken from the ssh process's argv.
   */
  lookup(hostKey: Buffer, candidates: string[]): HostLookup {
    let fallback: HostMatch | null = null;
    // A revocation anywhere wins over a match found earlier, so look for it first.
    const revoked = this.files.some((f) => this.entries(f).some((e) => e.marker === 'revoked' && e.key.equals(hostKey)));
    for (const file of this.files) {
      for (const e of this.entries(file)) {
        if (e.marker !== null || !e.key.equals(hostKey)) continue;
        const negated = e.patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
        for (const cand of candidates) {
          if (negated.some((n) => globToRegExp(n).test(cand))) continue;
          for (const p of e.patterns) {
            if (p.startsWith('|')) {
              if (hashedMatches(p, cand)) return { match: { host: displayHost(cand), hashed: true, file }, revoked };
            } else if (!p.startsWith('!') && globToRegExp(p).test(cand)) {
              return { match: { host: displayHost(cand), hashed: false, file }, revoked };
            }
          }
        }
        // No argv to go by (or it named another alias): a literal plain name still identifies the key.
        const literal = e.patterns.find((p) => !p.startsWith('|') && !p.startsWith('!') && !/[*?]/.test(p));
        if (!fallback && literal) fallback = { host: displayHost(literal), hashed: false, file };
      }
    }
    return { match: fallback, revoked };
  }
}
