// The generator of the differential read fuzzer (classify-read.fuzz.ts): seeded shell
// lines built from the classifier's own allowlist tables (every program, subcommand and
// option in READ_FORMS, GIT_READ, GIT_GLOBAL, find's tests), spelled in the ways bash
// accepts and a reader may not expect: GNU long-option abbreviations, `--opt=value` and
// `--opt value`, clustered and glued short options, `--` and `-`, every quoting form,
// brace expansion, globs, here-docs and here-strings, redirections (`>|`, `<>`, `&>`, fd
// duplications), process substitution, compound commands, assignments, comments, line
// continuations and odd blanks. The tables grow, so does the fuzzer: nothing is listed
// twice. Deterministic: the same seed and the same set of installed programs give the
// same lines.
import { READ_FORMS } from '../../main/core/classify/sh-readonly';
import { GIT_GLOBAL, GIT_MIXED, GIT_READ } from '../../main/core/classify/sh-git';
import { FIND_SWITCH, FIND_VALUE } from '../../main/core/classify/sh-commands';
import type { FlagKind, ReadForm } from '../../main/core/classify/sh-flags';
import type { Rng } from './lib';
import { PLAIN_READS } from '../unit/classify-attack-corpus';
import { PLAIN_READS6 } from '../unit/classify-attack6-corpus';

/** The plain reads of the red-team corpora: lines people write, grown by the generator's pieces. */
const CORPUS_READS = [...PLAIN_READS, ...PLAIN_READS6].filter((l) => !l.includes('\n'));

/** Files the scene (classify-read-oracle.ts) holds, and words a developer would type. */
const FILES = ['a.txt', 'b.json', 'dir', 'dir/c.txt', 'a.gz', 'notes.md', '.', '..', 'sub', 'nonexist', '/etc/hostname', '/dev/null', '-', 'x.y'];
export const TRICKY_ARGS = [
  '*', '*.txt', '?.txt', '[ab].txt', '.*', 'dir/*', './-rf', '-rf', '--', '-', '--help', '-o', '-e', '-i', '-f',
  '$x', '"$x"', '${x:-a.txt}', '"${x:=a.txt}"', '$(echo a.txt)', '`echo a.txt`', '$((1+1))', '~', '~/x', '$HOME', '"$@"', '$*',
  '{a.txt,b.json}', 'x{1,2}', '{-o,out}', "'it''s'", '\\-n', '\\*', '"*"', '$\'\\x2do\'', '$"a.txt"', '!', '%s', '{}', '=', '@', '^',
];
const VALUES = ['1', '5', '0', '-1', '+1', 'x', 'a.txt', 'dir', '%s', '{}', ',', ':', 'auto', 'never', 'always', '.', '-', '-o', '--output=out', '/dev/null', "''", 'utf-8', '1,2', 'HEAD', 'out', 'M', '/tmp/w/out'];
const PATTERNS = ['x', 'a', '^a', "'a b'", '"x|y"', '-e', '--', '.', "'\\bx'", '$x', 'ls', 'rm'];
const REVS = ['HEAD', 'HEAD~1', 'main', '--', 'a.txt', 'HEAD:a.txt', '@{u}', 'HEAD..HEAD', '--all', 'origin', 'sub', 'stash@{0}', ':/x'];

