// make and cmake: build tools that run what the project's build files say. That is theirs by
// nature (a grant for `make build` runs the Makefile's recipes), but which build files, and
// which programs, the command line can change: `make -C /tmp/x`, `make -f ~/evil.mk`,
// `make SHELL=./x`, `cmake -E rm -rf ~`, `cmake --build /elsewhere`. Those are resources
// (a command grant covers only paths inside the task's directory) or, when nothing can place
// them, unlisted (asked each time). Found by earlier waves: `{make,make *}` and
// `{cmake,cmake *}` ran anything (leftovers, stop 27).
import type { Action, RiskLevel } from '../../contract/common';
import { resolvePath, type WordValue } from './sh-words';

type Arg = WordValue;
interface Result {
  action: Action;
  resources: string[];
  reasons: { level: RiskLevel; reason: string }[];
  unlisted?: string;
}
interface Ctx {
  cwd: string | undefined;
}
/** Classifies an argv the build tool runs (`cmake -E env CMD`, `cmake -E time CMD`). */
type Inner = (argv: Arg[], ctx: Ctx) => Result;

const clip = (s: string, n = 60) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** make's variables that change how every recipe runs, or which makefiles it reads. */
const MAKE_RUNS = /^(SHELL|\.SHELLFLAGS|MAKEFLAGS|MFLAGS|GNUMAKEFLAGS|MAKEFILES|MAKE|MAKESHELL)$/;
/**
 * GNU make's long options (4.3 and 4.4), and the letter of those that take a file, a directory
 * or make text. getopt_long takes any unambiguous abbreviation: `--f=x.mk` is `--file`, `--ev=…`
 * is `--eval` (both ran unnoticed, blackbox16).
 */
const MAKE_LONG_ALL = 'always-make assume-new assume-old check-symlink-times debug directory dry-run environment-overrides eval file help ignore-errors include-dir jobs jobserver-auth jobserver-style just-print keep-going load-average makefile max-load new-file no-builtin-rules no-builtin-variables no-keep-going no-print-directory no-silent old-file output-sync print-data-base print-directory question quiet recon shuffle silent stop touch trace version warn-undefined-variables what-if'.split(' ');
const MAKE_LONG: Record<string, string> = { directory: 'C', file: 'f', makefile: 'f', 'include-dir': 'I', eval: 'E', 'old-file': 'o', 'assume-old': 'o', 'new-file': 'W', 'what-if': 'W', 'assume-new': 'W' };
/** Long options that take their value in the next word when not joined by `=`. */
const MAKE_LONG_VALUED = new Set([...Object.keys(MAKE_LONG), 'jobserver-auth', 'jobserver-style']);

/** The long option `--word` stands for, as getopt_long reads it (exact, or the one option it abbreviates); null when none or ambiguous. */
function makeLong(word: string): string | null {
  if (MAKE_LONG_ALL.includes(word)) return word;
  const hits = MAKE_LONG_ALL.filter((k) => k.startsWith(word));
  return hits.length === 1 ? hits[0]! : null;
}

/** A variable's value that is one plain word: no blank, quote, `$` (make expands it) or shell syntax. */
const PLAIN_VALUE = /^[\w.,:+@%/=~^-]*$/;

