// Hard links: a second name for a protected file. `ln ~/.claude/settings.json notes.json`
// makes notes.json the very same file (same device and inode), so a later write of
// notes.json — an ordinary workspace write that a grant may allow — rewrites Claude Code's
// settings. A path has no way back to its other names, so this looks where the protected
// files are: the well-known ones in the home directory, Airlock's own files, and the
// project files (git config and hooks, Claude Code's project settings, .mcp.json,
// package.json …) of every directory above the path. Only a regular file whose link count
// is above 1 is looked at, so an ordinary write costs nothing more than the lstat the walk
// already made. What is found is handed back as the protected path; core/real-paths.ts adds
// it to the request's resources, so risk and grants judge it like a write of that path.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Under the home directory: what risk.ts calls settings, start-up files, credentials. */
const HOME_FILES = [
  '.claude/settings.json', '.claude/settings.local.json', '.claude.json', '.claude/.config.json', '.claude/.credentials.json',
  '.bashrc', '.bash_profile', '.bash_login', '.profile', '.zshrc', '.zprofile', '.zshenv', '.zlogin', '.kshrc', '.cshrc', '.tcshrc',
  '.config/fish/config.fish', '.gitconfig', '.config/git/config', '.config/git/attributes', '.npmrc', '.pypirc', '.netrc',
  '.git-credentials', '.pgpass', '.vimrc', '.yarnrc', '.yarnrc.yml', '.aws/credentials', '.aws/config', '.docker/config.json',
  '.kube/config', '.config/gh/hosts.yml', '.config/pip/pip.conf',
];
/** Directories under the home directory whose every entry is protected (keys, hooks, autostart). */
const HOME_DIRS = ['.ssh', '.claude/hooks', '.claude/commands', '.claude/agents', '.claude/shell-snapshots', '.config/autostart', '.config/systemd/user'];
/** Outside the home directory. */
const SYSTEM_FILES = ['/etc/claude-code/managed-settings.json', '/Library/Application Support/ClaudeCode/managed-settings.json'];
/** In every directory above the path: a project's files that name programs or hold secrets. */
const PROJECT_FILES = [
  // Everything git reads from its directory can lead to code (risk.ts): config, commondir, the index, HEAD …
  '.git', '.git/config', '.git/commondir', '.git/config.worktree', '.git/index', '.git/HEAD', '.git/info/attributes', '.git/packed-refs',
  '.circleci/config.yml', '.buildkite/pipeline.yml', '.claude/settings.json', '.claude/settings.local.json', '.mcp.json', 'package.json', 'Makefile', 'GNUmakefile', 'makefile', '.npmrc',
  '.envrc', '.env', '.env.local', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', '.gitlab-ci.yml', 'Jenkinsfile', 'azure-pipelines.yml',
];
/** Directories in every directory above the path whose entries are protected. */
const PROJECT_DIRS = ['.git/hooks', '.github/workflows', '.claude/hooks', '.claude/commands', '.claude/agents'];
/** Entries of one protected directory looked at, at most. */
export const MAX_DIR_ENTRIES = 64;
/** Directories above the path looked at, at most. */
export const MAX_ANCESTORS = 32;

export interface LinkBudget {
  steps: number;
  deadline: number;
  /**
   * What was already looked at in this request (a path's stat, a directory's entries): the
   * paths of one request share most candidates (the home directory's, the same project's),
   * so ten hard-linked files in node_modules (pnpm) cost little more than one.
   */
  seen?: Map<string, fs.Stats | null>;
  listed?: Map<string, string[]>;
}

export class LinkBudgetSpent extends Error {}

function spend(b: LinkBudget): void {
  if (--b.steps < 0 || Date.now() > b.deadline) throw new LinkBudgetSpent();
}

/** The places a protected file of `abs` may be: files, and directories whose entries are. */
/** In a CLAUDE_CONFIG_DIR directory (Claude Code's settings moved there, core/claude-config.ts). */
const CLAUDE_DIR_FILES = ['settings.json', 'settings.local.json', '.claude.json', '.config.json', '.credentials.json'];
const CLAUDE_DIR_DIRS = ['hooks', 'commands', 'agents', 'shell-snapshots'];

function candidates(abs: string, ownFiles: readonly string[], claudeDirs: readonly string[]): { files: string[]; dirs: string[] } {
  const home = os.homedir();
  const files = [...SYSTEM_FILES, ...ownFiles, ...HOME_FILES.map((f) => path.join(home, f))];
  // Airlock's own paths are files (the database) and directories (keys, secrets): both ways.
  const dirs = [...ownFiles, ...HOME_DIRS.map((d) => path.join(home, d))];
  for (const c of claudeDirs.slice(0, 16)) {
    files.push(...CLAUDE_DIR_FILES.map((f) => path.join(c, f)));
    // Another HOME's `.claude` (core/claude-config.ts): its global config sits beside it.
    if (path.basename(c) === '.claude') files.push(`${c}.json`);
    dirs.push(...CLAUDE_DIR_DIRS.map((d) => path.join(c, d)));
  }
  let dir = path.dirname(abs);
  for (let i = 0; i < MAX_ANCESTORS; i++) {
    for (const f of PROJECT_FILES) files.push(path.join(dir, f));
    for (const d of PROJECT_DIRS) dirs.push(path.join(dir, d));
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return { files, dirs };
}

function sameFile(p: string, st: fs.Stats, b: LinkBudget): boolean {
  let other = b.seen?.get(p);
  if (other === undefined) {
    spend(b);
    try {
      other = fs.statSync(p, { throwIfNoEntry: false }) ?? null;
    } catch {
      other = null;
    }
    b.seen?.set(p, other);
  }
  return !!other && other.ino === st.ino && other.dev === st.dev;
}

function entries(d: string, b: LinkBudget): string[] {
  let names = b.listed?.get(d);
  if (names === undefined) {
    spend(b);
    try {
      names = fs.readdirSync(d).slice(0, MAX_DIR_ENTRIES);
    } catch {
      names = [];
    }
    b.listed?.set(d, names);
  }
  return names;
}

/**
 * Another name of `abs` (a regular file, `st` its lstat) that is a protected file, or null.
 * Cheap unless the file has more than one name. Throws LinkBudgetSpent when the budget runs
 * out: the caller then cannot say the file is not a protected one, and asks.
 */
export function protectedOtherName(abs: string, st: fs.Stats, b: LinkBudget, ownFiles: readonly string[] = [], claudeDirs: readonly string[] = []): string | null {
  if (!st.isFile() || st.nlink < 2) return null;
  const { files, dirs } = candidates(abs, ownFiles, claudeDirs);
  for (const f of files) if (f !== abs && sameFile(f, st, b)) return f;
  for (const d of dirs) {
    for (const n of entries(d, b)) {
      const f = path.join(d, n);
      if (f !== abs && sameFile(f, st, b)) return f;
    }
  }
  return null;
}