/** sed commands that read, and the ones that write or run (the classifier must see them all). */
const SED_BITS = [
  'p', 'd', 'n', 'N', '1p', '$p', '/x/p', '1,2p', 's/a/b/', 's/a/b/g', 's/a/b/p', 's|a|b|', 's,a,b,', 'y/ab/ba/', '=', 'l', 'q', 'Q', 'h;G', 'x', '$!N', '0~2p', 'F', 'z',
  ':a', 'ba', 'b', 't a', 'T', '{p}', '{p;}', '1!G;h;$!d', '#n', '# w out', 'v', 'a foo', 'i foo', 'c foo', 'a\\\nfoo w out',
  'w out', 'W out', '1w out', '/x/w out', 's/a/b/w out', 's/a/b/gw out', 's/a/b/pw out', 's/a/b/e', 'e', 'e touch M', 'r a.txt', 'R a.txt', 's/x/w out/', 'y/w/r/',
  's/a/b/;w out', ':a w out', 'b w', 's/a/\\n/w /dev/stdout', 'w /dev/stdout', 'w/dev/null', 's/a/b/m', 's/a/b/I', 's/a/b/3', 'L', '}', '{',
];
const AWK_BITS = [
  '{print}', '{print $1}', 'NR==1', '1', 'BEGIN{print 1}', 'END{print NR}', '/x/', '!/x/', '{print > "out"}', '{print >> "out"}', '{print | "cat"}', '{print |& "cat"}',
  '{system("touch M")}', 'BEGIN{"date" | getline x}', 'BEGIN{getline < "a.txt"}', 'BEGIN{getline l < "a.txt"; print l}', '{printf "%s\\n", $0 > "/dev/stderr"}',
  '{print > "/dev/null"}', 'BEGIN{printf "x" > "/dev/stdout"}', '{fflush()}', 'END{close("out")}', '{a[$1]++} END{for(k in a) print k}', 'function f(x){return x} {print f($1)}',
  '{print > $1}', '{print > FILENAME ".bak"}', 'BEGIN{c="ls"; c | getline; print}', '@include "x"', '@load "filefuncs"', 'BEGIN{print ENVIRON["HOME"]}', '{ $1=$1; print }',
  '{print (1 > 2)}', '{print 1 > 2}', '{print(1) > "out"}', '{x = 1 > 2 ? "a" : "b"; print x}', '{print $0 "|" "cat"}', "BEGIN{printf \"%s\", \"x\" | \"sh\"}", '{getline x < FILENAME}', '{ print length() }',
];
const JQ_BITS = ['.', '.a', 'keys', '.[]', 'input_filename', '$__loc__', 'env', '$ENV', 'input', 'inputs', '@sh', 'debug', 'stderr', 'halt', 'import "x" as x; .', 'include "x"; .', 'getpath(["a"])', 'limit(1; .[])', '"\\(.)"'];

const ASSIGNS = ['x=1', 'LC_ALL=C', 'LANG=C', '_=x', 'f=a.txt', 'a=(1 2)', 'x=$(echo 1)', 'x+=1', 'TZ=UTC', 'COLUMNS=80', 'PAGER=cat', 'GIT_PAGER=cat', 'TERM=dumb'];
/** Variables programs read: the classifier's harmless list is only as good as what they really do. */
const ENV_PREFIXES = [
  'POSIXLY_CORRECT=1', 'TZ=/tmp/w/a.txt', 'TZ=:a.txt', 'LANG=C.UTF-8', 'LC_ALL=C', 'LANGUAGE=de', 'LC_MESSAGES=C', 'TIME_STYLE=+%s', 'QUOTING_STYLE=shell', 'BLOCK_SIZE=1K',
  'LS_COLORS=di=1', 'GREP_COLORS=mt=1', 'GREP_COLOR=1', 'COLUMNS=1', 'LINES=1', 'TERM=xterm', 'NO_COLOR=1', 'FORCE_COLOR=1', 'CLICOLOR_FORCE=1', 'COLORTERM=truecolor',
  'LESSOPEN="|./cat %s"', 'MANPAGER=./cat', 'GIT_EXTERNAL_DIFF=./cat', 'CDPATH=sub', 'HOME=sub', 'TMPDIR=.', 'IFS=/', 'SHELLOPTS=xtrace', "PS4='$(./cat)'",
];
export const BLANKS = [' ', ' ', ' ', ' ', '\t', '  ', ' \\\n', '\\\n ', '\v', '\f', '\u00a0', '\u3000', '\u2028', '\u200b'];
const REDIRS = [
  '>/dev/null', '2>/dev/null', '2>&1', '>|/dev/null', '&>/dev/null', '&>>/dev/null', '>>/dev/null', '<a.txt', '<>a.txt', '3<a.txt', '3<>a.txt', '>&2', '1>&2', '<&-', '0<&-', '2>&-',
  '>/dev/stderr', '>/dev/stdout', '<<<x', '<<<"$x"', '< <(echo a)', '> >(cat)', '2> >(cat >&2)', '<&0', '3>&1', '>&3', '4<&0', '<<<$(echo a)', '>&/dev/null', '2>/dev/tty', '9>&1',
  '< /dev/null', '<./-rf', '<dir/c.txt',
];
const HEREDOCS = ['<<EOF\nx\nEOF', "<<'EOF'\n$(touch M)\nEOF", '<<-E\n\tx\n\tE', '<<"E"\nw out\nE', '<<E\n$x `echo y`\nE'];
const ANY_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ANY_LONG = ['--help', '--version', '--output=out', '--file=a.txt', '--write', '--exec=./cat', '--set', '--kill', '--delete', '--log=out', '-', '--', '+D', '+c1', '-D b', '-o out'];
const COMMENTS = [' # c', ' #', ' # rm -rf x', ' #\\', ' # $(touch M)', '#x'];

