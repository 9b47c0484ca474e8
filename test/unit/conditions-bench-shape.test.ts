// The shape of test/bench/conditions.bench.ts, checked without timing: the plain baseline's
// 500 look-alike grants on the request's own tool and action are really looked at (the grant
// index keeps them as candidates and each one's resource glob runs against the request's
// host), and every request is allowed by the grant the bench expects, on both sides.
// Without this the baseline can quietly become cheaper than what it stands for (issue 14:
// `/nope/N` look-alikes were skipped by the index without running anything).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentRequest } from '../../main/contract/agent';
import type { Grant } from '../../main/contract/approver';
import * as glob from '../../main/core/glob';
import { GrantIndex, grantMiss } from '../../main/core/grants';
import { RequestPolicy, type PolicyFacts } from '../../main/core/request-policy';
import { DEFAULT_SETTINGS } from '../../main/core/settings';
import { GRANTS, grantOf, lookAlike, PAY_HOST, payGrant, request } from '../bench/conditions-grants';

const NOW = 1_800_000_000_000;

function grants(conditional: boolean): Grant[] {
  const specs = [payGrant(conditional), ...Array.from({ length: GRANTS - 1 }, (_, k) => grantOf(k + 1, conditional))];
  return specs.map((s, i) => ({
    id: `g_${i}`, task: null, key: null, expiresAt: null, usesLeft: null, forwarded: false, remote: null, note: null,
    createdAt: NOW - 1000, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null, ...s,
  }) as Grant);
}

function policyOver(index: GrantIndex): RequestPolicy {
  const facts: PolicyFacts = {
    settings: () => DEFAULT_SETTINGS,
    liveTask: () => { throw new Error('no tasks here'); },
    authorizeTask: () => { throw new Error('no tasks here'); },
    mcpTool: () => null,
    activeGrants: () => index,
    memoryOf: () => ({}),
  };
  return new RequestPolicy(facts, { now: () => NOW });
}

/** Counts globMatches calls made by grants.ts (it calls the module's export at each call). */
function countingGlobs<T>(f: () => T): { result: T; calls: Map<string, number> } {
  const mod = glob as { globMatches: typeof glob.globMatches };
  const real = mod.globMatches;
  const calls = new Map<string, number>();
  mod.globMatches = (g: string, v: string) => {
    calls.set(g, (calls.get(g) ?? 0) + 1);
    return real(g, v);
  };
  try {
    return { result: f(), calls };
  } finally {
    mod.globMatches = real;
  }
}

test('the plain baseline\'s look-alikes are candidates of the index and each one\'s resource glob runs on every request', () => {
  const all = grants(false);
  const index = new GrantIndex(all);
  const policy = policyOver(index);
  const lookAlikes = all.filter((g) => g.resource.includes('.nope'));
  // Grants 1–999: i % 4 == 0 (249 denies) and i % 4 == 1 (250 allows) are the look-alikes.
  assert.equal(lookAlikes.length, 499);
  assert.ok(lookAlikes.every((g) => g.tool === 'payments/pay' && g.action === 'transfer'));
  for (const i of [0, 1, 7, 1999]) {
    const req = policy.normalize(request(i) as AgentRequest, {});
    assert.equal(req.action, 'transfer');
    assert.deepEqual(req.resources, [PAY_HOST]);
    const candidates = new Set(index.candidates(req));
    for (const g of lookAlikes) {
      assert.ok(candidates.has(g), `${g.id} (${g.resource}) is skipped by the index`);
      assert.equal(grantMiss(g, req, NOW), 'resource', `${g.id} misses on its resource, after every other check passed`);
    }
    const { result, calls } = countingGlobs(() => policy.evaluate(req));
    assert.equal(result.kind === 'answer' && result.decision, 'allow');
    assert.equal(result.kind === 'answer' && result.grant, 'g_0');
    for (const g of lookAlikes) assert.equal(calls.get(g.resource), 1, `the glob of ${g.id} (${g.resource}) ran once`);
  }
});

test('a look-alike\'s pattern is matched against the request\'s host: on its own host it decides', () => {
  const index = new GrantIndex(grants(false));
  const policy = policyOver(index);
  const on = (host: string) => {
    const raw = { ...request(3), resource: host, resources: [host] } as AgentRequest;
    const v = policy.evaluate(policy.normalize(raw, {}));
    return v.kind === 'answer' ? `${v.decision} ${v.grant}` : v.kind;
  };
  assert.equal(on(`api${lookAlike(8).slice(1)}`), 'deny g_8');
  assert.equal(on(`api${lookAlike(9).slice(1)}`), 'allow g_0');
  assert.equal(on(PAY_HOST), 'allow g_0');
});

test('on the conditional side every request is allowed by the paying grant\'s own condition, and a blocked payee is denied', () => {
  const policy = policyOver(new GrantIndex(grants(true)));
  const decide = (raw: ReturnType<typeof request>) => {
    const v = policy.evaluate(policy.normalize(raw as AgentRequest, {}));
    return v.kind === 'answer' ? `${v.decision} ${v.grant}` : v.kind;
  };
  for (let i = 0; i < 100; i++) assert.equal(decide(request(i)), 'allow g_0', `request ${i}`);
  const r = request(1);
  assert.equal(decide({ ...r, args: { ...r.args, arguments: { ...r.args.arguments, to: 'blocked8@evil.example' } } }), 'deny g_8');
  assert.equal(decide({ ...r, args: { ...r.args, arguments: { ...r.args.arguments, amount: 100_013 } } }), 'deny g_4');
  assert.equal(decide({ ...r, args: { ...r.args, arguments: { ...r.args.arguments, amount: 51 } } }), 'prompt');
});
