// `airlock hook claude-code --install`: adds the PreToolUse hook to
// ~/.claude/settings.json, keeping everything already there. Idempotent: a hook entry
// that already runs Airlock is updated in place, never duplicated.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { airlockRuntimeDir } from '../../client';
import { hookOutput } from './hook-input';
import { HOOK_HOME_ENV, realPathOf } from './socket-pin';

/** Seconds Claude Code waits for the hook; longer than the longest prompt timeout we expect. */
export const HOOK_TIMEOUT_SEC = 600;
const MARKER = /airlock|claude-code\/bin\.js/;

interface HookCommand {
  type: string;
  command?: string;
  timeout?: number;
  [k: string]: unknown;
}
interface HookMatcher {
  matcher?: string;
  hooks?: HookCommand[];
  [k: string]: unknown;
}

/** POSIX single-quoting for a path inside the command line Claude Code runs with a shell. */
export const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The user's settings.json cannot be read as settings: we never rewrite it (it is theirs,
 * and a guess could drop their other hooks); the CLI exits 65 (sysexits EX_DATAERR).
 */
export class SettingsFileError extends Error {}
const FIX = 'fix it (or move it aside) and run `airlock hook claude-code --install` again; nothing was changed';

export function settingsPath(home: string = os.homedir()): string {
  return path.join(home, '.claude', 'settings.json');
}

/**
 * Environment variables that make Node run code the hook did not ship: NODE_OPTIONS
 * (`--require`, `--import`, `--loader`, `--inspect`) and, from Node 22.1, NODE_COMPILE_CACHE
 * (compiled code from a folder of its choosing, overriding the hook's own). Claude Code passes
 * its environment to the hook, and a project's `.claude/settings.json` can set `env`: code
 * injected there would answer "allow" in Airlock's place. Airlock's own egress preload for
 * sandboxed tasks (NODE_OPTIONS) has nothing to do in the hook either.
 */
export const HOOK_UNSET_ENV = ['NODE_OPTIONS', 'NODE_COMPILE_CACHE'] as const;

/**
 * Variables the hooks honour only when run by hand: AIRLOCK_HOOK_REPLY_TIMEOUT_MS can make the
 * wait for the daemon's answer shorter (tests). The installed command unsets it, so a project's
 * settings `env` cannot turn Airlock's prompts into Claude Code's own.
 */
export const HOOK_HAND_ONLY_ENV = ['AIRLOCK_HOOK_REPLY_TIMEOUT_MS'] as const;

/**
 * The native hook (native/hook/airlock-hook.c, built by `npm run build` into
 * dist/native/airlock-hook when a C compiler is present), or null when this build has none.
 */
export function nativeHookPath(): string | null {
  // In the packaged app the binary is unpacked beside app.asar (electron-builder.yml asarUnpack).
  const p = path.resolve(__dirname, '..', '..', '..', 'native', 'airlock-hook').replace(/\.asar([\\/])/, '.asar.unpacked$1');
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile() ? p : null;
  } catch {
    return null;
  }
}

/**
 * The command that runs the hook: the native client when this build has one (issue 15: it
 * starts in a fraction of Node's time), else node and the hook's own entry file (the fast
 * path, no CLI parsing); both ask the daemon the same way (request.sock `hook.claudeCode`).
 * First it unsets HOOK_UNSET_ENV (Node's) and HOOK_HAND_ONLY_ENV. Claude Code runs it with
 * /bin/sh; `exec` keeps it one process. Pinned (the default): AIRLOCK_HOOK_HOME, the real path
 * of the directory that holds request.sock and tasks/ for the environment installing it, is
 * exported on the line itself, after the environment Claude Code passes on, so a project's
 * settings `env` cannot change it; the hook then talks to that daemon only (socket-pin.ts, and
 * the same check in the native client). Unpinned is for a server reached by `airlock remote`,
 * where AIRLOCK_REQUEST_SOCK is a new path every session. `node: true`: the Node hook even when
 * the native one exists (`--install --node`).
 */
