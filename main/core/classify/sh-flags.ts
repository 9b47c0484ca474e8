// Checks one argv against a read-only form (sh-readonly.ts): every option must be one
// the table lists as safe, every positional must be what the form allows. Anything else
// makes the command non-read, with the action and the reason the prompt shows. Pure.
//
// Why an allowlist: a blocklist has to know every option of every program (and every
// abbreviation GNU getopt and git accept); an allowlist only has to know the options
// it lets through. An option we do not know is never a read.
import * as path from 'node:path';
import { ACTION_RANK, type Action, type RiskLevel } from '../../contract/common';
import { resolvePath, type WordValue } from './sh-words';

/**
 * How an option is spelled and what its value is:
 * - `none`: a switch (`-l`, `--stat`);
 * - `value`: takes a value that is not a file (`-n 5`, `--format=%H`, `-k2`);
 * - `path`: takes a file it reads (`-f patterns.txt`): listed as a resource;
 * - `optional`: a long option whose value may follow `=` only (`--color[=WHEN]`).
 */
export type FlagKind = 'none' | 'value' | 'path' | 'optional';

/** A flag that makes the command something other than a read, and why. */
export interface Danger {
  action: Action;
  /** The option takes a value (`sort -o FILE`); for a write, that value is the file written. */
  takesValue?: boolean;
  /** Shown after the program and flag: "sort -o" + " writes its output to a file". */
  reason: string;
  level?: RiskLevel;
  /**
   * The option's attached value (`-i.bak`, `--in-place=old/*`) is a backup suffix: each file
   * is kept as FILE+SUFFIX, or, when it holds `*`, as SUFFIX with `*` the file's name, in the
   * file's directory (GNU sed: `-i'../x/*'` writes beside it, `-i'h/*'` through a link `h`).
   */
  backupSuffix?: boolean;
}

export interface Verdict {
  /** null: the command matched a read-only form. */
  action: Action | null;
  reason?: string;
  level?: RiskLevel;
  resources: string[];
}

export interface ParsedArgs {
  name: string;
  /** Options seen, in order (the bare option, e.g. `-n` or `--format`), with their values. */
  opts: { flag: string; value: WordValue | null }[];
  pos: WordValue[];
  cwd: string | undefined;
}

export interface ReadForm {
  /** Options known to be safe, and how each takes its value. */
  flags: Readonly<Record<string, FlagKind>>;
  /** Options that make the command non-read. A long one also matches its abbreviations. */
  danger?: Readonly<Record<string, Danger>>;
  /** What the positionals are: files it reads, a pattern/program then files, free words, or none at all. */
  args: 'paths' | 'pattern-paths' | 'words' | 'none';
  /** More positionals than this make the command non-read (with `tooMany`). */
  maxArgs?: number;
  tooMany?: Danger;
  /** `head -20`, `git log -5`: a number as an option. */
  numeric?: boolean;
  /** `date +%F`, `less +G`: words starting with `+` that are safe. */
  plus?: RegExp;
  /**
   * No option of this program writes, runs or connects (we checked its manual): an
   * argument we cannot see (`$x`, a glob, args that xargs appends) keeps it a read.
   */
  closed?: boolean;
  /** Options end at the first positional (`env`, `timeout`, git global options). */
  stopAtPositional?: boolean;
  /** Options are plain words to this program (`git rev-parse`): only `danger` and `check` count. */
  anyFlags?: boolean;
  /** What the table cannot say (sed scripts, awk programs, `uniq IN OUT`): a reason to refuse, or null. */
  check?: (a: ParsedArgs) => Verdict | null;
}

const numericRe = /^-\d+$/;

/** A word that is not an option as written but may become one when the shell expands it. */
export function mayBeOption(w: WordValue): boolean {
  return !!w.mayBeOption;
}

function dangerFor(form: ReadForm, flag: string): [string, Danger] | null {
  const d = form.danger;
  if (!d) return null;
  const exact = d[flag];
  if (exact) return [flag, exact];
  // GNU getopt and git's parse-options accept any unambiguous prefix of a long option
  // (`--out=F` is `--output=F`): an abbreviation of a dangerous option is that option.
  if (flag.startsWith('--') && flag.length > 3) {
    for (const [k, v] of Object.entries(d)) if (k.startsWith(flag)) return [k, v];
  }
  return null;
}

const unknown = (name: string, flag: string): Verdict => ({
  action: 'execute',
  level: 'medium',
  reason: `unknown flag ${flag} for ${name}: not known to be read-only`,
  resources: [],
});

function refuse(name: string, flag: string, d: Danger, resources: string[] = []): Verdict {
  return { action: d.action, level: d.level ?? 'medium', reason: `${name} ${flag} ${d.reason}`, resources };
}

