// The per-peer process-tree cache: reused only for the very same process (pid, start time,
// command line, uid) and only briefly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProcessInfo } from '../../main/contract/common';
import { processInfo } from '../../main/os/peer';
import { ProcessInfoCache, type ProcessIdentity } from '../../main/ssh/process-cache';

test('same process → cached; exec (new cmdline), reused pid (new start time), other uid or time → recomputed', () => {
  let computed = 0;
  let now = 1000;
  let id: ProcessIdentity = { startTime: '100', cmdline: Buffer.from('bash\0') };
  const cache = new ProcessInfoCache(
    (c): ProcessInfo => {
      computed++;
      return { pid: c.pid, uid: c.uid, exe: `/bin/x${computed}`, argv: [], tree: [] };
    },
    () => id,
    () => now,
  );
  const cred = { pid: 42, uid: 1000, gid: 1000 };
  const a = cache.get(cred);
  assert.equal(cache.get(cred), a);
  assert.equal(computed, 1);
  id = { startTime: '100', cmdline: Buffer.from('ssh\0host\0') };
  assert.notEqual(cache.get(cred), a, 'an exec changes the command line');
  id = { startTime: '200', cmdline: Buffer.from('ssh\0host\0') };
  cache.get(cred);
  assert.equal(computed, 3, 'a reused pid has another start time');
  cache.get({ ...cred, uid: 0 });
  assert.equal(computed, 4);
  now += 5000;
  cache.get({ ...cred, uid: 0 });
  assert.equal(computed, 5, 'entries expire');
});

test('against the real /proc: this process is cached and equals a fresh read', () => {
  const cache = new ProcessInfoCache();
  const cred = { pid: process.pid, uid: process.getuid?.() ?? 0, gid: 0 };
  const first = cache.get(cred);
  assert.equal(cache.get(cred), first);
  assert.deepEqual(first, processInfo(cred));
});

test('the cached tree is frozen all the way down: shared by connections, serialised once by history, changed by nobody', () => {
  const cache = new ProcessInfoCache();
  const info = cache.get({ pid: process.pid, uid: process.getuid?.() ?? 0, gid: 0 });
  assert.ok(Object.isFrozen(info) && Object.isFrozen(info.tree) && Object.isFrozen(info.argv));
  assert.ok(info.tree.length > 0 && info.tree.every((n) => Object.isFrozen(n) && Object.isFrozen(n.argv)));
  assert.throws(() => (info.tree as unknown as unknown[]).push({ pid: 1, exe: '/evil', argv: [] }), TypeError);
  assert.throws(() => ((info.tree[0] as { exe: string | null }).exe = '/evil'), TypeError);
  // A peer whose /proc entry cannot be read (gone already) gets a fresh, frozen answer too.
  const gone = new ProcessInfoCache((c) => ({ pid: c.pid, uid: c.uid, gid: c.gid, exe: null, argv: [], tree: [] }), () => null).get({ pid: 2 ** 22 + 7, uid: 0, gid: 0 });
  assert.ok(Object.isFrozen(gone) && Object.isFrozen(gone.tree));
});
