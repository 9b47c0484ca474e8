// Which grants' conditions can hold for a request, found by looking its argument values up
// instead of evaluating every condition: grants are filed under the literal facts their
// condition needs (condition-facts.ts), by argument path. A request's value at each path is
// resolved once and looked up (a map for equalities, binary search for numeric bounds); a
// grant none of whose facts may hold has a condition that is certainly false, and is skipped.
//
// Sound by construction, checked by test/unit/condition-index.test.ts against the real
// evaluation: a missing field, a value of another type, or arguments that cannot be
// checked at all (cut, too big) make every grant filed under that path (or every grant) a
// candidate, so a deny whose condition would error still denies. Grants whose condition has
// no facts are never filed and always evaluated.
import type { CelInput } from '@bufbuild/cel';
import type { Grant } from '../contract/approver';
import { compileCondition } from './condition';
import type { Fact } from './condition-facts';

interface Bound {
  bound: number;
  strict: boolean;
  g: Grant;
}

/** The grants filed under one argument path. */
class PathFacts {
  readonly strings = new Map<string, Grant[]>();
  readonly numbers = new Map<number, Grant[]>();
  /** Grants with a string equality here (candidates when the value is not a string). */
  readonly anyString: Grant[] = [];
  readonly anyNumber: Grant[] = [];
  /** `path > bound` / `>=`, sorted by bound ascending: a prefix may hold. */
  above: Bound[] = [];
  /** `path < bound` / `<=`, sorted by bound descending: a prefix may hold. */
  below: Bound[] = [];
  readonly all: Grant[] = [];

  constructor(readonly path: string[]) {}

  add(f: Fact, g: Grant): void {
    this.all.push(g);
    if (f.op === 'in') {
      const numeric = typeof f.values[0] === 'number';
      (numeric ? this.anyNumber : this.anyString).push(g);
      for (const v of f.values) {
        const m = (numeric ? this.numbers : this.strings) as Map<string | number, Grant[]>;
        const list = m.get(v);
        if (list) list.push(g);
        else m.set(v, [g]);
      }
    } else if (f.op === '>' || f.op === '>=') this.above.push({ bound: f.bound, strict: f.op === '>', g });
    else this.below.push({ bound: f.bound, strict: f.op === '<', g });
  }

  seal(): void {
    this.above.sort((a, b) => a.bound - b.bound);
    this.below.sort((a, b) => b.bound - a.bound);
  }

  /** Every grant filed here whose fact on this path may hold for `v` (`undefined`: the path is absent). */
  mayHold(v: CelInput | undefined, out: Set<Grant>): void {
    if (typeof v === 'string') {
      for (const g of this.strings.get(v) ?? []) out.add(g);
      for (const g of this.anyNumber) out.add(g);
      for (const b of this.above) out.add(b.g);
      for (const b of this.below) out.add(b.g);
      return;
    }
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      for (const g of this.all) out.add(g);
      return;
    }
    for (const g of this.numbers.get(v) ?? []) out.add(g);
    for (const g of this.anyString) out.add(g);
    // A prefix of each sorted list holds; stop at the first bound that cannot.
    for (const b of this.above) {
      if (b.strict ? v > b.bound : v >= b.bound) out.add(b.g);
      else if (b.bound > v) break;
    }
    for (const b of this.below) {
      if (b.strict ? v < b.bound : v <= b.bound) out.add(b.g);
      else if (b.bound < v) break;
    }
  }
}

/** The value at `path` in converted arguments, or undefined when a step is not a map holding it. */
function resolve(input: CelInput, path: readonly string[]): CelInput | undefined {
  let cur: CelInput = input;
  for (const field of path) {
    if (!(cur instanceof Map) || !cur.has(field)) return undefined;
    cur = (cur as Map<unknown, CelInput>).get(field)!;
  }
  return cur;
}

/** Below this many filed grants, evaluating the conditions is as cheap as looking them up. */
export const CONDITION_INDEX_MIN = 8;

export class ConditionIndex {
  private readonly paths = new Map<string, PathFacts>();
  private readonly filed = new Set<Grant>();

  constructor(grants: readonly Grant[]) {
    for (const g of grants) {
      if (!g.when) continue;
      let facts: Fact[] | null;
      try {
        facts = compileCondition(g.when).facts;
      } catch {
        continue; // no longer compiles: evaluated, and its error decides as usual
      }
      if (!facts) continue;
      this.filed.add(g);
      for (const f of facts) {
        const key = JSON.stringify(f.path);
        let p = this.paths.get(key);
        if (!p) this.paths.set(key, (p = new PathFacts(f.path)));
        p.add(f, g);
      }
    }
    for (const p of this.paths.values()) p.seal();
  }

  get size(): number {
    return this.filed.size;
  }

  /**
   * For converted arguments: whether a grant's condition is certainly false (so it can be
   * skipped). Grants not filed here are never certainly false. Arguments that could not be
   * converted are not given here at all: the caller evaluates every condition then.
   */
  certainlyFalse(input: CelInput): (g: Grant) => boolean {
    const may = new Set<Grant>();
    for (const p of this.paths.values()) p.mayHold(resolve(input, p.path), may);
    return (g) => this.filed.has(g) && !may.has(g);
  }
}