/** Checks argv (without the program name) against a form. `name` is how reasons call the program. */
export function checkForm(name: string, form: ReadForm, args: WordValue[], cwd: string | undefined): Verdict {
  if (form.anyFlags) {
    for (const a of args) {
      const d = dangerFor(form, a.text.split('=')[0]);
      if (d) return refuse(name, d[0], d[1]);
    }
    return form.check?.({ name, opts: [], pos: args, cwd }) ?? { action: null, resources: [] };
  }
  const opts: ParsedArgs['opts'] = [];
  const pos: WordValue[] = [];
  const readPaths: string[] = [];
  let endOfOpts = false;
  /** A write danger: parsing goes on so the prompt can list the files it touches. */
  let writeDanger: { flag: string; d: Danger; out: string[]; suffixes: WordValue[] } | null = null;
  const onDanger = (flag: string, d: Danger, value: () => WordValue | undefined): Verdict | null => {
    if (d.action !== 'write') return refuse(name, flag, d);
    const v = d.takesValue || d.backupSuffix ? value() : undefined;
    writeDanger ??= { flag, d, out: [], suffixes: [] };
    if (v && d.backupSuffix) writeDanger.suffixes.push(v);
    else if (v) writeDanger.out.push(resolvePath(v.text, cwd, v.dynamic));
    return null;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const t = a.text;
    if (endOfOpts || (form.stopAtPositional && pos.length > 0)) {
      pos.push(a);
      continue;
    }
    if (t === '--') {
      endOfOpts = true;
      continue;
    }
    if (a.mayBeOption && !t.startsWith('-') && !form.closed) {
      return { action: 'execute', level: 'medium', reason: `${name}: an argument computed at run time (${clip(t)}) could be an option; not known to be read-only`, resources: [] };
    }
    if (form.plus && t.startsWith('+') && !a.dynamic) {
      if (form.plus.test(t)) {
        opts.push({ flag: t, value: null });
        continue;
      }
      return unknown(name, t);
    }
    if (t.startsWith('--') && t.length > 2) {
      const eq = t.indexOf('=');
      const flag = eq > 0 ? t.slice(0, eq) : t;
      const danger = dangerFor(form, flag);
      if (danger) {
        const stop = onDanger(danger[0], danger[1], () => (eq > 0 ? { text: t.slice(eq + 1), dynamic: a.dynamic } : danger[1].backupSuffix ? undefined : args[++i]));
        if (stop) return stop;
        continue;
      }
      const kind = form.flags[flag];
      if (!kind) return unknown(name, flag);
      if (kind === 'none') {
        if (eq > 0) return unknown(name, t);
        opts.push({ flag, value: null });
      } else if (eq > 0) {
        const v = { text: t.slice(eq + 1), dynamic: a.dynamic };
        opts.push({ flag, value: v });
        if (kind === 'path') readPaths.push(resolvePath(v.text, cwd, v.dynamic));
      } else if (kind === 'optional') {
        opts.push({ flag, value: null });
      } else if (looksLikeOption(args[i + 1], '-')) {
        // `--opt -x`: where the program takes the value only as `--opt=value` (git's
        // --format, --orderfile, --min-parents …) -x IS an option, and `git log --format
        // --output=out` wrote out (found by the differential fuzzer); where it takes -x as
        // the value, nothing can tell the two apart here: ask.
        return unknown(name, `${flag} followed by ${clip(args[i + 1]!.text)} (an option, or its value?)`);
      } else {
        const v = args[++i];
        if (!v) return unknown(name, `${flag} (no value)`);
        opts.push({ flag, value: v });
        if (kind === 'path') readPaths.push(resolvePath(v.text, cwd, v.dynamic));
      }
      continue;
    }
    if (t.startsWith('-') && t.length > 1) {
      if (a.dynamic && !form.closed) return { action: 'execute', level: 'medium', reason: `${name}: an option computed at run time (${clip(t)}) is not known to be read-only`, resources: [] };
      if (form.numeric && numericRe.test(t)) {
        opts.push({ flag: t, value: null });
        continue;
      }
      // A whole-word short option first (`find -name`, `tree -L`, `xxd -ps`), then a bundle.
      const whole = form.flags[t];
      const wholeDanger = dangerFor(form, t);
      if (wholeDanger && !whole) {
        const stop = onDanger(wholeDanger[0], wholeDanger[1], () => (wholeDanger[1].backupSuffix ? undefined : args[++i]));
        if (stop) return stop;
        continue;
      }
      if (whole && t.length > 2) {
        if (whole === 'none' || whole === 'optional') opts.push({ flag: t, value: null });
        else {
          const v = args[++i];
          if (!v) return unknown(name, `${t} (no value)`);
          opts.push({ flag: t, value: v });
          if (whole === 'path') readPaths.push(resolvePath(v.text, cwd, v.dynamic));
        }
        continue;
      }
      for (let j = 1; j < t.length; j++) {
        const f = '-' + t[j];
        const d = dangerFor(form, f);
        const rest = t.slice(j + 1);
        if (d) {
          const stop = onDanger(d[0], d[1], () => (rest ? { text: rest, dynamic: a.dynamic } : d[1].backupSuffix ? undefined : args[++i]));
          if (stop) return stop;
          // The rest of the bundle is the option's value (`-i.bak`, `-oFILE`).
          break;
        }
        const kind = form.flags[f];
        if (!kind) return unknown(name, j === 1 && t.length === 2 ? f : `${f} (in ${t})`);
        if (kind === 'none' || (kind === 'optional' && !rest)) {
          opts.push({ flag: f, value: null });
          continue;
        }
        let v: WordValue | undefined;
        if (rest) v = { text: rest, dynamic: a.dynamic };
        // `git rev-list -L --output=out` wrote out: a long option after a short one is an option.
        else if (kind !== 'optional' && looksLikeOption(args[i + 1], '--')) return unknown(name, `${f} followed by ${clip(args[i + 1]!.text)} (an option, or its value?)`);
        else if (kind !== 'optional') v = args[++i];
        if (!v) return unknown(name, `${f} (no value)`);
        opts.push({ flag: f, value: v });
        if (kind === 'path') readPaths.push(resolvePath(v.text, cwd, v.dynamic));
        break;
      }
      continue;
    }
    pos.push(a);
  }
  const files = () => (form.args === 'paths' ? pos : form.args === 'pattern-paths' ? (opts.some((o) => patternOpts.has(o.flag)) ? pos : pos.slice(1)) : []);
  if (writeDanger) {
    const w: { flag: string; d: Danger; out: string[]; suffixes: WordValue[] } = writeDanger;
    const backups = w.suffixes.flatMap((sfx) => files().map((f) => backupPath(f, sfx, cwd)));
    const written = { ...refuse(name, w.flag, w.d), resources: [...w.out, ...paths(files(), cwd), ...backups] };
    // What the rest of the line does still counts (`sed -i '1e cmd' f` runs cmd, `sed -i 'w out' f`
    // writes out): the form's own check, as for a read.
    const more = form.check?.({ name, opts, pos, cwd });
    if (!more?.action) return written;
    if (ACTION_RANK[more.action] > ACTION_RANK.write) return { ...more, resources: [...more.resources, ...written.resources] };
    return { ...written, reason: `${written.reason}; ${more.reason ?? ''}`, resources: [...written.resources, ...more.resources] };
  }
  if (form.args === 'none' && pos.length > 0) {
    return { action: 'execute', level: 'medium', reason: `${name} ${clip(pos[0].text)}: an argument that is not known to be read-only`, resources: [] };
  }
  if (form.maxArgs !== undefined && pos.length > form.maxArgs) {
    const d = form.tooMany ?? { action: 'execute' as Action, reason: `with more than ${form.maxArgs} argument${form.maxArgs === 1 ? '' : 's'} is not known to be read-only` };
    return refuse(name, clip(pos[form.maxArgs].text), d, paths(pos, cwd));
  }
  const parsed: ParsedArgs = { name, opts, pos, cwd };
  if (form.check) {
    const v = form.check(parsed);
    if (v) return v;
  }
  return { action: null, resources: [...readPaths, ...paths(files(), cwd)] };
}

