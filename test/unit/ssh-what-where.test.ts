// "What" (signed-data parsing) and "where" (session-bind, known_hosts incl. hashed entries,
// the destination in ssh's argv).
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { describeSign } from '../../main/ssh/describe';
import { agentKeyOf, fingerprintOf, signWith } from '../../main/ssh/key-material';
import { KnownHosts } from '../../main/ssh/known-hosts';
import { SessionBinds, parseSessionBind } from '../../main/ssh/session-bind';
import { parseSignedData } from '../../main/ssh/signed-data';
import { knownHostsCandidates, parseSshArgv } from '../../main/ssh/ssh-argv';
import { Writer } from '../../main/ssh/wire';

const user = agentKeyOf(crypto.generateKeyPairSync('ed25519').privateKey);
const host = agentKeyOf(crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
const sid = crypto.randomBytes(32);

function userAuth(method: string, opts: { key?: Buffer; hostKey?: Buffer } = {}): Buffer {
  const w = new Writer().string(sid).byte(50).string('git').string('ssh-connection').string(method).bool(true).string('ssh-ed25519').string(opts.key ?? user.publicBlob);
  if (opts.hostKey) w.string(opts.hostKey);
  return w.toBuffer();
}

test('a user-auth request is a login (publickey and publickey-hostbound)', () => {
  const plain = parseSignedData(userAuth('publickey'), user.publicBlob);
  assert.equal(plain.purpose, 'login');
  assert.equal(plain.purpose === 'login' && plain.user, 'git');
  assert.equal(plain.purpose === 'login' && plain.hostKey, null);
  const bound = parseSignedData(userAuth('publickey-hostbound-v00@openssh.com', { hostKey: host.publicBlob }), user.publicBlob);
  assert.ok(bound.purpose === 'login' && bound.hostKey?.equals(host.publicBlob));
  assert.ok(bound.purpose === 'login' && bound.sessionId.equals(sid));
  // For another key than the one asked to sign: not a login (OpenSSH refuses those too).
  assert.equal(parseSignedData(userAuth('publickey', { key: host.publicBlob }), user.publicBlob).purpose, 'unknown');
});

test('an SSHSIG blob is a signature in a namespace; anything else is unknown', () => {
  const blob = Buffer.concat([Buffer.from('SSHSIG'), new Writer().string('git').string('').string('sha512').string(crypto.randomBytes(64)).toBuffer()]);
  assert.deepEqual(parseSignedData(blob, user.publicBlob), { purpose: 'sshsig', namespace: 'git', hashAlgorithm: 'sha512' });
  assert.deepEqual(parseSignedData(Buffer.from('SSHSIG-but-not-really'), user.publicBlob), { purpose: 'unknown', length: 21 });
  assert.equal(parseSignedData(crypto.randomBytes(100), user.publicBlob).purpose, 'unknown');
});

function bindBlob(signer = host, sessionId = sid, forwarding = false, claimedKey = host.publicBlob): Buffer {
  return new Writer().string(claimedKey).string(sessionId).string(signWith(signer, sessionId, 0)).bool(forwarding).toBuffer();
}

test('session-bind: verified against the host key; forged or malformed binds are refused', () => {
  const ok = parseSessionBind(bindBlob());
  assert.ok(ok.ok);
  assert.equal(ok.ok && ok.bind.hostKeyFingerprint, fingerprintOf(host.publicBlob));
  const other = agentKeyOf(crypto.generateKeyPairSync('ed25519').privateKey);
  assert.equal(parseSessionBind(bindBlob(other)).ok, false, 'signed by another key than the one claimed');
  assert.equal(parseSessionBind(bindBlob().subarray(0, 40)).ok, false);
  assert.equal(parseSessionBind(Buffer.concat([bindBlob(), Buffer.from([0])])).ok, false);
});

test("session binds per connection follow OpenSSH's rules; forwarded hops are marked", () => {
  const hop1 = parseSessionBind(bindBlob(host, crypto.randomBytes(32), true));
  const hop2 = parseSessionBind(bindBlob(host, sid, false));
  assert.ok(hop1.ok && hop2.ok);
  const b = new SessionBinds();
  assert.ok(b.add(hop1.bind).ok);
  assert.ok(b.add(hop1.bind).ok, 'the same hop twice is harmless');
  assert.ok(b.add(hop2.bind).ok);
  assert.equal(b.forwarded, true);
  assert.ok(b.last?.sessionId.equals(sid));
  assert.equal(b.add(hop1.bind).ok, false, 'nothing more after an authentication bind');
  const fresh = new SessionBinds();
  assert.ok(fresh.add(hop2.bind).ok);
  assert.equal(fresh.forwarded, false);
});

test('known_hosts: plain, wildcard, negated, hashed (only with the argv host), revoked', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alkh-'));
  const line = (names: string, k = host) => `${names} ${k.algorithm} ${k.publicBlob.toString('base64')}`;
  const salt = crypto.randomBytes(20);
  const hashed = `|1|${salt.toString('base64')}|${crypto.createHmac('sha1', salt).update('[secret.example]:2222').digest('base64')}`;
  const other = agentKeyOf(crypto.generateKeyPairSync('ed25519').privateKey);
  const third = agentKeyOf(crypto.generateKeyPairSync('ed25519').privateKey);
  const revokedKey = agentKeyOf(crypto.generateKeyPairSync('ed25519').privateKey);
  const user1 = path.join(dir, 'known_hosts');
  const global = path.join(dir, 'ssh_known_hosts');
  fs.writeFileSync(user1, ['# comment', line('github.com,140.82.121.3'), line(hashed, other), line('*.corp.example,!bad.corp.example', third), ''].join('\n'));
  fs.writeFileSync(global, [`@revoked ${line('*', revokedKey)}`, line('rev.example', revokedKey)].join('\n'));
  const kh = new KnownHosts([user1, global, path.join(dir, 'missing')]);

  assert.deepEqual(kh.lookup(host.publicBlob, ['github.com']).match?.host, 'github.com');
  assert.deepEqual(kh.lookup(host.publicBlob, []).match?.host, 'github.com', 'no argv: the first literal name');
  const h = kh.lookup(other.publicBlob, ['[secret.example]:2222']);
  assert.equal(h.match?.host, 'secret.example:2222');
  assert.equal(h.match?.hashed, true);
  assert.equal(kh.lookup(other.publicBlob, ['[elsewhere.example]:2222']).match, null, 'a hashed entry names only the host it hashes');
  assert.equal(kh.lookup(other.publicBlob, []).match, null);
  assert.equal(kh.lookup(third.publicBlob, ['db.corp.example']).match?.host, 'db.corp.example');
  assert.equal(kh.lookup(third.publicBlob, ['bad.corp.example']).match, null, 'negated pattern');
  const rev = kh.lookup(revokedKey.publicBlob, []);
  assert.equal(rev.revoked, true);
  assert.equal(kh.lookup(crypto.randomBytes(51), ['github.com']).match, null, 'unknown key');
  fs.rmSync(dir, { recursive: true });
});