export function hookCommand(opts: { env?: NodeJS.ProcessEnv; pinned?: boolean; node?: boolean } = {}): string {
  const native = opts.node ? null : nativeHookPath();
  const bin = path.join(__dirname, 'bin.js');
  const run = native ? `exec ${shQuote(native)}` : `exec ${shQuote(process.execPath)} ${shQuote(bin)}`;
  const exec = `${missingProgramGuard(native ? [['-x', native]] : [['-x', process.execPath], ['-f', bin]])}; ${run}`;
  const unset = `unset ${[...HOOK_UNSET_ENV, ...HOOK_HAND_ONLY_ENV].join(' ')} ${HOOK_HOME_ENV}`;
  if (opts.pinned === false) return `${unset}; ${exec}`;
  const dir = realPathOf(airlockRuntimeDir(opts.env ?? process.env));
  return `${unset}; export ${HOOK_HOME_ENV}=${shQuote(dir)}; ${exec}`;
}

/**
 * What the installed line does when the program it runs is gone (moved, deleted, a rebuild
 * under way, Airlock uninstalled with the hook left in the settings): `exec` of a missing file
 * exits 127, and Claude Code runs the tool on any exit code but 2, so every tool call would
 * pass unasked. Instead the line prints Claude Code's "ask" with the reason and exits 0.
 */
export function missingProgramGuard(files: [test: '-x' | '-f', file: string][]): string {
  const names = files.map(([, f]) => f).join(' and ');
  const reason = `Airlock did not ask: the hook program ${names} is missing or cannot run (moved, deleted or uninstalled); asking instead. Run \`airlock hook claude-code --install\` again, or remove the hook from Claude Code's settings`;
  const tests = files.map(([t, f]) => `[ ${t} ${shQuote(f)} ]`).join(' && ');
  return `${tests} || { printf '%s\\n' ${shQuote(hookOutput('ask', reason))}; exit 0; }`;
}

export interface InstallResult {
  file: string;
  action: 'added' | 'updated' | 'unchanged';
  command: string;
  backup: string | null;
}

export function installHook(opts: { home?: string; command?: string; pinned?: boolean; node?: boolean } = {}): InstallResult {
  const file = settingsPath(opts.home);
  const command = opts.command ?? hookCommand({ pinned: opts.pinned, node: opts.node });
  let settings: Record<string, unknown> = {};
  let original: string | null = null;
  if (fs.existsSync(file)) {
    original = fs.readFileSync(file, 'utf8');
    if (original.trim()) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(original);
      } catch (e) {
        throw new SettingsFileError(`${file} is not valid JSON (${(e as Error).message.replace(/\s+/g, ' ').slice(0, 200)}); ${FIX}`, { cause: e });
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new SettingsFileError(`${file} is not a JSON object ({…} at the top); ${FIX}`);
      settings = parsed as Record<string, unknown>;
    }
  }
  const hooks = (settings.hooks && typeof settings.hooks === 'object' && !Array.isArray(settings.hooks) ? settings.hooks : {}) as Record<string, unknown>;
  const pre = (Array.isArray(hooks.PreToolUse) ? hooks.PreToolUse : []) as HookMatcher[];
  const ours: HookCommand = { type: 'command', command, timeout: HOOK_TIMEOUT_SEC };
  let action = 'added' as InstallResult['action'];
  let found = false;
  for (const m of pre) {
    if (!m || !Array.isArray(m.hooks)) continue;
    m.hooks = m.hooks.map((h) => {
      if (h && typeof h.command === 'string' && MARKER.test(h.command) && /hook|bin\.js/.test(h.command)) {
        found = true;
        if (h.command === command && h.timeout === HOOK_TIMEOUT_SEC && m.matcher === '*') action = 'unchanged';
        else action = 'updated';
        return { ...h, ...ours };
      }
      return h;
    });
    if (found) {
      if (m.matcher !== '*') m.matcher = '*';
      break;
    }
  }
  if (!found) pre.push({ matcher: '*', hooks: [ours] });
  hooks.PreToolUse = pre;
  settings.hooks = hooks;
  if (action === 'unchanged') return { file, action, command, backup: null };

  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let backup: string | null = null;
  if (original !== null) {
    backup = `${file}.airlock-backup`;
    fs.writeFileSync(backup, original, { mode: 0o600 });
  }
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(settings, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
  return { file, action, command, backup };
}
