// Grant conditions (`when`, CEL via @bufbuild/cel): compiled and checked at creation,
// evaluated per request, never allowing on an error. main/core/condition.ts, grants.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Grant } from '../../main/contract/approver';
import { celArgs, compileCondition, ConditionError } from '../../main/core/condition';
import { suggestConditions } from '../../main/core/condition-suggest';
import { evaluateGrants, grantMiss } from '../../main/core/grants';
import type { CoreRequest } from '../../main/core/request';

const PAY = 'args.amount <= 50 && args.to in ["alice@example.com", "bob@example.com"]';

function grant(p: Partial<Grant>): Grant {
  return {
    id: 'g_1', task: null, source: '*', tool: '*', action: '*', resource: '**', key: null, effect: 'allow', expiresAt: null, usesLeft: null,
    forwarded: false, note: null, createdAt: 0, createdBy: 'test', revokedAt: null, lastUsedAt: null, when: null, ...p,
  };
}

function mcpReq(args: unknown, tool = 'payments/pay'): CoreRequest {
  return {
    source: 'mcp', tool, action: 'write', resource: null, resources: [], summary: 's', argsText: null,
    args: { arguments: args, annotations: {} }, task: null, cwd: null, classifierRisk: [],
  };
}

describe('conditions: compile and check at grant creation', () => {
  const refused: [string, RegExp][] = [
    ['args.amount <=', /does not parse/],
    ['amount <= 50', /unknown name "amount".*args\.amount/],
    ['request.args.amount <= 50', /unknown name "request"/],
    ['exec(args.cmd)', /unknown function "exec"/],
    ['args.amount + 1', /must be true or false/],
    ['"a" < 1', /cannot compare a string with a int/],
    ['1 + 1.0 > 0', /between a int and a double/],
    ['args.to in "alice"', /"in" needs a list or a map/],
    ['"abc".size > 1', /on a string/],
    ['args.a && 1', /needs true\/false/],
    ['args.xs.all(x, args.ys.exists(y, x == y))', /inside another one/],
    ['', /empty/],
    ['args.x == 1 || '.repeat(400) + 'true', /too long|longer than/],
    ['args.t < timestamp("2024-01-01T00:00:00Z")', /unknown function "timestamp"/],
  ];
  for (const [src, why] of refused) {
    test(`refused: ${src.slice(0, 50)}`, () => {
      assert.throws(() => compileCondition(src), (e: unknown) => e instanceof ConditionError && why.test((e as Error).message));
    });
  }

  test('accepted: the examples of the issue and DESIGN.md, and common forms', () => {
    for (const src of [
      PAY,
      'args.labels.all(l, l != "TRASH")',
      'has(args.cc) == false',
      'size(args.to) < 100 && args.to.endsWith("@example.com")',
      'args.argv[0] == "git" && args.argv[1] in ["status", "log"]',
      'args.path.startsWith("/work/") && !args.path.contains("..")',
      'args.subject.matches("^\\\\[ticket-[0-9]+\\\\]")',
      'args.amount < 50u || args.amount <= 50.5',
      'true',
    ]) {
      assert.doesNotThrow(() => compileCondition(src), src);
    }
  });

  test('compiled once per text (cache)', () => {
    assert.equal(compileCondition(PAY), compileCondition(PAY));
  });

  test('in words', () => {
    assert.equal(compileCondition(PAY).words, 'amount ≤ 50 and to is one of ["alice@example.com", "bob@example.com"]');
    assert.equal(compileCondition('args.labels.all(l, l != "TRASH")').words, 'every l in labels has l is not "TRASH"');
    assert.equal(compileCondition('has(args.cc)').words, 'cc is given');
  });
});

