// Keys: import of every OpenSSH key type (encrypted ones too), generation, ssh-add wire keys,
// sealing at rest (master key file, passphrase) and what lands on disk.
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { GENERATE_TYPES, KeyImportError, generateKey, parsePrivateKey } from '../../main/ssh/key-import';
import { agentKeyFromWire, signWith, verifySignature } from '../../main/ssh/key-material';
import { KeyStore, MAX_VOLATILE_KEYS } from '../../main/ssh/key-store';
import { aesGcmSealer, masterKeyFileSealer, passphraseSealer } from '../../main/ssh/sealer';
import { KEY_TYPES, makeKey } from '../helpers/ssh';

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alkeys-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('imports every OpenSSH key type, and passphrase-protected ones only with the passphrase', async () => {
  for (const kt of KEY_TYPES) {
    const f = await makeKey(dir, `imp-${kt.label}`, kt.args, 'pw-' + kt.label);
    const text = fs.readFileSync(f, 'utf8');
    assert.throws(() => parsePrivateKey(text), (e: Error) => e instanceof KeyImportError && /encrypted/.test(e.message));
    assert.throws(() => parsePrivateKey(text, 'wrong'), KeyImportError);
    const { key, comment } = parsePrivateKey(text, 'pw-' + kt.label);
    assert.equal(comment, `test-imp-${kt.label}`);
    const pub = fs.readFileSync(f + '.pub', 'utf8').split(' ');
    assert.equal(key.algorithm, pub[0]);
    assert.equal(key.publicBlob.toString('base64'), pub[1], `${kt.label}: the same public key as ssh-keygen's`);
    const data = Buffer.from('x');
    assert.ok(verifySignature(key.publicBlob, signWith(key, data, 4), data));
  }
  // PEM (PKCS#1) too, and refusal of a public key.
  const pem = await makeKey(dir, 'pem', ['-t', 'rsa', '-b', '2048'], '', ['-m', 'PEM']);
  assert.equal(parsePrivateKey(fs.readFileSync(pem, 'utf8')).key.algorithm, 'ssh-rsa');
  assert.throws(() => parsePrivateKey(fs.readFileSync(pem + '.pub', 'utf8')), /not a private key/);
});

test('imports PKCS#8 PEM ("BEGIN PRIVATE KEY", openssl genpkey / Node), plain and encrypted, with the same public key', () => {
  const pairs: [string, crypto.KeyPairKeyObjectResult, string][] = [
    ['ed25519', crypto.generateKeyPairSync('ed25519'), 'ssh-ed25519'],
    ['ec p-256', crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }), 'ecdsa-sha2-nistp256'],
    ['ec p-384', crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' }), 'ecdsa-sha2-nistp384'],
    ['rsa 2048', crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }), 'ssh-rsa'],
  ];
  for (const [label, pair, algorithm] of pairs) {
    const plain = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const { key } = parsePrivateKey(plain);
    assert.equal(key.algorithm, algorithm, label);
    const data = Buffer.from('pkcs8');
    assert.ok(verifySignature(key.publicBlob, signWith(key, data, 4), data), `${label}: signs`);
    const enc = pair.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }).toString();
    assert.match(enc, /BEGIN ENCRYPTED PRIVATE KEY/);
    assert.throws(() => parsePrivateKey(enc), (e: Error) => e instanceof KeyImportError && /encrypted/.test(e.message), label);
    assert.throws(() => parsePrivateKey(enc, 'wrong'), (e: Error) => e instanceof KeyImportError && /wrong passphrase/.test(e.message), label);
    assert.equal(parsePrivateKey(enc, 'pw').key.fingerprint, key.fingerprint, `${label}: the same key once decrypted`);
  }
  // A curve SSH has no name for, and garbage inside the armour: clear refusals.
  const k1 = crypto.generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  assert.throws(() => parsePrivateKey(k1), KeyImportError);
  assert.throws(() => parsePrivateKey('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'), (e: Error) => e instanceof KeyImportError && /cannot read/.test(e.message));
});

test('generates every offered type', async () => {
  for (const t of GENERATE_TYPES.filter((x) => x !== 'rsa-4096')) {
    const k = await generateKey(t);
    const data = Buffer.from(t);
    assert.ok(verifySignature(k.publicBlob, signWith(k, data, 2), data), t);
  }
});

test('RSA flags select rsa-sha2-256/512 (and ssh-rsa without flags)', async () => {
  const k = await generateKey('rsa-3072');
  for (const [flags, alg] of [[0, 'ssh-rsa'], [2, 'rsa-sha2-256'], [4, 'rsa-sha2-512']] as const) {
    const sig = signWith(k, Buffer.from('d'), flags);
    assert.equal(sig.subarray(4, 4 + sig.readUInt32BE(0)).toString(), alg);
  }
});

