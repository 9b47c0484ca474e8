// Grant conditions (`when`): a CEL expression over the request's arguments, e.g.
//   args.amount <= 50 && args.to in ["alice@example.com"]
//   args.labels.all(l, l != "TRASH")
// Why CEL (@bufbuild/cel) rather than Cedar: a condition here is one boolean expression
// over a JSON value, which is exactly what CEL is for (Kubernetes admission, Envoy, IAM
// conditions); it is non-Turing-complete, its regexes are RE2 (linear time), it runs in
// plain JS without a WASM start-up, and Cedar would need a schema of entities we do not have.
//
// Rules (DESIGN.md GrantSpec `when`):
// - compiled and checked when the grant is made: parse errors, unknown names or functions,
//   operands of the wrong type and a result that cannot be true/false are refused there,
//   with a message that names the problem;
// - compiled once per text (cache);
// - at request time only a strict `true` matches. `false`, an error (missing field, wrong
//   type), or arguments too big to check mean "this grant does not match" for an allow.
//   For a deny grant an error counts as a match (see grants.ts): a deny that cannot be
//   checked must not let an allow through ("never allow").
import { celEnv, isCelError, parse, plan, unparse, type CelInput } from '@bufbuild/cel';
import { compileFast, isFastError, UNSUPPORTED } from './condition-fast';
import { conditionFacts, type Fact } from './condition-facts';

export const CONDITION_MAX_CHARS = 4096;
const MAX_NODES = 500;
/** Arguments bigger than this are not examined (the condition errors, never allows). */
const MAX_INPUT_NODES = 20_000;
const MAX_INPUT_DEPTH = 32;

type Expr = ReturnType<typeof parse>['expr'];
type T = 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'null' | 'list' | 'map' | 'dyn' | 'type';

export class ConditionError extends Error {}

export interface CompiledCondition {
  source: string;
  /** The condition in words, for prompts and the grants view. */
  words: string;
  /** Literal facts it needs to hold (condition-facts.ts), or null: see condition-index.ts. */
  facts: Fact[] | null;
  evaluate(args: unknown): ConditionResult;
  /** The same over arguments already converted with celArgs (once per request). */
  evaluateInput(args: CelInput): ConditionResult;
  /** By @bufbuild/cel only (the reference the fast path is tested against). */
  evaluateCel(args: CelInput): ConditionResult;
}

export type ConditionResult = { ok: true; value: boolean } | { ok: false; error: string };

const env = celEnv();

const NUM: ReadonlySet<T> = new Set(['int', 'uint', 'double']);
const known = (t: T) => t !== 'dyn';

/** Functions and operators a condition may call (CEL's standard library, minus time and proto). */
const FUNCS: Record<string, { target?: boolean; check(args: T[], name: string): T }> = {};
const op = (names: string[], check: (a: T[], name: string) => T, target = false) => names.forEach((n) => (FUNCS[n] = { check, target }));

