// Black-box, sixth wave: the human's keys, as docs/ssh-agent.md "Keys" promises them.
// `airlock keys import` of every format a user has (OpenSSH, PEM PKCS#1/SEC1, PKCS#8 — plain
// and encrypted), each then listed by `ssh-add -l`/`-L` exactly as ssh-keygen sees it, signing
// an SSHSIG that `ssh-keygen -Y verify` accepts and logging in to a loopback sshd; what is not
// a private key refused in words that say what it is; key names a person can tell apart; and
// `keys remove` with a fingerprint in the wrong form.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { airlock, closeBlackboxSession, openBlackboxSession, type BlackboxSession } from '../helpers/blackbox';
import { run } from '../helpers/ssh';
import { USER, startSshd, type Sshd } from '../helpers/sshd';

let s: BlackboxSession;
let env: NodeJS.ProcessEnv;
let dir: string;

before(async () => {
  s = await openBlackboxSession('bb6k-');
  env = { ...process.env, AIRLOCK_HOME: s.d.home, SSH_AUTH_SOCK: s.d.agentSock };
  dir = path.join(s.root, 'keys');
  fs.mkdirSync(dir, { mode: 0o700 });
  // Signatures are answered by a grant, so the test is about the keys, not the prompts.
  await s.ui.ok('grants.create', { source: 'ssh', tool: 'ssh-sign', action: 'sign', effect: 'allow', note: 'bb6 keys test' });
});
after(async () => {
  await closeBlackboxSession(s);
});

interface KeyRow {
  name: string;
  fingerprint: string;
  type: string;
  publicKey: string;
}

async function keysList(): Promise<KeyRow[]> {
  return (await s.ui.ok<{ keys: KeyRow[] }>('keys.list')).keys;
}

