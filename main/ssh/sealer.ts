// Encryption at rest for private keys. A Sealer turns plaintext into an opaque blob and
// back; the key store never writes a private key any other way. Headless Airlock uses a
// random master key in a 0600 file, or a key derived from a passphrase; the Electron app
// plugs in a Sealer over safeStorage (main/electron), which needs nothing from this file:
//   { kind: 'safe-storage', seal: (b) => safeStorage.encryptString(b.toString('base64')),
//     open: (b) => Buffer.from(safeStorage.decryptString(b), 'base64') }
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateDir } from '../os/paths';

export interface Sealer {
  /** Recorded beside each sealed blob so a key sealed another way is recognised, not garbled. */
  readonly kind: string;
  seal(plain: Buffer): Buffer;
  /** Throws when the blob was not sealed by this sealer (wrong key, tampering). */
  open(sealed: Buffer): Buffer;
}

const VERSION = 1;

/** AES-256-GCM with a random IV: version || iv(12) || tag(16) || ciphertext. */
export function aesGcmSealer(kind: string, key: Buffer): Sealer {
  if (key.length !== 32) throw new Error('a sealing key must be 32 bytes');
  return {
    kind,
    seal(plain) {
      const iv = crypto.randomBytes(12);
      const c = crypto.createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([c.update(plain), c.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, c.getAuthTag(), ct]);
    },
    open(sealed) {
      if (sealed.length < 29 || sealed[0] !== VERSION) throw new Error('sealed blob has an unknown format');
      const d = crypto.createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 13));
      d.setAuthTag(sealed.subarray(13, 29));
      return Buffer.concat([d.update(sealed.subarray(29)), d.final()]);
    },
  };
}

function writePrivateFile(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** Headless default: 32 random bytes in `<keysDir>/master.secret` (0600), created on first use. */
export function masterKeyFileSealer(keysDir: string): Sealer {
  ensurePrivateDir(keysDir);
  const file = path.join(keysDir, 'master.secret');
  let key: Buffer;
  if (fs.existsSync(file)) {
    const st = fs.statSync(file);
    if ((st.mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
    key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} is not an Airlock master key`);
  } else {
    // A new master key would make the keys sealed under the lost one unreadable for good
    // (and new keys sealed under it would stand in the way of restoring the old file): refuse
    // to start instead, as a wrong AIRLOCK_KEY_PASSPHRASE does, and say what to do.
    const orphans = keysSealedWith(keysDir, 'master-key-file');
    if (orphans > 0) {
      throw new Error(
        `${file} is missing, but ${keysDir} holds ${orphans} key(s) sealed with it: restore it from a backup (or move those .key files aside to start without them)`,
      );
    }
    key = crypto.randomBytes(32);
    writePrivateFile(file, key.toString('base64') + '\n');
  }
  return aesGcmSealer('master-key-file', key);
}

/** How many `.key` files in `keysDir` say they were sealed by `kind` (unreadable ones are not counted). */
function keysSealedWith(keysDir: string, kind: string): number {
  let n = 0;
  for (const name of fs.readdirSync(keysDir)) {
    if (!name.endsWith('.key')) continue;
    try {
      if ((JSON.parse(fs.readFileSync(path.join(keysDir, name), 'utf8')) as { sealer?: unknown }).sealer === kind) n++;
    } catch {
      // Not a key file we can read: the key store reports it when it loads.
    }
  }
  return n;
}

// scrypt N=2^15, r=8: ~32 MiB and ~0.1 s, once at start-up.
const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const CHECK = Buffer.from('airlock passphrase check');

/**
 * Keys sealed with a passphrase the user chose. The salt and a check blob live in
 * `<keysDir>/passphrase.json`, so a wrong passphrase is refused at start-up instead of
 * silently failing to open every key.
 */
export function passphraseSealer(keysDir: string, passphrase: string): Sealer {
  if (passphrase.length === 0) throw new Error('the key passphrase must not be empty');
  ensurePrivateDir(keysDir);
  const file = path.join(keysDir, 'passphrase.json');
  let salt: Buffer;
  let check: Buffer | null = null;
  if (fs.existsSync(file)) {
    const j = JSON.parse(fs.readFileSync(file, 'utf8')) as { salt?: unknown; check?: unknown };
    if (typeof j.salt !== 'string' || typeof j.check !== 'string') throw new Error(`${file} is damaged`);
    salt = Buffer.from(j.salt, 'base64');
    check = Buffer.from(j.check, 'base64');
  } else {
    salt = crypto.randomBytes(16);
  }
  const sealer = aesGcmSealer('passphrase', crypto.scryptSync(passphrase, salt, 32, SCRYPT));
  if (check) {
    let ok: boolean;
    try {
      ok = sealer.open(check).equals(CHECK);
    } catch {
      ok = false;
    }
    if (!ok) throw new Error('wrong key passphrase');
  } else {
    writePrivateFile(file, JSON.stringify({ salt: salt.toString('base64'), check: sealer.seal(CHECK).toString('base64') }) + '\n');
  }
  return sealer;
}
