// What one simple command does, from its argv: the table of known programs. Pure; the
// tree walk (shell.ts) handles pipes, redirections, substitutions and sequences.
//
// Rules of thumb: anything that reaches the network is `transfer` (a GET can carry data
// out in its URL); anything that runs code we cannot see is `execute`; an unknown
// program is `execute`. Resources are absolute paths when the cwd is known, and hosts for
// network peers, so grants and the core's chain rules can match them.
import * as path from 'node:path';
import type { Action, RiskLevel } from '../../contract/common';
import { resolvePath, type WordValue } from './sh-words';

export type Arg = WordValue;
export interface RiskReason {
  level: RiskLevel;
  reason: string;
}

export interface CmdResult {
  action: Action;
  resources: string[];
  reasons: RiskReason[];
  /** Fetches from the network (for `curl … | sh`). */
  download?: boolean;
  /** An interpreter that reads its program from stdin (`sh`, `python -`). */
  runsStdin?: boolean;
  /** That program is shell text (a here-document to `bash` can be classified). */
  stdinIsShell?: boolean;
  /** Path of a program or script file this runs (for "chmod +x then run"). */
  runs?: string;
  makesExecutable?: string[];
  /** Files it writes (for "writes or downloads a file, then runs it"). */
  writes?: string[];
  /** `cd`: the new working directory (null when it cannot be known). */
  cd?: string | null;
  /** A shell script this runs that we can read (`sh -c '…'`, `eval '…'`, `find -exec`). */
  script?: { text: string; dynamic: boolean };
  /** An argv this runs (`xargs rm`, `find -exec rm {} ;`). */
  argv?: Arg[];
  /** A git command that runs the repository's hooks (commit, merge, push, checkout …). */
  runsGitHooks?: boolean;
}

export interface CmdContext {
  cwd: string | undefined;
}


/** Splits options from positional arguments; `withValue` lists options that take one. */
function positionals(args: Arg[], withValue: ReadonlySet<string> = new Set()): { pos: Arg[]; opts: Map<string, Arg | true> } {
  const pos: Arg[] = [];
  const opts = new Map<string, Arg | true>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.text === '--') {
      pos.push(...args.slice(i + 1));
      break;
    }
    if (a.text.startsWith('--') && a.text.length > 2) {
      const eq = a.text.indexOf('=');
      if (eq > 0) opts.set(a.text.slice(0, eq), { text: a.text.slice(eq + 1), dynamic: a.dynamic });
      else if (withValue.has(a.text) && i + 1 < args.length) opts.set(a.text, args[++i]);
      else opts.set(a.text, true);
      continue;
    }
    if (a.text.startsWith('-') && a.text.length > 1 && !a.dynamic) {
      // Short options may be bundled (-rf); one that takes a value ends the bundle.
      for (let j = 1; j < a.text.length; j++) {
        const o = '-' + a.text[j];
        if (withValue.has(o)) {
          const rest = a.text.slice(j + 1);
          if (rest) opts.set(o, { text: rest, dynamic: false });
          else if (i + 1 < args.length) opts.set(o, args[++i]);
          else opts.set(o, true);
          break;
        }
        opts.set(o, true);
      }
      continue;
    }
    pos.push(a);
  }
  return { pos, opts };
}

const paths = (args: Arg[], ctx: CmdContext) => args.filter((a) => a.text !== '-' && a.text !== '').map((a) => resolvePath(a.text, ctx.cwd, a.dynamic));

