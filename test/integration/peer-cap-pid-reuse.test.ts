// The per-process connection cap counts a process by its pid and start time (issue: loose
// ends). An agent can hand its connections to a child and exit; an unrelated process that
// later gets the same pid must not find its place already taken. Real processes in a private
// pid namespace, where the test can make the pid collide (ns_last_pid); the same process
// still meets the cap (its second connection is refused).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { peerProcessKey } from '../../main/os/private-socket';
import { processStartTime } from '../../main/os/peer';

const userns = spawnSync('unshare', ['-Urpf', '--mount-proc', 'true'], { timeout: 10_000 }).status === 0;

test('a reused pid is a new process to the per-process cap; the same process still meets it', { skip: userns ? false : 'unshare -Urpf (user + pid namespaces) is not available here' }, () => {
  const script = path.join(__dirname, '..', 'helpers', 'pid-reuse-scenario.js');
  const r = spawnSync('unshare', ['-Urpf', '--mount-proc', process.execPath, script], { encoding: 'utf8', timeout: 60_000 });
  const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { a?: { pid: number; lines: string[] }; b?: { pid: number; lines: string[] }; error?: string };
  assert.equal(out.error, undefined, r.stderr);
  assert.deepEqual(out.a?.lines, ['accepted'], 'A is served');
  assert.equal(out.b?.pid, out.a?.pid, 'B got the pid A had (the collision the test needs)');
  // B's first connection is its own place although A's connection is still open in A's child.
  assert.deepEqual(out.b?.lines, ['accepted', 'refused']);
});

test('the key of a process: pid and start time; another start time is another key', () => {
  const mine = processStartTime(process.pid);
  assert.match(mine ?? '', /^\d+$/);
  assert.equal(processStartTime(process.pid), mine, 'stable for one process');
  assert.notEqual(peerProcessKey(4242, '100'), peerProcessKey(4242, '101'));
  assert.notEqual(peerProcessKey(4242, '100'), peerProcessKey(4243, '100'));
  assert.equal(processStartTime(-1), null);
});