const bool = (what: string) => (a: T[]) => {
  for (const t of a) if (known(t) && t !== 'bool') throw new ConditionError(`${what} needs true/false on both sides, not a ${t}`);
  return 'bool' as T;
};
op(['_&&_', '_||_'], bool('and/or'));
op(['!_'], bool('not'));
op(['@not_strictly_false'], () => 'bool');
op(['_==_', '_!=_'], () => 'bool');
op(['_<_', '_<=_', '_>_', '_>=_'], ([a, b]) => {
  if (known(a!) && known(b!) && !(NUM.has(a!) && NUM.has(b!)) && a !== b) throw new ConditionError(`cannot compare a ${a} with a ${b}`);
  if ((known(a!) && !['int', 'uint', 'double', 'string', 'bytes', 'bool'].includes(a!)) || (known(b!) && !['int', 'uint', 'double', 'string', 'bytes', 'bool'].includes(b!))) {
    throw new ConditionError(`cannot order a ${known(a!) ? a : b}`);
  }
  return 'bool';
});
op(['@in'], ([, b]) => {
  if (known(b!) && b !== 'list' && b !== 'map') throw new ConditionError(`"in" needs a list or a map on its right, not a ${b}`);
  return 'bool';
});
op(['_+_', '_-_', '_*_', '_/_', '_%_'], ([a, b], name) => {
  if (known(a!) && known(b!)) {
    if (a !== b) throw new ConditionError(`${name.replace(/_/g, '')} between a ${a} and a ${b} (convert one with int(), uint() or double())`);
    const okTypes: T[] = name === '_+_' ? ['int', 'uint', 'double', 'string', 'bytes', 'list'] : ['int', 'uint', 'double'];
    if (!okTypes.includes(a!)) throw new ConditionError(`${name.replace(/_/g, '')} does not apply to a ${a}`);
    return a!;
  }
  return known(a!) ? a! : known(b!) ? b! : 'dyn';
});
op(['-_'], ([a]) => {
  if (known(a!) && a !== 'int' && a !== 'double') throw new ConditionError(`cannot negate a ${a}`);
  return a!;
});
op(['_?_:_'], ([c, x, y]) => {
  if (known(c!) && c !== 'bool') throw new ConditionError(`the condition of ?: must be true/false, not a ${c}`);
  return x === y ? x! : 'dyn';
});
op(['_[_]'], ([a]) => {
  if (known(a!) && a !== 'list' && a !== 'map') throw new ConditionError(`cannot index a ${a}`);
  return 'dyn';
});
op(['size'], ([a, b]) => {
  const x = b ?? a;
  if (known(x!) && !['string', 'bytes', 'list', 'map'].includes(x!)) throw new ConditionError(`size() of a ${x}`);
  return 'int';
}, true);
const stringMethod = (name: string) => (a: T[]) => {
  if (a.length !== 2) throw new ConditionError(`${name}() takes one argument`);
  for (const t of a) if (known(t) && t !== 'string') throw new ConditionError(`${name}() works on strings, not a ${t}`);
  return 'bool' as T;
};
for (const m of ['contains', 'startsWith', 'endsWith', 'matches']) op([m], stringMethod(m), true);
op(['int'], () => 'int');
op(['uint'], () => 'uint');
op(['double'], () => 'double');
op(['string'], () => 'string');
op(['bool'], () => 'bool');
op(['type'], () => 'type');

function constType(e: Expr): T {
  if (e.exprKind.case !== 'constExpr') return 'dyn';
  switch (e.exprKind.value.constantKind.case) {
    case 'boolValue': return 'bool';
    case 'int64Value': return 'int';
    case 'uint64Value': return 'uint';
    case 'doubleValue': return 'double';
    case 'stringValue': return 'string';
    case 'bytesValue': return 'bytes';
    case 'nullValue': return 'null';
    default: throw new ConditionError('durations and timestamps are not supported in conditions');
  }
}

/** Our checker: @bufbuild/cel 0.6 exports no type checker, so names, functions and types are checked here. */
function check(e: Expr, scope: ReadonlySet<string>, count: { n: number; loops: number }): T {
  if (++count.n > MAX_NODES) throw new ConditionError(`the condition is too long (over ${MAX_NODES} parts)`);
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr':
      return constType(e);
    case 'identExpr':
      if (k.value.name === 'args') return 'map';
      if (scope.has(k.value.name)) return k.value.name === '@result' ? 'dyn' : 'dyn';
      throw new ConditionError(`unknown name "${k.value.name}": a condition sees only \`args\` (the request's arguments), e.g. args.${k.value.name}`);
    case 'selectExpr': {
      const t = check(k.value.operand!, scope, count);
      if (known(t) && t !== 'map') throw new ConditionError(`".${k.value.field}" on a ${t}`);
      return k.value.testOnly ? 'bool' : 'dyn';
    }
    case 'callExpr': {
      const f = FUNCS[k.value.function];
      if (!f || !Object.prototype.hasOwnProperty.call(FUNCS, k.value.function)) {
        throw new ConditionError(`unknown function "${k.value.function}" (allowed: size, contains, startsWith, endsWith, matches, int, uint, double, string, has, all, exists, exists_one, map, filter)`);
      }
      if (k.value.target && !f.target) throw new ConditionError(`"${k.value.function}" is not a method`);
      const types = [...(k.value.target ? [check(k.value.target, scope, count)] : []), ...k.value.args.map((a) => check(a, scope, count))];
      return f.check(types, k.value.function);
    }
    case 'listExpr':
      for (const x of k.value.elements) check(x, scope, count);
      return 'list';
    case 'structExpr':
      if (k.value.messageName) throw new ConditionError(`messages (${k.value.messageName}) are not supported in conditions`);
      for (const en of k.value.entries) {
        if (en.keyKind.case === 'mapKey') check(en.keyKind.value, scope, count);
        if (en.value) check(en.value, scope, count);
      }
      return 'map';
    case 'comprehensionExpr': {
      const c = k.value;
      // One level of all/exists/map/filter: nested loops over agent-sized lists could be slow.
      if (count.loops > 0) throw new ConditionError('all/exists/map/filter inside another one is not supported (keep conditions cheap)');
      const range = check(c.iterRange!, scope, count);
      if (known(range) && range !== 'list' && range !== 'map') throw new ConditionError(`all/exists/map/filter need a list or a map, not a ${range}`);
      const inner = new Set(scope);
      inner.add(c.iterVar);
      if (c.iterVar2) inner.add(c.iterVar2);
      inner.add(c.accuVar);
      count.loops++;
      check(c.accuInit!, scope, count);
      check(c.loopCondition!, inner, count);
      check(c.loopStep!, inner, count);
      count.loops--;
      const init = c.accuInit!.exprKind.case === 'listExpr' ? 'list' : constType(c.accuInit!);
      const result = c.result!.exprKind.case === 'identExpr' ? init : check(c.result!, new Set([...scope, c.accuVar]), count);
      return result === 'int' ? 'bool' : result;
    }
    default:
      throw new ConditionError('an empty or unsupported expression');
  }
}