function sh(cmd: string, args: string[], input?: string): string {
  return execFileSync(cmd, args, { env, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** "type base64" of a public key line or file. */
function typeAndBlob(line: string): string {
  return line.trim().split(/\s+/).slice(0, 2).join(' ');
}

test('keys import of every format a user has: each is listed by ssh-add -l (ssh-keygen\'s fingerprint) and -L (the same public key), signs an SSHSIG ssh-keygen -Y verify accepts, and logs in to a loopback sshd', { timeout: 240_000 }, async () => {
  const pass = 'correct horse';
  const make: [string, string[], string?][] = [
    ['openssh-ed25519', ['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f']],
    ['openssh-ecdsa-256', ['ssh-keygen', '-q', '-t', 'ecdsa', '-b', '256', '-N', '', '-f']],
    ['openssh-ecdsa-384', ['ssh-keygen', '-q', '-t', 'ecdsa', '-b', '384', '-N', '', '-f']],
    ['openssh-ecdsa-521', ['ssh-keygen', '-q', '-t', 'ecdsa', '-b', '521', '-N', '', '-f']],
    ['openssh-rsa-3072', ['ssh-keygen', '-q', '-t', 'rsa', '-b', '3072', '-N', '', '-f']],
    ['pem-pkcs1-rsa', ['ssh-keygen', '-q', '-t', 'rsa', '-b', '2048', '-m', 'PEM', '-N', '', '-f']],
    ['pem-sec1-ecdsa', ['ssh-keygen', '-q', '-t', 'ecdsa', '-b', '256', '-m', 'PEM', '-N', '', '-f']],
    ['pkcs8-rsa', ['ssh-keygen', '-q', '-t', 'rsa', '-b', '2048', '-m', 'PKCS8', '-N', '', '-f']],
    ['pkcs8-ecdsa-openssl', ['openssl', 'genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out']],
    ['openssh-ed25519-encrypted', ['ssh-keygen', '-q', '-t', 'ed25519', '-N', pass, '-f'], pass],
    ['pem-pkcs1-rsa-encrypted', ['ssh-keygen', '-q', '-t', 'rsa', '-b', '2048', '-m', 'PEM', '-N', pass, '-f'], pass],
  ];
  const files: { label: string; file: string; pub: string; pass?: string }[] = [];
  for (const [label, [cmd, ...args], pw] of make) {
    const file = path.join(dir, label);
    execFileSync(cmd, [...args, file], { stdio: 'ignore' });
    fs.chmodSync(file, 0o600);
    const pub = execFileSync('ssh-keygen', ['-y', ...(pw ? ['-P', pw] : []), '-f', file], { encoding: 'utf8' }).trim();
    files.push({ label, file, pub, ...(pw ? { pass: pw } : {}) });
  }
  // An encrypted PKCS#8 (BEGIN ENCRYPTED PRIVATE KEY), as `openssl pkcs8 -topk8` writes it.
  const p8 = path.join(dir, 'pkcs8-ecdsa-encrypted');
  execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384', '-out', `${p8}.plain`], { stdio: 'ignore' });
  execFileSync('openssl', ['pkcs8', '-topk8', '-v2', 'aes-256-cbc', '-in', `${p8}.plain`, '-out', p8, '-passout', `pass:${pass}`], { stdio: 'ignore' });
  files.push({ label: 'pkcs8-ecdsa-encrypted', file: p8, pub: execFileSync('ssh-keygen', ['-y', '-f', `${p8}.plain`], { encoding: 'utf8' }).trim(), pass });
  fs.rmSync(`${p8}.plain`);

  for (const f of files) {
    const r = await airlock(['keys', 'import', f.file, '--name', f.label, ...(f.pass ? ['--passphrase-stdin'] : [])], { env, ...(f.pass ? { input: `${f.pass}\n` } : {}), timeoutMs: 60_000 });
    assert.equal(r.code, 0, `${f.label}: ${r.stdout}${r.stderr}`);
    const pubFile = `${f.file}.pub`;
    fs.writeFileSync(pubFile, f.pub + '\n');
    const fp = sh('ssh-keygen', ['-lf', pubFile]).split(' ')[1]!;
    assert.ok(r.stdout.includes(fp), `${f.label}: the import names ssh-keygen's fingerprint ${fp}: ${r.stdout}`);
    // ssh-add agrees after each import.
    assert.ok(sh('ssh-add', ['-l']).includes(fp), `${f.label}: ssh-add -l lists ${fp}`);
    assert.ok(sh('ssh-add', ['-L']).split('\n').some((l) => typeAndBlob(l) === typeAndBlob(f.pub)), `${f.label}: ssh-add -L prints its public key`);
    assert.ok((await keysList()).some((k) => k.fingerprint === fp && k.name === f.label && typeAndBlob(k.publicKey) === typeAndBlob(f.pub)), `${f.label}: keys.list`);
    // A signature by the agent that ssh-keygen itself verifies.
    const msg = path.join(dir, `${f.label}.msg`);
    fs.writeFileSync(msg, `signed by ${f.label}\n`);
    const signed = await run('ssh-keygen', ['-Y', 'sign', '-n', 'bb6', '-f', pubFile, msg], { env, timeoutMs: 60_000 });
    assert.equal(signed.code, 0, `${f.label}: ssh-keygen -Y sign through the agent: ${signed.stderr}`);
    const allowed = path.join(dir, 'allowed_signers');
    fs.writeFileSync(allowed, `bb6@test namespaces="bb6" ${f.pub}\n`);
    const verified = await run('ssh-keygen', ['-Y', 'verify', '-f', allowed, '-I', 'bb6@test', '-n', 'bb6', '-s', `${msg}.sig`], { input: fs.readFileSync(msg, 'utf8') });
    assert.equal(verified.code, 0, `${f.label}: ssh-keygen -Y verify: ${verified.stdout}${verified.stderr}`);
  }
  assert.equal(sh('ssh-add', ['-l']).trim().split('\n').length, files.length, 'ssh-add -l lists each key once');

  // A login by each key, to a real sshd that knows only that key.
  let sshd: Sshd | null = null;
  try {
    sshd = await startSshd(path.join(s.root, 'sshd'));
    const knownHosts = path.join(s.root, 'known_hosts');
    fs.writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${sshd.hostKeyPub}\n`);
    for (const f of files) {
      fs.writeFileSync(sshd.authorizedKeys, f.pub + '\n');
      const r = await run('ssh', [
        '-F', '/dev/null', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'StrictHostKeyChecking=yes',
        '-o', 'BatchMode=yes', '-o', 'PasswordAuthentication=no', '-o', 'ConnectTimeout=10',
        '-o', `IdentityFile=${f.file}.pub`, '-o', 'IdentitiesOnly=yes',
        '-p', String(sshd.port), `${USER}@127.0.0.1`, 'echo', `in-as-${f.label}`,
      ], { env, timeoutMs: 60_000 });
      assert.equal(r.code, 0, `${f.label}: ssh login: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`in-as-${f.label}`));
    }
  } finally {
    await sshd?.stop();
  }
});