/** The host of a URL-ish argument, or null when it is not one. */
export function hostOf(s: string): string | null {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]+\]|[^:/?#]+)/i.exec(s);
  if (m) return m[1].toLowerCase();
  // curl accepts bare hosts: example.com/x, localhost:8080
  const bare = /^([a-z0-9-]+(?:\.[a-z0-9-]+)+|localhost)(?::\d+)?(?:[/?#]|$)/i.exec(s);
  return bare ? bare[1].toLowerCase() : null;
}

/** `user@host:path` (scp, rsync) → host; null for a local path. */
function remoteHost(s: string): string | null {
  if (s.startsWith('/') || s.startsWith('.') || s.startsWith('~')) return null;
  const url = /^(?:scp|sftp|rsync|ssh):\/\//i.test(s) ? hostOf(s) : null;
  if (url) return url;
  const m = /^(?:[^@/:]+@)?(\[[^\]]+\]|[^/:]+):{1,2}/.exec(s);
  return m ? m[1].toLowerCase() : null;
}

function result(action: Action, resources: string[] = [], extra: Partial<CmdResult> = {}): CmdResult {
  return { action, resources, reasons: [], ...extra };
}

// --- reads ---------------------------------------------------------------------------

const READ_PATHS = new Set([
  'cat', 'less', 'more', 'head', 'tail', 'ls', 'll', 'la', 'dir', 'tree', 'stat', 'file', 'wc', 'diff', 'cmp', 'du',
  'tac', 'nl', 'od', 'xxd', 'hexdump', 'strings', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'cksum', 'b2sum',
  'realpath', 'readlink', 'sort', 'uniq', 'cut', 'column', 'paste', 'comm', 'join', 'fold', 'fmt', 'rev', 'expand',
  'base64', 'bat', 'exa', 'eza', 'lsd', 'fd', 'locate', 'zcat', 'zless', 'bzcat', 'xzcat', 'sha224sum', 'sha384sum',
]);
const READ_NO_PATHS = new Set([
  'echo', 'printf', 'true', 'false', ':', 'test', '[', 'which', 'type', 'whereis', 'whoami', 'id', 'uname', 'date',
  'printenv', 'hostname', 'ps', 'pgrep', 'pwd', 'tr', 'seq', 'yes', 'sleep', 'man', 'help', 'history', 'alias',
  'basename', 'dirname', 'uptime', 'free', 'df', 'locale', 'tput', 'clear', 'nproc', 'groups', 'lsof', 'env',
  'export', 'set', 'unset', 'read', 'local', 'declare', 'typeset', 'readonly', 'shift', 'return', 'exit', 'wait',
  'jobs', 'hash', 'umask', 'ulimit', 'getconf', 'arch', 'tty', 'stty', 'expr', 'bc', 'dc', 'cal', 'w', 'who',
  'popd', 'dirs', 'trap', 'shopt', 'compgen', 'complete', 'mktemp', 'lscpu', 'lsblk', 'top', 'htop', 'watch',
]);
/** Options that take a value, for the read programs where it matters. */
/**
 * A lookup table without a prototype: a command named `constructor` or `toString` must
 * find nothing here, not Object.prototype's members (found by the shell fuzzer).
 */
function lookupTable<T>(entries: Record<string, T>): Record<string, T | undefined> {
  return Object.assign(Object.create(null) as Record<string, T | undefined>, entries);
}

const READ_VALUE: Record<string, Set<string> | undefined> = lookupTable({
  head: new Set(['-n', '-c', '--lines', '--bytes']),
  tail: new Set(['-n', '-c', '--lines', '--bytes', '-s', '--pid', '--sleep-interval']),
  cut: new Set(['-d', '-f', '-c', '-b', '--delimiter', '--fields', '--characters', '--bytes', '--output-delimiter']),
  sort: new Set(['-k', '-t', '-o', '-S', '-T', '--key', '--field-separator', '--output', '--buffer-size']),
  uniq: new Set(['-f', '-s', '-w']),
  column: new Set(['-s', '-t', '-o', '-c', '-N']),
  paste: new Set(['-d']),
  join: new Set(['-1', '-2', '-t', '-o', '-e', '-j']),
  fold: new Set(['-w']),
  fmt: new Set(['-w', '-p']),
  od: new Set(['-A', '-j', '-N', '-t', '-w']),
  xxd: new Set(['-c', '-g', '-l', '-s']),
  tree: new Set(['-L', '-P', '-I', '-o', '--charset']),
  du: new Set(['-d', '--max-depth', '-B', '--exclude', '-t']),
  ls: new Set(['-I', '--ignore', '-w', '-T', '--color', '--format', '--sort', '--time-style']),
  strings: new Set(['-n', '-t', '-e']),
  fd: new Set(['-e', '-t', '-E', '-d', '--extension', '--type', '--exclude', '--max-depth']),
});
/** Programs whose first positional argument is a pattern or program text, not a file. */
const PATTERN_FIRST: Record<string, Set<string> | undefined> = lookupTable({
  grep: new Set(['-e', '-f', '-m', '-A', '-B', '-C', '--include', '--exclude', '--exclude-dir', '--color', '--regexp', '--file', '--max-count']),
  egrep: new Set(['-e', '-f', '-m', '-A', '-B', '-C']),
  fgrep: new Set(['-e', '-f', '-m', '-A', '-B', '-C']),
  rg: new Set(['-e', '-f', '-g', '-t', '-T', '-m', '-A', '-B', '-C', '--glob', '--type', '--max-count', '-M', '-j']),
  ag: new Set(['-G', '-m', '-A', '-B', '-C', '--ignore']),
  ack: new Set(['-m', '-A', '-B', '-C', '--type']),
  awk: new Set(['-F', '-v', '-f']),
  gawk: new Set(['-F', '-v', '-f']),
  mawk: new Set(['-F', '-v', '-f']),
  jq: new Set(['--arg', '--argjson', '--slurpfile', '--rawfile', '-f', '--indent']),
  yq: new Set(['--arg', '-I', '-o', '-p']),
});

// --- writes / deletes -------------------------------------------------------------------

const DELETE_CMDS: Record<string, Set<string> | undefined> = lookupTable({
  rm: new Set(),
  rmdir: new Set(),
  unlink: new Set(),
  shred: new Set(['-n', '-s', '--iterations', '--size']),
  truncate: new Set(['-s', '-r', '--size', '--reference']),
  srm: new Set(),
  wipe: new Set(),
});
const WRITE_CMDS: Record<string, Set<string> | undefined> = lookupTable({
  mv: new Set(['-S', '-t', '--suffix', '--target-directory']),
  cp: new Set(['-S', '-t', '--suffix', '--target-directory']),
  tee: new Set(),
  touch: new Set(['-d', '-t', '-r', '--date', '--reference']),
  mkdir: new Set(['-m', '--mode']),
  ln: new Set(['-S', '-t', '--suffix', '--target-directory']),
  install: new Set(['-m', '-o', '-g', '-t', '-S', '--mode', '--owner', '--group', '--target-directory']),
  patch: new Set(['-p', '-i', '-o', '-d', '-B', '--input', '--output', '--directory']),
  unzip: new Set(['-d', '-x']),
  gzip: new Set(['-S']),
  gunzip: new Set(['-S']),
  zip: new Set(['-x', '-i']),
  split: new Set(['-l', '-b', '-n', '-a']),
  mkfifo: new Set(['-m']),
  mknod: new Set(['-m']),
  rename: new Set(),
  cpio: new Set(),
});
/** Programs whose first positional is a mode/owner, not a file. */
const MODE_FIRST: Record<string, Set<string> | undefined> = lookupTable({
  chmod: new Set(['--reference']),
  chown: new Set(['--reference', '--from']),
  chgrp: new Set(['--reference']),
  setfacl: new Set(['-m', '-x', '-M', '-X']),
});
const DISK_DESTROYERS = new Set(['mkfs', 'wipefs', 'fdisk', 'sfdisk', 'parted', 'gdisk', 'sgdisk', 'blkdiscard']);

// --- network ---------------------------------------------------------------------------

const CURL_VALUE = new Set([
  '-o', '-d', '-F', '-H', '-X', '-u', '-T', '-e', '-A', '-b', '-c', '-x', '-w', '-m', '-K', '-r', '-C', '-E', '-D', '-U', '-Y', '-y', '-z', '-P', '-Q',
  '--output', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--data-ascii', '--json', '--form', '--form-string', '--header',
  '--request', '--user', '--upload-file', '--referer', '--user-agent', '--cookie', '--cookie-jar', '--proxy', '--write-out', '--max-time',
  '--retry', '--config', '--range', '--resolve', '--connect-timeout', '--cert', '--key', '--cacert', '--dump-header', '--url', '--output-dir',
  '--connect-to', '--interface', '--limit-rate', '--oauth2-bearer', '--proxy-user', '--unix-socket', '--abstract-unix-socket',
]);
const CURL_UPLOAD = ['-d', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--data-ascii', '--json', '-F', '--form', '--form-string', '-T', '--upload-file'];
const WGET_VALUE = new Set([
  '-O', '-o', '-a', '-i', '-P', '-t', '-T', '-U', '-e', '-w', '-Q', '-l', '--output-document', '--output-file', '--input-file',
  '--directory-prefix', '--tries', '--timeout', '--user-agent', '--header', '--post-data', '--post-file', '--body-data', '--body-file',
  '--method', '--user', '--password', '--execute', '--wait', '--level', '--quota',
]);
const SSH_VALUE = new Set(['-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-p', '-Q', '-R', '-S', '-W', '-w', '-B', '-P']);
const NETCAT = new Set(['nc', 'ncat', 'netcat', 'socat', 'telnet', 'ftp', 'sftp', 'tftp', 'lftp', 'ping', 'dig', 'nslookup', 'host', 'traceroute', 'mosh', 'openssl']);

function curl(args: Arg[], ctx: CmdContext): CmdResult {
  const { pos, opts } = positionals(args, CURL_VALUE);
  const urls = [...pos, ...(opts.get('--url') && opts.get('--url') !== true ? [opts.get('--url') as Arg] : [])];
  const resources: string[] = [];
  for (const u of urls) resources.push(hostOf(u.text) ?? u.text);
  const r = result('transfer', resources, { download: true });
  for (const o of CURL_UPLOAD) {
    const v = opts.get(o);
    if (!v) continue;
    const text = v === true ? '' : v.text;
    // -d @file, -F name=@file, -F name=<file, -T file: local data leaves the machine.
    const file = /^@(.+)/.exec(text)?.[1] ?? /=[@<]([^;]+)/.exec(text)?.[1] ?? (o === '-T' || o === '--upload-file' ? text : null);
    if (file && file !== '-') r.resources.push(resolvePath(file, ctx.cwd, v !== true && v.dynamic));
    r.reasons.push({ level: 'medium', reason: file ? `uploads ${file}` : 'sends data in the request body' });
    break;
  }
  const out = opts.get('-o') ?? opts.get('--output');
  if (out && out !== true && out.text !== '-') {
    const p = resolvePath(out.text, ctx.cwd, out.dynamic);
    r.resources.push(p);
    r.writes = [p];
  }
  return r;
}

function wget(args: Arg[], ctx: CmdContext): CmdResult {
  const { pos, opts } = positionals(args, WGET_VALUE);
  const r = result('transfer', pos.map((u) => hostOf(u.text) ?? u.text), { download: true });
  const post = opts.get('--post-file') ?? opts.get('--body-file');
  if (post && post !== true) {
    r.resources.push(resolvePath(post.text, ctx.cwd, post.dynamic));
    r.reasons.push({ level: 'medium', reason: `uploads ${post.text}` });
  } else if (opts.has('--post-data') || opts.has('--body-data')) {
    r.reasons.push({ level: 'medium', reason: 'sends data in the request body' });
  }
  const out = opts.get('-O') ?? opts.get('--output-document');
  if (out && out !== true && out.text !== '-') {
    const p = resolvePath(out.text, ctx.cwd, out.dynamic);
    r.resources.push(p);
    r.writes = [p];
  } else if (!out) {
    // wget saves under the URL's file name in the cwd.
    for (const u of pos) {
      const name = path.posix.basename(u.text.replace(/[?#].*$/, ''));
      if (name && !hostOf(name)) r.writes = [...(r.writes ?? []), resolvePath(name, ctx.cwd, u.dynamic)];
    }
  }
  return r;
}

function scpLike(args: Arg[], ctx: CmdContext, withValue: Set<string>): CmdResult {
  const { pos } = positionals(args, withValue);
  const resources: string[] = [];
  let remote = false;
  for (const a of pos) {
    const h = remoteHost(a.text);
    if (h) {
      remote = true;
      resources.push(h);
    } else resources.push(resolvePath(a.text, ctx.cwd, a.dynamic));
  }
  return result(remote ? 'transfer' : 'write', resources);
}

// --- git -------------------------------------------------------------------------------

const GIT_READ = new Set([
  'status', 'log', 'diff', 'show', 'blame', 'ls-files', 'ls-tree', 'grep', 'describe', 'shortlog', 'rev-parse', 'rev-list',
  'cat-file', 'reflog', 'whatchanged', 'help', 'version', 'check-ignore', 'name-rev', 'merge-base', 'for-each-ref', 'show-ref',
  'count-objects', 'fsck', 'var', 'bisect',
]);
const GIT_NET = new Set(['push', 'pull', 'fetch', 'clone', 'ls-remote', 'send-email', 'request-pull']);
const GIT_WRITE = new Set([
  'add', 'commit', 'checkout', 'switch', 'restore', 'merge', 'rebase', 'cherry-pick', 'revert', 'apply', 'am', 'init', 'mv',
  'notes', 'worktree', 'submodule', 'pull', 'reset', 'tag', 'branch', 'stash', 'config', 'remote', 'update-index', 'gc', 'prune',
  'sparse-checkout', 'replace', 'filter-branch', 'commit-tree', 'update-ref', 'symbolic-ref', 'format-patch', 'lfs',
]);

function git(args: Arg[], ctx: CmdContext): CmdResult {
  let cwd = ctx.cwd;
  let i = 0;
  // Global options before the subcommand: -C DIR moves the repository.
  while (i < args.length && args[i].text.startsWith('-')) {
    const o = args[i].text;
    if ((o === '-C' || o === '-c' || o === '--git-dir' || o === '--work-tree' || o === '--namespace') && i + 1 < args.length) {
      if (o === '-C') cwd = resolvePath(args[i + 1].text, cwd, args[i + 1].dynamic);
      i += 2;
    } else i++;
  }
  const sub = args[i]?.text ?? '';
  const rest = args.slice(i + 1);
  const repo = cwd ?? '.';
  if (args[i]?.dynamic) return result('execute', [repo], { reasons: [{ level: 'medium', reason: 'runs a git subcommand computed at run time' }], runsGitHooks: true });
  const r = gitSub(sub, rest, cwd, repo);
  if (GIT_HOOKED.has(sub)) r.runsGitHooks = true;
  return r;
}

/** Subcommands that run hooks from .git/hooks (githooks(5)). */
const GIT_HOOKED = new Set(['commit', 'merge', 'push', 'checkout', 'switch', 'rebase', 'am', 'pull', 'cherry-pick', 'revert', 'gc', 'clone']);

function gitSub(sub: string, rest: Arg[], cwd: string | undefined, repo: string): CmdResult {
  const { pos, opts } = positionals(rest, new Set(['-m', '-F', '-C', '-c', '-b', '-B', '--message', '--file', '--author', '--date', '-o', '--origin', '--depth', '--branch', '--upload-pack']));
  if (GIT_NET.has(sub)) {
    const r = result('transfer', []);
    const remote = pos[0]?.text ?? 'origin';
    r.resources.push(hostOf(remote) ?? remoteHost(remote) ?? `remote:${remote}`);
    if (sub === 'push' && (opts.has('--force') || opts.has('-f') || opts.has('--force-with-lease') || pos.some((p) => p.text.startsWith('+')))) {
      r.reasons.push({ level: 'high', reason: 'force-pushes (rewrites history on the remote)' });
    }
    if (sub === 'push' && (opts.has('--delete') || opts.has('-d') || pos.some((p) => p.text.startsWith(':')))) {
      r.reasons.push({ level: 'high', reason: 'deletes a branch or tag on the remote' });
    }
    if (sub === 'clone' && pos[1]) r.resources.push(resolvePath(pos[1].text, cwd, pos[1].dynamic));
    if (sub === 'pull' || sub === 'clone') r.resources.push(repo);
    return r;
  }
  if (sub === 'clean') return result('delete', [repo]);
  if (sub === 'rm') return result('delete', paths(pos, { cwd }));
  if (sub === 'reset' && opts.has('--hard')) return result('delete', [repo], { reasons: [{ level: 'medium', reason: 'discards uncommitted changes (git reset --hard)' }] });
  if (sub === 'branch' && (opts.has('-D') || opts.has('-d') || opts.has('--delete'))) return result('delete', [repo]);
  if (sub === 'stash' && (pos[0]?.text === 'drop' || pos[0]?.text === 'clear')) return result('delete', [repo]);
  if (sub === 'stash' && (pos[0]?.text === 'list' || pos[0]?.text === 'show')) return result('read', [repo]);
  if (sub === 'branch' && pos.length === 0) return result('read', [repo]);
  if (sub === 'tag' && (pos.length === 0 || opts.has('-l') || opts.has('--list'))) return result('read', [repo]);
  if (sub === 'remote' && (pos.length === 0 || pos[0].text === 'show' || pos[0].text === 'get-url')) return result('read', [repo]);
  if (sub === 'config' && (opts.has('--get') || opts.has('--list') || opts.has('-l') || opts.has('--get-all') || pos.length === 1)) return result('read', [repo]);
  if (sub === 'worktree' && pos[0]?.text === 'list') return result('read', [repo]);
  if (GIT_READ.has(sub)) return result('read', [repo]);
  if (GIT_WRITE.has(sub)) {
    const files = sub === 'add' || sub === 'checkout' || sub === 'restore' ? paths(pos, { cwd }).filter((p) => p !== repo) : [];
    // `git config core.hooksPath`/aliases and `.git/config` run code later: the core's chain rules see .git/config.
    const extra = sub === 'config' || sub === 'remote' ? [path.posix.join(repo, '.git/config')] : [];
    return result('write', [repo, ...files, ...extra]);
  }
  // Aliases and external subcommands (git-foo) run arbitrary programs.
  return result('execute', [repo]);
}

// --- interpreters and package managers -----------------------------------------------------

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'fish', 'mksh', 'yash', 'busybox']);
const SHELL_VALUE = new Set(['-o', '-O', '+o', '+O', '--rcfile', '--init-file']);
/** Interpreter → [options taking inline code, options taking a value, options that make it read stdin]. */
const INTERPRETERS: Record<string, [string[], string[]] | undefined> = lookupTable({
  python: [['-c'], ['-m', '-W', '-X', '-Q']],
  node: [['-e', '--eval', '-p', '--print'], ['-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file']],
  perl: [['-e', '-E'], ['-I', '-M', '-m', '-x']],
  ruby: [['-e'], ['-I', '-r', '-C', '-E']],
  php: [['-r'], ['-d', '-c', '-f']],
  lua: [['-e'], ['-l']],
  Rscript: [['-e'], []],
  osascript: [['-e'], []],
  deno: [['eval'], []],
  bun: [['-e', '--eval'], []],
  tclsh: [[], []],
  pwsh: [['-c', '-Command', '-command'], []],
});

function interpreterName(name: string): string | null {
  if (INTERPRETERS[name]) return name;
  if (/^python[0-9.]*$/.test(name) || name === 'pypy' || name === 'pypy3') return 'python';
  if (/^(?:perl|ruby|php|lua)[0-9.]*$/.test(name)) return name.replace(/[0-9.]+$/, '');
  if (name === 'nodejs') return 'node';
  return null;
}

function shell(args: Arg[], ctx: CmdContext): CmdResult {
  const r = result('execute', []);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.text === '-c' || (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a.text) && !a.dynamic)) {
      const script = args[i + 1];
      if (!script) return r;
      r.script = { text: script.text, dynamic: script.dynamic };
      return r;
    }
    if (SHELL_VALUE.has(a.text)) {
      i++;
      continue;
    }
    if (a.text === '-s' || a.text === '-') {
      r.runsStdin = r.stdinIsShell = true;
      return r;
    }
    if (a.text.startsWith('-') || a.text.startsWith('+')) continue;
    const p = resolvePath(a.text, ctx.cwd, a.dynamic);
    r.resources.push(p);
    r.runs = p;
    return r;
  }
  r.runsStdin = r.stdinIsShell = true;
  return r;
}