describe('conditions: evaluated per request (table)', () => {
  const c = compileCondition(PAY);
  const rows: [string, unknown, boolean | 'error'][] = [
    ['matching', { amount: 20, to: 'alice@example.com' }, true],
    ['matching at the bound', { amount: 50, to: 'bob@example.com' }, true],
    ['amount too high', { amount: 5000, to: 'alice@example.com' }, false],
    ['a stranger', { amount: 5, to: 'mallory@evil.example' }, false],
    ['missing amount', { to: 'alice@example.com' }, 'error'],
    ['amount as a string', { amount: '5', to: 'alice@example.com' }, 'error'],
    ['amount null', { amount: null, to: 'alice@example.com' }, 'error'],
    ['to as a list', { amount: 5, to: ['alice@example.com'] }, false],
    ['no arguments at all', {}, 'error'],
    ['arguments not an object', 'pay everyone', 'error'],
  ];
  for (const [name, args, want] of rows) {
    test(name, () => {
      const r = c.evaluate(args);
      if (want === 'error') {
        // Either an error or false: never true.
        assert.ok(!r.ok || r.value === false, JSON.stringify(r));
        if (!r.ok) assert.ok(r.error.length > 0);
      } else assert.deepEqual(r, { ok: true, value: want });
    });
  }

  test('arguments too large or too deep are not examined (never true)', () => {
    const wide = { amount: 1, to: 'alice@example.com', pad: Array.from({ length: 30_000 }, (_, i) => i) };
    assert.equal(c.evaluate(wide).ok, false);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = { d: deep };
    assert.equal(c.evaluate({ amount: 1, to: 'alice@example.com', deep }).ok, false);
  });

  test('prototype names are plain missing fields', () => {
    for (const src of ['args.constructor == 1', 'args.__proto__ == 1', 'args.toString == 1']) assert.equal(compileCondition(src).evaluate({}).ok, false, src);
  });
});

describe('conditions in grant matching', () => {
  const allow = grant({ id: 'g_allow', tool: 'payments/pay', action: 'write', when: PAY });
  test('an allow grant matches only when its condition is true', () => {
    assert.equal(grantMiss(allow, mcpReq({ amount: 20, to: 'alice@example.com' }), 0), null);
    assert.equal(grantMiss(allow, mcpReq({ amount: 5000, to: 'alice@example.com' }), 0), 'condition');
    assert.equal(grantMiss(allow, mcpReq({ amount: 20 }), 0), 'condition', 'missing field');
    assert.equal(grantMiss(allow, mcpReq({ amount: '20', to: 'alice@example.com' }), 0), 'condition', 'wrong type');
  });

  test('cut arguments never satisfy a condition', () => {
    const r = mcpReq({ amount: 20, to: 'alice@example.com' });
    r.args = { arguments: { amount: 20, to: 'alice@example.com' }, truncated: true };
    assert.equal(grantMiss(allow, r, 0), 'condition');
  });

  test('deny conditions beat allow; a deny whose condition cannot be checked still denies', () => {
    const plain = grant({ id: 'g_plain', tool: 'payments/*', action: 'write' });
    const deny = grant({ id: 'g_deny', tool: 'payments/pay', action: 'write', effect: 'deny', when: 'args.amount > 50 || !(args.to in ["alice@example.com"])' });
    const grants = [plain, allow, deny];
    assert.equal(evaluateGrants(grants, mcpReq({ amount: 20, to: 'alice@example.com' }), 0).deny, undefined);
    assert.ok(evaluateGrants(grants, mcpReq({ amount: 20, to: 'alice@example.com' }), 0).allow);
    assert.equal(evaluateGrants(grants, mcpReq({ amount: 5000, to: 'alice@example.com' }), 0).deny?.id, 'g_deny');
    assert.equal(evaluateGrants(grants, mcpReq({ amount: 5, to: 'mallory@evil.example' }), 0).deny?.id, 'g_deny');
    assert.equal(evaluateGrants(grants, mcpReq({ to: 'alice@example.com' }), 0).deny?.id, 'g_deny', 'missing amount: the deny applies');
    assert.equal(evaluateGrants(grants, mcpReq({ amount: '5000', to: 'alice@example.com' }), 0).deny?.id, 'g_deny', 'string amount: the deny applies');
  });

  test('an allow that misses only on its condition is reported (why was I asked)', () => {
    assert.equal(evaluateGrants([allow], mcpReq({ amount: 5000, to: 'alice@example.com' }), 0).nearCondition?.id, 'g_allow');
  });

  test('exec: args.argv', () => {
    const g = grant({ tool: 'git', action: 'execute', when: 'args.argv[0] == "git" && args.argv[1] == "status"' });
    const r = (argv: string[]): CoreRequest => ({ ...mcpReq({}), source: 'exec', tool: 'git', action: 'execute', args: { command: argv.join(' '), argv } });
    assert.equal(grantMiss(g, r(['git', 'status']), 0), null);
    assert.equal(grantMiss(g, r(['git', 'push']), 0), 'condition');
  });

  test('a grant for a set of actions: "never write, delete or send" leaves reads alone', () => {
    const never = grant({ tool: 'gmail/*', action: ['write', 'delete', 'transfer', 'execute', 'other'], effect: 'deny' });
    assert.equal(grantMiss(never, { ...mcpReq({}, 'gmail/delete_all'), action: 'delete' }, 0), null);
    assert.equal(grantMiss(never, { ...mcpReq({}, 'gmail/get'), action: 'read' }, 0), 'action');
  });
});

