// Bash's brace expansion, for grant matching and the classifier: the classifier keeps a word as written
// (`src/{a,b}`, `{,/etc/x,}`, `.git/hoo{k,}s/pre-commit`) and bash expands it before the
// program runs, so a grant must hold for every word it becomes (the write fuzzer saw
// `true 2> {,/tmp/outside/n,}` write outside the task's directory under `{true,true *}`).
// Bounded: a word that would become more than MAX words, or whose expansion is too deep
// to follow, is `null` (the caller asks). Quoting is gone from resources, so a quoted
// `'{a,b}'` is expanded too: more words to check, never fewer.

const MAX = 64;
const MAX_STEPS = 512;

/** The words `s` becomes (itself when it holds no brace expansion), or null when there are too many. */
export function expandBraces(s: string): string[] | null {
  if (!s.includes('{')) return [s];
  const budget = { steps: MAX_STEPS };
  return expand(s, 0, budget);
}

function expand(s: string, from: number, budget: { steps: number }): string[] | null {
  if (--budget.steps < 0) return null;
  for (let i = s.indexOf('{', from); i >= 0; i = s.indexOf('{', i + 1)) {
    let depth = 0;
    let j = i;
    const commas: number[] = [];
    for (; j < s.length; j++) {
      const ch = s[j];
      if (ch === '\\') j++;
      else if (ch === '{') depth++;
      else if (ch === '}' && --depth === 0) break;
      else if (ch === ',' && depth === 1) commas.push(j);
    }
    if (j >= s.length) return [s]; // unbalanced: bash leaves it as it is
    let alts: string[] | null;
    if (commas.length) {
      alts = [];
      let start = i + 1;
      for (const c of [...commas, j]) {
        alts.push(s.slice(start, c));
        start = c + 1;
      }
    } else {
      const seq = sequence(s.slice(i + 1, j));
      if (seq === undefined) return null;
      alts = seq;
    }
    if (!alts) continue; // `{x}` is literal: an expansion may come later (or inside it)
    const out: string[] = [];
    for (const a of alts) {
      const words = expand(s.slice(0, i) + a + s.slice(j + 1), i, budget);
      if (!words) return null;
      out.push(...words);
      if (out.length > MAX) return null;
    }
    return out;
  }
  return [s];
}

/** `1..5`, `a..e`, `10..1..3`: the words of a sequence; null when the body is not one; undefined when too long. */
function sequence(body: string): string[] | null | undefined {
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!m) return null;
  const [, a, b, stepText] = m;
  const numeric = /\d/.test(a!) && /\d/.test(b!);
  if (!numeric && (/\d/.test(a!) || /\d/.test(b!))) return null;
  const x = numeric ? Number(a) : a!.charCodeAt(0);
  const y = numeric ? Number(b) : b!.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(stepText ?? 1)) || 1);
  if (Math.abs(y - x) / step > MAX) return undefined;
  const out: string[] = [];
  for (let v = x; x <= y ? v <= y : v >= y; v += x <= y ? step : -step) out.push(numeric ? String(v) : String.fromCharCode(v));
  return out;
}
