// The oracle of the differential write fuzzer (classify-write.fuzz.ts). A line the
// classifier calls write, delete or transfer is let through silently by a grant when its
// classification (each part's action and resources) falls inside the grant. So the
// question is whether the real bash touches only what the classification names:
//   - it runs the line with the real bash in the read oracle's sandbox
//     (classify-read-oracle.ts traceInSandbox: bubblewrap, strace), but with the whole of
//     /tmp a host directory, snapshotted before and after: every file created, changed or
//     removed anywhere it may write is seen, whatever directory the line cd'ed into;
//   - a change is fine when it is within a resource of a non-read part (`rm -r dir`
//     removes dir/c.txt), is a directory made on the way to one (`mkdir -p`), or is git's
//     own index; anything else is a finding, as is a failed attempt to write outside
//     /tmp (the read-only root refused it: a real system would not), a program the line
//     does not name, a connection to a host it does not name, and a planted tripwire;
//   - then it asks the real core (RequestPolicy, GrantIndex, grantFromDecision, suggest,
//     the daemon's symbolic-link resolver) whether grants a human would make from this
//     prompt cover the line, and for each that does, whether every real change is one the
//     same grant would cover had the line named it (classify-write-grants.ts).
// By design (each with why): git's writes under .git/ and the session repository's hooks
// (the human's own; writing a hook asks, high), helpers a named program runs (tar → gzip).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandClassification } from '../../main/core/ports';
import { isWithin } from '../../main/core/classify/path-within';
import { globMatches } from '../../main/core/glob';
import { SANDBOX_CWD, SANDBOX_HOME, TRACE_DIR, analyse, buildScene, dedupe, namedWords, traceInSandbox, type Finding } from './classify-read-oracle';

export { SANDBOX_CWD };

/** Where the host directory standing for the sandbox's /tmp is seen inside it. */
const SANDBOX_TMP = '/tmp';
/** A directory next to the scene that no line names: a write there went through a link or `..`. */
export const OUTSIDE = '/tmp/outside';

/** Programs a named write program runs by design. */
const WRITE_HELPERS: Record<string, readonly string[]> = {
  // GNU tar starts its compressor through `/bin/sh -c` (xexec).
  tar: ['gzip', 'bzip2', 'xz', 'zstd', 'lzip', 'lzma', 'lzop', 'compress', 'sh'],
  // zip -T tests the archive with `unzip -tqq` through system().
  zip: ['unzip', 'sh'],
  gunzip: ['gzip'],
  // git runs its own helpers, the session repository's hooks, and a pager/editor it was not told to skip.
  git: ['git', 'git-*', 'sh', 'basename', 'sed', 'gettext', 'uname', 'cat', 'tr', 'wc', 'dirname', 'pager', 'less', 'editor', 'vi', 'vim', 'nano'],
  // install -s strips with strip.
  install: ['strip'],
};

export interface Effect {
  kind: 'write' | 'delete';
  /** The path as the sandbox saw it (/tmp/w/…). */
  path: string;
}

export interface WriteFinding {
  kind: 'unnamed-write' | 'unnamed-delete' | 'write-outside' | 'exec-unnamed' | 'exec-outside' | 'connect' | 'tripwire' | `grant:${string}`;
  detail: string;
}

export interface WriteRun {
  effects: Effect[];
  findings: WriteFinding[];
  timedOut: boolean;
  ms: number;
  execs: number;
}

// --- the scene ---------------------------------------------------------------------------

/**
 * The read fuzzer's scene, with what a write can be led through: links into .git/hooks,
 * to a directory outside the scene and to a file outside /tmp, and archives and a patch
 * whose contents name where they write (.git/hooks/pre-commit among them).
 */