test('ssh argv: destination, user and port in the forms git and people use', () => {
  assert.deepEqual(parseSshArgv(['ssh', '-o', 'SendEnv=GIT_PROTOCOL', 'git@github.com', "git-upload-pack 'x/y.git'"]), { user: 'git', host: 'github.com', port: null });
  assert.deepEqual(parseSshArgv(['ssh', '-At', '-p2222', '-l', 'me', 'box', 'ls']), { user: 'me', host: 'box', port: 2222 });
  assert.deepEqual(parseSshArgv(['/usr/bin/ssh', '-oPort=2200', '-i', 'k', 'ssh://u@h.example:2201']), { user: 'u', host: 'h.example', port: 2201 });
  assert.deepEqual(parseSshArgv(['ssh', '-p', '2222', '--', 'root@127.0.0.1']), { user: 'root', host: '127.0.0.1', port: 2222 });
  assert.equal(parseSshArgv(['ssh', '-p']), null);
  assert.deepEqual(knownHostsCandidates({ user: null, host: 'Box', port: 2222 }), ['[box]:2222']);
  assert.deepEqual(knownHostsCandidates({ user: null, host: 'box', port: 22 }), ['box']);
});

test('the request: user@host for a login, sshsig:<ns>, unknown data; never key material', () => {
  const key = { fingerprint: user.fingerprint, name: 'work', algorithm: 'ssh-ed25519', origin: 'airlock' as const, confirm: false };
  const login = parseSignedData(userAuth('publickey'), user.publicBlob);
  const d = describeSign({
    key,
    signed: login,
    signatureAlgorithm: 'ssh-ed25519',
    hostKeyFingerprint: host.fingerprint,
    hostLookup: { match: { host: 'github.com', hashed: false, file: 'x' }, revoked: false },
    forwarded: false,
    argvDestination: { user: 'git', host: 'github.com', port: null },
  });
  assert.equal(d.request.resource, 'git@github.com');
  assert.equal(d.request.summary, `login as git@github.com with key 'work' (${user.fingerprint})`);
  assert.deepEqual({ purpose: d.ssh.purpose, user: d.ssh.user, host: d.ssh.host, hostKey: d.ssh.hostKey }, { purpose: 'login', user: 'git', host: 'github.com', hostKey: host.fingerprint });
  const unknownHost = describeSign({ key, signed: login, signatureAlgorithm: 'ssh-ed25519', hostKeyFingerprint: host.fingerprint, hostLookup: { match: null, revoked: false }, forwarded: true, argvDestination: null });
  assert.equal(unknownHost.request.resource, `git@${host.fingerprint}`);
  assert.match(unknownHost.request.summary, /through a forwarded agent/);
  assert.equal(unknownHost.ssh.forwarded, true);
  const text = JSON.stringify(d);
  const jwk = user.privateKey.export({ format: 'jwk' });
  assert.ok(!text.includes(jwk.d!), 'no private key in the request');
});

test('names from clients cannot smuggle terminal escapes or bidi overrides into a prompt', () => {
  const key = { fingerprint: user.fingerprint, name: 'evil\u202egnp.exe', algorithm: 'ssh-ed25519', origin: 'ssh-add' as const, confirm: false };
  const data = new Writer().string(sid).byte(50).string('git\x1b[2J\x1b[31m').string('ssh-connection').string('publickey').bool(true).string('ssh-ed25519').string(user.publicBlob).toBuffer();
  const d = describeSign({
    key,
    signed: parseSignedData(data, user.publicBlob),
    signatureAlgorithm: 'ssh-ed25519',
    hostKeyFingerprint: host.fingerprint,
    hostLookup: { match: { host: 'github.com', hashed: false, file: 'x' }, revoked: false },
    forwarded: false,
    argvDestination: null,
  });
  const all = JSON.stringify([d.request.summary, d.request.resource, d.ssh]);
  assert.doesNotMatch(all, /\\u001b|\\u202e/);
  assert.ok(!/[\u001b\u202e]/.test(d.request.summary + d.request.resource), 'no raw control or bidi characters');
  assert.match(d.request.summary, /^login as git\ufffd\[2J\ufffd\[31m@github\.com with key 'evil\ufffdgnp\.exe'/);
});
