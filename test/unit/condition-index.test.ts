// The condition index (condition-index.ts, condition-facts.ts) against the real evaluation.
// 1. Soundness, grant by grant: whenever the index says a condition is certainly false, the
//    condition evaluates to exactly false, both as a decision evaluates it (conditionOutcome)
//    and by @bufbuild/cel itself; never true, never an error (an error makes a deny deny).
// 2. Decisions: GrantIndex.evaluate (which skips those grants) gives the linear matcher's
//    answer (evaluateGrants over every grant of the tool): same deny, allow, near misses.
// Random conditions (equalities, `in`, bounds both ways round, has, !=, not, and/or, false)
// over random arguments with missing fields, wrong types (strings for numbers, bools, null,
// lists, maps, a map where a path expects a value and a string where it expects a map).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Grant } from '../../main/contract/approver';
import { celArgs, compileCondition } from '../../main/core/condition';
import { ConditionIndex } from '../../main/core/condition-index';
import { conditionOutcome, evaluateGrants, GrantIndex, type GrantVerdict } from '../../main/core/grants';
import type { CoreRequest } from '../../main/core/request';
import { pick, rng } from '../helpers/seeded-random';

const NOW = 1_800_000_000_000;

const PATHS = ['args.a', 'args.b', 'args.o.c'];
const ATOMS = [
  (p: string) => `${p} == "x"`, (p: string) => `"y" == ${p}`, (p: string) => `${p} == 1`, (p: string) => `${p} == 2.5`,
  (p: string) => `${p} in ["x", "y"]`, (p: string) => `${p} in [1, 2.5, 3]`, (p: string) => `${p} > 1`, (p: string) => `${p} >= 2`,
  (p: string) => `${p} < 2.5`, (p: string) => `${p} <= 1`, (p: string) => `1 < ${p}`, (p: string) => `3 >= ${p}`,
  (p: string) => `${p} != "x"`, (p: string) => `!(${p} == "y")`, (p: string) => `has(${p})`, () => 'false', (p: string) => `${p} == -0.0`,
];
const VALUES: unknown[] = ['x', 'y', 'z', '', 0, -0, 1, 2, 2.5, 3, 7, -1, true, false, null, [1], ['x'], { c: 1 }, {}, '1'];

function condition(r: () => number, depth = 0): string {
  if (depth < 3 && r() < 0.45) return `(${condition(r, depth + 1)}) ${r() < 0.5 ? '&&' : '||'} (${condition(r, depth + 1)})`;
  return pick(r, ATOMS)(pick(r, PATHS));
}

function args(r: () => number): unknown {
  const a: Record<string, unknown> = {};
  if (r() < 0.8) a.a = pick(r, VALUES);
  if (r() < 0.8) a.b = pick(r, VALUES);
  const roll = r();
  if (roll < 0.6) a.o = r() < 0.8 ? { c: pick(r, VALUES) } : {};
  else if (roll < 0.7) a.o = pick(r, VALUES);
  return a;
}

function grant(i: number, when: string, effect: 'allow' | 'deny', tool = 'pay'): Grant {
  return {
    id: `g_${i}`, task: null, source: '*', tool, action: 'write', resource: '**', key: null, effect, expiresAt: null, usesLeft: null,
    forwarded: false, remote: null, note: null, createdAt: NOW, createdBy: 'human', revokedAt: null, lastUsedAt: null, when,
  } as Grant;
}

const request = (a: unknown, tool = 'pay'): CoreRequest => ({
  source: 'mcp', tool, action: 'write', resource: null, resources: [], summary: 's', argsText: null,
  args: { arguments: a }, task: null, cwd: null, classifierRisk: [],
}) as CoreRequest;

