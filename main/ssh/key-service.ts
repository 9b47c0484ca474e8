// KeyService (main/core/ports.ts) over the key store and the upstream agent: what
// ApproverService keys.* and `airlock keys` call. Returns public facts only.
import * as path from 'node:path';
import type { Key } from '../contract/approver';
import { RPC, RpcError } from '../contract/rpc';
import type { KeyService } from '../core/ports';
import { GENERATE_TYPES, type GenerateType, KeyImportError, expandHome, generateKey, parsePrivateKey, readKeyFile } from './key-import';
import { hasUnprintable, printable } from './describe';
import { fingerprintOf, openSshPublicLine } from './key-material';
import type { KeyEntry, KeyStore } from './key-store';
import type { UpstreamSlot } from './upstream';
import { Reader } from './wire';

function toKey(e: KeyEntry): Key {
  return {
    fingerprint: e.key.fingerprint,
    type: e.key.algorithm,
    // Comments come from ssh-add clients; lists are printed in terminals.
    name: printable(e.name),
    comment: printable(e.comment),
    publicKey: openSshPublicLine(e.key.algorithm, e.key.publicBlob, printable(e.comment)),
    origin: e.origin,
    confirm: e.confirm,
    expiresAt: e.expiresAt,
    createdAt: e.createdAt,
    lastUsedAt: e.lastUsedAt,
  };
}

export class AgentKeyService implements KeyService {
  constructor(
    private readonly store: KeyStore,
    private readonly upstream: UpstreamSlot,
  ) {}

  async list(): Promise<Key[]> {
    const ours = this.store.entries().map(toKey);
    const seen = new Set(ours.map((k) => k.fingerprint));
    const up = this.upstream.current;
    if (up) {
      const ups = await up.list().catch(() => []);
      for (const u of ups) {
        const fp = fingerprintOf(u.blob);
        if (seen.has(fp)) continue;
        seen.add(fp);
        let type: string;
        try {
          type = new Reader(u.blob).text(64);
        } catch {
          continue;
        }
        ours.push({
          fingerprint: fp,
          type,
          name: printable(u.comment || fp),
          comment: printable(u.comment),
          publicKey: openSshPublicLine(type, u.blob, printable(u.comment)),
          origin: 'upstream',
          confirm: false,
          expiresAt: null,
          createdAt: 0,
          lastUsedAt: null,
        });
      }
    }
    return ours;
  }

  async import(p: { path?: string; pem?: string; passphrase?: string; name?: string }): Promise<Key> {
    return asParamsError(() => {
      if ((p.path === undefined) === (p.pem === undefined)) throw new KeyImportError('give exactly one of path or pem');
      const text = p.path !== undefined ? readKeyFile(p.path) : p.pem!;
      if (p.name !== undefined) this.checkName(p.name);
      const { key, comment } = parsePrivateKey(text, p.passphrase);
      const name = p.name || comment || (p.path ? path.basename(expandHome(p.path)) : key.fingerprint);
      return toKey(this.store.addPersistent(key, name, comment || name));
    });
  }

  async generate(p: { type: string; name: string }): Promise<Key> {
    if (!(GENERATE_TYPES as readonly string[]).includes(p.type)) {
      throw new RpcError(RPC.invalidParams, `invalid params: type: must be one of ${GENERATE_TYPES.join(', ')}`);
    }
    this.checkName(p.name);
    const key = await generateKey(p.type as GenerateType);
    return asParamsError(() => toKey(this.store.addPersistent(key, p.name, p.name)));
  }

  async remove(fingerprint: string): Promise<void> {
    // Still -32004 (README: a key named that does not exist), but saying the form it must take:
    // a name, an MD5 fingerprint or one without its SHA256: prefix never names a key.
    if (!FINGERPRINT.test(fingerprint)) {
      throw new RpcError(RPC.notFound, `no key ${printable(fingerprint).slice(0, 100)} in Airlock: a fingerprint is written as OpenSSH prints it, SHA256: and 43 base64 characters (airlock keys list, ssh-add -l)`);
    }
    if (this.store.remove(fingerprint)) return;
    throw new RpcError(RPC.notFound, `no key ${fingerprint} in Airlock (keys of an upstream agent are removed there)`);
  }

  /**
   * A name the human gives a key is how prompts and lists tell keys apart ("with key 'work'"):
   * it must show as typed (no control, bidi or invisible characters — a newline also split
   * `ssh-add -l`/`-L` lines), must not be blank, and must not be another stored key's name.
   * Names taken from a key file's comment are not held to this: many keys say `user@host`.
   */
  private checkName(name: string): void {
    const bad = (why: string) => new RpcError(RPC.invalidParams, `invalid params: name: ${why}`);
    if (name.trim() === '') throw bad('must not be blank');
    if (hasUnprintable(name)) throw bad('must not hold control, bidi or invisible characters (newlines, escapes): prompts show it as the key\'s name');
    const same = this.store.entries().find((e) => e.origin === 'airlock' && e.name.normalize('NFC') === name.normalize('NFC'));
    if (same) throw bad(`a key named '${printable(name)}' is already stored (${same.key.fingerprint}): choose another name, or remove that key first`);
  }
}

/** `SHA256:` and 43 base64 characters, as ssh-keygen -l and ssh-add -l print a fingerprint. */
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

/** A bad key file or passphrase is the caller's mistake (-32602), not an internal error. */
function asParamsError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof KeyImportError || (e instanceof Error && /already stored/.test(e.message))) {
      throw new RpcError(RPC.invalidParams, `invalid params: ${e.message}`);
    }
    throw e;
  }
}