export function buildWriteScene(dir: string, programs: readonly string[]): void {
  buildScene(dir, programs);
  const link = (target: string, name: string) => fs.symlinkSync(target, path.join(dir, name));
  link('.git/hooks', 'lnk-hooks');
  link('dir', 'lnk-dir');
  link('../outside', 'lnk-out');
  link('/etc/hostname', 'lnk-etc');
  link('a.txt', 'lnk-a');
  // What the archives and the patch hold: an ordinary file and a git hook.
  const stage = fs.mkdtempSync(path.join(path.dirname(dir), 'stage-'));
  try {
    fs.mkdirSync(path.join(stage, '.git/hooks'), { recursive: true });
    fs.writeFileSync(path.join(stage, '.git/hooks/pre-commit'), '#!/bin/sh\n: > TRIPPED-archived-hook\n', { mode: 0o755 });
    fs.writeFileSync(path.join(stage, 'from-archive.txt'), 'x\n');
    const run = (cmd: string, args: string[]) => {
      const r = spawnSync(cmd, args, { cwd: stage, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
    };
    run('tar', ['-cf', path.join(dir, 'a.tar'), 'from-archive.txt', '.git/hooks/pre-commit']);
    run('tar', ['-czf', path.join(dir, 'a.tgz'), 'from-archive.txt']);
    if (fs.existsSync('/usr/bin/zip')) run('zip', ['-q', path.join(dir, 'a.zip'), 'from-archive.txt', '.git/hooks/pre-commit']);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
  fs.writeFileSync(path.join(dir, 'p.diff'), '--- /dev/null\n+++ .git/hooks/post-checkout\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+: > TRIPPED-patched-hook\n--- a.txt\n+++ a.txt\n@@ -1,3 +1,3 @@\n-a\n+A\n x\n b a\n');
}

/** Kind, mode, size, mtime and link target of everything under `root` (git's object store and logs left out). */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel + e.name;
      if (r === path.basename(TRACE_DIR) || /(^|\/)\.git\/(objects|logs)$/.test(r)) continue;
      let st: fs.Stats;
      try {
        st = fs.lstatSync(path.join(d, e.name));
      } catch {
        continue;
      }
      // A directory's own mtime changes whenever an entry does: the entries say what changed.
      const what = e.isDirectory() ? 'd' : e.isSymbolicLink() ? `l>${fs.readlinkSync(path.join(d, e.name))}` : `${st.size}:${st.mtimeMs}`;
      out.set(r, `${st.mode}:${what}`);
      if (e.isDirectory()) walk(path.join(d, e.name), r + '/');
    }
  };
  walk(root, '');
  return out;
}

// --- judging -----------------------------------------------------------------------------

const GIT_OWN = /^\/tmp\/w\/\.git\/(index(\.lock)?|objects(\/.*)?|logs(\/.*)?|refs(\/.*)?|packed-refs|[A-Z_]+HEAD|COMMIT_EDITMSG|ORIG_HEAD|AUTO_MERGE|info(\/exclude)?|description|worktrees(\/.*)?|modules(\/.*)?|sequencer(\/.*)?|rebase-\w+(\/.*)?|gc\.\w+|shallow|FETCH_HEAD|MERGE_\w+|REBASE_HEAD|BISECT_\w+|sparse-checkout)$/;
const isTripwire = (p: string) => /\/TRIPPED-[^/]*$/.test(p);

/**
 * The non-read parts' resources that are paths (`~` is the sandbox's home). The classifier
 * takes a quoted `"~"` for the home directory too, though bash keeps it as a name in the
 * working directory: it names more than is written (the home directory, which no grant
 * covers), never less, so the literal `./~` counts as named as well.
 */
function namedPaths(c: Pick<CommandClassification, 'parts'>): string[] {
  return c.parts
    .filter((p) => p.action !== 'read')
    .flatMap((p) => p.resources.filter((x) => x.startsWith('/') || x === '~' || x.startsWith('~/')).flatMap((x) => (x.startsWith('~') ? [x.replace(/^~/, SANDBOX_HOME), `${SANDBOX_CWD}/${x}`] : [x])));
}

/**
 * mktemp makes a new empty file (O_EXCL) under a name of its own choosing: tmp.XXXXXXXXXX in
 * $TMPDIR or -p's directory, or the template's X's replaced. It can neither replace a file
 * nor pick a name a program would run, so it is named by the line that names mktemp.
 */
function mktempMade(line: string, named: string[], e: Effect): boolean {
  if (e.kind !== 'write' || !namedWords(line).has('mktemp')) return false;
  if (/^tmp\.[A-Za-z0-9]{10}/.test(path.posix.basename(e.path))) return true;
  return named.some((n) => {
    const m = /^(.*?)(X{3,})([^X/]*)$/.exec(n);
    return !!m && e.path.startsWith(m[1]!) && new RegExp(`^[A-Za-z0-9]{${m[2]!.length}}`).test(e.path.slice(m[1]!.length));
  });
}

