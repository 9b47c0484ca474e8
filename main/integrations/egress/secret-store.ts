// Secrets for the egress proxy, sealed at rest exactly like SSH keys: one file per secret,
// the value sealed by the daemon's Sealer (main/ssh/sealer.ts: the master key file, a
// passphrase, or Electron's safeStorage), never written in the clear. The human side can
// list, add and remove them; nothing ever reads a value back out except the proxy, when
// it injects it into an allowed request to one of the secret's hosts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { Secret, SecretAdd } from '../../contract/approver';
import { SECRET_NAME } from '../../contract/common';
import { RPC, RpcError } from '../../contract/rpc';
import type { SecretService } from '../../core/ports';
import { ensurePrivateDir } from '../../os/paths';
import { normalizeHost } from './target';

/** The shape of main/ssh/sealer.ts's Sealer (the daemon passes the same instance the key store uses). */
export interface Sealer {
  readonly kind: string;
  seal(plain: Buffer): Buffer;
  open(sealed: Buffer): Buffer;
}

const SecretFile = z.object({
  v: z.literal(1),
  name: z.string().regex(SECRET_NAME),
  hosts: z.array(z.string()),
  headers: z.array(z.string()),
  createdAt: z.number(),
  sealer: z.string(),
  sealed: z.string(),
});
const SealedPayload = z.object({ name: z.string(), value: z.string() });

export interface SecretEntry extends Secret {
  value: string;
  /**
   * Which adding of this name it is (in memory only). A replacement keeps it; an add after a
   * remove gets a new one: a task started before the remove never gets the secret back,
   * whatever is added under the same name later (docs/egress.md "Secrets").
   */
  lineage: number;
}

/** Does `host` (normalised) belong to a secret host entry (`api.x.com`, `*.x.com`, `[::1]`)? */
export function secretHostMatches(entry: string, host: string): boolean {
  const e = entry.toLowerCase();
  if (e.startsWith('*.')) {
    const base = normalizeHost(e.slice(2));
    return base !== null && host.endsWith(`.${base}`);
  }
  const n = normalizeHost(e.startsWith('[') ? e : e);
  return n !== null && n === host;
}

export class SecretStore implements SecretService {
  private readonly byName = new Map<string, SecretEntry>();
  private lineages = 0;
  readonly loadWarnings: string[] = [];

  constructor(
    private readonly dir: string,
    private readonly sealer: Sealer,
  ) {}

  load(): this {
    ensurePrivateDir(this.dir);
    for (const f of fs.readdirSync(this.dir).sort()) {
      if (!f.endsWith('.secret')) continue;
      try {
        const meta = SecretFile.parse(JSON.parse(fs.readFileSync(path.join(this.dir, f), 'utf8')));
        if (meta.sealer !== this.sealer.kind) {
          this.loadWarnings.push(`${f}: sealed with ${meta.sealer}, not ${this.sealer.kind}; skipped`);
          continue;
        }
        const payload = SealedPayload.parse(JSON.parse(this.sealer.open(Buffer.from(meta.sealed, 'base64')).toString('utf8')));
        // The sealed payload names its secret, so swapping sealed blobs between files is noticed.
        if (payload.name !== meta.name || `${meta.name}.secret` !== f) throw new Error('name mismatch');
        this.byName.set(meta.name, { name: meta.name, hosts: meta.hosts, headers: meta.headers, createdAt: meta.createdAt, value: payload.value, lineage: ++this.lineages });
      } catch (e) {
        this.loadWarnings.push(`${f}: ${(e as Error).message}; skipped`);
      }
    }
    return this;
  }

  list(): Secret[] {
    return [...this.byName.values()].map((s) => ({ name: s.name, hosts: [...s.hosts], headers: [...s.headers], createdAt: s.createdAt })).sort((a, b) => a.name.localeCompare(b.name));
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  get(name: string): SecretEntry | undefined {
    return this.byName.get(name);
  }

  /**
   * Where a task that took `name` at `lineage` may send it now (hosts and headers as stored),
   * or null when it may not at all: not after a remove, and not after a remove and a new add
   * of the name (only the same lineage counts).
   */
  currentScope(name: string, lineage: number | undefined): { hosts: readonly string[]; headers: readonly string[] } | null {
    const s = this.byName.get(name);
    return s !== undefined && s.lineage === lineage ? { hosts: s.hosts, headers: s.headers } : null;
  }

  add(p: SecretAdd): Secret {
    for (const h of p.hosts) {
      const bare = h.startsWith('*.') ? h.slice(2) : h;
      if (normalizeHost(bare) === null) throw new RpcError(RPC.invalidParams, `invalid params: hosts: ${h} is not a host name or address`);
    }
    const entry: SecretEntry = {
      name: p.name,
      hosts: [...new Set(p.hosts.map((h) => h.toLowerCase()))],
      headers: [...new Set((p.headers ?? []).map((h) => h.toLowerCase()))],
      createdAt: Date.now(),
      value: p.value,
      // Replacing a stored secret keeps its lineage (running tasks keep the value they started
      // with); adding one that is not stored (first time, or after a remove) starts a new one.
      lineage: this.byName.get(p.name)?.lineage ?? ++this.lineages,
    };
    const sealed = this.sealer.seal(Buffer.from(JSON.stringify({ name: entry.name, value: entry.value }), 'utf8'));
    const file = path.join(this.dir, `${entry.name}.secret`);
    const tmp = `${file}.${process.pid}.tmp`;
    ensurePrivateDir(this.dir);
    fs.writeFileSync(
      tmp,
      JSON.stringify({ v: 1, name: entry.name, hosts: entry.hosts, headers: entry.headers, createdAt: entry.createdAt, sealer: this.sealer.kind, sealed: sealed.toString('base64') }) + '\n',
      { mode: 0o600 },
    );
    fs.renameSync(tmp, file);
    this.byName.set(entry.name, entry);
    return { name: entry.name, hosts: [...entry.hosts], headers: [...entry.headers], createdAt: entry.createdAt };
  }

  remove(name: string): void {
    if (!this.byName.delete(name)) throw new RpcError(RPC.notFound, `no secret named ${name}`);
    fs.rmSync(path.join(this.dir, `${name}.secret`), { force: true });
  }
}