test('keys import refuses what is not a private key in words that say what it is: a public key, a certificate, an empty file, a directory, a 10 MB file, a wrong or missing passphrase; a link to a key imports it; nothing is added by a refusal', async () => {
  const key = path.join(dir, 'for-refusals');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'refusals', '-f', key], { stdio: 'ignore' });
  const ca = path.join(dir, 'ca');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', ca], { stdio: 'ignore' });
  execFileSync('ssh-keygen', ['-q', '-s', ca, '-I', 'bb6', '-n', USER, `${key}.pub`], { stdio: 'ignore' });
  const empty = path.join(dir, 'empty');
  fs.writeFileSync(empty, '');
  const big = path.join(dir, 'big');
  fs.writeFileSync(big, Buffer.alloc(10 * 1024 * 1024, 0x41));
  const sshDir = path.join(dir, 'dot-ssh');
  fs.mkdirSync(sshDir, { mode: 0o700 });
  const dirLink = path.join(dir, 'link-to-ssh-dir');
  fs.symlinkSync(sshDir, dirLink);
  const encrypted = path.join(dir, 'encrypted');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'right pass', '-f', encrypted], { stdio: 'ignore' });
  const before = (await keysList()).length;
  const cases: [string, string[], RegExp, string?][] = [
    ['a public key', [`${key}.pub`], /public key|\.pub/i],
    ['a certificate beside the key', [`${key}-cert.pub`], /certificate/i],
    ['an empty file', [empty], /empty/i],
    ['a directory', [sshDir], /not a file/],
    ['a link to a directory', [dirLink], /not a file/],
    ['a 10 MB file', [big], /too large/],
    ['no such file', [path.join(dir, 'nope')], /no key file/],
    ['an encrypted key without its passphrase', [encrypted], /encrypted.*passphrase/],
    ['an encrypted key with a wrong passphrase', [encrypted, '--passphrase-stdin'], /wrong passphrase/, 'wrong pass\n'],
  ];
  for (const [what, args, why, input] of cases) {
    const t0 = Date.now();
    const r = await airlock(['keys', 'import', ...args], { env, ...(input ? { input } : {}) });
    assert.equal(r.code, 64, `${what}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, why, `${what}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, `${what}: one line`);
    assert.ok(Date.now() - t0 < 15_000, `${what}: refused at once`);
  }
  const rpc = await s.ui.call('keys.import', { pem: '' });
  assert.equal(rpc.error?.code, -32602, JSON.stringify(rpc));
  assert.equal((await keysList()).length, before, 'no refusal added a key');
  // A symbolic link to a key file (as ~/.ssh/id_ed25519 often is) imports the key it points at.
  const link = path.join(dir, 'link-to-key');
  fs.symlinkSync(key, link);
  const ok = await airlock(['keys', 'import', link, '--name', 'through a link'], { env });
  assert.equal(ok.code, 0, ok.stderr);
  const fp = execFileSync('ssh-keygen', ['-lf', `${key}.pub`], { encoding: 'utf8' }).split(' ')[1]!;
  assert.ok((await keysList()).some((k) => k.fingerprint === fp && k.name === 'through a link'));
  assert.ok(fs.readFileSync(key, 'utf8').includes('OPENSSH PRIVATE KEY'), 'the file is left as it is');
});