/** A word spelled another way the shell turns back into the same word (or nearly). */
export function respell(r: Rng, w: string): string {
  if (!/^[\w./@%+:,=~^-]+$/.test(w) || w.length === 0) return w;
  switch (r.int(14)) {
    case 0:
      return `'${w}'`;
    case 1:
      return `"${w}"`;
    case 2:
      return `$'${w.replace(/-/g, '\\x2d').replace(/o/g, '\\157')}'`;
    case 3:
      return `$"${w}"`;
    case 4:
      return w.replace(/(.)/g, '\\$1');
    case 5: {
      const i = r.int(w.length + 1);
      return `${w.slice(0, i)}''${w.slice(i)}`;
    }
    case 6: {
      const i = r.int(w.length + 1);
      return `${w.slice(0, i)}""${w.slice(i)}`;
    }
    case 7:
      return `{${w},}`.replace('{', r.chance(0.5) ? '{' : '{,');
    case 8:
      return `${w.slice(0, 1)}{${w.slice(1)},}`;
    case 9: {
      const i = 1 + r.int(Math.max(1, w.length - 1));
      return `${w.slice(0, i)}"${w.slice(i)}"`;
    }
    case 10:
      return `${w}$(:)`;
    case 11:
      return `${w}\${x:+}`;
    case 12:
      return `"${w}"''`;
    default:
      return `${w.slice(0, 1)}\\${w.slice(1)}`;
  }
}

// --- compound commands (shared with the write fuzzer, classify-write-gen.ts) ----------

/** A line of shell around simple commands: pipes, lists, loops, subshells, substitutions, here-documents. */

export function compoundLine(r: Rng, simple: (r: Rng) => string, depth = 0): string {
  const a = () => (depth > 1 ? simple(r) : compoundLine(r, simple, depth + 1));
  const s: Sink = { line: '' };
  const roll = r.int(100);
  if (roll < 45) s.line = simple(r);
  else if (roll < 55) s.line = `${a()} | ${a()}`;
  else if (roll < 58) s.line = `${a()} |& ${a()}`;
  else if (roll < 63) s.line = `${a()}${r.pick(['; ', ' && ', ' || ', '\n', ' & ', ';'])}${a()}`;
  else if (roll < 66) s.line = `if ${a()}; then ${a()}; else ${a()}; fi`;
  else if (roll < 68) s.line = `while ${a()}; do ${a()}; break; done`;
  else if (roll < 70) s.line = `until ${a()}; do ${a()}; break; done`;
  else if (roll < 73) s.line = `for ${r.pick(['f', 'x', 'i'])} in ${r.pick(['*', '*.txt', 'a.txt b.json', '$(ls)', '"$@"', 'dir/*'])}; do ${a()}; done`;
  else if (roll < 74) s.line = `for ((i=0; i<1; i++)); do ${a()}; done`;
  else if (roll < 76) s.line = `case ${r.pick(['x', '$x', 'a.txt'])} in ${r.pick(['x', '*', 'a*', '(x|y)'])}) ${a()};; *) ${a()};; esac`;
  else if (roll < 77) s.line = `select x in a b; do ${a()}; break; done`;
  else if (roll < 80) s.line = `( ${a()} )`;
  else if (roll < 83) s.line = `{ ${a()}; }`;
  else if (roll < 84) s.line = `! ${a()}`;
  else if (roll < 85) s.line = `time ${a()}`;
  else if (roll < 86) s.line = `coproc ${a()}`;
  else if (roll < 88) s.line = `${a()} ${r.pick(HEREDOCS)}\n`;
  else if (roll < 90) s.line = `${r.pick(['x=1', 'f=a.txt', 'x=$(ls)', 'declare -p x', 'export -p', 'read -r x <<<a', ': ${x:=a.txt}', 'set -e', 'set -o pipefail', 'shopt -q extglob'])}; ${a()}`;
  else if (roll < 92) s.line = `${a()} $(${a()})`.replace(/^(\S+) /, '$1 ');
  else if (roll < 94) s.line = `echo $(${a()})`;
  else if (roll < 95) s.line = `cat <(${a()})`;
  else if (roll < 96) s.line = `${a()}${r.pick(COMMENTS)}\n${a()}`;
  else if (roll < 97) s.line = `[[ -f a.txt ]] && ${a()}`;
  else if (roll < 98) s.line = `test -e a.txt && ${a()}`;
  else if (roll < 99) s.line = `${a()} &\nwait`;
  else s.line = `${a()}${r.pick(COMMENTS)}`;
  return s.line;
}