/** Flags after which an interpreter prints and exits (`ruby -v`, `python -v` would go on to read a program). */
const VERSION_ONLY: Record<string, string[] | undefined> = lookupTable({ node: ['-v'], python: ['-V'] });

function interpreter(kind: string, args: Arg[], ctx: CmdContext): CmdResult {
  // `kind` comes from interpreterKind(), which only returns names in the table.
  const [inline, valued] = INTERPRETERS[kind] ?? [[], []];
  if (args.length === 1 && ['--version', '--help', '-h', ...(VERSION_ONLY[kind] ?? [])].includes(args[0].text)) return result('read');
  const r = result('execute', []);
  for (let i = 0; i < args.length; i++) {
    const a = args[i].text;
    if (inline.includes(a)) return r; // inline program text: visible in the args, not a file
    if (kind === 'perl' && /^-[a-zA-Z]*i/.test(a)) {
      // perl -i -pe '…' file: edits files in place.
      r.action = 'execute';
      r.resources.push(...paths(args.slice(i + 1).filter((x) => !x.text.startsWith('-')).slice(1), ctx));
      return r;
    }
    if (valued.includes(a)) {
      if (kind === 'python' && a === '-m' && args[i + 1]) r.resources.push(`python module ${args[i + 1].text}`);
      i++;
      if (kind === 'python' && a === '-m') return r;
      continue;
    }
    if (a === '-') {
      r.runsStdin = true;
      return r;
    }
    if (a.startsWith('-')) continue;
    if (kind === 'deno' || kind === 'bun') {
      if (a === 'run' || a === 'x') continue;
      if (a === 'install' || a === 'add') return installer(r);
    }
    const p = resolvePath(a, ctx.cwd, args[i].dynamic);
    r.resources.push(p);
    r.runs = p;
    return r;
  }
  r.runsStdin = true;
  return r;
}

