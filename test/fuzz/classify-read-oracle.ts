// The oracle of the differential read fuzzer (classify-read.fuzz.ts): runs one shell line
// with the real bash, in a throwaway directory, inside bubblewrap (read-only /, no
// network, a fresh /tmp) under strace, and says what the line really did that a read
// must not do:
//   - ran a program none of the line's own words names, or one outside the system
//     directories (the planted ./ls, ./git, ./cat … of the scene, PATH-looking dirs);
//   - opened anything for writing (but /dev/null, the terminal and the standard fds),
//     created, deleted, renamed or linked a file, changed modes;
//   - connected a socket (but glibc's nscd probe);
//   - tripped a tripwire: a planted program or git hook leaves TRIPPED-<name> behind,
//     and the scene is compared before and after.
// What a program does by design and the classifier accepts is listed below (BY_DESIGN),
// each with why: a false alarm is fixed here, never by loosening the classifier.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sh, type ShCallExpr } from '../../main/core/classify/sh-ast';
import { wordValue, wordValues } from '../../main/core/classify/sh-words';

/** Where the scene is mounted inside the sandbox: also the cwd given to the classifier. */
export const SANDBOX_CWD = '/tmp/w';
export const TRACE_DIR = '/tmp/trace';
export const SANDBOX_HOME = '/tmp/home';

/** Directories a program may be run from and still be the program its name says. */
const SYSTEM_DIRS = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$|^\/usr\/lib\/(git-core|man-db)\/[^/]+$|^\/usr\/libexec\//;

/**
 * Programs a named program runs by design, and why that is still a read:
 * xargs without a command runs echo; zcat & co. are gzip scripts; egrep/fgrep run grep;
 * yq (the Python one) runs jq; git runs its own git-* helpers; man runs its formatter
 * pipeline (groff, tbl, a pager on no terminal is cat-like) on the system's pages.
 */
const HELPERS: Record<string, readonly string[]> = {
  xargs: ['echo'],
  zcat: ['gzip'], gunzip: ['gzip'], zless: ['gzip', 'less'], zgrep: ['gzip', 'grep'], zmore: ['gzip', 'more'],
  egrep: ['grep'], fgrep: ['grep'],
  yq: ['jq'],
  // diff -l (--paginate) passes its output through pr.
  diff: ['pr'],
  // npm, npx, pnpm and yarn are Node scripts (`#!/usr/bin/env node`).
  npm: ['node'], npx: ['node'], pnpm: ['node'], yarn: ['node'],
  // `git help X` and `git X --help` show git's manual page with man; git's own shell-script
  // commands (git-bisect in /usr/lib/git-core) use a few coreutils and gettext.
  git: ['git', 'git-*', 'man', 'basename', 'sed', 'gettext', 'envsubst', 'uname', 'sh', 'cat', 'tr', 'wc', 'dirname'],
  // man -f is whatis, man -k apropos; a page is formatted by a pipeline of helpers.
  man: ['whatis', 'apropos', 'manconv', 'preconv', 'tbl', 'groff', 'nroff', 'troff', 'grotty', 'col', 'zsoelim', 'eqn', 'pager', 'less', 'more', 'cat', 'iconv', 'mandb', 'gzip', 'man-recode', 'locale', 'pic', 'gpic', 'refer', 'grap', 'vgrind', 'neqn', 'gtbl', 'geqn', 'grops', 'grohtml', 'post-grohtml', 'pre-grohtml'],
};

/** Files written by design. */
const WRITE_OK = [
  // /dev/fd/N is a descriptor already open (a pipe of <(…) or >(…); a file opened by a redirection is seen where it is opened).
  // `>(cmd)#x` names /dev/fd/63#x, which cannot be created.
  /^\/dev\/(null|tty|stdout|stderr|pts\/\d+)$|^\/dev\/fd\//,
  // gnulib reopens a closed standard input on /dev/full so that reading it fails (`cmp … 0<&-`).
  /^\/dev\/full$/,
  /^\/proc\/self\/fd\/\d+$/,
  // bash keeps a here-document that does not fit a pipe in a temporary file it deletes.
  /^\/tmp\/sh-thd[.\w-]*$/,
  // Scratch files a program makes for itself in $TMPDIR (tac and sort on a pipe, the JVM's
  // perf data): the sandbox's own /tmp, not the scene, the home or anything it keeps.
  /^\/tmp\/(?!w\/|w$|trace\/|home\/|home$)[^/]+(\/[^/]+)?$/,
  /^\/proc\/self\/coredump_filter$/,
  // pidof (killall5) logs to syslog and the console.
  /^\/dev\/console$/,
  // man keeps formatted pages in its system cache (root-owned; the attempt fails as a user).
  /^\/var\/cache\/man\//,
];
/**
 * Writes some programs make by design, only when the line names them: the JVM's perf-data
 * file (/tmp/hsperfdata_USER/PID, opened relative to that directory); top (procps 4)
 * creates its empty configuration directory ~/.config/procps on start.
 */
