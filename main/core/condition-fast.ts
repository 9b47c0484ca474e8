// A fast path for the conditions people write most — comparisons of argument fields with
// literals, `in [literals]`, has(), and/or/not — evaluated directly on the converted
// arguments. @bufbuild/cel takes ~5–15 µs per evaluation; with hundreds of conditional
// deny grants on one tool that would dominate a decision (test/bench/conditions.bench.ts).
//
// CEL stays the language and the reference: anything outside this subset, and any value
// this code is not sure about (lists or maps compared, string ordering, huge integers),
// returns UNSUPPORTED and the request is evaluated by @bufbuild/cel instead. The two are
// compared on thousands of generated conditions and arguments in
// test/unit/core-conditions.test.ts (differential test).
import type { parse } from '@bufbuild/cel';

type Expr = ReturnType<typeof parse>['expr'];

export const UNSUPPORTED = Symbol('unsupported');
/** CEL's error value: evaluation failed (missing field, no matching overload). */
const ERR = Symbol('error');
type V = unknown;
export type Fast = (args: unknown) => boolean | typeof ERR | typeof UNSUPPORTED;
type Node = (args: unknown) => V | typeof ERR | typeof UNSUPPORTED;

const isNum = (v: unknown): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const toNum = (v: number | bigint): number | typeof UNSUPPORTED => (typeof v === 'number' ? v : v > SAFE || v < -SAFE ? UNSUPPORTED : Number(v));

/** CEL equality for scalars; lists and maps go to CEL. */
function eq(a: V, b: V): boolean | typeof UNSUPPORTED {
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  if (isNum(a) && isNum(b)) {
    const x = toNum(a);
    const y = toNum(b);
    if (x === UNSUPPORTED || y === UNSUPPORTED) return UNSUPPORTED;
    return x === y;
  }
  if (a === null || b === null) return a === b;
  if (typeof a === 'object' || typeof b === 'object') return UNSUPPORTED;
  return a === b;
}

function compile(e: Expr): Node | null {
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr': {
      const c = k.value.constantKind;
      if (c.case === 'boolValue' || c.case === 'stringValue' || c.case === 'doubleValue' || c.case === 'int64Value') {
        // Safe integers become plain numbers once, here: BigInt arithmetic per request is slow.
        const v = typeof c.value === 'bigint' && c.value <= SAFE && c.value >= -SAFE ? Number(c.value) : c.value;
        return () => v;
      }
      if (c.case === 'nullValue') return () => null;
      return null;
    }
    case 'identExpr':
      return k.value.name === 'args' ? (a) => a : null;
    case 'selectExpr': {
      const inner = compile(k.value.operand!);
      if (!inner) return null;
      const field = k.value.field;
      const test = k.value.testOnly;
      return (a) => {
        const o = inner(a);
        if (o === ERR || o === UNSUPPORTED) return o;
        if (!(o instanceof Map)) return ERR;
        // @bufbuild/cel: a field holding null is not "given".
        const v: unknown = o.get(field);
        if (test) return v !== undefined && v !== null;
        return v !== undefined ? v : o.has(field) ? v : ERR;
      };
    }
    case 'callExpr': {
      if (k.value.target) return null;
      const f = k.value.function;
      const args = k.value.args.map(compile);
      if (args.some((x) => x === null)) return null;
      const [x, y] = args as Node[];
      switch (f) {
        case '_&&_':
        case '_||_': {
          const stop = f === '_||_';
          return (a) => {
            const l = x!(a);
            if (l === UNSUPPORTED) return l;
            if (l === stop) return stop;
            const r = y!(a);
            if (r === UNSUPPORTED) return r;
            if (r === stop) return stop;
            if (typeof l !== 'boolean' || typeof r !== 'boolean') return ERR;
            return !stop;
          };
        }
        case '!_':
          return (a) => {
            const v = x!(a);
            if (v === UNSUPPORTED || v === ERR) return v;
            return typeof v === 'boolean' ? !v : ERR;
          };
        case '_==_':
        case '_!=_':
          return (a) => {
            const l = x!(a);
            if (l === UNSUPPORTED || l === ERR) return l;
            const r = y!(a);
            if (r === UNSUPPORTED || r === ERR) return r;
            const v = eq(l, r);
            return v === UNSUPPORTED ? v : f === '_==_' ? v : !v;
          };
        case '_<_':
        case '_<=_':
        case '_>_':
        case '_>=_':
          return (a) => {
            const l = x!(a);
            if (l === UNSUPPORTED || l === ERR) return l;
            const r = y!(a);
            if (r === UNSUPPORTED || r === ERR) return r;
            if (typeof l === 'number' && typeof r === 'number') return f === '_<_' ? l < r : f === '_<=_' ? l <= r : f === '_>_' ? l > r : l >= r;
            let p: number | boolean;
            let q: number | boolean;
            if (isNum(l) && isNum(r)) {
              const pl = toNum(l);
              const qr = toNum(r);
              if (pl === UNSUPPORTED || qr === UNSUPPORTED) return UNSUPPORTED;
              p = pl;
              q = qr;
            } else if (typeof l === 'boolean' && typeof r === 'boolean') {
              p = l;
              q = r;
            } else if (typeof l === 'string' && typeof r === 'string') return UNSUPPORTED;
            else return ERR;
            return f === '_<_' ? p < q : f === '_<=_' ? p <= q : f === '_>_' ? p > q : p >= q;
          };
        case '@in': {
          const list = k.value.args[1]!.exprKind;
          if (list.case !== 'listExpr' || list.value.optionalIndices.length) return null;
          if (list.value.elements.some((el) => el.exprKind.case !== 'constExpr')) return null;
          const items = list.value.elements.map(compile);
          if (items.some((i) => i === null)) return null;
          const consts = (items as Node[]).map((i) => i(undefined));
          if (consts.some((c) => c === ERR || c === UNSUPPORTED || (c !== null && typeof c === 'object'))) return null;
          return (a) => {
            const l = x!(a);
            if (l === UNSUPPORTED || l === ERR) return l;
            for (const c of consts) {
              const v = eq(l, c);
              if (v === UNSUPPORTED) return v;
              if (v) return true;
            }
            return false;
          };
        }
        default:
          return null;
      }
    }
    default:
      return null;
  }
}

/** A direct evaluator for `e`, or null when it uses anything outside the subset. */
export function compileFast(e: Expr): Fast | null {
  const n = compile(e);
  if (!n) return null;
  return (args) => {
    const v = n(args);
    if (v === UNSUPPORTED) return UNSUPPORTED;
    if (typeof v === 'boolean') return v;
    return ERR;
  };
}

export const isFastError = (v: unknown): boolean => v === ERR;