function installer(r: CmdResult): CmdResult {
  r.action = 'execute';
  r.reasons.push({ level: 'medium', reason: 'installs packages (their install scripts run as you)' });
  return r;
}

const PKG_READ = new Set(['ls', 'list', 'view', 'info', 'show', 'outdated', 'search', 'why', 'explain', 'freeze', 'help', 'config', 'doctor', 'whoami', 'root', 'prefix', 'bin', '--version', '-v', '-V', '--help', 'check', 'tree', 'metadata']);
const PKG_INSTALL = new Set(['install', 'i', 'ci', 'add', 'update', 'upgrade', 'up', 'get', 'remove', 'uninstall', 'rm', 'reinstall', 'dist-upgrade', 'full-upgrade', 'link']);
const PKG_PUBLISH = new Set(['publish', 'upload', 'push', 'release', 'deploy']);
const PKG_MANAGERS = new Set(['npm', 'yarn', 'pnpm', 'pip', 'pip3', 'pipx', 'uv', 'poetry', 'cargo', 'go', 'gem', 'bundle', 'composer', 'apt', 'apt-get', 'dnf', 'yum', 'brew', 'pacman', 'apk', 'snap', 'flatpak', 'conda', 'mamba', 'twine', 'dotnet', 'mvn', 'gradle']);

