// Structure-aware JSON mutation: picks a node of a valid message and changes its type,
// value or shape (huge numbers, nasty strings, deep nesting, missing/extra keys), then
// sometimes damages the text itself (truncation, splices, stray bytes).
import { NASTY_TEXT, mutateText, type Rng } from './lib';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Replaced in the text by 20,000 nested arrays (too deep to build and stringify as a value). */
const DEEP_MARK = '\u0000deep\u0000';
const DEEP_TEXT = '['.repeat(20_000) + ']'.repeat(20_000);

const NUMBERS = [0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, -1e308, 0.5, Number.MAX_SAFE_INTEGER + 2, 1e-320];

function deep(r: Rng, depth: number): Json {
  let v: Json = r.pick(['x', 1, null, true]);
  for (let i = 0; i < depth; i++) v = r.chance(0.5) ? [v] : { a: v };
  return v;
}

export function randomValue(r: Rng): Json {
  switch (r.int(9)) {
    case 0: return null;
    case 1: return r.chance(0.5);
    case 2: return r.pick(NUMBERS);
    case 3: return r.pick(NASTY_TEXT);
    case 4: return [];
    case 5: return {};
    case 6: return Array.from({ length: r.int(300) }, () => r.pick(NASTY_TEXT));
    case 7: return r.chance(0.1) ? DEEP_MARK : deep(r, r.int(64));
    default: return 'y'.repeat(r.pick([4096, 4097, 64 * 1024, 300 * 1024]));
  }
}

/** Every path to a node in `v` (bounded: messages are small). */
function paths(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (out.length > 200) return out;
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) paths(v[k]!, [...at, k], out);
  return out;
}

function setAt(root: Json, path: (string | number)[], value: Json | undefined): Json {
  if (path.length === 0) return value ?? null;
  let node = root as Record<string | number, Json>;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, Json>;
  const last = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = value;
  return root;
}

/** One JSON line (no trailing newline) derived from `seed`. */
export function mutateJsonLine(r: Rng, seed: Json, donors: readonly string[]): string {
  let v = structuredClone(seed);
  for (let i = 0, n = 1 + r.int(3); i < n; i++) {
    const ps = paths(v);
    const p = r.pick(ps);
    switch (r.int(5)) {
      case 0:
        v = setAt(v, p, randomValue(r));
        break;
      case 1:
        if (p.length) v = setAt(v, p, undefined);
        break;
      case 2: {
        // An extra key where objects are strict.
        const parent = p.length ? p.slice(0, -1) : p;
        const key = r.pick(['extra', '__proto__', 'constructor', 'id', 'params', '']);
        let node: Json = v;
        for (const k of parent) node = (node as Record<string | number, Json>)[k]!;
        if (node && typeof node === 'object' && !Array.isArray(node)) node[key] = randomValue(r);
        break;
      }
      case 3: {
        let node: Json = v;
        for (const k of p) node = (node as Record<string | number, Json>)[k]!;
        if (typeof node === 'string') v = setAt(v, p, mutateText(r, node));
        else if (typeof node === 'number') v = setAt(v, p, r.pick(NUMBERS));
        break;
      }
      default:
        // Swap a string for a number of the same meaning and vice versa ("1" vs 1).
        {
          let node: Json = v;
          for (const k of p) node = (node as Record<string | number, Json>)[k]!;
          if (typeof node === 'number') v = setAt(v, p, String(node));
          else if (typeof node === 'string' && /^\d+$/.test(node)) v = setAt(v, p, Number(node));
        }
    }
  }
  let text = (JSON.stringify(v) ?? 'null').replaceAll(JSON.stringify(DEEP_MARK), DEEP_TEXT);
  if (r.chance(0.15)) text = mutateText(r, text, donors);
  return text.replace(/\n/g, r.chance(0.5) ? '\\n' : '\n');
}
