// Literal facts a condition needs: `args.to == "alice@example.com"` can only be true when
// the request's `to` is that string; `args.amount > 100000` only when `amount` is a number
// above 100000. condition-index.ts uses them to skip grants whose condition is certainly
// false for a request without evaluating it, so 1,000 conditional grants cost about as much
// as 1,000 plain ones (test/bench/conditions.bench.ts).
//
// The rule is one-sided and must stay so: facts(e) = F means "if every fact in F is
// certainly false for a request, e evaluates to exactly `false`" (not an error, not true).
// A fact is certainly false only when its path is present (every step a map holding the
// field) and its value has the literal's type and fails the comparison; a missing field,
// a wrong type or anything else unusual leaves the grant to be evaluated, so a deny whose
// condition would error (and therefore deny) is never skipped. null means "no such set":
// the condition is always evaluated. test/unit/condition-index.test.ts checks the rule on
// random conditions and arguments against the real evaluation.
import type { parse } from '@bufbuild/cel';

type Expr = ReturnType<typeof parse>['expr'];

/** `path` equals one of `values` (all strings, or all numbers). */
export interface InFact {
  path: string[];
  op: 'in';
  values: string[] | number[];
}

/** `path op bound`, with a finite numeric bound. */
export interface RangeFact {
  path: string[];
  op: '<' | '<=' | '>' | '>=';
  bound: number;
}

export type Fact = InFact | RangeFact;

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MAX_FACTS = 64;

/** `args.a.b` → ['a', 'b']; anything else (has(), indexing, other names) → null. */
function pathOf(e: Expr): string[] | null {
  const out: string[] = [];
  let x = e;
  while (x.exprKind.case === 'selectExpr') {
    if (x.exprKind.value.testOnly) return null;
    out.unshift(x.exprKind.value.field);
    x = x.exprKind.value.operand!;
  }
  if (x.exprKind.case !== 'identExpr' || x.exprKind.value.name !== 'args' || out.length === 0) return null;
  return out;
}

/** A string or a finite number literal (integers only when exactly representable). */
function literalOf(e: Expr): string | number | null {
  if (e.exprKind.case !== 'constExpr') return null;
  const c = e.exprKind.value.constantKind;
  if (c.case === 'stringValue') return c.value;
  if (c.case === 'doubleValue') return Number.isFinite(c.value) ? c.value : null;
  if (c.case === 'int64Value') return c.value <= SAFE && c.value >= -SAFE ? Number(c.value) : null;
  return null;
}

const FLIP = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;
const RANGE: Record<string, RangeFact['op']> = { '_<_': '<', '_<=_': '<=', '_>_': '>', '_>=_': '>=' };

/**
 * The facts of `e` (see the file comment), or null. `a && b` is false as soon as one side
 * is (CEL's and absorbs an error on the other side), so either side's facts will do: the
 * smaller set, equalities first. `a || b` is false only when both are: both sets.
 */
export function conditionFacts(e: Expr): Fact[] | null {
  const f = facts(e);
  return f && f.length <= MAX_FACTS ? f : null;
}

function facts(e: Expr): Fact[] | null {
  const k = e.exprKind;
  if (k.case === 'constExpr') return k.value.constantKind.case === 'boolValue' && k.value.constantKind.value === false ? [] : null;
  if (k.case !== 'callExpr' || k.value.target) return null;
  const f = k.value.function;
  const [x, y] = k.value.args;
  if (!x || !y || k.value.args.length !== 2) return null;
  if (f === '_&&_') {
    const a = facts(x);
    const b = facts(y);
    if (!a || !b) return a ?? b;
    const equalities = (s: Fact[]) => s.every((q) => q.op === 'in');
    if (equalities(a) !== equalities(b)) return equalities(a) ? a : b;
    return b.length < a.length ? b : a;
  }
  if (f === '_||_') {
    const a = facts(x);
    const b = facts(y);
    return a && b ? a.concat(b) : null;
  }
  if (f === '_==_') {
    const [p, v] = pathOf(x) ? [pathOf(x), literalOf(y)] : [pathOf(y), literalOf(x)];
    if (!p || v === null) return null;
    return [{ path: p, op: 'in', values: (typeof v === 'string' ? [v] : [v]) as string[] | number[] }];
  }
  if (f === '@in') {
    const p = pathOf(x);
    if (!p || y.exprKind.case !== 'listExpr' || y.exprKind.value.optionalIndices.length) return null;
    const values = y.exprKind.value.elements.map(literalOf);
    if (values.length === 0 || values.some((v) => v === null)) return null;
    const kind = typeof values[0];
    if (!values.every((v) => typeof v === kind)) return null;
    return [{ path: p, op: 'in', values: values as string[] | number[] }];
  }
  const op = RANGE[f];
  if (op) {
    const left = pathOf(x);
    const [p, v, o] = left ? [left, literalOf(y), op] : [pathOf(y), literalOf(x), FLIP[op]];
    if (!p || typeof v !== 'number') return null;
    return [{ path: p, op: o, bound: v }];
  }
  return null;
}