function packageManager(name: string, args: Arg[], ctx: CmdContext): CmdResult {
  const { pos } = positionals(args, new Set(['-C', '--prefix', '-w', '--workspace', '--filter', '-r', '--requirement', '-t', '--target']));
  const sub = pos[0]?.text ?? '';
  const repo = ctx.cwd ?? '.';
  if (PKG_PUBLISH.has(sub) || (name === 'twine' && sub === 'upload')) {
    return result('transfer', [repo], { reasons: [{ level: 'high', reason: `publishes a package (${name} ${sub})` }] });
  }
  // Bare `yarn` and `bundle` install dependencies; bare `npm`, `pip` … print help.
  if (args.length === 0) return name === 'yarn' || name === 'bundle' ? installer(result('execute', [repo])) : result('read', [repo]);
  if (PKG_READ.has(sub) || (name === 'pip' && sub === 'freeze')) return result('read', [repo]);
  if (PKG_INSTALL.has(sub)) return installer(result('execute', [repo]));
  // run, test, build, exec, start, make targets, `go run`, `cargo run`: runs project code.
  return result('execute', [repo]);
}

// --- wrappers ------------------------------------------------------------------------------

/** Programs that run another argv: how many leading args (options) belong to the wrapper. */
function unwrap(name: string, args: Arg[]): { args: Arg[]; reason?: RiskReason } | null {
  const skipOpts = (withValue: Set<string>, stopAtAssign = false): Arg[] => {
    let i = 0;
    while (i < args.length) {
      const a = args[i].text;
      if (a === '--') return args.slice(i + 1);
      if (stopAtAssign && /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
        i++;
        continue;
      }
      if (!a.startsWith('-') || a === '-') break;
      if (withValue.has(a)) i += 2;
      else i++;
    }
    return args.slice(i);
  };
  switch (name) {
    case 'sudo':
    case 'doas':
    case 'run0':
    case 'pkexec': {
      const rest = skipOpts(new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '--user', '--group', '--chdir', '--prompt', '--role', '--type', '--other-user', '--close-from', '--command-timeout', '--host']), true);
      return { args: rest, reason: { level: 'high', reason: `runs as another user (${name})` } };
    }
    case 'env':
      return { args: skipOpts(new Set(['-u', '-C', '-S', '--unset', '--chdir', '--split-string']), true) };
    case 'nice':
      return { args: skipOpts(new Set(['-n', '--adjustment'])) };
    case 'ionice':
      return { args: skipOpts(new Set(['-c', '-n', '-p', '-t'])) };
    case 'timeout': {
      const rest = skipOpts(new Set(['-s', '-k', '--signal', '--kill-after']));
      return { args: rest.slice(1) }; // the duration
    }
    case 'stdbuf':
      return { args: skipOpts(new Set(['-i', '-o', '-e'])) };
    case 'nohup':
    case 'exec':
    case 'command':
    case 'builtin':
    case 'setsid':
    case 'unbuffer':
    case 'chronic':
    case 'caffeinate':
    case 'time':
    case 'strace':
    case 'ltrace':
    case 'torsocks':
    case 'proxychains':
    case 'proxychains4':
    case 'firejail':
    case 'fakeroot':
    case 'catchsegv':
      if (name === 'command' && (args[0]?.text === '-v' || args[0]?.text === '-V')) return null;
      return { args: skipOpts(new Set(['-o', '-e', '-p', '-s', '-u', '-f'])) };
    case 'flock': {
      const rest = skipOpts(new Set(['-w', '-E', '--timeout', '--conflict-exit-code']));
      return { args: rest.slice(1) }; // the lock file
    }
    default:
      return null;
  }
}