/** Where a backup suffix keeps FILE (Danger.backupSuffix). */
function backupPath(file: WordValue, suffix: WordValue, cwd: string | undefined): string {
  const dynamic = file.dynamic || suffix.dynamic;
  if (!suffix.text.includes('*')) return resolvePath(file.text + suffix.text, cwd, dynamic);
  const name = suffix.text.replace(/\*/g, path.posix.basename(file.text));
  return resolvePath(path.posix.join(path.posix.dirname(file.text), name), cwd, dynamic);
}

/** Whether `w` is written as an option (`-x`, `--out=F`), starting with `dash`; a negative number is a value. */
function looksLikeOption(w: WordValue | undefined, dash: '-' | '--'): boolean {
  return !!w && !w.dynamic && w.text.startsWith(dash) && /^--?[A-Za-z]/.test(w.text);
}

/** Options that give grep-like programs their pattern, so every positional is a file. */
const patternOpts = new Set(['-e', '-f', '--regexp', '--file', '--expression', '--source', '--from-file']);

export const paths = (args: WordValue[], cwd: string | undefined) =>
  args.filter((a) => a.text !== '-' && a.text !== '').map((a) => resolvePath(a.text, cwd, a.dynamic));

const clip = (s: string) => (s.length > 60 ? s.slice(0, 59) + '…' : s);

/** Builds a flag table from compact lists: `sw('-a -l --all')` → all `none`. */
export function sw(list: string): Record<string, FlagKind> {
  return Object.fromEntries(list.split(/\s+/).filter(Boolean).map((f) => [f, 'none' as FlagKind]));
}
export function val(list: string): Record<string, FlagKind> {
  return Object.fromEntries(list.split(/\s+/).filter(Boolean).map((f) => [f, 'value' as FlagKind]));
}
export function file(list: string): Record<string, FlagKind> {
  return Object.fromEntries(list.split(/\s+/).filter(Boolean).map((f) => [f, 'path' as FlagKind]));
}
export function opt(list: string): Record<string, FlagKind> {
  return Object.fromEntries(list.split(/\s+/).filter(Boolean).map((f) => [f, 'optional' as FlagKind]));
}