test('a condition the index calls certainly false evaluates to exactly false (decision path and @bufbuild/cel), on random conditions and arguments', () => {
  const r = rng(0xc0d1);
  let skipped = 0;
  let checked = 0;
  for (let set = 0; set < 150; set++) {
    const grants = Array.from({ length: 8 + Math.floor(r() * 30) }, (_, i) => grant(i, condition(r), r() < 0.5 ? 'deny' : 'allow'));
    const index = new ConditionIndex(grants);
    for (let q = 0; q < 40; q++) {
      const a = args(r);
      const req = request(a);
      const certainlyFalse = index.certainlyFalse(celArgs(a));
      for (const g of grants) {
        checked++;
        if (!certainlyFalse(g)) continue;
        skipped++;
        const why = `${g.when} with ${JSON.stringify(a)}`;
        assert.equal(conditionOutcome(g, req), false, why);
        assert.deepEqual(compileCondition(g.when!).evaluateCel(celArgs(a)), { ok: true, value: false }, why);
      }
    }
  }
  // The index must actually skip, or this proves nothing.
  assert.ok(skipped > checked / 10, `only ${skipped} of ${checked} skipped`);
});

const ids = (v: GrantVerdict) => ({ deny: v.deny?.id, allow: v.allow?.id, near: v.deny || v.allow ? undefined : v.near?.id, nearCondition: v.nearCondition?.id });

test('GrantIndex with its condition index decides exactly as the linear matcher: deny beats allow, errors never allow', () => {
  const r = rng(0x1dc0);
  let denied = 0;
  let allowed = 0;
  for (let set = 0; set < 200; set++) {
    const grants = Array.from({ length: 10 + Math.floor(r() * 40) }, (_, i) =>
      grant(i, condition(r), r() < 0.3 ? 'deny' : 'allow', r() < 0.9 ? 'pay' : 'other'));
    const index = new GrantIndex(grants);
    for (let q = 0; q < 40; q++) {
      const req = request(args(r));
      const linear = ids(evaluateGrants(index.forTool('pay'), req, NOW));
      assert.deepEqual(ids(index.evaluate(req, NOW)), linear, JSON.stringify(req.args));
      if (linear.deny) denied++;
      if (linear.allow) allowed++;
    }
  }
  assert.ok(denied > 500 && allowed > 200, `denied ${denied}, allowed ${allowed}`);
});

test('a deny that cannot be checked is never skipped: missing field, wrong type, cut or oversized arguments', () => {
  const fill = Array.from({ length: 20 }, (_, i) => grant(i + 1, `args.to == "p${i}@example.com"`, 'allow'));
  const deny = grant(0, 'args.amount > 100 || args.to == "evil@example.com"', 'deny');
  const allowAll = grant(99, 'args.to in ["alice@example.com", "p3@example.com"]', 'allow');
  const index = new GrantIndex([deny, ...fill, allowAll]);
  const decide = (a: unknown, extra: Record<string, unknown> = {}) => {
    const v = index.evaluate({ ...request(a), args: { arguments: a, ...extra } }, NOW);
    return v.deny ? `deny ${v.deny.id}` : v.allow ? `allow ${v.allow.id}` : 'none';
  };
  assert.equal(decide({ to: 'alice@example.com', amount: 5 }), 'allow g_99');
  assert.equal(decide({ to: 'p3@example.com', amount: 5 }), 'allow g_4');
  assert.equal(decide({ to: 'alice@example.com', amount: 500 }), 'deny g_0');
  assert.equal(decide({ to: 'evil@example.com', amount: 5 }), 'deny g_0');
  assert.equal(decide({ to: 'alice@example.com' }), 'deny g_0', 'amount missing: the deny errors, so it denies');
  assert.equal(decide({ to: 'alice@example.com', amount: '5' }), 'deny g_0', 'amount a string');
  assert.equal(decide({ to: 'alice@example.com', amount: null }), 'deny g_0', 'amount null');
  assert.equal(decide({ to: 'alice@example.com', amount: [5] }), 'deny g_0', 'amount a list');
  assert.equal(decide({ to: 'alice@example.com', amount: 5 }, { truncated: true }), 'deny g_0', 'cut arguments: the deny cannot be checked, so it denies');
  assert.equal(decide({ to: 'alice@example.com', amount: 5, pad: Array.from({ length: 30_000 }, () => 1) }), 'deny g_0', 'too large: the same');
  // Without the deny, arguments that cannot be checked allow nothing.
  const allowsOnly = new GrantIndex([...fill, allowAll]);
  const v = allowsOnly.evaluate({ ...request({ to: 'alice@example.com', amount: 5 }), args: { arguments: { to: 'alice@example.com', amount: 5 }, truncated: true } }, NOW);
  assert.equal(v.allow, undefined);
});