interface Sink {
  line: string;
}

/** Which programs the generator may name: an uninstalled one would only say "not found". */
export interface GenOptions {
  installed: (program: string) => boolean;
}

export interface Generator {
  line(r: Rng): string;
  /** How many programs and git subcommands came from the tables (shown in the report). */
  programs: number;
  gitSubcommands: number;
}

const entries = <T>(o: Record<string, T | undefined>): [string, T][] => Object.keys(o).flatMap((k) => (o[k] ? [[k, o[k] as T]] : []));

export function makeGenerator(opts: GenOptions): Generator {
  const forms = entries(READ_FORMS).filter(([name]) => opts.installed(name));
  const gitReads = entries(GIT_READ);
  const gitMixed = Object.keys(GIT_MIXED);
  const findTests = [...FIND_SWITCH];
  const findValues = [...FIND_VALUE];

  // --- words ---------------------------------------------------------------------------

  /** Spells an option of `kind`, sometimes with its value, in one of the forms getopt reads. */
  function option(r: Rng, flag: string, kind: FlagKind | 'danger', value: () => string): string[] {
    const long = flag.startsWith('--');
    // GNU getopt_long and git's parse-options take any unambiguous prefix.
    const name = long && flag.length > 4 && r.chance(0.15) ? flag.slice(0, 3 + r.int(flag.length - 3)) : flag;
    if (kind === 'none') return [name];
    if (kind === 'optional') return r.chance(0.5) ? [name] : [`${name}=${value()}`];
    if (long) return r.chance(0.5) ? [`${name}=${value()}`] : [name, value()];
    if (/^-\w$/.test(flag) && r.chance(0.4)) return [`${flag}${value()}`];
    return [name, value()];
  }

  /** Options of a form: switches may be clustered (`-abc`), the last one may take a value (`-ofile`). */
  function options(r: Rng, form: ReadForm, n: number): string[] {
    // A form that takes any option (echo, ps, lsof …): try every letter and a few long words.
    if (form.anyFlags) return Array.from({ length: n }, () => (r.chance(0.7) ? `-${ANY_LETTERS[r.int(ANY_LETTERS.length)]}${r.chance(0.3) ? ANY_LETTERS[r.int(ANY_LETTERS.length)] : ''}` : r.pick(ANY_LONG)));
    const flags = Object.keys(form.flags);
    const dangers = Object.keys(form.danger ?? {});
    const out: string[] = [];
    let cluster = '';
    for (let i = 0; i < n; i++) {
      const danger = dangers.length > 0 && r.chance(0.06);
      const flag = danger ? r.pick(dangers) : flags.length ? r.pick(flags) : '--help';
      const kind: FlagKind | 'danger' = danger ? ((form.danger?.[flag]?.takesValue ? 'value' : 'none') as FlagKind) : (form.flags[flag] ?? 'none');
      if (/^-\w$/.test(flag) && kind === 'none' && r.chance(0.4)) {
        cluster += flag.slice(1);
        continue;
      }
      if (cluster && /^-\w$/.test(flag) && kind !== 'none' && r.chance(0.5)) {
        out.push(`-${cluster}${flag.slice(1)}${r.chance(0.5) ? value(r) : ''}`);
        cluster = '';
        continue;
      }
      out.push(...option(r, flag, kind, () => value(r)));
    }
    if (cluster) out.push(`-${cluster}`);
    if (form.numeric && r.chance(0.2)) out.push(`-${1 + r.int(20)}`);
    if (form.plus && r.chance(0.3)) out.push(r.pick(['+5', '+G', '+/x', '+%F', '+F', '+!ls', '+1c']));
    return out;
  }

  const value = (r: Rng) => (r.chance(0.85) ? r.pick(VALUES) : r.pick(TRICKY_ARGS));
  const fileArg = (r: Rng) => (r.chance(0.8) ? r.pick(FILES) : r.pick(TRICKY_ARGS));

  function positionals(r: Rng, form: ReadForm, name: string): string[] {
    const out: string[] = [];
    if (name === 'sed') out.push(sedScript(r));
    else if (/awk$/.test(name)) out.push(awkProgram(r));
    else if (name === 'jq') out.push(`'${r.pick(JQ_BITS)}'`);
    else if (form.args === 'pattern-paths') out.push(r.pick(PATTERNS));
    if (form.args === 'none' && r.chance(0.9)) return out;
    const n = r.int(form.args === 'words' ? 3 : 4);
    for (let i = 0; i < n; i++) out.push(form.args === 'words' ? (r.chance(0.5) ? r.pick(VALUES) : fileArg(r)) : fileArg(r));
    return out;
  }

  function sedScript(r: Rng): string {
    const n = 1 + r.int(3);
    const bits = Array.from({ length: n }, () => r.pick(SED_BITS));
    const sep = r.pick([';', '\n', '; ', ' ;']);
    const text = bits.join(sep);
    return r.chance(0.5) ? `'${text}'` : r.chance(0.5) ? `"${text}"` : `$'${text.replace(/\n/g, '\\n').replace(/'/g, "\\'")}'`;
  }

  function awkProgram(r: Rng): string {
    const n = 1 + r.int(2);
    const text = Array.from({ length: n }, () => r.pick(AWK_BITS)).join(r.pick([' ', '; ', '\n']));
    return `'${text.replace(/'/g, "'\\''")}'`;
  }

  // --- simple commands -----------------------------------------------------------------

  function programWord(r: Rng, name: string): string {
    if (!r.chance(0.25)) return name;
    switch (r.int(6)) {
      case 0:
        return `/usr/bin/${name}`;
      case 1:
        return `/bin/${name}`;
      case 2:
        return `\\${name}`;
      case 3:
        return `command ${name}`;
      case 4:
        return `builtin ${name}`;
      default:
        return respell(r, name);
    }
  }

  function readCommand(r: Rng): string[] {
    const [name, form] = r.pick(forms);
    const words = [programWord(r, name), ...options(r, form, r.int(4))];
    const pos = positionals(r, form, name);
    if (r.chance(0.15)) words.push('--');
    words.push(...pos);
    // Options after the files: GNU getopt permutes, but not every parser does (xxd).
    if (r.chance(0.3) && !form.anyFlags) words.push(...options(r, form, 1 + r.int(2)));
    return words;
  }

  function gitCommand(r: Rng): string[] {
    const words = [programWord(r, 'git')];
    if (r.chance(0.3)) {
      const g = Object.keys(GIT_GLOBAL.flags);
      const flag = r.pick(g);
      const kind = GIT_GLOBAL.flags[flag] ?? 'none';
      words.push(...option(r, flag, kind, () => (flag === '-C' ? r.pick(['.', 'sub', 'dir', './', '..', '$PWD', '/tmp/w']) : r.pick(['.git', '.', 'sub', 'x']))));
    }
    if (r.chance(0.8)) {
      const [sub, form] = r.pick(gitReads);
      words.push(sub, ...options(r, form, r.int(4)));
      for (let i = r.int(3); i > 0; i--) words.push(r.chance(0.6) ? r.pick(REVS) : fileArg(r));
    } else {
      const sub = r.pick(gitMixed);
      words.push(sub, ...r.pick([[], ['list'], ['show'], ['-l'], ['--list'], ['get-url', 'origin'], ['-v'], ['--get', 'user.name'], ['--dry-run'], ['-n'], ['status'], ['log'], ['exists', 'HEAD'], ['--check', 'a.txt'], ['-a'], ['--show-current']]));
    }
    return words;
  }

  function findCommand(r: Rng): string[] {
    const words = [programWord(r, 'find')];
    if (r.chance(0.2)) words.push(r.pick(['-L', '-P', '-H', '-O1', '-D', 'tree']));
    for (let i = r.int(3); i > 0; i--) words.push(r.pick(['.', 'dir', 'sub', '*', '-', '--', './-rf', '$x']));
    for (let i = r.int(4); i > 0; i--) {
      if (r.chance(0.5)) words.push(r.pick(findTests));
      else words.push(r.pick(findValues), r.pick(['x', '*.txt', 'f', 'd', '1', '+1', '-1', 'a.txt', '%p\\n', "'*'", '644', 'posix-egrep', 'b.json']));
    }
    return words;
  }

  function wrappedCommand(r: Rng): string[] {
    const inner = r.chance(0.8) ? readCommand(r) : gitCommand(r);
    switch (r.int(7)) {
      case 0:
        return ['xargs', ...r.pick([[], ['-0'], ['-r'], ['-n1'], ['-I{}'], ['-e'], ['-i'], ['-l'], ['-P2'], ['--']]), ...inner];
      case 1:
        return ['env', ...r.pick([[], ['-i'], ['-u', 'x'], ['LC_ALL=C'], ['-0'], ['--']]), ...inner];
      case 2:
        return ['time', ...inner];
      case 3:
        return ['nice', ...inner];
      case 4:
        return ['exec', ...inner];
      case 5:
        return ['cd', r.pick(['dir', 'sub', '..', '-', '~', '/tmp/w', '.']), '&&', ...inner];
      default:
        return ['bash', '-c', `'${inner.join(' ').replace(/'/g, "'\\''")}'`];
    }
  }

  /** A corpus read, sometimes with an option of its program's form (or any form) added at the end. */
  function corpusCommand(r: Rng): string[] {
    const words = r.pick(CORPUS_READS).split(' ');
    if (r.chance(0.5)) {
      const form = READ_FORMS[words[0] ?? ''] ?? r.pick(forms)[1];
      words.push(...options(r, form, 1));
    }
    return words;
  }

  function simple(r: Rng): string {
    const roll = r.int(100);
    const words = roll < 50 ? readCommand(r) : roll < 65 ? gitCommand(r) : roll < 72 ? findCommand(r) : roll < 80 ? wrappedCommand(r) : corpusCommand(r);
    const parts: string[] = [];
    if (r.chance(0.1)) parts.push(r.pick(ASSIGNS));
    if (r.chance(0.08)) parts.push(r.pick(ENV_PREFIXES));
    for (const w of words) parts.push(r.chance(0.08) ? respell(r, w) : w);
    let text = parts[0] ?? '';
    for (let i = 1; i < parts.length; i++) text += (r.chance(0.06) ? r.pick(BLANKS) : ' ') + parts[i];
    if (r.chance(0.25)) text += ' ' + r.pick(REDIRS);
    if (r.chance(0.05)) text += ' ' + r.pick(REDIRS);
    if (r.chance(0.05)) text = `${r.pick(REDIRS)} ${text}`;
    return text;
  }

  return {
    line: (r) => compoundLine(r, simple),
    programs: forms.length,
    gitSubcommands: gitReads.length + gitMixed.length,
  };
}

