// The agent's own keys. "airlock" keys (imported or generated) are sealed to disk, one file
// per key in the keys dir; "ssh-add" keys live in memory only, as with OpenSSH's agent,
// honouring -t (lifetime) and -c (confirm). Private keys leave this module only as
// KeyObjects handed to key-material's signWith.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir } from '../os/paths';
import { type AgentKey, fromStoredJwk, openSshPublicLine, toStoredJwk } from './key-material';
import type { Sealer } from './sealer';

export type KeyOrigin = 'airlock' | 'ssh-add';

export interface KeyEntry {
  key: AgentKey;
  name: string;
  comment: string;
  origin: KeyOrigin;
  /** ssh-add -c: every use needs the human, a grant alone is not enough. */
  confirm: boolean;
  expiresAt: number | null;
  createdAt: number;
  lastUsedAt: number | null;
}

/**
 * Where stored keys' "last used" is kept across restarts (the daemon passes the store's
 * key_usage table). ssh-add keys are memory-only, like ssh-agent's: nothing about them
 * is written anywhere, not even when they were used.
 */
export interface KeyUsage {
  load(): Map<string, number>;
  touch(fingerprint: string, at: number): void;
  forget(fingerprint: string): void;
}

/** What `ssh-add -D` did: the ssh-add keys it removed, the stored keys it left alone. */
export interface RemoveAllResult {
  removed: string[];
  kept: string[];
}

/** Most ssh-add keys held at once: memory stays bounded whatever a client sends. */
export const MAX_VOLATILE_KEYS = 256;

const KeyFile = z.object({
  v: z.literal(1),
  fingerprint: z.string(),
  algorithm: z.string(),
  name: z.string(),
  comment: z.string(),
  publicKey: z.string(),
  createdAt: z.number(),
  sealer: z.string(),
  sealed: z.string(),
});
const SealedPayload = z.object({ fingerprint: z.string(), jwk: z.record(z.string(), z.unknown()) });

export class KeyStore {
  private readonly byFp = new Map<string, KeyEntry>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Problems met while loading (a key sealed another way, a damaged file): shown, never fatal. */
  readonly loadWarnings: string[] = [];

  constructor(
    private readonly keysDir: string,
    private readonly sealer: Sealer,
    private readonly onChange: () => void = () => {},
    private readonly usage?: KeyUsage,
  ) {}

  load(): void {
    ensurePrivateDir(this.keysDir);
    let used = new Map<string, number>();
    try {
      used = this.usage?.load() ?? used;
    } catch (e) {
      this.loadWarnings.push(`last-used times unavailable (${(e as Error).message.slice(0, 200)})`);
    }
    for (const name of fs.readdirSync(this.keysDir).sort()) {
      if (!name.endsWith('.key')) continue;
      const file = path.join(this.keysDir, name);
      try {
        const meta = KeyFile.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
        if (meta.sealer !== this.sealer.kind) {
          this.loadWarnings.push(`${name}: sealed with ${meta.sealer}, not ${this.sealer.kind}; skipped`);
          continue;
        }
        let opened: Buffer;
        try {
          opened = this.sealer.open(Buffer.from(meta.sealed, 'base64'));
        } catch {
          throw new Error(`it does not open with this ${this.sealer.kind} key: was it sealed under another one (keys/master.secret replaced)? Restore that file, or move this .key file aside`);
        }
        const payload = SealedPayload.parse(JSON.parse(opened.toString('utf8')));
        const key = fromStoredJwk(payload.jwk as crypto.JsonWebKey);
        // The sealed payload names its key, so swapping sealed blobs between files is noticed.
        if (key.fingerprint !== meta.fingerprint || payload.fingerprint !== meta.fingerprint) throw new Error('fingerprint mismatch');
        this.byFp.set(key.fingerprint, {
          key,
          name: meta.name,
          comment: meta.comment,
          origin: 'airlock',
          confirm: false,
          expiresAt: null,
          createdAt: meta.createdAt,
          lastUsedAt: used.get(key.fingerprint) ?? null,
        });
      } catch (e) {
        this.loadWarnings.push(`${name}: cannot be opened (${(e as Error).message.slice(0, 200)}); skipped`);
      }
    }
  }

  private fileOf(fingerprint: string): string {
    return path.join(this.keysDir, crypto.createHash('sha256').update(fingerprint).digest('hex').slice(0, 32) + '.key');
  }

  entries(): KeyEntry[] {
    const now = Date.now();
    return [...this.byFp.values()].filter((e) => e.expiresAt === null || e.expiresAt > now);
  }

  get(fingerprint: string): KeyEntry | undefined {
    const e = this.byFp.get(fingerprint);
    if (e && e.expiresAt !== null && e.expiresAt <= Date.now()) {
      this.drop(fingerprint);
      return undefined;
    }
    return e;
  }