/**
 * `p` is `n` or under it; a named pattern (`dir/*`, `{a,b}.txt`, as bash expands it) is
 * matched as one. A trailing `*` is also read as "any name that starts with the rest":
 * the classifier names split's outputs PREFIX* with PREFIX as given (quoting is gone),
 * so `split a.txt '{a,b}'` writing the literal `{a,b}aa` is named, though no word the
 * pattern `{a,b}*` expands to matches it.
 */
const within = (p: string, n: string) =>
  isWithin(p, n) || (/[*?[{]/.test(n) && (globMatches(n, p) || globMatches(`${n}/**`, p))) || (n.endsWith('*') && p.startsWith(n.slice(0, -1)) && !p.slice(n.length - 1).includes('/'));

/** A resource known only at run time: an expansion, or a tilde other than `~`/`~/` (`~user/x`, `~-/x`, sh-words.ts). */
const computed = (r: string) => /[$`]/.test(r) || /^~(?!\/|$)/.test(r);

/** Whether a change is one the classification names (within a named path, or a directory on the way to one). */
export { within };

export function effectNamed(line: string, c: Pick<CommandClassification, 'parts'>, e: Effect, gitNamed: boolean): boolean {
  // A part that says it writes files it does not list (tar -x, unzip, patch) announced them;
  // one whose path is computed at run time (`> $f`) names any path. No grant covers either
  // (the grant check, classify-write-grants.ts, holds them to that).
  if (c.parts.some((p) => p.action !== 'read' && (p.unlisted || p.resources.some(computed)))) return true;
  const named = namedPaths(c);
  if (named.some((n) => within(e.path, n))) return true;
  if (mktempMade(line, named, e)) return true;
  if (e.kind === 'write' && named.some((n) => isWithin(n, e.path))) return true;
  return gitNamed && GIT_OWN.test(e.path);
}

/** Hosts a line names (a transfer part's resources that are not paths). */
function namedHosts(c: Pick<CommandClassification, 'parts'>): Set<string> {
  const hosts = new Set<string>();
  // A transfer under a wrapper (`nice curl …`) is an execute part naming its host the same way.
  for (const p of c.parts) if (p.action === 'transfer' || p.action === 'execute') for (const r of p.resources) if (!r.startsWith('/')) hosts.add(r.replace(/:\d+$/, '').toLowerCase());
  if (hosts.has('localhost')) hosts.add('127.0.0.1').add('::1');
  return hosts;
}

function judgeTrace(line: string, c: Pick<CommandClassification, 'parts'>, traces: string[]): WriteFinding[] {
  const named = namedWords(line);
  const helpers = new Set<string>();
  for (const [p, hs] of Object.entries(WRITE_HELPERS)) if (named.has(p)) for (const h of hs) helpers.add(h);
  const hosts = namedHosts(c);
  const paths = namedPaths(c);
  const out: WriteFinding[] = [];
  for (const f of analyse(line, traces)) {
    if (f.kind === 'exec-unnamed') {
      const base = path.posix.basename(f.detail);
      if (helpers.has(base) || (helpers.has('git-*') && base.startsWith('git-'))) continue;
      out.push({ kind: 'exec-unnamed', detail: f.detail });
    } else if (f.kind === 'exec-outside') {
      // The session repository's own hooks, run by git (writing one asks, high).
      if (named.has('git') && /^(\/tmp\/w\/)?\.git\/hooks\/[\w-]+( \(failed\))?$/.test(f.detail)) continue;
      out.push({ kind: 'exec-outside', detail: f.detail });
    } else if (f.kind === 'connect') {
      const ip = /inet_(?:addr|pton)\((?:AF_INET6?, )?"([^"]+)"/.exec(f.detail)?.[1];
      if (ip && hosts.has(ip)) continue;
      // A host name looked up: fine when the line transfers to some host (a name it spells,
      // or one bash makes of it: `{a,b}.test`).
      if (/sin6?_port=htons\(53\)/.test(f.detail) && hosts.size > 0) continue;
      out.push({ kind: 'connect', detail: f.detail });
    } else if (f.kind === 'write' || f.kind === 'fs-change') {
      // Inside /tmp the snapshot says what changed; outside, the read-only root refused
      // the attempt, which on a real system would have succeeded.
      const file = f.kind === 'write' ? f.detail.replace(/ \(.*$/, '') : /^\w+\(([^,)]*)/.exec(f.detail)?.[1] ?? '';
      if (!file.startsWith('/') || file.startsWith('/tmp/') || file.startsWith('/dev/') || file.startsWith('/proc/')) continue;
      // A path the classification says is computed at run time may be this one (no grant covers it).
      if (c.parts.some((p) => p.action !== 'read' && p.resources.some(computed))) continue;
      if (paths.some((n) => within(file, n) || isWithin(n, file))) continue; // named, or a directory on the way (mkdir -p)
      // sed -i's temporary copy, beside the file it edits (its real target, --follow-symlinks)
      // and renamed over it.
      if (named.has('sed') && /^sed[A-Za-z0-9]{6}$/.test(path.posix.basename(file)) && paths.some((n) => path.posix.dirname(n) === path.posix.dirname(file))) continue;
      out.push({ kind: 'write-outside', detail: f.detail });
    }
  }
  return out;
}

// --- running ---------------------------------------------------------------------------

export interface WriteSandbox {
  /** The host directory that is /tmp inside the sandbox while a line runs (for the path resolver). */
  readonly hostTmp: string;
  /** Puts a fresh copy of the scene in place (before classifying with real paths). */
  prepare(): void;
  /** Runs one line in the prepared scene, judges what it did against `c`, and clears the scene. */
  run(line: string, c: Pick<CommandClassification, 'parts'>, timeoutMs: number): Promise<WriteRun>;
}

export function makeWriteSandbox(workRoot: string, template: string): WriteSandbox {
  const hostTmp = path.join(workRoot, 'tmp');
  const trace = path.join(hostTmp, path.basename(TRACE_DIR));
  const clear = () => fs.rmSync(hostTmp, { recursive: true, force: true });
  return {
    hostTmp,
    prepare() {
      clear();
      fs.mkdirSync(trace, { recursive: true });
      fs.cpSync(template, path.join(hostTmp, 'w'), { recursive: true, verbatimSymlinks: true });
      fs.mkdirSync(path.join(hostTmp, 'outside'));
      fs.writeFileSync(path.join(hostTmp, 'outside', 'f'), 'outside\n');
      fs.mkdirSync(path.join(hostTmp, path.basename(SANDBOX_HOME)));
    },
    async run(line, c, timeoutMs) {
      const t0 = Date.now();
      try {
        const before = snapshot(hostTmp);
        const { timedOut, traces } = await traceInSandbox(['--bind', hostTmp, SANDBOX_TMP], trace, line, timeoutMs);
        const after = snapshot(hostTmp);
        const effects: Effect[] = [];
        for (const k of new Set([...before.keys(), ...after.keys()])) {
          if (before.get(k) === after.get(k)) continue;
          effects.push({ kind: after.has(k) ? 'write' : 'delete', path: `${SANDBOX_TMP}/${k}` });
        }
        const gitNamed = namedWords(line).has('git');
        const findings = judgeTrace(line, c, traces);
        for (const e of effects) {
          if (isTripwire(e.path)) {
            if (!(gitNamed && /TRIPPED-hook-/.test(e.path))) findings.push({ kind: 'tripwire', detail: e.path });
          } else if (!effectNamed(line, c, e, gitNamed)) findings.push({ kind: e.kind === 'write' ? 'unnamed-write' : 'unnamed-delete', detail: e.path });
        }
        const execs = traces.reduce((s, t) => s + (t.match(/^execve\(/gm)?.length ?? 0), 0);
        // mktemp's own new file is no effect a grant is asked about (mktempMade).
        const named = namedPaths(c);
        return { effects: effects.filter((e) => !isTripwire(e.path) && !mktempMade(line, named, e)), findings: dedupe(findings), timedOut, ms: Date.now() - t0, execs };
      } finally {
        clear();
      }
    },
  };
}

export type { Finding };