/**
 * The exhaustive sweeps (FUZZ_READ_SWEEP=1): every value-taking option of every form
 * followed by one of its write or run options (a value the program really takes only
 * attached exposes it: `git log --format --output=out`), and every option placed after
 * the files (a parser that stops at the first file makes it a file: `xxd a.txt -bits`).
 */
export function sweepLines(opts: GenOptions): string[] {
  const lines: string[] = [];
  const spell = (flag: string, kind: FlagKind) => (kind === 'none' || kind === 'optional' ? [flag] : flag.startsWith('--') ? [`${flag}=out`] : [flag, 'out']);
  const sweep = (prefix: string[], form: ReadForm) => {
    const dangers = Object.entries(form.danger ?? {}).filter(([, d]) => d.action === 'write' || d.action === 'execute').map(([k]) => k);
    const probes = dangers.length ? dangers.map((d) => (d.startsWith('--') ? `${d}=out` : `${d}out`)) : ['--output=out'];
    for (const [flag, kind] of Object.entries(form.flags)) {
      if (kind === 'value' || kind === 'path') for (const p of probes) lines.push([...prefix, flag, p].join(' '));
      lines.push([...prefix, ...spell(flag, kind)].join(' '));
    }
  };
  for (const [name, form] of entries(READ_FORMS)) {
    if (form.anyFlags || !opts.installed(name)) continue;
    const pre = name === 'sed' ? ['p'] : /awk$/.test(name) ? ['1'] : name === 'jq' ? ['.'] : form.args === 'pattern-paths' ? ['x'] : [];
    sweep([name, ...pre, 'a.txt'], form);
  }
  for (const [sub, form] of entries(GIT_READ)) sweep(['git', sub, 'HEAD'], form);
  return lines;
}
