// main/os/socket-trust.ts (what every client checks before connecting) and ensurePrivateDir
// (what the daemon checks before listening), on real files: a directory or a symbolic link
// another user planted is refused; our own dirs and links are used. Files of another user
// need root (chown to 65534, nobody); those tests skip with the reason otherwise.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { socketDistrust, UntrustedSocketError } from '../../main/os/socket-trust';
import { ensurePrivateDir } from '../../main/os/paths';
import { RpcClient } from '../../main/client/rpc-client';

const NOBODY = 65534;
const notRoot = process.getuid?.() !== 0 && 'needs root to make files of another user (uid 65534)';
const me = process.getuid?.() ?? 0;
const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function root(): string {
  const r = fs.mkdtempSync(path.join(os.tmpdir(), 'al-trust-'));
  roots.push(r);
  return r;
}

/** A listening Unix socket at `p` that counts the connections it gets. */
async function listen(p: string): Promise<{ server: net.Server; connections: () => number }> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.on('data', () => s.write('{"jsonrpc":"2.0","id":1,"result":{"decision":"allow","reason":"fake","event":1}}\n'));
  });
  await new Promise<void>((r) => server.listen(p, r));
  return { server, connections: () => n };
}

test('a private directory of ours with our socket is trusted', async () => {
  const dir = path.join(root(), 'airlock');
  fs.mkdirSync(dir, { mode: 0o700 });
  const { server } = await listen(path.join(dir, 'request.sock'));
  try {
    assert.equal(socketDistrust(path.join(dir, 'request.sock')), null);
    // A socket not there yet is not a trust question: connect() says the daemon is not running.
    assert.equal(socketDistrust(path.join(dir, 'missing', 'request.sock')), null);
  } finally {
    server.close();
  }
});

test('a socket directory writable by group or others is refused, even when ours', () => {
  const dir = path.join(root(), 'airlock');
  fs.mkdirSync(dir);
  for (const mode of [0o770, 0o757, 0o777]) {
    fs.chmodSync(dir, mode);
    assert.match(socketDistrust(path.join(dir, 'request.sock')) ?? '', /writable by group or others/, mode.toString(8));
  }
  // Sticky and world-writable (like /tmp, where `ssh -R` puts a remote's socket): the directory
  // is fine, since only a socket's owner can replace it there.
  fs.chmodSync(dir, 0o1777);
  assert.equal(socketDistrust(path.join(dir, 'request.sock')), null);
});

test('a parent directory writable by others is refused too (the sockets dir could be swapped)', () => {
  const r = root();
  const parent = path.join(r, 'shared');
  fs.mkdirSync(path.join(parent, 'airlock'), { recursive: true, mode: 0o700 });
  fs.chmodSync(parent, 0o777);
  assert.match(socketDistrust(path.join(parent, 'airlock', 'request.sock')) ?? '', new RegExp(`${parent} is writable by group or others`));
});

test('a symbolic link of ours is followed, and what it leads to is checked', () => {
  const r = root();
  const real = path.join(r, 'real');
  fs.mkdirSync(real, { mode: 0o700 });
  fs.symlinkSync(real, path.join(r, 'link'));
  assert.equal(socketDistrust(path.join(r, 'link', 'request.sock')), null);
  fs.chmodSync(real, 0o777);
  assert.match(socketDistrust(path.join(r, 'link', 'request.sock')) ?? '', /real is writable by group or others/);
});

test('a directory of another user is refused, whatever its mode', { skip: notRoot }, async () => {
  const dir = path.join(root(), `airlock-${me}`);
  fs.mkdirSync(dir, { mode: 0o700 });
  fs.chownSync(dir, NOBODY, NOBODY);
  const sock = path.join(dir, 'request.sock');
  const fake = await listen(sock);
  try {
    assert.match(socketDistrust(sock) ?? '', new RegExp(`${dir} belongs to uid ${NOBODY}, not to you`));
    // The client never connects: not one byte reaches the fake daemon.
    await assert.rejects(RpcClient.connect(sock), (e: unknown) => e instanceof UntrustedSocketError && e.code === 'EUNTRUSTED' && /XDG_RUNTIME_DIR/.test(e.message));
    assert.equal(fake.connections(), 0);
  } finally {
    fake.server.close();
  }
});