const WRITE_OK_FOR: Record<string, RegExp> = {
  java: /^\d+$/, javac: /^\d+$/,
  top: /^\/tmp\/home\/\.config(\/procps)?$/,
  // npm keeps a debug log of every command and its update check under ~/.npm.
  npm: /^\/tmp\/home\/\.npm(\/.*)?$/,
};
/**
 * Reverse DNS look-ups of the sockets netstat lists (and ss -r): names of peers already
 * connected, not words the agent chose. `getent hosts localhost` asks DNS for localhost's
 * IPv6 address when /etc/hosts has none: a fixed name, nothing chosen. npm's update notifier asks the registry for npm's
 * own latest version (nothing the agent chose), whatever the command. `ss NAME` and `getent hosts NAME` look a chosen
 * name up, which is a transfer (the fuzzer flags them).
 */
const DNS_OK = (line: string, named: Set<string>) => named.has('netstat') || named.has('npm') || (named.has('getent') && /\bgetent\s+(hosts|ahosts\w*)\s+localhost(\s|$)/.test(line)) || (named.has('ss') && /(^|\s)(-\w*r\w*|--resolve)(\s|$)/.test(line));
const DNS = /sin6?_port=htons\(53\)/;
/**
 * Connections some reads make by design (sh-readonly.ts says so): docker/podman reads ask
 * the local daemon over its socket; kubectl reads ask the user's cluster.
 */
const CONNECT_OK_FOR: Record<string, RegExp> = {
  docker: /sun_path="[^"]*(docker|podman)[^"]*\.sock"/, podman: /sun_path="[^"]*podman[^"]*"/,
  kubectl: /AF_INET6?/,
  // journalctl -M asks systemd-machined, on the local system bus, for a container's journal.
  journalctl: /sun_path="\/run\/dbus\/system_bus_socket"/,
};
/** git runs this hook of the session's own repository when a read refreshes the index: that repository is trusted as its config is (a write to .git/hooks asks, high). */
const SESSION_HOOK_OK = /^\.git\/hooks\/post-index-change$|^\/tmp\/w\/TRIPPED-hook-post-index-change$|^TRIPPED-hook-post-index-change$/;
/**
 * git refreshes the index of the session's repository with an optional lock (git-status(1),
 * "BACKGROUND REFRESH"), and `--remerge-diff` keeps its scratch objects in a temporary
 * directory of the object store it removes: its own files, accepted.
 */
const GIT_INDEX = /(^|\/)\.git\/(index(\.lock)?|objects\/tmp_objdir-[\w-]+(\/pack)?)$/;
const CONNECT_OK = /sun_path="(\/(var\/)?run\/nscd\/socket|\/dev\/log)"/;

export interface Finding {
  kind: 'exec-unnamed' | 'exec-outside' | 'write' | 'fs-change' | 'connect' | 'tripwire' | 'scene-changed';
  detail: string;
}

export interface OracleRun {
  findings: Finding[];
  timedOut: boolean;
  ms: number;
  execs: number;
}

// --- the scene ---------------------------------------------------------------------------

/** Names planted as programs in the scene (and in its PATH-looking dirs), each a tripwire. */
function tripwire(name: string): string {
  return `#!/bin/sh\n: > ${SANDBOX_CWD}/TRIPPED-${name.replace(/[^\w.-]/g, '_')}\n`;
}

/**
 * Builds the scene once: ordinary files, files named like options, planted programs
 * named like the allowlisted ones (here and in bin/, 0/, .bin/), the session's git
 * repository with every hook a tripwire, and a repository in sub/ whose configuration
 * names tripwires (core.fsmonitor, diff.external, a textconv driver, core.pager).
 */