describe('conditions started from the request\'s own arguments', () => {
  test('suggestions compile and match the request they came from', () => {
    const args = { amount: 42.5, to: 'alice@example.com', labels: ['INBOX', 'work'], urgent: false, 'weird key': 'x', nested: { a: 1 } };
    const s = suggestConditions(args);
    assert.ok(s.length >= 4, JSON.stringify(s));
    assert.ok(s.some((x) => x.when === 'args.amount <= 42.5' && x.words === 'amount ≤ 42.5'), JSON.stringify(s));
    assert.ok(s.some((x) => x.when === 'args["weird key"] == "x"'), JSON.stringify(s));
    for (const x of s) assert.deepEqual(compileCondition(x.when).evaluate(args), { ok: true, value: true }, x.when);
    assert.deepEqual(suggestConditions('nope'), []);
    assert.deepEqual(suggestConditions({ s: '\u202egnp.exe' }), [], 'bidi controls are not offered');
  });
});

describe('the fast path agrees with @bufbuild/cel (differential)', () => {
  test('5,000 generated conditions × arguments: same true / false / error', () => {
    let seed = 20240601;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pick = <T>(xs: T[]): T => xs[rnd(xs.length)]!;
    const FIELDS = ['args.a', 'args.b', 'args.c', 'args.a.x', 'args["b"]'];
    const LITS = ['0', '1', '50', '-3', '50.0', '49.5', '50u', '"a"', '"alice@example.com"', 'true', 'false', 'null', '9007199254740993'];
    const OPS = ['==', '!=', '<', '<=', '>', '>='];
    const atom = (): string => {
      switch (rnd(5)) {
        case 0: return `${pick(FIELDS)} ${pick(OPS)} ${pick(LITS)}`;
        case 1: return `${pick(LITS)} ${pick(OPS)} ${pick(FIELDS)}`;
        case 2: return `${pick(FIELDS)} ${pick(OPS)} ${pick(FIELDS)}`;
        case 3: return `${pick(FIELDS)} in [${pick(LITS)}, ${pick(LITS)}]`;
        default: return `has(${pick(['args.a', 'args.b', 'args.a.x'])})`;
      }
    };
    const expr = (d: number): string => {
      if (d === 0 || rnd(3) === 0) return atom();
      const r = rnd(3);
      return r === 0 ? `(${expr(d - 1)} && ${expr(d - 1)})` : r === 1 ? `(${expr(d - 1)} || ${expr(d - 1)})` : `!(${expr(d - 1)})`;
    };
    const VALUES: unknown[] = [undefined, 0, 1, 50, 49.5, -3, 1e300, 'a', 'b', 'alice@example.com', true, false, null, [1, 'a'], { x: 1 }, { x: 'a' }, { y: 2 }];
    const argsOf = () => {
      const o: Record<string, unknown> = {};
      for (const k of ['a', 'b', 'c']) {
        const v = pick(VALUES);
        if (v !== undefined) o[k] = v;
      }
      return o;
    };
    const cls = (r: { ok: boolean; value?: boolean }) => (r.ok ? String(r.value) : 'error');
    let compared = 0;
    for (let i = 0; i < 5000; i++) {
      const src = expr(3);
      let c;
      try {
        c = compileCondition(src);
      } catch {
        continue;
      }
      const input = celArgs(argsOf());
      const fast = c.evaluateInput(input);
      const ref = c.evaluateCel(input);
      assert.equal(cls(fast), cls(ref), `${src} over ${JSON.stringify(input, (_k, v) => (v instanceof Map ? Object.fromEntries(v) : v))}`);
      compared++;
    }
    assert.ok(compared > 2000, `only ${compared} compared`);
  });
});
