// Private and public key material for the agent: conversion between SSH wire blobs, JWK
// (our storage form) and Node KeyObjects, fingerprints, and signing. Node's crypto does the
// arithmetic; nothing here logs or serialises a private key except `toStoredJwk`, whose
// result only ever goes through a Sealer (key-store.ts).
import * as crypto from 'node:crypto';
import { derToMpintPair, mpintPairToP1363 } from './ecdsa-signature';
import { SIGN_FLAGS, type WirePrivateKey } from './protocol';
import { Reader, WireError, Writer } from './wire';

export type KeyAlgorithm = 'ssh-ed25519' | 'ecdsa-sha2-nistp256' | 'ecdsa-sha2-nistp384' | 'ecdsa-sha2-nistp521' | 'ssh-rsa';

interface Curve {
  ssh: 'nistp256' | 'nistp384' | 'nistp521';
  jwk: 'P-256' | 'P-384' | 'P-521';
  hash: 'sha256' | 'sha384' | 'sha512';
  width: number;
}
const CURVES: Curve[] = [
  { ssh: 'nistp256', jwk: 'P-256', hash: 'sha256', width: 32 },
  { ssh: 'nistp384', jwk: 'P-384', hash: 'sha384', width: 48 },
  { ssh: 'nistp521', jwk: 'P-521', hash: 'sha512', width: 66 },
];
const curveBySsh = (name: string): Curve | undefined => CURVES.find((c) => c.ssh === name);
const curveByJwk = (name: string): Curve | undefined => CURVES.find((c) => c.jwk === name);

/** A usable private key: what the agent signs with. */
export interface AgentKey {
  algorithm: KeyAlgorithm;
  publicBlob: Buffer;
  fingerprint: string;
  privateKey: crypto.KeyObject;
}

const b64u = (b: Buffer): string => b.toString('base64url');
const unb64u = (s: string | undefined, what: string): Buffer => {
  if (typeof s !== 'string') throw new WireError(`JWK lacks ${what}`);
  return Buffer.from(s, 'base64url');
};
const pad = (b: Buffer, width: number): Buffer => {
  if (b.length > width) throw new WireError('key component too long');
  return Buffer.concat([Buffer.alloc(width - b.length), b]);
};
const big = (b: Buffer): bigint => (b.length === 0 ? 0n : BigInt('0x' + b.toString('hex')));
const unbig = (n: bigint): Buffer => {
  let hex = n.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  return Buffer.from(hex, 'hex');
};

/** "SHA256:…" as ssh-keygen -l prints it. */
export function fingerprintOf(publicBlob: Buffer): string {
  return 'SHA256:' + crypto.createHash('sha256').update(publicBlob).digest('base64').replace(/=+$/, '');
}

/** The public key blob (RFC 4253 §6.6 / RFC 5656 / RFC 8709) of any supported key. */
export function publicBlobOf(key: crypto.KeyObject): { algorithm: KeyAlgorithm; blob: Buffer } {
  const jwk = key.export({ format: 'jwk' });
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') {
    return { algorithm: 'ssh-ed25519', blob: new Writer().string('ssh-ed25519').string(unb64u(jwk.x, 'x')).toBuffer() };
  }
  if (jwk.kty === 'EC') {
    const curve = curveByJwk(jwk.crv ?? '');
    if (!curve) throw new WireError(`unsupported curve ${jwk.crv}`);
    const point = Buffer.concat([Buffer.from([4]), pad(unb64u(jwk.x, 'x'), curve.width), pad(unb64u(jwk.y, 'y'), curve.width)]);
    const algorithm = `ecdsa-sha2-${curve.ssh}` as KeyAlgorithm;
    return { algorithm, blob: new Writer().string(algorithm).string(curve.ssh).string(point).toBuffer() };
  }
  if (jwk.kty === 'RSA') {
    return { algorithm: 'ssh-rsa', blob: new Writer().string('ssh-rsa').mpint(unb64u(jwk.e, 'e')).mpint(unb64u(jwk.n, 'n')).toBuffer() };
  }
  throw new WireError(`unsupported key type ${jwk.kty}`);
}

export function agentKeyOf(privateKey: crypto.KeyObject): AgentKey {
  if (privateKey.type !== 'private') throw new WireError('not a private key');
  const { algorithm, blob } = publicBlobOf(privateKey);
  if (algorithm === 'ssh-rsa' && (privateKey.asymmetricKeyDetails?.modulusLength ?? 0) < 1024) {
    throw new WireError('RSA keys shorter than 1024 bits are refused');
  }
  return { algorithm, publicBlob: blob, fingerprint: fingerprintOf(blob), privateKey };
}

const RSA_MAX_BITS = 16384;

/** Bits in an SSH mpint (big-endian, maybe with a leading zero byte). */
function bitLength(mpint: Buffer): number {
  let i = 0;
  while (i < mpint.length && mpint[i] === 0) i++;
  if (i === mpint.length) return 0;
  return (mpint.length - i - 1) * 8 + (32 - Math.clz32(mpint[i]!));
}