  /** Seals and writes an airlock key; refuses a key that is already one. */
  addPersistent(key: AgentKey, name: string, comment: string): KeyEntry {
    const existing = this.byFp.get(key.fingerprint);
    if (existing?.origin === 'airlock') throw new Error(`key ${key.fingerprint} is already stored as '${existing.name}'`);
    ensurePrivateDir(this.keysDir);
    const payload = Buffer.from(JSON.stringify({ fingerprint: key.fingerprint, jwk: toStoredJwk(key) }));
    const createdAt = Date.now();
    const meta: z.infer<typeof KeyFile> = {
      v: 1,
      fingerprint: key.fingerprint,
      algorithm: key.algorithm,
      name,
      comment,
      publicKey: openSshPublicLine(key.algorithm, key.publicBlob, comment),
      createdAt,
      sealer: this.sealer.kind,
      sealed: this.sealer.seal(payload).toString('base64'),
    };
    payload.fill(0);
    const file = this.fileOf(key.fingerprint);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(meta) + '\n', { mode: 0o600 });
    fs.renameSync(tmp, file);
    this.clearTimer(key.fingerprint);
    const entry: KeyEntry = { key, name, comment, origin: 'airlock', confirm: false, expiresAt: null, createdAt, lastUsedAt: null };
    this.byFp.set(key.fingerprint, entry);
    this.onChange();
    return entry;
  }

  /** ssh-add: in memory only. Re-adding a key updates its constraints, as OpenSSH does. */
  addVolatile(key: AgentKey, comment: string, c: { lifetimeSec: number | null; confirm: boolean }): boolean {
    const existing = this.byFp.get(key.fingerprint);
    // A stored key stays what it is; ssh-add of the same key is a no-op success.
    if (existing?.origin === 'airlock') return true;
    if (!existing && this.countVolatile() >= MAX_VOLATILE_KEYS) return false;
    const now = Date.now();
    const expiresAt = c.lifetimeSec !== null && c.lifetimeSec > 0 ? now + c.lifetimeSec * 1000 : null;
    this.byFp.set(key.fingerprint, {
      key,
      name: comment || key.fingerprint,
      comment,
      origin: 'ssh-add',
      confirm: c.confirm,
      expiresAt,
      createdAt: existing?.createdAt ?? now,
      lastUsedAt: existing?.lastUsedAt ?? null,
    });
    this.clearTimer(key.fingerprint);
    if (expiresAt !== null) {
      const t = setTimeout(() => this.drop(key.fingerprint), Math.min(expiresAt - now, 2 ** 31 - 1));
      t.unref();
      this.timers.set(key.fingerprint, t);
    }
    this.onChange();
    return true;
  }

  private countVolatile(): number {
    let n = 0;
    for (const e of this.byFp.values()) if (e.origin === 'ssh-add') n++;
    return n;
  }

  /** ssh-add -d: only keys ssh-add added; stored keys are removed from the human side. */
  removeVolatile(fingerprint: string): boolean {
    const e = this.get(fingerprint);
    if (!e || e.origin !== 'ssh-add') return false;
    this.drop(fingerprint);
    return true;
  }

  /**
   * ssh-add -D: removes the keys ssh-add added. Stored keys stay (they are removed from the
   * human side, `airlock keys remove`); the caller tells ssh-add it did not remove all.
   */
  removeAllVolatile(): RemoveAllResult {
    const out: RemoveAllResult = { removed: [], kept: [] };
    for (const e of [...this.entries()]) {
      if (e.origin === 'ssh-add') {
        this.drop(e.key.fingerprint, false);
        out.removed.push(e.name);
      } else out.kept.push(e.name);
    }
    this.onChange();
    return out;
  }

  /** keys.remove: any of ours, stored ones deleted from disk too. */
  remove(fingerprint: string): boolean {
    const e = this.byFp.get(fingerprint);
    if (!e) return false;
    if (e.origin === 'airlock') {
      fs.rmSync(this.fileOf(fingerprint), { force: true });
      this.usage?.forget(fingerprint);
    }
    this.drop(fingerprint);
    return true;
  }

  touch(fingerprint: string): void {
    const e = this.byFp.get(fingerprint);
    if (!e) return;
    e.lastUsedAt = Date.now();
    // Stored keys only: an ssh-add key leaves no trace on disk.
    if (e.origin === 'airlock') {
      try {
        this.usage?.touch(fingerprint, e.lastUsedAt);
      } catch {
        // A busy or closed database costs the persisted time, never the signature.
      }
    }
  }

  private clearTimer(fp: string): void {
    const t = this.timers.get(fp);
    if (t) clearTimeout(t);
    this.timers.delete(fp);
  }

  private drop(fp: string, notify = true): void {
    this.clearTimer(fp);
    if (this.byFp.delete(fp) && notify) this.onChange();
  }

  close(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