/** Turns JSON args into CEL input: plain objects → Map (own keys only), bounded. */
export function celArgs(v: unknown): CelInput {
  let nodes = 0;
  const conv = (x: unknown, depth: number): CelInput => {
    if (++nodes > MAX_INPUT_NODES) throw new ConditionError(`the arguments are too large to check (over ${MAX_INPUT_NODES} values)`);
    if (depth > MAX_INPUT_DEPTH) throw new ConditionError(`the arguments are nested too deep to check (over ${MAX_INPUT_DEPTH})`);
    if (x === null || x === undefined) return null;
    if (typeof x === 'string' || typeof x === 'boolean') return x;
    if (typeof x === 'number') return Number.isFinite(x) ? x : null;
    if (Array.isArray(x)) return x.map((y) => conv(y, depth + 1));
    if (typeof x === 'object') {
      const m = new Map<string, CelInput>();
      for (const [k, y] of Object.entries(x as Record<string, unknown>)) m.set(k, conv(y, depth + 1));
      return m;
    }
    return null;
  };
  return conv(v, 0);
}

// ---- words ----------------------------------------------------------------------------

const OPS: Record<string, string> = { '_<_': '<', '_<=_': '≤', '_>_': '>', '_>=_': '≥', '_==_': 'is', '_!=_': 'is not', '_+_': '+', '_-_': '−', '_*_': '×', '_/_': '/', '_%_': 'mod' };