/**
 * Fields from SSH_AGENTC_ADD_IDENTITY → a KeyObject (via JWK, checked for consistency).
 * For RSA, call rsaPrimesAreProbable first: the checks here assume p and q are prime.
 */
export function agentKeyFromWire(w: WirePrivateKey): AgentKey {
  let jwk: crypto.JsonWebKey;
  if (w.kind === 'ed25519') {
    // OpenSSH's 64-byte secret is seed || public key.
    if (!w.secret.subarray(32).equals(w.publicKey)) throw new WireError('ed25519 secret does not match public key');
    jwk = { kty: 'OKP', crv: 'Ed25519', d: b64u(w.secret.subarray(0, 32)), x: b64u(w.publicKey) };
  } else if (w.kind === 'ecdsa') {
    const curve = curveBySsh(w.curve);
    if (!curve) throw new WireError(`unsupported curve ${w.curve}`);
    if (w.point.length !== 1 + 2 * curve.width || w.point[0] !== 4) throw new WireError('bad ecdsa point');
    jwk = {
      kty: 'EC',
      crv: curve.jwk,
      x: b64u(w.point.subarray(1, 1 + curve.width)),
      y: b64u(w.point.subarray(1 + curve.width)),
      d: b64u(pad(w.d, curve.width)),
    };
  } else {
    // OpenSSH refuses moduli over 16384 bits (SSH_RSA_MAXIMUM_MODULUS_SIZE); checking the
    // size before any arithmetic keeps a hostile ssh-add from stalling the daemon.
    const bits = bitLength(w.n);
    if (bits > RSA_MAX_BITS) throw new WireError(`RSA keys longer than ${RSA_MAX_BITS} bits are refused (this one has ${bits})`);
    if (bits < 1024) throw new WireError('RSA keys shorter than 1024 bits are refused');
    const d = big(w.d);
    const p = big(w.p);
    const q = big(w.q);
    const e = big(w.e);
    if (p < 3n || q < 3n || d === 0n || big(w.n) !== p * q) throw new WireError('inconsistent RSA key');
    // The RSA identities, checked with a few multiplications instead of a self-test
    // signature: a private-key operation at 16k bits stalls the event loop ~5 s (and an
    // inconsistent key makes OpenSSL retry without CRT), so one ssh-add message could stall
    // every approval (red team). With p and q prime (rsaPrimesAreProbable, off the event
    // loop, before this), these make the key correct.
    if ((e * d) % (p - 1n) !== 1n || (e * d) % (q - 1n) !== 1n || (q * big(w.iqmp)) % p !== 1n) throw new WireError('inconsistent RSA key');
    jwk = {
      kty: 'RSA',
      n: b64u(w.n),
      e: b64u(w.e),
      d: b64u(w.d),
      p: b64u(w.p),
      q: b64u(w.q),
      dp: b64u(unbig(d % (p - 1n))),
      dq: b64u(unbig(d % (q - 1n))),
      qi: b64u(w.iqmp),
    };
  }
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey({ key: jwk, format: 'jwk' });
  } catch {
    throw new WireError('key material rejected by crypto');
  }
  const agentKey = agentKeyOf(key);
  // Crypto derives the public half from the private one and may ignore the one sent; the
  // key we list must be the key the client claimed.
  const claimed =
    w.kind === 'ed25519'
      ? new Writer().string('ssh-ed25519').string(w.publicKey).toBuffer()
      : w.kind === 'ecdsa'
        ? new Writer().string(`ecdsa-sha2-${w.curve}`).string(w.curve).string(w.point).toBuffer()
        : new Writer().string('ssh-rsa').mpint(w.e).mpint(w.n).toBuffer();
  if (!claimed.equals(agentKey.publicBlob)) throw new WireError('private key does not match its public key');
  // A key whose private half does not match its public half would sign garbage (RSA: the
  // identities above stand for this test; an Ed25519 or ECDSA signature costs < 1 ms).
  const probe = Buffer.from('airlock key self-test');
  if (w.kind !== 'rsa' && !verifySignature(agentKey.publicBlob, signWith(agentKey, probe, SIGN_FLAGS.RSA_SHA2_256), probe)) {
    throw new WireError('private key does not match its public key');
  }
  return agentKey;
}

const PRIME_CHECKS = 20;
let primeChecks: Promise<unknown> = Promise.resolve();

/**
 * ssh-add's RSA p and q are prime (Miller-Rabin, 20 rounds: a composite passes with
 * probability under 2^-40). Runs on libuv's thread pool, one check at a time for the whole
 * daemon, so a flood of hostile keys neither stalls the event loop nor fills the pool.
 * agentKeyFromWire trusts an RSA key's arithmetic only after this said yes.
 */
export function rsaPrimesAreProbable(w: WirePrivateKey): Promise<boolean> {
  if (w.kind !== 'rsa') return Promise.resolve(true);
  const check = (n: Buffer) =>
    new Promise<boolean>((resolve) => {
      if (n.length === 0 || bitLength(n) > RSA_MAX_BITS) return resolve(false);
      crypto.checkPrime(n, { checks: PRIME_CHECKS }, (err, prime) => resolve(!err && prime));
    });
  const run = primeChecks.then(async () => (await check(w.p)) && (await check(w.q)));
  primeChecks = run.catch(() => undefined);
  return run;
}

