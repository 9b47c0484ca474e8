// The agent lock against a parallel brute force: unlock attempts from any number of
// connections are checked one at a time, each after the previous failure's delay, as in
// OpenSSH's single-threaded agent. Before, 20 guesses at once all finished in the time of one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentLock } from '../../main/ssh/agent-lock';

test('parallel wrong unlocks are serialized: each waits for the previous delay; the right one still unlocks', async () => {
  const lock = new AgentLock();
  assert.equal(await lock.lock(Buffer.from('right')), true);
  const t0 = Date.now();
  const results = await Promise.all([0, 1, 2, 3, 4].map((i) => lock.unlock(Buffer.from(`wrong${i}`))));
  const took = Date.now() - t0;
  assert.deepEqual(results, [false, false, false, false, false]);
  // 0.1 + 0.2 + 0.3 + 0.4 + 0.5 s in a row; in parallel it was ~0.5 s.
  assert.ok(took >= 1400, `5 parallel guesses took only ${took} ms`);
  assert.equal(lock.locked, true);
  assert.equal(await lock.unlock(Buffer.from('right')), true);
  assert.equal(lock.locked, false);
});

test('an attempt queued behind others is checked against the lock as it is then: after an unlock, nothing to unlock', async () => {
  const lock = new AgentLock();
  assert.equal(await lock.lock(Buffer.from('pw')), true);
  const [a, b] = await Promise.all([lock.unlock(Buffer.from('pw')), lock.unlock(Buffer.from('pw'))]);
  assert.deepEqual([a, b], [true, false]);
  assert.equal(await lock.unlock(Buffer.from('')), false);
  assert.equal(lock.locked, false);
});