test('ssh-add wire keys: a private half that does not match its public half is refused', () => {
  const a = crypto.generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const b = crypto.generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const pubA = Buffer.from(a.x!, 'base64url');
  const ok = agentKeyFromWire({ kind: 'ed25519', publicKey: pubA, secret: Buffer.concat([Buffer.from(a.d!, 'base64url'), pubA]) });
  assert.equal(ok.algorithm, 'ssh-ed25519');
  assert.throws(() => agentKeyFromWire({ kind: 'ed25519', publicKey: pubA, secret: Buffer.concat([Buffer.from(b.d!, 'base64url'), pubA]) }));
  const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(ec.x!, 'base64url'), Buffer.from(ec.y!, 'base64url')]);
  assert.equal(agentKeyFromWire({ kind: 'ecdsa', curve: 'nistp256', point, d: Buffer.from(ec.d!, 'base64url') }).algorithm, 'ecdsa-sha2-nistp256');
  assert.throws(() => agentKeyFromWire({ kind: 'ecdsa', curve: 'nistp256', point, d: Buffer.from([1]) }));
});

test('sealers: AES-GCM detects tampering; the master key file is 0600; a wrong passphrase is refused', () => {
  const s = aesGcmSealer('test', crypto.randomBytes(32));
  const sealed = s.seal(Buffer.from('secret'));
  assert.equal(s.open(sealed).toString(), 'secret');
  sealed[sealed.length - 1]! ^= 1;
  assert.throws(() => s.open(sealed));

  const kd = path.join(dir, 'sealers');
  const m1 = masterKeyFileSealer(kd);
  assert.equal(fs.statSync(path.join(kd, 'master.secret')).mode & 0o777, 0o600);
  assert.equal(fs.statSync(kd).mode & 0o777, 0o700);
  assert.equal(masterKeyFileSealer(kd).open(m1.seal(Buffer.from('again'))).toString(), 'again', 'the same key next start');

  const pd = path.join(dir, 'pass');
  const p1 = passphraseSealer(pd, 'correct horse');
  const blob = p1.seal(Buffer.from('k'));
  assert.equal(passphraseSealer(pd, 'correct horse').open(blob).toString(), 'k');
  assert.throws(() => passphraseSealer(pd, 'wrong'), /wrong key passphrase/);
});

test('the key store seals keys to disk, reloads them, and never writes private material in clear', async () => {
  const kd = path.join(dir, 'store');
  const sealer = masterKeyFileSealer(kd);
  const store = new KeyStore(kd, sealer);
  store.load();
  const key = await generateKey('ecdsa-p384');
  store.addPersistent(key, 'work', 'work');
  assert.throws(() => store.addPersistent(key, 'again', 'again'), /already stored/);
  const files = fs.readdirSync(kd).filter((f) => f.endsWith('.key'));
  assert.equal(files.length, 1);
  const file = path.join(kd, files[0]!);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const onDisk = fs.readFileSync(file, 'utf8');
  const jwk = key.privateKey.export({ format: 'jwk' });
  assert.ok(!onDisk.includes(jwk.d!), 'the private scalar is not on disk in clear');

  const again = new KeyStore(kd, masterKeyFileSealer(kd));
  again.load();
  assert.equal(again.entries().length, 1);
  assert.equal(again.get(key.fingerprint)?.name, 'work');
  const data = Buffer.from('after restart');
  assert.ok(verifySignature(key.publicBlob, signWith(again.get(key.fingerprint)!.key, data, 0), data));

  // Opened with another sealer: skipped with a warning, not garbled, not fatal.
  const other = new KeyStore(kd, aesGcmSealer('master-key-file', crypto.randomBytes(32)));
  other.load();
  assert.equal(other.entries().length, 0);
  assert.equal(other.loadWarnings.length, 1);

  // Swapping metadata between files is noticed (the sealed payload names its key).
  const meta = JSON.parse(onDisk) as { fingerprint: string };
  fs.writeFileSync(file, JSON.stringify({ ...meta, fingerprint: 'SHA256:forged' }));
  const forged = new KeyStore(kd, masterKeyFileSealer(kd));
  forged.load();
  assert.equal(forged.entries().length, 0);

  assert.equal(again.remove(key.fingerprint), true);
  assert.equal(fs.readdirSync(kd).filter((f) => f.endsWith('.key')).length, 0, 'removed from disk');
});

test('ssh-add keys: lifetime expiry, -d only for ssh-add keys, a bounded number', async () => {
  const store = new KeyStore(path.join(dir, 'vol'), aesGcmSealer('t', crypto.randomBytes(32)));
  store.load();
  const k = await generateKey('ed25519');
  assert.ok(store.addVolatile(k, 'c', { lifetimeSec: 1, confirm: true }));
  assert.equal(store.get(k.fingerprint)?.confirm, true);
  const stored = await generateKey('ed25519');
  store.addPersistent(stored, 's', 's');
  assert.equal(store.removeVolatile(stored.fingerprint), false, 'ssh-add -d cannot delete a stored key');
  store.removeAllVolatile();
  assert.equal(store.entries().length, 1, 'ssh-add -D leaves stored keys');
  assert.ok(store.addVolatile(k, 'c', { lifetimeSec: 1, confirm: false }));
  await new Promise((r) => setTimeout(r, 1100));
  assert.equal(store.get(k.fingerprint), undefined, 'expired');
  for (let i = 0; i < MAX_VOLATILE_KEYS; i++) assert.ok(store.addVolatile(await generateKey('ed25519'), `k${i}`, { lifetimeSec: null, confirm: false }));
  assert.equal(store.addVolatile(await generateKey('ed25519'), 'one too many', { lifetimeSec: null, confirm: false }), false);
  store.close();
});
