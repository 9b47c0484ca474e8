// Conditions a prompt offers, started from the request's own arguments: "amount ≤ this
// amount", "to is this recipient", "every label is one of these". The human picks or
// edits one; the daemon compiles it again when the grant is made.
import { compileCondition } from './condition';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** CEL reserved words cannot follow a dot. */
const RESERVED = new Set(['in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while', 'true', 'false', 'null']);
const MAX_SUGGESTIONS = 6;
const MAX_STRING = 200;

function fieldRef(k: string): string {
  return IDENT.test(k) && !RESERVED.has(k) ? `args.${k}` : `args[${JSON.stringify(k)}]`;
}

/** A CEL literal for a JSON number: `40` (int) or `40.5`/`1e+21` (double); CEL compares the two. */
const num = (n: number): string => String(n);

const plainString = (s: string) => s.length > 0 && s.length <= MAX_STRING && !/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/.test(s);

export function suggestConditions(args: unknown): { when: string; words: string }[] {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return [];
  const parts: string[] = [];
  let n = 0;
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    if (++n > 32 || parts.length >= MAX_SUGGESTIONS) break;
    if (k.length > 64) continue;
    const f = fieldRef(k);
    if (typeof v === 'number' && Number.isFinite(v)) parts.push(`${f} <= ${num(v)}`);
    else if (typeof v === 'string' && plainString(v)) parts.push(`${f} == ${JSON.stringify(v)}`);
    else if (typeof v === 'boolean') parts.push(`${f} == ${v}`);
    else if (Array.isArray(v) && v.length > 0 && v.length <= 10 && v.every((x) => typeof x === 'string' && plainString(x))) {
      parts.push(`${f}.all(x, x in ${JSON.stringify([...new Set(v as string[])])})`);
    }
  }
  const out: { when: string; words: string }[] = [];
  const add = (when: string) => {
    try {
      out.push({ when, words: compileCondition(when).words });
    } catch {
      // A suggestion that does not compile is not offered.
    }
  };
  if (parts.length > 1) add(parts.join(' && '));
  for (const p of parts) add(p);
  return out;
}
