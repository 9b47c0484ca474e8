// Turns shell words from the syntax tree into the strings the shell would pass to a
// program, as far as that is knowable without running anything. Expansions ($VAR,
// $(...), globs stay as written) make a word `dynamic`: the classifier then treats it
// as unknown rather than guessing.
import * as path from 'node:path';
import { sh, type ShDblQuoted, type ShLit, type ShNode, type ShParamExp, type ShSglQuoted, type ShWord } from './sh-ast';
import { expandBraces } from './sh-braces';

export interface WordValue {
  text: string;
  /** True when the value depends on run time (parameter, command or arithmetic expansion). */
  dynamic: boolean;
  /**
   * True when the shell may turn this word into one that starts with `-` (or into several
   * words): an unquoted expansion (word splitting), a leading glob (`*` can match a file
   * named `--output=x`), a leading brace expansion (`{-o,F}`), or a leading expansion.
   * The classifier then cannot know whether a program sees it as an option.
   */
  mayBeOption?: boolean;
  /** An unquoted expansion: word splitting can turn this into several words. */
  split?: boolean;
  /** A leading glob or brace expansion: several words, any of which may start with `-`. */
  glob?: boolean;
  /** The word as written, when this is one of the words its brace expansion made (for reasons). */
  braced?: string;
}

