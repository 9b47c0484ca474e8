// What an awk program may do beyond reading, judged conservatively from its tokens:
// `system()`, any pipe (`print | "cmd"`, `"cmd" | getline`, `|&`), output redirection
// after print/printf, gawk's indirect calls and extensions (`@`), and gawk's network
// special files (`/inet/…`). Whatever the lexer is unsure about is an error, and the
// classifier then treats the command as execute: err to non-read.
import type { Action } from '../../contract/common';

export interface AwkVerdict {
  action: Action;
  reason: string;
}

type Tok = { t: 'id' | 'num' | 'str' | 're' | 'op' | 'nl'; v: string };

const KEYWORDS = new Set([
  'BEGIN', 'END', 'BEGINFILE', 'ENDFILE', 'function', 'func', 'if', 'else', 'while', 'for', 'do', 'break', 'continue',
  'next', 'nextfile', 'exit', 'return', 'delete', 'in', 'getline', 'print', 'printf',
]);
const OPS = ['||', '&&', '|&', '>>', '>=', '<=', '==', '!=', '!~', '++', '--', '+=', '-=', '*=', '/=', '%=', '^=', '**'];

class AwkError extends Error {}

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  const n = src.length;
  let i = 0;
  const operand = () => {
    const last = out[out.length - 1];
    if (!last) return false;
    if (last.t === 'id') return !KEYWORDS.has(last.v);
    if (last.t === 'num' || last.t === 'str' || last.t === 're') return true;
    if (last.t === 'op' && (last.v === ')' || last.v === ']')) return true;
    if (last.t === 'op' && (last.v === '++' || last.v === '--' || last.v === '$')) throw new AwkError(`"/" after "${last.v}" is ambiguous`);
    return false;
  };
  while (i < n) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '\\' && src[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '\n') {
      out.push({ t: 'nl', v: '\n' });
      i++;
      continue;
    }
    if (c === '#') {
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let v = '';
      while (j < n && src[j] !== '"') {
        if (src[j] === '\n') throw new AwkError('newline in a string');
        if (src[j] === '\\') {
          v += src[j + 1] ?? '';
          j += 2;
          continue;
        }
        v += src[j++];
      }
      if (j >= n) throw new AwkError('unterminated string');
      out.push({ t: 'str', v });
      i = j + 1;
      continue;
    }
    if (c === '/' && !operand()) {
      let j = i + 1;
      while (j < n && src[j] !== '/') {
        if (src[j] === '\n') throw new AwkError('newline in a regular expression');
        if (src[j] === '\\') j++;
        else if (src[j] === '[') {
          // A `/` inside brackets ends the regex in some awks and not in others.
          const close = src.indexOf(']', j + 2);
          if (close < 0 || src.slice(j, close).includes('/')) throw new AwkError('"/" inside a bracket expression');
        }
        j++;
      }
      if (j >= n) throw new AwkError('unterminated regular expression');
      out.push({ t: 're', v: src.slice(i + 1, j) });
      i = j + 1;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)/.exec(src.slice(i, i + 64));
      if (m && m[0]) {
        out.push({ t: 'num', v: m[0] });
        i += m[0].length;
        continue;
      }
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 256))!;
      out.push({ t: 'id', v: m[0] });
      i += m[0].length;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (OPS.includes(two)) {
      out.push({ t: 'op', v: two });
      i += 2;
      continue;
    }
    out.push({ t: 'op', v: c });
    i++;
  }
  return out;
}

const STD_STREAMS = new Set(['/dev/stdout', '/dev/stderr', '-']);

/** null when the program only reads; otherwise what it does and why. */
export function awkVerdict(program: string): AwkVerdict | null {
  let toks: Tok[];
  try {
    toks = lex(program);
  } catch (e) {
    if (!(e instanceof AwkError)) throw e;
    return { action: 'execute', reason: `program could not be read safely (${e.message})` };
  }
  let write: AwkVerdict | null = null;
  let net: AwkVerdict | null = null;
  for (let k = 0; k < toks.length; k++) {
    const { t, v } = toks[k];
    if (t === 'id' && (v === 'system' || v === 'extension')) return { action: 'execute', reason: `program calls ${v}(), which runs a command` };
    if (t === 'op' && v === '@') return { action: 'execute', reason: 'program uses @ (gawk indirect calls, @load, @include can run code)' };
    if (t === 'op' && (v === '|' || v === '|&')) return { action: 'execute', reason: `program pipes to or from a command (${v})` };
    if (t === 'str' && /\/inet[46]?\//.test(v)) net ??= { action: 'transfer', reason: `program opens a network connection (${v.slice(0, 60)})` };
    if (t === 'id' && (v === 'print' || v === 'printf')) {
      let depth = 0;
      for (let j = k + 1; j < toks.length; j++) {
        const x = toks[j];
        if (x.t === 'nl' || (x.t === 'op' && (x.v === ';' || (x.v === '}' && depth === 0)))) break;
        if (x.t === 'op' && (x.v === '(' || x.v === '[')) depth++;
        else if (x.t === 'op' && (x.v === ')' || x.v === ']')) depth--;
        else if (depth <= 0 && x.t === 'op' && (x.v === '>' || x.v === '>>')) {
          const target = toks[j + 1];
          const after = toks[j + 2];
          const ends = !after || after.t === 'nl' || (after.t === 'op' && (after.v === ';' || after.v === '}'));
          if (target && target.t === 'str' && STD_STREAMS.has(target.v) && ends) continue;
          write ??= { action: 'write', reason: `program redirects ${v} output to a file (${v} … ${x.v})` };
        }
      }
    }
  }
  return net ?? write;
}