test('keys generate: every type and ssh-keygen alias; names a person can tell apart — a duplicate, a blank name, a newline or an escape sequence, 1000 characters are refused naming `name`; Unicode names work and ssh-add -l shows them', { timeout: 120_000 }, async () => {
  const expected: Record<string, RegExp> = {
    ed25519: /^ssh-ed25519 /,
    'ecdsa-p256': /^ecdsa-sha2-nistp256 /,
    'ecdsa-p384': /^ecdsa-sha2-nistp384 /,
    'ecdsa-p521': /^ecdsa-sha2-nistp521 /,
    'rsa-3072': /^ssh-rsa /,
    rsa: /^ssh-rsa /,
    ecdsa: /^ecdsa-sha2-nistp256 /,
  };
  for (const [type, line] of Object.entries(expected)) {
    const r = await airlock(['keys', 'generate', `gen-${type}`, '--type', type], { env, timeoutMs: 60_000 });
    assert.equal(r.code, 0, `${type}: ${r.stderr}`);
    assert.match(r.stdout.trim().split('\n').find((l) => / /.test(l)) ?? '', line, `${type}: ${r.stdout}`);
  }
  const rsa = (await keysList()).find((k) => k.name === 'gen-rsa')!;
  const bits = sh('ssh-add', ['-l']).split('\n').find((l) => l.includes(rsa.fingerprint))!;
  assert.match(bits, /^3072 /, `ssh-keygen's rsa is RSA 3072: ${bits}`);
  for (const bad of ['dsa', 'rsa-1024', 'ED25519', '']) {
    const r = await airlock(['keys', 'generate', 'never', '--type', bad], { env });
    assert.equal(r.code, 64, `--type ${bad}: ${r.stdout}${r.stderr}`);
  }
  const count = (await keysList()).length;
  const badNames: [string, string][] = [
    ['a duplicate of an existing name', 'gen-ed25519'],
    ['a blank name', '   '],
    ['a newline', 'work\nhome'],
    ['an escape sequence', 'x\u001b[31mred'],
    ['a right-to-left override', 'work\u202Egnp.exe'],
    ['1000 characters', 'n'.repeat(1000)],
  ];
  for (const [what, name] of badNames) {
    const r = await s.ui.call('keys.generate', { type: 'ed25519', name });
    assert.equal(r.error?.code, -32602, `${what}: ${JSON.stringify(r)}`);
    assert.match(r.error!.message, /name/, `${what}: names the field: ${r.error!.message}`);
  }
  const dup = await airlock(['keys', 'generate', 'gen-ed25519'], { env });
  assert.equal(dup.code, 64, dup.stdout + dup.stderr);
  assert.match(dup.stderr, /already/);
  // An import may not take a name in use either.
  const other = path.join(dir, 'dup-import');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other], { stdio: 'ignore' });
  const imp = await airlock(['keys', 'import', other, '--name', 'gen-ecdsa'], { env });
  assert.equal(imp.code, 64, imp.stdout + imp.stderr);
  assert.match(imp.stderr, /name/);
  assert.equal((await keysList()).length, count, 'nothing was made by a refused name');
  const uni = await airlock(['keys', 'generate', '名前🔑 clé'], { env });
  assert.equal(uni.code, 0, uni.stderr);
  assert.ok(sh('ssh-add', ['-l']).includes('名前🔑 clé'), 'ssh-add -l shows the Unicode name');
  assert.ok((await keysList()).some((k) => k.name === '名前🔑 clé'));
});