/** JWK of the private key: only for sealing at rest. */
export function toStoredJwk(key: AgentKey): crypto.JsonWebKey {
  return key.privateKey.export({ format: 'jwk' });
}

export function fromStoredJwk(jwk: crypto.JsonWebKey): AgentKey {
  return agentKeyOf(crypto.createPrivateKey({ key: jwk, format: 'jwk' }));
}

/** The signature algorithm a request's flags select (RSA only; others have one). */
export function signatureAlgorithm(algorithm: KeyAlgorithm, flags: number): string {
  if (algorithm !== 'ssh-rsa') return algorithm;
  if (flags & SIGN_FLAGS.RSA_SHA2_512) return 'rsa-sha2-512';
  if (flags & SIGN_FLAGS.RSA_SHA2_256) return 'rsa-sha2-256';
  return 'ssh-rsa';
}

/** Signs `data` and returns the SSH signature blob (string algorithm || string signature). */
export function signWith(key: AgentKey, data: Buffer, flags: number): Buffer {
  const alg = signatureAlgorithm(key.algorithm, flags);
  let sig: Buffer;
  if (key.algorithm === 'ssh-ed25519') {
    sig = crypto.sign(null, data, key.privateKey);
  } else if (key.algorithm === 'ssh-rsa') {
    const hash = alg === 'rsa-sha2-512' ? 'sha512' : alg === 'rsa-sha2-256' ? 'sha256' : 'sha1';
    sig = crypto.sign(hash, data, key.privateKey);
  } else {
    const curve = curveBySsh(key.algorithm.slice('ecdsa-sha2-'.length))!;
    sig = derToMpintPair(crypto.sign(curve.hash, data, key.privateKey));
  }
  return new Writer().string(alg).string(sig).toBuffer();
}

/** A public key blob → KeyObject (host keys of session-bind, tests). */
export function publicKeyFromBlob(blob: Buffer): { algorithm: KeyAlgorithm; key: crypto.KeyObject } {
  const r = new Reader(blob);
  const type = r.text(64);
  let jwk: crypto.JsonWebKey;
  let algorithm: KeyAlgorithm;
  if (type === 'ssh-ed25519') {
    const x = r.string();
    if (x.length !== 32) throw new WireError('bad ed25519 public key');
    jwk = { kty: 'OKP', crv: 'Ed25519', x: b64u(x) };
    algorithm = 'ssh-ed25519';
  } else if (type.startsWith('ecdsa-sha2-')) {
    const curve = curveBySsh(r.text(64));
    if (!curve || type !== `ecdsa-sha2-${curve.ssh}`) throw new WireError('bad ecdsa public key');
    const point = r.string();
    if (point.length !== 1 + 2 * curve.width || point[0] !== 4) throw new WireError('bad ecdsa point');
    jwk = { kty: 'EC', crv: curve.jwk, x: b64u(point.subarray(1, 1 + curve.width)), y: b64u(point.subarray(1 + curve.width)) };
    algorithm = type as KeyAlgorithm;
  } else if (type === 'ssh-rsa') {
    const e = r.mpint();
    const n = r.mpint();
    jwk = { kty: 'RSA', n: b64u(n), e: b64u(e) };
    algorithm = 'ssh-rsa';
  } else {
    throw new WireError(`unsupported public key type ${type}`);
  }
  r.end();
  try {
    return { algorithm, key: crypto.createPublicKey({ key: jwk, format: 'jwk' }) };
  } catch {
    throw new WireError('public key rejected by crypto');
  }
}

/** Verifies an SSH signature blob over `data` with a public key blob. Never throws. */
export function verifySignature(publicBlob: Buffer, signatureBlob: Buffer, data: Buffer): boolean {
  try {
    const { algorithm, key } = publicKeyFromBlob(publicBlob);
    const r = new Reader(signatureBlob);
    const sigAlg = r.text(64);
    const sig = r.string();
    r.end();
    if (algorithm === 'ssh-ed25519') return sigAlg === algorithm && crypto.verify(null, data, key, sig);
    if (algorithm === 'ssh-rsa') {
      const hash = sigAlg === 'rsa-sha2-512' ? 'sha512' : sigAlg === 'rsa-sha2-256' ? 'sha256' : sigAlg === 'ssh-rsa' ? 'sha1' : null;
      return hash !== null && crypto.verify(hash, data, key, sig);
    }
    if (sigAlg !== algorithm) return false;
    const curve = curveBySsh(algorithm.slice('ecdsa-sha2-'.length))!;
    return crypto.verify(curve.hash, data, { key, dsaEncoding: 'ieee-p1363' }, mpintPairToP1363(sig, curve.width));
  } catch {
    return false;
  }
}

/** "ssh-ed25519 AAAA… comment" as in authorized_keys. */
export function openSshPublicLine(algorithm: string, blob: Buffer, comment: string): string {
  return `${algorithm} ${blob.toString('base64')}${comment ? ' ' + comment.replace(/[\r\n]/g, ' ') : ''}`;
}