export function buildScene(dir: string, programs: readonly string[]): void {
  fs.mkdirSync(dir, { recursive: true });
  const w = (p: string, text: string | Buffer, mode = 0o644) => {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), text, { mode });
  };
  w('a.txt', 'a\nx\nb a\n');
  w('b.json', '{"a":1,"b":[1,2]}\n');
  w('notes.md', '# notes\nx\n');
  w('x.y', 'x\n');
  w('dir/c.txt', 'c\n');
  w('a.gz', Buffer.from('H4sIAAAAAAAAA0vkqlDkSuIqSgQAWj3G9QgAAAA=', 'base64'));
  for (const f of ['-rf', '-o', '-e', '-i', '-f', '--help', '-delete', '-exec', '--output=TRIPPED-output', '--pre=./cat', '--checkpoint-action=exec=./cat', '--files0-from=a.txt', '-fprint', '--in-place', '-n']) w(f, 'x\n');
  const names = [...new Set([...programs, 'git', 'sh', 'bash', 'env', 'xargs', 'rm', 'find', 'echo', 'gzip', 'jq', 'less', 'pager', 'groff', 'touch', 'python3', 'perl', 'node'])];
  for (const n of names.filter((x) => /^[\w.+[-]+$/.test(x) && x !== '.' && x !== '..')) {
    for (const d of COMMON.has(n) ? ['', 'bin/', '0/', '.bin/'] : ['']) if (!fs.existsSync(path.join(dir, d, n))) w(`${d}${n}`, tripwire(`${d.replace('/', '-')}${n}`), 0o755);
  }
  const git = (cwd: string, ...args: string[]) => {
    const r = spawnSync('git', args, { cwd, env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'f', GIT_AUTHOR_EMAIL: 'f@x', GIT_COMMITTER_NAME: 'f', GIT_COMMITTER_EMAIL: 'f@x' }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', 'a.txt', 'b.json', 'notes.md', 'dir/c.txt');
  git(dir, 'commit', '-q', '-m', 'one');
  git(dir, 'stash', 'list');
  const hooks = ['applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'pre-receive', 'update', 'proc-receive', 'post-receive', 'post-update', 'reference-transaction', 'push-to-checkout', 'pre-auto-gc', 'post-rewrite', 'sendemail-validate', 'fsmonitor-watchman', 'p4-changelist', 'p4-prepare-changelist', 'p4-post-changelist', 'p4-pre-submit', 'post-index-change'];
  for (const h of hooks) w(`.git/hooks/${h}`, tripwire(`hook-${h}`), 0o755);
  // sub/: another repository, configured to run tripwires: git there is never a read.
  fs.mkdirSync(path.join(dir, 'sub'));
  git(path.join(dir, 'sub'), 'init', '-q', '-b', 'main');
  w('sub/a.txt', 'a\n');
  w('sub/.gitattributes', '* diff=t\n');
  git(path.join(dir, 'sub'), 'add', 'a.txt', '.gitattributes');
  git(path.join(dir, 'sub'), 'commit', '-q', '-m', 'one');
  w('sub/a.txt', 'b\n');
  for (const [k, v] of [['core.fsmonitor', `${SANDBOX_CWD}/cat`], ['core.pager', `${SANDBOX_CWD}/cat`], ['diff.external', `${SANDBOX_CWD}/cat`], ['diff.t.textconv', `${SANDBOX_CWD}/cat`], ['core.hooksPath', `${SANDBOX_CWD}/bin`], ['alias.log', '!./cat']]) git(path.join(dir, 'sub'), 'config', k, v);
}

/** Planted in the PATH-looking dirs too (all of them everywhere would make every copy of the scene slow). */
const COMMON = new Set(['ls', 'cat', 'git', 'grep', 'sed', 'find', 'sh', 'bash', 'env', 'echo', 'head', 'rm', 'less', 'pager', 'jq', 'sort', 'wc', 'xargs', 'awk']);

/** Names, sizes and modes of everything in the scene (outside .git/index, which git refreshes). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel + e.name;
      if (GIT_INDEX.test(r) || /(^|\/)\.git\/(objects|logs)\//.test(r + '/')) continue;
      const st = fs.lstatSync(path.join(d, e.name));
      out.set(r, `${st.mode}:${e.isDirectory() ? 'd' : st.size}`);
      if (e.isDirectory()) walk(path.join(d, e.name), r + '/');
    }
  };
  walk(dir, '');
  return out;
}

// --- running ---------------------------------------------------------------------------

const TRACED = 'execve,execveat,open,openat,openat2,creat,connect,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,rmdir,link,linkat,symlink,symlinkat,chmod,fchmodat,chown,fchownat,lchown,truncate,mknod,mknodat,bind';

export interface Sandbox {
  /** Runs one line in a fresh copy of the scene; resolves with what the oracle found. */
  run(line: string, timeoutMs: number): Promise<OracleRun>;
}

/**
 * Runs `bash -c LINE` under strace inside bubblewrap (read-only /, no network, the given
 * mounts for /tmp, the scene and `traceHost` at TRACE_DIR) and returns each process's
 * trace, oldest first: the read and the write oracles share it.
 */
export async function traceInSandbox(mounts: string[], traceHost: string, line: string, timeoutMs: number): Promise<{ timedOut: boolean; traces: string[] }> {
  const args = [
    '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...mounts,
    '--unshare-all', '--die-with-parent', '--new-session', '--chdir', SANDBOX_CWD, '--clearenv',
    '--setenv', 'PATH', '/usr/local/bin:/usr/bin:/bin', '--setenv', 'HOME', SANDBOX_HOME, '--setenv', 'LANG', 'C.UTF-8',
    '--setenv', 'TERM', 'dumb', '--setenv', 'TMPDIR', '/tmp',
    '/usr/bin/strace', '-ff', '-qq', '-s', '1024', '-e', 'signal=none', '-e', `trace=${TRACED}`, '-o', `${TRACE_DIR}/t`,
    '/bin/bash', '-c', line,
  ];
  const timedOut = await new Promise<boolean>((resolve) => {
    const child = spawn('/usr/bin/bwrap', args, { stdio: ['ignore', 'ignore', 'ignore'], detached: true });
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, timeoutMs);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(killed);
    });
    child.on('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  const traces = fs.readdirSync(traceHost).filter((f) => f.startsWith('t.')).map((f) => ({ pid: Number(f.split('.').pop()), text: fs.readFileSync(path.join(traceHost, f), 'latin1') })).sort((a, b) => a.pid - b.pid);
  return { timedOut, traces: traces.map((t) => t.text) };
}

export function makeSandbox(workRoot: string, template: string): Sandbox {
  let n = 0;
  const before = snapshot(template);
  return {
    async run(line: string, timeoutMs: number): Promise<OracleRun> {
      const t0 = Date.now();
      const id = `${process.pid}-${n++}`;
      const scene = path.join(workRoot, `w-${id}`);
      const trace = path.join(workRoot, `t-${id}`);
      fs.cpSync(template, scene, { recursive: true, verbatimSymlinks: true });
      fs.mkdirSync(trace);
      try {
        const { timedOut, traces: texts } = await traceInSandbox(['--tmpfs', '/tmp', '--bind', scene, SANDBOX_CWD, '--bind', trace, TRACE_DIR, '--dir', SANDBOX_HOME], trace, line, timeoutMs);
        const traces = texts.map((text) => ({ text }));
        const findings = analyse(line, traces.map((t) => t.text));
        const gitNamed = namedWords(line).has('git');
        for (const f of fs.readdirSync(scene)) if (f.startsWith('TRIPPED-') && !(gitNamed && SESSION_HOOK_OK.test(f))) findings.push({ kind: 'tripwire', detail: f });
        const after = snapshot(scene);
        const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k) && !k.startsWith('TRIPPED-'));
        if (changed.length) findings.push({ kind: 'scene-changed', detail: changed.slice(0, 5).join(', ') });
        const execs = traces.reduce((s, t) => s + (t.text.match(/^execve\(/gm)?.length ?? 0), 0);
        return { findings: dedupe(findings), timedOut, ms: Date.now() - t0, execs };
      } finally {
        fs.rmSync(scene, { recursive: true, force: true });
        fs.rmSync(trace, { recursive: true, force: true });
      }
    },
  };
}

/** Each finding once (a kind and its detail); the write oracle's findings too. */
export function dedupe<F extends { kind: string; detail: string }>(fs_: F[]): F[] {
  const seen = new Set<string>();
  return fs_.filter((f) => {
    const k = `${f.kind}:${f.detail}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

// --- reading the trace -------------------------------------------------------------------

/** strace's C-style string escapes. */
function unescape(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)/g, (_m, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: '\n', t: '\t', r: '\r', v: '\v', f: '\f', a: '\x07', b: '\b' } as Record<string, string>)[e] ?? e;
  });
}
const STR = /"((?:[^"\\]|\\.)*)"/g;
const strings = (s: string) => [...s.matchAll(STR)].map((m) => unescape(m[1]));

/**
 * Every word of every simple command in the line, as the parser reads it (quotes removed,
 * `$'…'` decoded), and the raw tokens too: the programs the line names. A program bash
 * runs that is not among them means bash read the line otherwise than the parser.
 */
export function namedWords(line: string): Set<string> {
  const out = new Set<string>();
  const add = (w: string) => {
    if (!w) return;
    out.add(w);
    out.add(path.posix.basename(w));
  };
  // Raw tokens, and the same with quotes and backslashes dropped (`bash -c 'st"at" x'`: the
  // inner script's words are not words of the outer parse).
  for (const text of [line, line.replace(/["'\\]/g, '')]) for (const t of text.split(/[\s;|&()<>`'"{},=$\\]+/)) add(t);
  try {
    const S = sh();
    S.Walk(S.NewParser().Parse(line, 'l'), (n) => {
      // The words bash makes of it too: `xargs e{xpr,}` runs expr.
      if (n && S.NodeType(n) === 'CallExpr') for (const w of (n as ShCallExpr).Args ?? []) for (const v of [wordValue(line, w), ...wordValues(line, w)]) add(v.text);
      return true;
    });
  } catch {
    /* unparsable: the raw tokens only */
  }
  return out;
}

export function analyse(line: string, traces: string[]): Finding[] {
  const findings: Finding[] = [];
  const named = namedWords(line);
  const allowedExec = new Set(named);
  // Helpers of helpers too (git help → man → groff).
  for (let round = 0; round < 3; round++) for (const [parent, helpers] of Object.entries(HELPERS)) if (allowedExec.has(parent)) for (const h of helpers) allowedExec.add(h);
  const gitNamed = named.has('git');
  traces.forEach((text, procIndex) => {
    let firstExec = procIndex === 0;
    for (const raw of text.split('\n')) {
      const m = /^(\w+)\((.*)\)\s+=\s+(-?\d+|\?)/.exec(raw);
      if (!m) continue;
      const [, call, argText, ret] = m;
      const ok = ret !== '-1';
      const s = strings(argText);
      if (call === 'execve' || call === 'execveat') {
        if (firstExec) {
          firstExec = false; // the /bin/bash -c LINE strace started
          continue;
        }
        const file = s[0] ?? '';
        const base = path.posix.basename(file);
        if (!ok && SYSTEM_DIRS.test(file)) continue; // execvp looking along PATH
        if (gitNamed && SESSION_HOOK_OK.test(file)) continue;
        if (!SYSTEM_DIRS.test(file)) findings.push({ kind: 'exec-outside', detail: `${file}${ok ? '' : ' (failed)'}` });
        else if (!allowedExec.has(base) && !(gitNamed && base.startsWith('git-'))) findings.push({ kind: 'exec-unnamed', detail: file });
        continue;
      }
      if (call === 'connect') {
        const byDesign = Object.entries(CONNECT_OK_FOR).some(([p, re]) => named.has(p) && re.test(argText));
        if (!byDesign && !CONNECT_OK.test(argText) && !(DNS.test(argText) && DNS_OK(line, named))) findings.push({ kind: 'connect', detail: argText.slice(0, 160) });
        continue;
      }
      if (call === 'open' || call === 'openat' || call === 'openat2' || call === 'creat') {
        const writes = call === 'creat' || /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/.test(argText);
        if (!writes) continue;
        const file = s[0] ?? '';
        if (WRITE_OK.some((re) => re.test(file))) continue;
        if (gitNamed && (GIT_INDEX.test(file) || SESSION_HOOK_OK.test(file))) continue;
        if (Object.entries(WRITE_OK_FOR).some(([p, re]) => named.has(p) && re.test(file))) continue;
        // Perl (shasum) tells a directory by opening it read-write: EISDIR, nothing written.
        if (!ok && /EISDIR/.test(raw)) continue;
        findings.push({ kind: 'write', detail: `${file} (${/O_\w+(\|O_\w+)*/.exec(argText)?.[0] ?? call})${ok ? '' : ' (failed)'}` });
        continue;
      }
      const file = s[0] ?? '';
      if (/^(unlink|unlinkat|mkdir|mkdirat|rmdir)$/.test(call) && WRITE_OK.some((re) => re.test(file))) continue;
      if (/^(rename|unlink|mkdir|rmdir)/.test(call) && gitNamed && s.every((x) => GIT_INDEX.test(x))) continue;
      if (/^mkdir/.test(call) && Object.entries(WRITE_OK_FOR).some(([p, re]) => named.has(p) && re.test(file))) continue;
      // A socket bound to the loopback address or a Unix name reaches nobody outside (pip binds ::1 to probe IPv6).
      if (call === 'bind' && (!/AF_INET/.test(argText) || /inet_addr\("127\.|inet_pton\(AF_INET6, "::1"/.test(argText))) continue;
      findings.push({ kind: 'fs-change', detail: `${call}(${s.join(', ').slice(0, 160)})${ok ? '' : ' (failed)'}` });
    }
  });
  return findings;
}