test('keys remove: a fingerprint in the wrong form (a name, MD5, no prefix) is -32004/64 saying the form it takes; an unknown one -32004/64; after a remove ssh-add -l and -L no longer show the key, and a second remove says there is none', async () => {
  const named = (await keysList()).find((k) => k.name === 'gen-ed25519')!;
  for (const bad of ['abc', 'SHA256:short', 'MD5:aa:bb:cc', 'gen-ed25519', named.fingerprint.slice('SHA256:'.length)]) {
    const r = await s.ui.call('keys.remove', { fingerprint: bad });
    assert.equal(r.error?.code, -32004, `${bad}: ${JSON.stringify(r)}`);
    assert.match(r.error!.message, /SHA256: and 43 base64/, `says the form: ${r.error!.message}`);
    const cli = await airlock(['keys', 'remove', bad], { env });
    assert.equal(cli.code, 64, cli.stdout + cli.stderr);
    assert.match(cli.stderr, /SHA256: and 43 base64/);
  }
  const unknown = `SHA256:${'A'.repeat(43)}`;
  const r = await s.ui.call('keys.remove', { fingerprint: unknown });
  assert.equal(r.error?.code, -32004, JSON.stringify(r));
  const victim = (await keysList()).find((k) => k.name === 'gen-ed25519')!;
  const rm = await airlock(['keys', 'remove', victim.fingerprint], { env });
  assert.equal(rm.code, 0, rm.stderr);
  assert.ok(!sh('ssh-add', ['-l']).includes(victim.fingerprint), 'ssh-add -l no longer lists it');
  assert.ok(!sh('ssh-add', ['-L']).split('\n').some((l) => typeAndBlob(l) === typeAndBlob(victim.publicKey)), 'nor -L');
  const again = await airlock(['keys', 'remove', victim.fingerprint], { env });
  assert.equal(again.code, 64, again.stdout + again.stderr);
  assert.match(again.stderr, /no key/);
  // The name is free again.
  const reuse = await airlock(['keys', 'generate', 'gen-ed25519'], { env });
  assert.equal(reuse.code, 0, reuse.stderr);
});

test('a key comment holding a newline and a second key line (a crafted key file imported, or ssh-add by an agent) never makes ssh-add -L, keys list --public or keys.list print an extra authorized_keys line', async () => {
  const injected = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIInjectedKeyInjectedKeyInjectedKeyInjectedKey01 injected';
  const files: string[] = [];
  for (const label of ['crafted-import', 'crafted-ssh-add']) {
    const f = path.join(dir, label);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `me@host\n${injected}`, '-f', f], { stdio: 'ignore' });
    files.push(f);
  }
  const imp = await airlock(['keys', 'import', files[0]!], { env });
  assert.equal(imp.code, 0, imp.stderr);
  const added = await run('ssh-add', [files[1]!], { env });
  assert.equal(added.code, 0, added.stderr);
  const listed = sh('ssh-add', ['-l']).trim().split('\n');
  const lines = sh('ssh-add', ['-L']).trim().split('\n');
  assert.equal(lines.length, listed.length, `one line per key: ${JSON.stringify(lines.slice(-4))}`);
  assert.ok(listed.every((l) => /^\d+ SHA256:/.test(l)), `ssh-add -l: every line is a key: ${JSON.stringify(listed.slice(-4))}`);
  assert.ok(!lines.some((l) => l.startsWith('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIInjected')), `no injected key line in ssh-add -L: ${JSON.stringify(lines.slice(-4))}`);
  const pub = await airlock(['keys', 'list', '--public'], { env });
  assert.equal(pub.code, 0, pub.stderr);
  assert.ok(!pub.stdout.split('\n').some((l) => l.startsWith('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIInjected')), `keys list --public: ${pub.stdout}`);
  for (const k of await keysList()) assert.ok(!/[\n\r]/.test(k.publicKey), `keys.list publicKey is one line: ${JSON.stringify(k.publicKey)}`);
  await run('ssh-add', ['-d', `${files[1]!}.pub`], { env, timeoutMs: 5_000 }).catch(() => undefined);
});