/** Removes the backslashes the shell removes outside quotes (`a\ b` → `a b`). */
function unescapeBare(s: string): string {
  return s.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

/** Inside double quotes only \$ \` \" \\ and \newline are escapes. */
function unescapeDouble(s: string): string {
  return s.replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1');
}

/**
 * $'...' (ANSI-C quoting), every escape bash knows: `$'\x2do'` is `-o`, and a word the
 * classifier read as `\x2do` would hide an option from it.
 */
function unescapeDollarSingle(s: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '?': '?', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v' };
  const cp = (n: number) => (n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '');
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (m, e: string) => {
    if (/^x/.test(e) && e.length > 1) return cp(parseInt(e.slice(1), 16));
    if (/^[uU]/.test(e) && e.length > 1) return cp(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return cp(parseInt(e, 8));
    if (e.length === 2 && e[0] === 'c') return String.fromCharCode(e.charCodeAt(1) & 0x1f);
    return map[e] ?? m;
  });
}

/** The last source whose byte offsets were mapped, and the map (byte offset → string index). */
let offsets: { src: string; index: Uint32Array } | null = null;

/**
 * The string index of the parser's offset `byteOffset` in `src`. mvdan-sh counts UTF-8 bytes
 * and a JS string counts UTF-16 units: after a character outside ASCII (`ａ`, U+2028) each
 * slice by offset began later than the node, so a part's text, the text a command grant is
 * matched against, was another command's (`: ａ; ./make` read as `make`; the write fuzzer, seed 12).
 */
export function charIndex(src: string, byteOffset: number): number {
  if (!/[^\x00-\x7f]/.test(src)) return byteOffset;
  if (offsets?.src !== src) {
    const index = new Uint32Array(Buffer.byteLength(src, 'utf8') + 1);
    let b = 0;
    for (let i = 0; i < src.length; ) {
      const cp = src.codePointAt(i)!;
      const units = cp > 0xffff ? 2 : 1;
      const bytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      for (let k = 0; k < bytes; k++) index[b + k] = i;
      b += bytes;
      i += units;
    }
    index[b] = src.length;
    offsets = { src, index };
  }
  return offsets.index[Math.max(0, Math.min(byteOffset, offsets.index.length - 1))]!;
}

export function sourceOf(src: string, n: ShNode): string {
  try {
    return src.slice(charIndex(src, n.Pos().Offset()), charIndex(src, n.End().Offset()));
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

/** Unquoted, these split into words. (`<(…)` is always one word, /dev/fd/N.) */
const EXPANSIONS = new Set(['ParamExp', 'CmdSubst', 'ArithmExp']);

export function wordValue(src: string, w: ShWord | null | undefined): WordValue {
  if (!w) return { text: '', dynamic: false };
  let text = '';
  let dynamic = false;
  let mayBeOption = false;
  let split = false;
  let glob = false;
  const parts = w.Parts ?? [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    const kind = sh().NodeType(p);
    const v = partValue(src, p, false);
    if (EXPANSIONS.has(kind) && v.dynamic) mayBeOption = split = true; // unquoted: split into words
    if (i === 0) {
      if (kind === 'Lit' && /^[*?]|^\[.*\]|^\{.*(,|\.\.)/s.test((p as ShLit).Value)) mayBeOption = glob = true;
      else if (kind === 'ExtGlob') mayBeOption = glob = true;
      else if (kind === 'DblQuoted') {
        const first = (p as ShDblQuoted).Parts?.[0];
        if (first && sh().NodeType(first) !== 'Lit' && partValue(src, first, true).dynamic) mayBeOption = true;
      }
    }
    text += v.text;
    dynamic ||= v.dynamic;
  }
  return mayBeOption ? { text, dynamic, mayBeOption, ...(split ? { split } : {}), ...(glob ? { glob } : {}) } : { text, dynamic };
}

/**
 * A path as a resource: absolute when the working directory is known, `~` kept as the
 * home marker (the classifier never reads the environment), dynamic text kept verbatim.
 */
let rawPaths = false;

/**
 * Runs `fn` with resolvePath keeping paths as written (joined to the cwd, nothing folded):
 * `..` after a symbolic link is the link target's parent, which only the daemon can know
 * (main/os/real-path.ts). Synchronous, so the switch cannot leak into another call.
 */
export function withRawPaths<T>(fn: () => T): T {
  const was = rawPaths;
  rawPaths = true;
  try {
    return fn();
  } finally {
    rawPaths = was;
  }
}

/**
 * Paths resolvePath could not place (relative to a working directory a `cd -`, `cd "$X"` or
 * `pushd +1` made unknown, or a tilde word such as `~alice`, `~-`): collected while a
 * command is classified, so a part that writes one can say no grant short of "anything"
 * covers it (shell.ts addPart). A command-pattern grant took such a relative path for a file
 * inside the task's directory (blackbox9).
 */
let unplaced: Set<string> | null = null;

export function trackUnplaced<T>(fn: () => T): { value: T; unplaced: ReadonlySet<string> } {
  const was = unplaced;
  const mine = new Set<string>();
  unplaced = mine;
  try {
    return { value: fn(), unplaced: mine };
  } finally {
    unplaced = was;
  }
}

/** Whether `p` is a path the current classification could not place (see trackUnplaced). */
export function isUnplaced(p: string): boolean {
  return unplaced?.has(p) ?? false;
}

function notPlaced(p: string): string {
  unplaced?.add(p);
  return p;
}

export function resolvePath(p: string, cwd: string | undefined, dynamic = false): string {
  if (dynamic || p.includes('$(') || p.startsWith('$')) return p;
  if (p.startsWith('~') && !isHomePath(p)) {
    // bash's other tilde prefixes (blackbox9): `~+` is the working directory; `~-` (OLDPWD),
    // `~N`/`~+N`/`~-N` (the directory stack) and `~user` (that user's home) are not under the
    // working directory, where joining them put them (`~alice/.bashrc` read as `$PWD/~alice/…`,
    // covered by a grant on the task's directory). Kept as written: no path grant covers them,
    // and the daemon resolves `~user` (main/os/real-path.ts).
    const plus = /^~\+(\/|$)/.exec(p);
    if (!plus || !cwd) return notPlaced(p);
    p = p.slice(plus[0].length) || '.';
  }
  if (rawPaths) {
    if (p.startsWith('/') || isHomePath(p)) return p;
    return !cwd || !(cwd.startsWith('/') || isHomePath(cwd)) ? notPlaced(p) : `${cwd}/${p}`;
  }
  if (isHomePath(p)) return homeNormalize(p);
  if (p.startsWith('/')) return path.posix.normalize(p);
  if (cwd && cwd.startsWith('/')) return path.posix.resolve(cwd, p);
  // After `cd` alone (or `cd ~/x`) the working directory is the home directory: a relative
  // path is under `~`, not a bare relative name no path grant or deny could see (blackbox9).
  if (cwd && isHomePath(cwd)) return homeNormalize(`${cwd}/${p}`);
  return notPlaced(path.posix.normalize(p));
}

/** `~` or `~/…`: the home directory as bash expands it. */
export function isHomePath(p: string): boolean {
  return p === '~' || p.startsWith('~/');
}

/**
 * `~/a/./b` → `~/a/b`. A `..` that climbs above `~` leaves the home directory for a path only
 * the daemon knows (`~/../alice/x` is `/home/alice/x`): kept as written, since folding it made a
 * bare relative `alice/x`, which no deny on that path reached (main/os/real-path.ts resolves it).
 */
function homeNormalize(p: string): string {
  const n = path.posix.normalize(p);
  return isHomePath(n) ? n : p;
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

/** Private-use characters stand for the parts brace expansion must not look into. */
const SENTINEL0 = 0xe000;
const SENTINELS = 0x1800;

/**
 * The words bash makes of `w` by brace expansion, which it does before anything else:
 * `ln {,--backup,} a b` runs `ln --backup a b`, `git ls-remote {,URL,}` runs `git ls-remote URL`.
 * Quoted text, escaped characters and expansions take no part in it (each stands in the
 * pattern as one private-use character while it is expanded); an unquoted word that expands
 * to nothing is dropped, as bash drops it. A word with no brace expansion is [wordValue].
 * Too many words to follow (sh-braces.ts bounds): the word as written, marked as one that
 * may become several words and options.
 */
export function wordValues(src: string, w: ShWord | null | undefined): WordValue[] {
  const whole = wordValue(src, w);
  const parts = w?.Parts ?? [];
  if (!parts.some((p) => sh().NodeType(p) === 'Lit' && (p as ShLit).Value.includes('{'))) return [whole];
  // Each stand-in: its text, whether it depends on run time, and whether it splits.
  const stand: { text: string; dynamic: boolean; split: boolean; kind: string; lead: boolean }[] = [];
  const sentinel = (v: (typeof stand)[number]) => {
    stand.push(v);
    return String.fromCharCode(SENTINEL0 + stand.length - 1);
  };
  const unknown: WordValue = { ...whole, mayBeOption: true, glob: true };
  let pattern = '';
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const kind = sh().NodeType(p);
    if (kind === 'Lit') {
      const raw = (p as ShLit).Value;
      if (/[\ue000-\uf8ff]/.test(raw)) return [unknown];
      pattern += raw.replace(/\\\n/g, '').replace(/\\(.)/gs, (_, ch: string) => sentinel({ text: ch, dynamic: false, split: false, kind: 'Lit', lead: false }));
      continue;
    }
    const v = partValue(src, p, false);
    // What wordValue says of a word that starts with this part (a dynamic double-quoted start may be an option).
    const first = kind === 'DblQuoted' ? (p as ShDblQuoted).Parts?.[0] : undefined;
    const lead = kind === 'ExtGlob' || (!!first && sh().NodeType(first) !== 'Lit' && partValue(src, first, true).dynamic);
    pattern += sentinel({ text: v.text, dynamic: v.dynamic, split: EXPANSIONS.has(kind) && v.dynamic, kind, lead });
  }
  if (stand.length > SENTINELS) return [unknown];
  const expanded = expandBraces(pattern);
  if (!expanded) return [unknown];
  if (expanded.length === 1 && expanded[0] === pattern) return [whole];
  const out: WordValue[] = [];
  for (const word of expanded) {
    if (word === '') continue; // an unquoted word that became nothing is no word at all
    let text = '';
    let dynamic = false;
    let split = false;
    let lead = false;
    for (let i = 0; i < word.length; i++) {
      const code = word.charCodeAt(i);
      const s = code >= SENTINEL0 && code < SENTINEL0 + stand.length ? stand[code - SENTINEL0] : undefined;
      if (!s) {
        text += word[i];
        continue;
      }
      text += s.text;
      dynamic ||= s.dynamic;
      split ||= s.split;
      if (i === 0) lead = s.lead || s.split;
    }
    const c0 = word.charCodeAt(0);
    const literalStart = !(c0 >= SENTINEL0 && c0 < SENTINEL0 + stand.length);
    const glob = literalStart && /^[*?]|^\[.*\]/s.test(word);
    const mayBeOption = split || lead || glob;
    const braced = whole.text;
    out.push(mayBeOption ? { text, dynamic, mayBeOption, ...(split ? { split } : {}), ...(glob ? { glob } : {}), braced } : { text, dynamic, braced });
  }
  return out;
}
