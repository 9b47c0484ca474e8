// Turning key files into AgentKeys: OpenSSH's own format (incl. bcrypt-encrypted ones) and
// PEM (PKCS#1, SEC1) through ssh2's parser, PKCS#8 (plain or encrypted) through Node's
// crypto, and fresh keys through Node's crypto.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { utils } from 'ssh2';
import { type AgentKey, agentKeyOf } from './key-material';

export const GENERATE_TYPES = ['ed25519', 'ecdsa-p256', 'ecdsa-p384', 'ecdsa-p521', 'rsa-3072', 'rsa-4096'] as const;
export type GenerateType = (typeof GENERATE_TYPES)[number];

export class KeyImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyImportError';
  }
}

const MAX_KEY_FILE = 64 * 1024;

export function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p;
}

export function readKeyFile(p: string): string {
  const file = path.resolve(expandHome(p));
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new KeyImportError(`no key file at ${file}`);
  }
  if (!st.isFile()) throw new KeyImportError(`${file} is not a file`);
  if (st.size > MAX_KEY_FILE) throw new KeyImportError(`${file} is too large to be a private key`);
  return fs.readFileSync(file, 'utf8');
}

/** Parses a private key (text); the passphrase is needed only for an encrypted one. */
export function parsePrivateKey(text: string, passphrase?: string): { key: AgentKey; comment: string } {
  if (!/PRIVATE KEY|PuTTY-User-Key-File/.test(text)) throw new KeyImportError(notAPrivateKey(text));
  // ssh2 reads OpenSSH, PKCS#1 and SEC1 but not PKCS#8 ("BEGIN PRIVATE KEY", "BEGIN ENCRYPTED
  // PRIVATE KEY"), which is what `openssl genpkey`, `ssh-keygen -m PKCS8` and Node write.
  if (/-----BEGIN (ENCRYPTED )?PRIVATE KEY-----/.test(text)) return parsePkcs8(text, passphrase);
  const parsed = utils.parseKey(text, passphrase);
  if (parsed instanceof Error) {
    const m = parsed.message;
    if (/no passphrase given/i.test(m)) throw new KeyImportError('the key is encrypted: give its passphrase');
    if (/bad passphrase|integrity check failed|decrypt/i.test(m)) throw new KeyImportError('wrong passphrase for this key');
    throw new KeyImportError(`cannot read the key: ${m.slice(0, 200)}`);
  }
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!first) throw new KeyImportError('the file holds no key');
  let pem: string;
  try {
    pem = first.getPrivatePEM();
  } catch {
    throw new KeyImportError('the file holds no private key');
  }
  if (!pem) throw new KeyImportError('the file holds no private key');
  try {
    return { key: agentKeyOf(crypto.createPrivateKey(pem)), comment: first.comment ?? '' };
  } catch (e) {
    throw new KeyImportError(`unsupported key: ${(e as Error).message.slice(0, 200)}`);
  }
}

/** What a file that is not a private key is, in the words its owner would use. */
function notAPrivateKey(text: string): string {
  const t = text.trim();
  if (t === '') return 'the file is empty: not a private key';
  if (/^\S*-cert-v01@openssh\.com\s/.test(t)) {
    return 'this is an OpenSSH certificate (a -cert.pub file), not a private key: import the private key beside it (certificates are not supported)';
  }
  if (/^(ssh-(ed25519|rsa|dss)|ecdsa-sha2-nistp\d+|sk-\S+)\s+[A-Za-z0-9+/=]+/.test(t) || /BEGIN (SSH2 |RSA )?PUBLIC KEY/.test(t)) {
    return 'this is not a private key (a .pub file?): it is a public key; import the private key file (the one without .pub)';
  }
  return 'this is not a private key (OpenSSH, PEM or PKCS#8 text)';
}

function parsePkcs8(text: string, passphrase?: string): { key: AgentKey; comment: string } {
  const encrypted = /-----BEGIN ENCRYPTED PRIVATE KEY-----/.test(text);
  if (encrypted && !passphrase) throw new KeyImportError('the key is encrypted: give its passphrase');
  let keyObject: crypto.KeyObject;
  try {
    // A passphrase given for a plain key is ignored, as ssh-keygen does.
    keyObject = crypto.createPrivateKey({ key: text, format: 'pem', ...(encrypted ? { passphrase } : {}) });
  } catch (e) {
    if (encrypted) throw new KeyImportError('wrong passphrase for this key');
    throw new KeyImportError(`cannot read the key: ${(e as Error).message.slice(0, 200)}`);
  }
  try {
    return { key: agentKeyOf(keyObject), comment: '' };
  } catch (e) {
    throw new KeyImportError(`unsupported key: ${(e as Error).message.slice(0, 200)}`);
  }
}

const generateKeyPair = promisify(crypto.generateKeyPair);

/** Async: an RSA-4096 key takes seconds, which must not stall the agent's event loop. */
export async function generateKey(type: GenerateType): Promise<AgentKey> {
  switch (type) {
    case 'ed25519':
      return agentKeyOf((await generateKeyPair('ed25519', {})).privateKey);
    case 'ecdsa-p256':
    case 'ecdsa-p384':
    case 'ecdsa-p521':
      return agentKeyOf((await generateKeyPair('ec', { namedCurve: `P-${type.slice('ecdsa-p'.length)}` })).privateKey);
    case 'rsa-3072':
    case 'rsa-4096':
      return agentKeyOf((await generateKeyPair('rsa', { modulusLength: Number(type.slice(4)), publicExponent: 65537 })).privateKey);
  }
}
