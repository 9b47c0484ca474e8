// The web UI's token kept across restarts (main/os/web-state.ts): written 0600 and
// atomically, trusted only when private and ours, never read through a symbolic link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadWebState, readWebState, webStatePath, writeWebState } from '../../main/os/web-state';

const home = () => fs.mkdtempSync(path.join(os.tmpdir(), 'al-ws-'));

test('web state: a new token the first time, the same one after, 0600; rotation keeps the port', () => {
  const h = home();
  const first = loadWebState(h);
  assert.match(first.token, /^[A-Za-z0-9_-]{43}$/);
  writeWebState(h, { token: first.token, port: 43123 });
  assert.equal(fs.statSync(webStatePath(h)).mode & 0o777, 0o600);
  assert.deepEqual(loadWebState(h), { token: first.token, port: 43123 });
  const rotated = loadWebState(h, true);
  assert.notEqual(rotated.token, first.token);
  assert.equal(rotated.port, 43123);
});

test('web state: a readable-by-others file, a symbolic link or garbage is not trusted', () => {
  const h = home();
  writeWebState(h, { token: 'a'.repeat(43), port: 5000 });
  fs.chmodSync(webStatePath(h), 0o644);
  assert.equal(readWebState(h), null, 'group/other bits: someone else may have planted or read it');
  fs.chmodSync(webStatePath(h), 0o600);
  assert.ok(readWebState(h));
  const other = path.join(home(), 'x.json');
  fs.writeFileSync(other, JSON.stringify({ token: 'b'.repeat(43), port: 1 }), { mode: 0o600 });
  fs.rmSync(webStatePath(h));
  fs.symlinkSync(other, webStatePath(h));
  assert.equal(readWebState(h), null, 'never through a link');
  fs.rmSync(webStatePath(h));
  fs.writeFileSync(webStatePath(h), '{"token":"short"}', { mode: 0o600 });
  assert.equal(readWebState(h), null);
  assert.notEqual(loadWebState(h).token, 'short');
});
