// Claude Code's user configuration directory when CLAUDE_CONFIG_DIR moves it away from
// ~/.claude (Claude Code then reads settings.json, hooks, commands… and its global
// `.claude.json` there). The risk rules know `~/.claude` by name; a moved directory is
// known only from the environment of the Claude Code that asks (the daemon reads it from
// /proc, the hook sends its own). Such a directory is judged as if it were `~/.claude`:
// a path in it gets an alias under `~/.claude` for the risk rules. Agent-side information
// only ever adds directories, so it can make a path riskier, never less risky.
import * as os from 'node:os';
import * as path from 'node:path';
import type { PathResolver } from './ports';

const HOME = os.homedir().replace(/\/+$/, '');
/** Where the risk rules look for Claude Code's settings; a moved directory is aliased here. */
export const DEFAULT_CLAUDE_DIR = `${HOME}/.claude`;
/** Claude Code's global config file (`~/.claude.json`; with CLAUDE_CONFIG_DIR set, `<dir>/.claude.json`). */
export const GLOBAL_CLAUDE_FILE = `${HOME}/.claude.json`;

/** At most this many directories are remembered by the daemon (a flood of made-up ones stops here). */
export const MAX_REMEMBERED_DIRS = 64;
/** A value longer than this is no path Claude Code could open (PATH_MAX). */
export const MAX_DIR_LENGTH = 4096;

/** `a/./b//c/` → `a/b/c`: the spelling a directory is compared in. */
export function tidy(p: string): string {
  const n = path.posix.normalize(p);
  return n.length > 1 ? n.replace(/\/+$/, '') : n;
}

/**
 * The directory a CLAUDE_CONFIG_DIR value names, for a process whose working directory is
 * `cwd`: relative values (and an empty one, which Claude Code joins as '') are taken from
 * there; a `~/` at the start is taken both literally and as the home directory (a shell
 * expands it, Node does not). Null when nothing usable can be said.
 */
export function configDirsFromValue(value: string, cwd: string | null): string[] {
  if (value.length > MAX_DIR_LENGTH || value.includes('\0')) return [];
  const out: string[] = [];
  if (value.startsWith('/')) out.push(tidy(value));
  else if (cwd && cwd.startsWith('/')) out.push(tidy(path.posix.join(cwd, value)));
  if (value === '~' || value.startsWith('~/')) out.push(tidy(HOME + value.slice(1)));
  return out;
}

/** One CLAUDE_CONFIG_DIR value, with the working directory it is relative to (null: none known). */
export interface ConfigDirValue {
  value: string;
  cwd: string | null;
}

/** Values looked at for one request at most (distinct ones; a chain of 64 parents with 8 each is cut here). */
export const MAX_CONFIG_VALUES = 64;

/**
 * The directories `values` name (configDirsFromValue), each also where its symbolic links
 * lead when `resolve` is given: the one way a CLAUDE_CONFIG_DIR from /proc, from the hook or
 * from the daemon's own environment becomes directories.
 */
export function configDirsFromValues(values: readonly ConfigDirValue[], resolve?: PathResolver): Set<string> {
  const out = new Set<string>();
  const distinct = new Set<string>();
  for (const { value, cwd } of values) {
    const key = `${cwd ?? ''}\0${value}`;
    if (distinct.has(key)) continue;
    if (distinct.size >= MAX_CONFIG_VALUES) break;
    distinct.add(key);
    for (const d of configDirsFromValue(value, cwd)) out.add(d);
  }
  if (out.size && resolve) {
    const { real } = resolve([...out]);
    for (const t of real.values()) out.add(tidy(t));
  }
  return out;
}

/**
 * The paths under `~/.claude` (or `~/.claude.json`) that `resource` stands for, when it lies
 * in one of `dirs` (compared without regard to case: macOS's default file system ignores
 * it). Empty when it lies in none.
 */
export function claudeAliases(resource: string, dirs: readonly string[]): string[] {
  if (!dirs.length || !resource.startsWith('/')) return [];
  const r = tidy(resource);
  const lower = r.toLowerCase();
  const out: string[] = [];
  for (const d0 of dirs) {
    const d = tidy(d0);
    const ld = d.toLowerCase();
    const within = ld === '/' ? true : lower === ld || lower.startsWith(`${ld}/`);
    if (!within) continue;
    const rest = ld === '/' ? r : r.slice(d.length);
    out.push(`${DEFAULT_CLAUDE_DIR}${rest}`);
    // `<dir>/.claude.json` is the global config, and `.config.json` its older name.
    if (/^\/\.(claude|config)\.json$/i.test(rest)) out.push(GLOBAL_CLAUDE_FILE);
  }
  // A home's `.claude` (the hook reports the HOME of a Claude Code run with another one than
  // the daemon's): without CLAUDE_CONFIG_DIR, that Claude Code's global config is `.claude.json`
  // beside it, not in it. Also said of a CLAUDE_CONFIG_DIR named `.claude`: only ever riskier.
  for (const d0 of dirs) {
    const d = tidy(d0);
    if (d !== '/' && /\/\.claude$/i.test(d) && lower === `${d.toLowerCase()}.json`) out.push(GLOBAL_CLAUDE_FILE);
  }
  return out;
}
