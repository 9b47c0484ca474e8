// Turns shell words from the syntax tree into the strings the shell would pass to a
// program, as far as that is knowable without running anything. Expansions ($VAR,
// $(...), globs stay as written) make a word `dynamic`: the classifier then treats it
// as unknown rather than guessing.
import * as path from 'node:path';
import { sh, type ShDblQuoted, type ShLit, type ShNode, type ShParamExp, type ShSglQuoted, type ShWord } from './sh-ast';

export interface WordValue {
  text: string;
  /** True when the value depends on run time (parameter, command or arithmetic expansion). */
  dynamic: boolean;
}

/** Removes the backslashes the shell removes outside quotes (`a\ b` → `a b`). */
function unescapeBare(s: string): string {
  return s.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

/** Inside double quotes only \$ \` \" \\ and \newline are escapes. */
function unescapeDouble(s: string): string {
  return s.replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1');
}

/** $'...' (ANSI-C quoting): the common escapes; anything exotic is left as written. */
function unescapeDollarSingle(s: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', e: '\x1b', '0': '\0' };
  return s.replace(/\\(.)/gs, (m, c: string) => map[c] ?? m);
}

export function sourceOf(src: string, n: ShNode): string {
  try {
    return src.slice(n.Pos().Offset(), n.End().Offset());
  } catch {
    return '';
  }
}

function partValue(src: string, part: ShNode, quoted: boolean): WordValue {
  const kind = sh().NodeType(part);
  switch (kind) {
    case 'Lit': {
      const v = (part as ShLit).Value;
      return { text: quoted ? unescapeDouble(v) : unescapeBare(v), dynamic: false };
    }
    case 'SglQuoted': {
      const q = part as ShSglQuoted;
      return { text: q.Dollar ? unescapeDollarSingle(q.Value) : q.Value, dynamic: false };
    }
    case 'DblQuoted': {
      let text = '';
      let dynamic = false;
      for (const p of (part as ShDblQuoted).Parts ?? []) {
        const v = partValue(src, p, true);
        text += v.text;
        dynamic ||= v.dynamic;
      }
      return { text, dynamic };
    }
    case 'ParamExp': {
      const pe = part as ShParamExp;
      const raw = sourceOf(src, part);
      // $HOME and ${HOME} mean the home directory; say `~` so path rules can see it.
      if (pe.Param?.Value === 'HOME' && (raw === '$HOME' || raw === '${HOME}')) return { text: '~', dynamic: false };
      return { text: raw, dynamic: true };
    }
    default:
      // CmdSubst, ArithmExp, ProcSubst, ExtGlob, BraceExp: keep the source text.
      return { text: sourceOf(src, part), dynamic: kind !== 'BraceExp' && kind !== 'ExtGlob' };
  }
}

export function wordValue(src: string, w: ShWord | null | undefined): WordValue {
  if (!w) return { text: '', dynamic: false };
  let text = '';
  let dynamic = false;
  for (const p of w.Parts ?? []) {
    const v = partValue(src, p, false);
    text += v.text;
    dynamic ||= v.dynamic;
  }
  return { text, dynamic };
}

/**
 * A path as a resource: absolute when the working directory is known, `~` kept as the
 * home marker (the classifier never reads the environment), dynamic text kept verbatim.
 */
export function resolvePath(p: string, cwd: string | undefined, dynamic = false): string {
  if (dynamic || p.includes('$(') || p.startsWith('$')) return p;
  if (p === '~' || p.startsWith('~/')) return path.posix.normalize(p);
  if (p.startsWith('/')) return path.posix.normalize(p);
  if (cwd && cwd.startsWith('/')) return path.posix.resolve(cwd, p);
  return path.posix.normalize(p);
}

/**
 * A here-document body as the program reads it (before expansion): Lit parts raw (a
 * quoted delimiter keeps backslashes), expansions as written. The node's own source
 * span would include the closing delimiter line, so it is not used.
 */
export function hereDocText(src: string, w: ShWord | null | undefined): WordValue {
  if (!w) return { text: '', dynamic: false };
  let text = '';
  let dynamic = false;
  for (const p of w.Parts ?? []) {
    if (sh().NodeType(p) === 'Lit') text += (p as ShLit).Value;
    else {
      text += sourceOf(src, p);
      dynamic = true;
    }
  }
  return { text, dynamic };
}