test('a symbolic link planted by another user is refused, even when it leads to a directory of ours', { skip: notRoot }, () => {
  const r = root();
  const ours = path.join(r, 'ours');
  fs.mkdirSync(ours, { mode: 0o700 });
  const link = path.join(r, `airlock-${me}`);
  fs.symlinkSync(ours, link);
  fs.lchownSync(link, NOBODY, NOBODY);
  assert.match(socketDistrust(path.join(link, 'request.sock')) ?? '', new RegExp(`${link} is a symbolic link of uid ${NOBODY}, not yours`));
});

test('a link of ours that leads into a directory of another user is refused', { skip: notRoot }, () => {
  const r = root();
  const theirs = path.join(r, 'theirs');
  fs.mkdirSync(theirs, { mode: 0o700 });
  fs.chownSync(theirs, NOBODY, NOBODY);
  fs.symlinkSync(theirs, path.join(r, 'link'));
  assert.match(socketDistrust(path.join(r, 'link', 'request.sock')) ?? '', /theirs belongs to uid 65534/);
});

test('a socket of another user in a sticky shared directory is refused; a link to it too', { skip: notRoot }, async () => {
  const dir = path.join(root(), 'tmp');
  fs.mkdirSync(dir);
  fs.chmodSync(dir, 0o1777);
  const sock = path.join(dir, 'airlock-remote.sock');
  const fake = await listen(sock);
  try {
    assert.equal(socketDistrust(sock), null);
    fs.lchownSync(sock, NOBODY, NOBODY);
    assert.match(socketDistrust(sock) ?? '', /airlock-remote\.sock belongs to uid 65534/);
    const link = path.join(dir, 'link.sock');
    fs.symlinkSync(sock, link);
    assert.match(socketDistrust(link) ?? '', /leads to .*airlock-remote\.sock, which belongs to uid 65534/);
  } finally {
    fake.server.close();
  }
});

test('ensurePrivateDir refuses a symbolic link of another user and leaves it alone', { skip: notRoot }, () => {
  const r = root();
  const ours = path.join(r, 'ours');
  fs.mkdirSync(ours, { mode: 0o755 });
  const link = path.join(r, `airlock-${me}`);
  fs.symlinkSync(ours, link);
  fs.lchownSync(link, NOBODY, NOBODY);
  assert.throws(() => ensurePrivateDir(link), /is a symbolic link of uid 65534, not yours.*Remove it.*XDG_RUNTIME_DIR.*AIRLOCK_HOME/);
  // Nothing was done through it: the directory it names kept its mode.
  assert.equal(fs.statSync(ours).mode & 0o777, 0o755);
});

test('ensurePrivateDir refuses a directory of another user', { skip: notRoot }, () => {
  const dir = path.join(root(), `airlock-${me}`);
  fs.mkdirSync(dir, { mode: 0o700 });
  fs.chownSync(dir, NOBODY, NOBODY);
  assert.throws(() => ensurePrivateDir(dir), /belongs to uid 65534, not to you.*XDG_RUNTIME_DIR.*AIRLOCK_HOME/);
});

test('ensurePrivateDir follows a link of ours (dotfile setups) and makes its target 0700', () => {
  const r = root();
  const real = path.join(r, 'real');
  fs.mkdirSync(real, { mode: 0o755 });
  fs.symlinkSync(real, path.join(r, 'link'));
  ensurePrivateDir(path.join(r, 'link'));
  assert.equal(fs.statSync(real).mode & 0o777, 0o700);
  assert.ok(fs.lstatSync(path.join(r, 'link')).isSymbolicLink());
  // And a fresh one is made 0700.
  ensurePrivateDir(path.join(r, 'fresh', 'deep'));
  assert.equal(fs.statSync(path.join(r, 'fresh', 'deep')).mode & 0o777, 0o700);
});