function words(e: Expr, top = true): string {
  const k = e.exprKind;
  const w = (x: Expr) => words(x, false);
  switch (k.case) {
    case 'constExpr': {
      const c = k.value.constantKind;
      if (c.case === 'stringValue') return JSON.stringify(c.value);
      if (c.case === 'nullValue') return 'null';
      return String(c.value);
    }
    case 'identExpr':
      return k.value.name === 'args' ? 'the arguments' : k.value.name;
    case 'selectExpr': {
      const path: string[] = [k.value.field];
      let o = k.value.operand!;
      while (o.exprKind.case === 'selectExpr' && !o.exprKind.value.testOnly) {
        path.unshift(o.exprKind.value.field);
        o = o.exprKind.value.operand!;
      }
      const base = o.exprKind.case === 'identExpr' && o.exprKind.value.name === 'args' ? '' : `${w(o)}.`;
      return k.value.testOnly ? `${base}${path.join('.')} is given` : `${base}${path.join('.')}`;
    }
    case 'callExpr': {
      const f = k.value.function;
      const a = k.value.args;
      if (f === '_&&_') return `${w(a[0]!)} and ${w(a[1]!)}`;
      if (f === '_||_') return top ? `${w(a[0]!)} or ${w(a[1]!)}` : `(${w(a[0]!)} or ${w(a[1]!)})`;
      if (f === '!_') return `not (${w(a[0]!)})`;
      if (f === '@in') return a[1]!.exprKind.case === 'listExpr' ? `${w(a[0]!)} is one of ${w(a[1]!)}` : `${w(a[0]!)} is in ${w(a[1]!)}`;
      if (OPS[f]) return `${w(a[0]!)} ${OPS[f]} ${w(a[1]!)}`;
      if (f === '-_') return `−${w(a[0]!)}`;
      if (f === '_?_:_') return `(if ${w(a[0]!)} then ${w(a[1]!)} else ${w(a[2]!)})`;
      if (f === '_[_]') return `${w(a[0]!)}[${w(a[1]!)}]`;
      const t = k.value.target;
      if (f === 'size') return `the size of ${w(t ?? a[0]!)}`;
      if (f === 'startsWith') return `${w(t!)} starts with ${w(a[0]!)}`;
      if (f === 'endsWith') return `${w(t!)} ends with ${w(a[0]!)}`;
      if (f === 'contains') return `${w(t!)} contains ${w(a[0]!)}`;
      if (f === 'matches') return `${w(t!)} matches the pattern ${w(a[0]!)}`;
      return `${f}(${a.map(w).join(', ')})`;
    }
    case 'listExpr':
      return `[${k.value.elements.map(w).join(', ')}]`;
    case 'comprehensionExpr': {
      // The macros, recognised by their shape (unparse cannot print a bare comprehension).
      const c = k.value;
      const range = w(c.iterRange!);
      const init = c.accuInit!.exprKind;
      const step = c.loopStep!.exprKind;
      const body = step.case === 'callExpr' && step.value.args.length === 2 ? w(step.value.args[1]!) : 'a condition';
      if (init.case === 'constExpr' && init.value.constantKind.case === 'boolValue') {
        return init.value.constantKind.value ? `every ${c.iterVar} in ${range} has ${body}` : `some ${c.iterVar} in ${range} has ${body}`;
      }
      if (init.case === 'constExpr') return `exactly one ${c.iterVar} in ${range} matches`;
      return `the ${c.iterVar} of ${range}, transformed`;
    }
    default:
      return unparse(e);
  }
}

// ---- compile ----------------------------------------------------------------------------

const cache = new Map<string, CompiledCondition>();
const CACHE_MAX = 20_000;

/** Compiles and checks a condition; throws ConditionError with a message naming the problem. */
export function compileCondition(source: string): CompiledCondition {
  const hit = cache.get(source);
  if (hit) return hit;
  if (source.length > CONDITION_MAX_CHARS) throw new ConditionError(`the condition is longer than ${CONDITION_MAX_CHARS} characters`);
  if (!source.trim()) throw new ConditionError('the condition is empty');
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (e) {
    throw new ConditionError(`does not parse: ${(e as Error).message.replace(/^<input>:/, 'at ')}`);
  }
  const t = check(parsed.expr, new Set(), { n: 0, loops: 0 });
  if (known(t) && t !== 'bool') throw new ConditionError(`a condition must be true or false, but this is a ${t}`);
  let run: ReturnType<typeof plan>;
  try {
    run = plan(env, parsed);
  } catch (e) {
    throw new ConditionError(`cannot be planned: ${(e as Error).message}`);
  }
  const fast = compileFast(parsed.expr);
  const compiled: CompiledCondition = {
    source,
    words: words(parsed.expr),
    facts: conditionFacts(parsed.expr),
    evaluate(args: unknown): ConditionResult {
      let input: CelInput;
      try {
        input = celArgs(args ?? {});
      } catch (e) {
        return { ok: false, error: (e as Error).message };
      }
      return this.evaluateInput(input);
    },
    evaluateCel(input: CelInput): ConditionResult {
      try {
        const r = run({ args: input } as never);
        if (isCelError(r)) return { ok: false, error: r.message };
        if (typeof r !== 'boolean') return { ok: false, error: 'the condition did not give true or false' };
        return { ok: true, value: r };
      } catch (e) {
        return { ok: false, error: (e as Error).message };
      }
    },
    evaluateInput(input: CelInput): ConditionResult {
      if (fast) {
        const v = fast(input);
        // An error is rare: CEL says what it was (and has the last word).
        if (v !== UNSUPPORTED && !isFastError(v)) return { ok: true, value: v as boolean };
      }
      return this.evaluateCel(input);
    },
  };
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(source, compiled);
  return compiled;
}

/** The condition in words, or the text itself when it no longer compiles. */
export function conditionWords(source: string): string {
  try {
    return compileCondition(source).words;
  } catch {
    return source;
  }
}
