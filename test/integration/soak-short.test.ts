// A short soak in CI (the full one is `npm run soak`): 16 clients × 300 mixed requests
// (granted, deny-granted, prompts answered by a scripted human, invalid requests, bad
// lines, SSH signatures through the agent) while the daemon is kill -9ed and restarted 3
// times. Every answered request is in history with the decision given, no decision is
// wrong, the chain verifies, the daemon's RSS stays bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSoak } from '../soak/soak';

test('soak (short): 16 clients × 300 mixed requests through 3 kill -9 restarts', async () => {
  const r = await runSoak({ clients: 16, perClient: 300, restarts: 3, rssLimitMb: 512 });
  const { wrong, missing, ...summary } = r;
  console.log(`# ${JSON.stringify(summary)}`);
  assert.deepEqual(wrong, []);
  assert.deepEqual(missing, []);
  assert.equal(r.chain.ok, true, JSON.stringify(r.chain));
  assert.equal(r.restarts, 3);
  // The mix really ran: every kind was answered, and most requests were (kills cut few).
  for (const [k, n] of Object.entries(r.answered)) assert.ok(n > 0, `no ${k} request answered`);
  const answered = Object.values(r.answered).reduce((a, b) => a + b, 0);
  assert.ok(answered >= 0.95 * 16 * 300, `only ${answered} of ${16 * 300} answered`);
  assert.ok(r.events >= r.answered.allow + r.answered.deny + r.answered.ask + r.answered.bad);
});