export function make(name: string, args: Arg[], ctx: Ctx): Result {
  const resources: string[] = [];
  let unlisted: string | undefined;
  const reasons: Result['reasons'] = [{ level: 'medium', reason: `${name} runs the recipes its makefile names` }];
  const place = (v: Arg | undefined) => {
    if (v) resources.push(resolvePath(v.text, ctx.cwd, v.dynamic));
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const t = a.text;
    if (t === '--') break;
    if (a.dynamic) {
      // `make "$X"`: an option, or a `VAR=$(shell …)` make runs at once, known only at run time.
      unlisted ??= `${name} ${t.startsWith('-') ? 'option' : 'argument'} ${clip(t, 40)} is computed at run time: it may name another makefile or set a variable make expands`;
      continue;
    }
    const long = /^--([a-z-]+)(?:=(.*))?$/s.exec(t);
    let letter: string | undefined;
    let value: Arg | undefined;
    if (long) {
      const key = makeLong(long[1]!);
      if (!key) continue;
      letter = MAKE_LONG[key];
      value = long[2] !== undefined ? { text: long[2], dynamic: a.dynamic } : MAKE_LONG_VALUED.has(key) ? args[++i] : undefined;
      if (!letter) continue;
    } else if (/^-[a-zA-Z]/.test(t)) {
      for (let j = 1; j < t.length; j++) {
        if (!'CfIEoW'.includes(t[j]!)) continue;
        letter = t[j];
        value = j + 1 < t.length ? { text: t.slice(j + 1), dynamic: a.dynamic } : args[++i];
        break;
      }
    } else {
      // Any word with `=` defines a variable (`A-B=x` too). make expands a definition from the
      // command line, name and value, and exports it to every recipe: `make build 'X=$(shell
      // curl …|sh)'` ran the pipeline under a grant for `make build` (blackbox16); a value a recipe
      // uses as a program (`CC='curl …|sh;'`) runs too.
      const eq = t.indexOf('=');
      if (eq < 0) continue;
      const assign = /^([^=]*?)\s*[:+?!]*=(.*)$/s.exec(t)!;
      const varName = assign[1]!.trim();
      if (MAKE_RUNS.test(varName)) unlisted ??= `${name} ${clip(varName, 20)}=… changes how every recipe runs or which makefiles are read`;
      else if (!/^[\w.-]+$/.test(varName) || !PLAIN_VALUE.test(assign[2]!)) unlisted ??= `${name} ${clip(t, 40)} sets a variable to text make expands or a recipe may run as a command`;
      else if (assign[2]!.includes('/')) place({ text: assign[2]!, dynamic: a.dynamic });
      continue;
    }
    if (letter === 'E') unlisted ??= `${name} --eval runs make text given on the command line`;
    else if (letter === 'f' && value && (value.text === '-' || /^\/(dev|proc)\//.test(value.text))) unlisted ??= `${name} -f ${clip(value.text, 30)} reads its makefile from standard input or another process`;
    else if (letter === 'C' || letter === 'f' || letter === 'I') place(value);
  }
  return { action: 'execute', resources: [...new Set(resources)], reasons, ...(unlisted ? { unlisted } : {}) };
}

/** `cmake -E` tools that only read or print. */
const CMAKE_E_READ = /^(cat|echo|echo_append|md5sum|sha1sum|sha224sum|sha256sum|sha384sum|sha512sum|compare_files|capabilities|environment|true|false|sleep)$/;
const CMAKE_E_DELETE = /^(rm|remove|remove_directory)$/;
const CMAKE_E_WRITE = /^(copy|copy_if_different|copy_directory|copy_directory_if_different|rename|make_directory|touch|touch_nocreate|create_symlink|create_hardlink)$/;
/** -D variables that name a program cmake or the build runs, or a file it includes. */
const CMAKE_RUNS = /(PROGRAM|COMPILER|LAUNCHER|TOOLCHAIN|INCLUDE|SHELL|EMULATOR)/;

export function cmake(args: Arg[], ctx: Ctx, inner: Inner): Result {
  if (args[0]?.text === '-E') return cmakeTool(args.slice(1), ctx, inner);
  const resources: string[] = [];
  let unlisted: string | undefined;
  const reasons: Result['reasons'] = [{ level: 'medium', reason: 'cmake runs what the project\'s CMake files say' }];
  const place = (v: Arg | undefined) => {
    if (v) resources.push(resolvePath(v.text, ctx.cwd, v.dynamic));
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const t = a.text;
    if (t === '--') {
      // Words after it go to the native tool (make, ninja): `-- -f /tmp/x.mk` runs another makefile.
      const odd = args.slice(i + 1).find((x) => x.dynamic || !/^(-j\d*|-k|-s|-v|--verbose|-l\d*)$/.test(x.text));
      if (odd) unlisted ??= `cmake passes ${clip(odd.text, 40)} to the native build tool, which may read another build file`;
      break;
    }
    if (a.dynamic && t.startsWith('-')) {
      unlisted ??= `cmake option ${clip(t, 40)} is computed at run time`;
      continue;
    }
    const m = /^(--build|--install|--toolchain|--graphviz|--trace-redirect|--profiling-output|--prefix|-[SBPC])(?:=?(.*))?$/s.exec(t);
    if (m) {
      const value = m[2] ? { text: m[2], dynamic: a.dynamic } : args[++i];
      if (m[1] === '--install') unlisted ??= 'cmake --install writes the files the project installs, wherever its install rules say';
      if (m[1] === '-P') reasons.push({ level: 'medium', reason: `cmake -P runs the script ${clip(value?.text ?? '')}` });
      place(value);
      continue;
    }
    const d = /^-D(.*)$/s.exec(t);
    if (d) {
      const def = d[1] ? d[1] : args[++i]?.text ?? '';
      const [k = '', v = ''] = def.split(/=(.*)/s);
      if (CMAKE_RUNS.test(k.split(':')[0]!)) unlisted ??= `cmake -D${clip(k, 40)} names a program or file the build runs or includes`;
      else if (v.includes('/')) place({ text: v, dynamic: a.dynamic });
      continue;
    }
    if (!t.startsWith('-')) place(a);
  }
  return { action: 'execute', resources: [...new Set(resources)], reasons, ...(unlisted ? { unlisted } : {}) };
}

/** `cmake -E TOOL ARGS…`: what the tool does (`cmake -E rm -rf x` deletes x). */
function cmakeTool(args: Arg[], ctx: Ctx, inner: Inner): Result {
  const tool = args[0];
  const rest = args.slice(1);
  const files = rest.filter((a) => !a.text.startsWith('-') || a.dynamic).map((a) => resolvePath(a.text, ctx.cwd, a.dynamic));
  if (!tool || tool.dynamic) return { action: 'execute', resources: [], reasons: [{ level: 'medium', reason: 'cmake -E runs a tool computed at run time' }], unlisted: 'cmake -E with a tool known only at run time' };
  const t = tool.text;
  if (t === 'echo' || t === 'echo_append' || t === 'true' || t === 'false' || t === 'sleep' || t === 'capabilities' || t === 'environment') return { action: 'read', resources: [], reasons: [] };
  if (CMAKE_E_READ.test(t)) return { action: 'read', resources: files, reasons: [] };
  if (CMAKE_E_DELETE.test(t)) return { action: 'delete', resources: files, reasons: [{ level: 'medium', reason: `cmake -E ${t} deletes files` }] };
  if (CMAKE_E_WRITE.test(t)) return { action: 'write', resources: files, reasons: [] };
  // env [VAR=x…] CMD, time CMD, chdir DIR CMD: the command they run is judged, as execute.
  if (t === 'env' || t === 'time' || t === 'chdir') {
    let argv = rest;
    let cwd = ctx.cwd;
    if (t === 'env') {
      let k = 0;
      while (k < argv.length && /^([A-Za-z_][A-Za-z0-9_]*=|--(unset|modify)=)/.test(argv[k]!.text)) k++;
      argv = argv.slice(argv[k]?.text === '--' ? k + 1 : k);
    }
    if (t === 'chdir') {
      cwd = argv[0] && !argv[0].dynamic ? resolvePath(argv[0].text, ctx.cwd) : undefined;
      argv = argv.slice(1);
    }
    // Judged for what it names, but never covered by a grant: what it runs may itself run a
    // script or an argv (`cmake -E env sh -c …`), which is not followed from here.
    const r = inner(argv, { cwd });
    return { action: 'execute', resources: r.resources, reasons: [{ level: 'medium', reason: `cmake -E ${t} runs a command` }, ...r.reasons], unlisted: r.unlisted ?? `cmake -E ${t} runs ${clip(argv.map((a) => a.text).join(' '), 40)}, a command it does not show` };
  }
  // tar and anything else: what it writes is not on the command line.
  return { action: 'execute', resources: files, reasons: [{ level: 'medium', reason: `cmake -E ${clip(t, 30)} is not known to be read-only` }], unlisted: `cmake -E ${clip(t, 30)} may write files its arguments do not name` };
}