const XARGS_VALUE = new Set(['-I', '-i', '-L', '-l', '-n', '-P', '-d', '-E', '-e', '-s', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file', '--replace', '--max-lines', '--eof']);

/**
 * Classifies one argv (already expanded as far as possible). `depth` bounds wrappers
 * nested in wrappers (`sudo env nice sudo …`).
 */
export function classifyArgv(argv: Arg[], ctx: CmdContext, depth = 0): CmdResult {
  if (argv.length === 0) return result('other');
  if (depth > 16) return result('execute', [], { reasons: [{ level: 'medium', reason: 'too many nested command wrappers' }] });
  const head = argv[0];
  const args = argv.slice(1);
  if (head.dynamic) {
    return result('execute', [head.text], { reasons: [{ level: 'medium', reason: `runs a command whose name is computed at run time (${head.text.slice(0, 80)})` }] });
  }
  const full = head.text;
  const name = path.posix.basename(full);

  // `command -v x` / `command -V x` only looks a name up.
  if (name === 'command' && (args[0]?.text === '-v' || args[0]?.text === '-V')) return result('read');
  const wrapped = unwrap(name, args);
  if (wrapped) {
    if (wrapped.args.length === 0) return result(name === 'env' ? 'read' : 'execute', [], { reasons: wrapped.reason ? [wrapped.reason] : [] });
    const inner = classifyArgv(wrapped.args, ctx, depth + 1);
    if (wrapped.reason) inner.reasons.unshift(wrapped.reason);
    return inner;
  }
  if (name === 'xargs') {
    const { pos } = (() => {
      let i = 0;
      while (i < args.length && args[i].text.startsWith('-')) i += XARGS_VALUE.has(args[i].text) ? 2 : 1;
      return { pos: args.slice(i) };
    })();
    if (pos.length === 0) return result('read');
    // xargs itself only reads stdin; what it runs decides.
    return { ...result('read'), argv: pos };
  }

  if (SHELLS.has(name)) {
    if (name === 'busybox' && args[0] && !args[0].text.startsWith('-')) return classifyArgv(args, ctx, depth + 1);
    return shell(args, ctx);
  }
  if (name === 'eval') return { ...result('execute'), script: { text: args.map((a) => a.text).join(' '), dynamic: args.some((a) => a.dynamic) } };
  if (name === 'source' || name === '.') {
    const p = args[0] ? resolvePath(args[0].text, ctx.cwd, args[0].dynamic) : '';
    return result('execute', p ? [p] : [], { runs: p || undefined });
  }
  const interp = interpreterName(name);
  if (interp) return interpreter(interp, args, ctx);

  if (name === 'cd' || name === 'pushd') {
    const target = args.find((a) => !a.text.startsWith('-'));
    const dest = !target ? '~' : target.dynamic ? null : resolvePath(target.text, ctx.cwd);
    return result('read', [], { cd: dest });
  }
  if (READ_NO_PATHS.has(name)) return result('read');
  if (READ_PATHS.has(name)) {
    const { pos } = positionals(args, READ_VALUE[name] ?? new Set(['--ignore', '--max-depth', '-I', '-L', '-P', '-T', '-w']));
    return result('read', paths(pos, ctx));
  }
  if (PATTERN_FIRST[name]) {
    const { pos, opts } = positionals(args, PATTERN_FIRST[name]);
    const hasPatternOpt = opts.has('-e') || opts.has('-f') || opts.has('--regexp') || opts.has('--file');
    // awk's in-place edit and program-side effects (system(), print > file) are execute.
    if (/awk$/.test(name)) {
      const prog = opts.has('-f') ? '' : (pos[0]?.text ?? '');
      if (/\bsystem\s*\(|\|\s*"|\bgetline\b|>\s*"/.test(prog) || [...opts.values()].some((v) => v !== true && v.text === 'inplace')) {
        return result('execute', paths(pos.slice(1), ctx));
      }
    }
    return result('read', paths(hasPatternOpt ? pos : pos.slice(1), ctx));
  }
  if (name === 'sed') {
    const inPlace = args.some((a) => /^-[a-zA-Z]*i/.test(a.text) || a.text.startsWith('--in-place'));
    const { pos, opts } = positionals(
      args.filter((a) => !/^-[a-zA-Z]*i/.test(a.text) && !a.text.startsWith('--in-place')),
      new Set(['-e', '-f', '--expression', '--file', '-l']),
    );
    const files = opts.has('-e') || opts.has('-f') || opts.has('--expression') ? pos : pos.slice(1);
    // `sed -i` with a `w`/`e` command still only touches files; `e` runs shell commands.
    const script = [...(opts.has('-e') ? [(opts.get('-e') as Arg).text] : []), ...(files === pos ? [] : [pos[0]?.text ?? ''])].join('\n');
    const runs = /(^|[;\n}])\s*(?:\d+|\/[^/]*\/)?\s*e\b/.test(script);
    return result(runs ? 'execute' : inPlace ? 'write' : 'read', paths(files, ctx));
  }
  if (name === 'find') {
    const starts: Arg[] = [];
    let i = 0;
    while (i < args.length && !/^[-(!]/.test(args[i].text)) starts.push(args[i++]);
    const roots = starts.length ? paths(starts, ctx) : [resolvePath('.', ctx.cwd)];
    const expr = args.slice(i);
    for (let j = 0; j < expr.length; j++) {
      const t = expr[j].text;
      if (t === '-delete') return result('delete', roots);
      if (t === '-exec' || t === '-execdir' || t === '-ok' || t === '-okdir') {
        let end = j + 1;
        while (end < expr.length && expr[end].text !== ';' && expr[end].text !== '+') end++;
        const inner = expr.slice(j + 1, end).map((a) => (a.text === '{}' ? { text: roots[0], dynamic: false } : a));
        return { ...result('read', roots), argv: inner };
      }
      if (t === '-fprint' || t === '-fprintf' || t === '-fls' || t === '-fprint0') {
        const f = expr[j + 1];
        return result('write', [...roots, ...(f ? [resolvePath(f.text, ctx.cwd, f.dynamic)] : [])]);
      }
    }
    return result('read', roots);
  }

  if (DELETE_CMDS[name]) {
    const { pos, opts } = positionals(args, DELETE_CMDS[name]);
    const targets = paths(pos, ctx);
    const r = result('delete', targets);
    const recursive = opts.has('-r') || opts.has('-R') || opts.has('--recursive');
    const dangerous = targets.filter((t) => t === '/' || t === '~' || t === '/*' || t === '~/*' || /^\/[a-z]+\/?$/.test(t) && ['/usr', '/etc', '/bin', '/home', '/var', '/boot', '/lib'].includes(t.replace(/\/$/, '')));
    if (name === 'rm' && recursive && dangerous.length) r.reasons.push({ level: 'critical', reason: `recursively deletes ${dangerous.join(', ')}` });
    return r;
  }
  if (MODE_FIRST[name]) {
    const { pos } = positionals(args, MODE_FIRST[name]);
    const mode = pos[0]?.text ?? '';
    const files = paths(pos.slice(1), ctx);
    const r = result('write', files);
    if (name === 'chmod' && /(^|[,ugoa])[ugoa]*\+[rwX]*x|^[0-7]*[1357][0-7]{0,2}$/.test(mode) && /x|[1357]/.test(mode)) r.makesExecutable = files;
    return r;
  }
  if (WRITE_CMDS[name]) {
    const { pos, opts } = positionals(args, WRITE_CMDS[name]);
    const targetDir = opts.get('-t') ?? opts.get('--target-directory');
    const all = paths(pos, ctx);
    if (targetDir && targetDir !== true) all.push(resolvePath(targetDir.text, ctx.cwd, targetDir.dynamic));
    const r = result('write', all);
    if (name === 'tee' || name === 'touch') r.writes = all;
    else if ((name === 'cp' || name === 'mv' || name === 'install' || name === 'ln') && all.length) r.writes = [all[all.length - 1]];
    return r;
  }
  if (name === 'tar' || name === 'bsdtar') {
    const first = args[0]?.text ?? '';
    const create = /^-?[a-zA-Z]*[crua]/.test(first) || args.some((a) => a.text === '--create' || a.text === '--append');
    const { opts } = positionals(args.slice(/^-/.test(first) ? 0 : 1), new Set(['-f', '-C', '--file', '--directory', '-T', '-X']));
    const f = opts.get('-f') ?? opts.get('--file');
    const archive = f && f !== true ? resolvePath(f.text, ctx.cwd, f.dynamic) : null;
    const list = /^-?[a-zA-Z]*t/.test(first) || args.some((a) => a.text === '--list');
    if (list) return result('read', archive ? [archive] : []);
    const dir = opts.get('-C') ?? opts.get('--directory');
    const dest = dir && dir !== true ? resolvePath(dir.text, ctx.cwd, dir.dynamic) : resolvePath('.', ctx.cwd);
    return result('write', create ? (archive ? [archive] : []) : [dest, ...(archive ? [archive] : [])]);
  }
  if (name === 'dd') {
    const of = args.find((a) => a.text.startsWith('of='));
    const iff = args.find((a) => a.text.startsWith('if='));
    const res = [...(iff ? [resolvePath(iff.text.slice(3), ctx.cwd, iff.dynamic)] : []), ...(of ? [resolvePath(of.text.slice(3), ctx.cwd, of.dynamic)] : [])];
    const r = result(of ? 'write' : 'read', res);
    if (of && /^\/dev\/(?!null$|zero$|stdout$|stderr$)/.test(of.text.slice(3))) {
      r.action = 'delete';
      r.reasons.push({ level: 'critical', reason: `overwrites a device (${of.text.slice(3)})` });
    }
    return r;
  }
  if (DISK_DESTROYERS.has(name) || name.startsWith('mkfs.')) {
    return result('delete', paths(args.filter((a) => a.text.startsWith('/dev/')), ctx), { reasons: [{ level: 'critical', reason: `formats or repartitions a disk (${name})` }] });
  }
  if (name === 'crontab') {
    if (args.some((a) => a.text === '-l')) return result('read', ['crontab']);
    return result('write', ['crontab'], { reasons: [{ level: 'high', reason: 'changes scheduled jobs (crontab)' }] });
  }

  if (name === 'curl') return curl(args, ctx);
  if (name === 'wget') return wget(args, ctx);
  if (name === 'http' || name === 'https' || name === 'xh' || name === 'httpie' || name === 'aria2c' || name === 'fetch') {
    const { pos } = positionals(args, new Set(['-o', '--output', '-a', '--auth']));
    const hosts = pos.map((a) => hostOf(a.text)).filter((h): h is string => !!h);
    return result('transfer', hosts, { download: true });
  }
  if (name === 'scp') return scpLike(args, ctx, new Set(['-c', '-F', '-i', '-J', '-l', '-o', '-P', '-S']));
  if (name === 'rsync') {
    const r = scpLike(args, ctx, new Set(['-e', '--rsh', '--exclude', '--include', '--filter', '-f', '--exclude-from', '--include-from', '--files-from', '--chmod', '--rsync-path', '--port', '--password-file', '--log-file', '-T', '--temp-dir', '--partial-dir', '--backup-dir', '--suffix', '--bwlimit', '--max-size', '--min-size', '--timeout']));
    if (args.some((a) => a.text.startsWith('--delete') || a.text === '--remove-source-files')) r.reasons.push({ level: 'medium', reason: 'deletes files at the destination (rsync --delete)' });
    return r;
  }
  if (name === 'ssh') {
    const { pos } = positionals(args, SSH_VALUE);
    const host = pos[0] ? pos[0].text.replace(/^[^@]*@/, '').replace(/^ssh:\/\//, '').toLowerCase() : '';
    return result('transfer', host ? [host] : []);
  }
  if (NETCAT.has(name)) {
    const { pos } = positionals(args, new Set(['-p', '-s', '-w', '-e', '-c', '-i', '-q', '-x', '-X', '-t', '-W', '-c', '-b']));
    const hosts = pos.filter((a) => !/^\d+$/.test(a.text) && !a.text.startsWith('-')).map((a) => hostOf(a.text) ?? a.text);
    const r = result('transfer', name === 'openssl' ? hosts.filter((h) => h.includes('.') || h.includes(':')) : hosts);
    if (args.some((a) => a.text === '-e' || a.text === '-c') && (name === 'nc' || name === 'ncat' || name === 'netcat')) {
      r.reasons.push({ level: 'critical', reason: 'connects a shell to the network (nc -e)' });
    }
    return r;
  }
  if (name === 'git') return git(args, ctx);
  if (name === 'gh' || name === 'glab') {
    const sub = args[0]?.text ?? '';
    const verb = args[1]?.text ?? '';
    if (['list', 'view', 'status', 'diff', 'checks'].includes(verb) || sub === 'auth' && verb === 'status') return result('transfer', ['github.com']);
    return result('transfer', [name === 'gh' ? 'github.com' : 'gitlab.com'], { reasons: verb === 'delete' ? [{ level: 'high', reason: `${name} ${sub} delete` }] : [] });
  }
  if (name === 'aws' || name === 'gsutil' || name === 'gcloud' || name === 'az' || name === 'rclone' || name === 's3cmd') {
    const verbs = args.map((a) => a.text);
    if (verbs.includes('rm') || verbs.includes('delete') || verbs.includes('rb')) return result('delete', [name]);
    return result('transfer', [name]);
  }
  if (name === 'docker' || name === 'podman') {
    const sub = args.find((a) => !a.text.startsWith('-'))?.text ?? '';
    if (['ps', 'images', 'logs', 'inspect', 'version', 'info', 'stats', 'top', 'history'].includes(sub)) return result('read', [name]);
    if (['push', 'pull', 'login'].includes(sub)) return result('transfer', [name]);
    if (['rm', 'rmi', 'prune', 'kill'].includes(sub)) return result('delete', [name]);
    return result('execute', [name]);
  }
  if (name === 'kubectl' || name === 'helm') {
    const sub = args.find((a) => !a.text.startsWith('-'))?.text ?? '';
    if (['get', 'describe', 'logs', 'top', 'explain', 'version', 'list', 'status', 'diff'].includes(sub)) return result('read', [name]);
    if (['delete', 'uninstall'].includes(sub)) return result('delete', [name]);
    return result('execute', [name]);
  }
  if (PKG_MANAGERS.has(name)) return packageManager(name, args, ctx);
  if (name === 'npx' || name === 'pnpx' || name === 'bunx' || name === 'uvx') return result('execute', args[0] ? [`package ${args[0].text}`] : [], { reasons: [{ level: 'medium', reason: `${name} may download and run a package` }] });

  // Unknown program: it can do anything. A path means a local file is being run.
  const runs = full.includes('/') ? resolvePath(full, ctx.cwd) : undefined;
  return result('execute', [runs ?? name], { runs });
}
