// git's read-only plumbing on a repository an agent controls, for main/os/git-tree.ts: the one
// way the daemon runs git on it. Only commands that run no configured program are used
// (rev-parse, diff-tree, diff-index --cached, ls-tree, ls-files -s, merge-base, rev-list,
// cat-file blob, config --get), never one that reads the work tree through git (diff-files
// and status would run clean filters and fsmonitor): the work tree is compared with the index
// here, by hashing its files as git would without filters, never following a symbolic link.
// Configuration is pinned where it could name a program or reach the network: no system or
// global config, core.fsmonitor off, hooks off, no external diff or textconv, no pager, no
// protocol allowed (a partial clone's lazy fetch would otherwise start ssh or
// core.sshCommand), no credential helper, no prompt, no optional locks (nothing written),
// implicit bare repositories refused. Each call is execFile with an argument array (no
// shell), a revision only after `--end-of-options`, standard input closed, a deadline shared
// by the whole look (killed past it), and an output cap. Anything that fails, times out or
// overflows throws Unknown, which git-tree.ts answers as `unknown`.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const GIT_TREE_LIMITS = {
  /** The whole look, every git call and the hashing together. */
  ms: 2000,
  /** Output of one git call. */
  outBytes: 8 * 1024 * 1024,
  /** Files listed; more is asked as "too many to judge one by one". */
  paths: 200,
  /** Commits a rebase replays, looked at one by one. */
  commits: 200,
  /** Work-tree bytes hashed in all (a bigger tree is asked); a file over `fileBytes` counts as changed unread. */
  hashBytes: 256 * 1024 * 1024,
  fileBytes: 64 * 1024 * 1024,
};

/** Same as sh-git-tree.ts PLAIN_REV: a revision word, never an option. Checked again here. */
export const PLAIN_REV = /^(?!-)[A-Za-z0-9._/@{}~^:+=,!-]{1,200}$/;

const SAFE_CONFIG = [
  'core.fsmonitor=false', 'core.hooksPath=/dev/null', 'core.untrackedCache=false', 'core.attributesFile=/dev/null',
  'diff.external=', 'core.pager=cat', 'core.sshCommand=false', 'credential.helper=', 'safe.bareRepository=explicit',
  'protocol.allow=never', 'protocol.file.allow=never', 'protocol.ext.allow=never', 'protocol.ssh.allow=never',
  'protocol.git.allow=never', 'protocol.http.allow=never', 'protocol.https.allow=never', 'gc.auto=0', 'maintenance.auto=false',
].flatMap((c) => ['-c', c]);

/** Only what git needs: nothing of the daemon's own GIT_* variables (GIT_DIR, GIT_EXTERNAL_DIFF …) reaches it. */
function gitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: os.homedir(),
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_ALLOW_PROTOCOL: 'airlock-none',
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_NO_LAZY_FETCH: '1',
    GIT_PAGER: 'cat',
    GIT_EDITOR: 'false',
    GIT_ASKPASS: 'false',
    SSH_ASKPASS: 'false',
    GIT_ATTR_NOSYSTEM: '1',
  };
}

export class Unknown extends Error {}

/** A path as git printed it (bytes); one that is not UTF-8 is not guessed at. */
function utf8(latin1: string): string {
  const p = Buffer.from(latin1, 'latin1').toString('utf8');
  if (p.includes('\uFFFD')) throw new Unknown('a path in the change is not UTF-8');
  return p;
}

export interface Entry {
  path: string;
  /** The new side's mode and object (what gets written), '' when removed. */
  mode: string;
  oid: string;
}

export class Looker {
  private readonly deadline: number;
  private readonly env = gitEnv();
  private hashed = 0;
  top = '';
  format: 'sha1' | 'sha256' = 'sha1';

  constructor(private readonly cwd: string, ms: number) {
    this.deadline = Date.now() + ms;
  }

  git(args: string[], input?: string, env: NodeJS.ProcessEnv = this.env, config = SAFE_CONFIG): Buffer {
    const left = this.deadline - Date.now();
    if (left <= 0) throw new Unknown('git took too long to answer');
    const r = spawnSync('git', ['--no-pager', ...config, ...args], {
      cwd: this.cwd,
      env,
      input: input ?? '',
      stdio: ['pipe', 'pipe', 'ignore'],
      timeout: left,
      killSignal: 'SIGKILL',
      maxBuffer: GIT_TREE_LIMITS.outBytes,
      windowsHide: true,
    });
    if (r.error) throw new Unknown((r.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'git is not installed where the daemon runs' : (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT' ? 'git took too long to answer' : 'git could not be asked');
    if (r.status !== 0) throw new Unknown(`git ${args[0]} failed (not a repository, or a revision it does not have)`);
    return r.stdout;
  }

  /** The object a plain revision names as a commit (or a tree), or null when it names none. */
  resolve(rev: string, as: 'commit' | 'tree' = 'commit'): string | null {
    if (!PLAIN_REV.test(rev)) throw new Unknown(`${rev.slice(0, 40)} is not a plain revision`);
    try {
      const out = this.git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{${as}}`]).toString().trim();
      return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(out) ? out : null;
    } catch (e) {
      if (e instanceof Unknown && /failed/.test(e.message)) return null;
      throw e;
    }
  }

  must(rev: string, as: 'commit' | 'tree' = 'commit'): string {
    const o = this.resolve(rev, as);
    if (!o) throw new Unknown(`${rev.slice(0, 40)} names no ${as} in this repository (a fetch first, a typo?)`);
    return o;
  }

  /** `:old new oldoid newoid status\0path\0` records (diff-tree, diff-index, -z --raw). */
  raw(out: Buffer): Entry[] {
    const tok = out.toString('latin1').split('\0');
    const entries: Entry[] = [];
    for (let i = 0; i < tok.length; i++) {
      const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) [A-Z]\d*$/.exec(tok[i]);
      if (!m) continue;
      const p = utf8(tok[++i] ?? '');
      if (m[1] === '160000' || m[2] === '160000') throw new Unknown(`the submodule ${p.slice(0, 80)} changes: what it checks out there is not looked at`);
      entries.push({ path: p, mode: /^0+$/.test(m[2]) ? '' : m[2], oid: m[4] });
    }
    return entries;
  }

  diffTrees(a: string, b: string): Entry[] {
    return this.raw(this.git(['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-ext-diff', '--no-textconv', '--full-index', a, b]));
  }

  /** The index against a tree: what making the index (and so the tree) like it changes. */
  diffIndex(tree: string): Entry[] {
    return this.raw(this.git(['diff-index', '--cached', '-r', '-z', '--raw', '--no-renames', '--no-ext-diff', '--no-textconv', '--full-index', tree]));
  }

  /** Every file of a tree (a root commit's, an unrelated history's, a stash's untracked files). */
  allOf(tree: string): Entry[] {
    const out: Entry[] = [];
    for (const rec of this.git(['ls-tree', '-r', '-z', '--full-tree', tree]).toString('latin1').split('\0')) {
      const m = /^(\d{6}) \w+ ([0-9a-f]+)\t([\s\S]*)$/.exec(rec);
      if (!m) continue;
      if (m[1] === '160000') throw new Unknown('the target holds a submodule: what it checks out there is not looked at');
      out.push({ path: utf8(m[3]), mode: m[1], oid: m[2] });
    }
    return out;
  }

  parents(commit: string): string[] {
    return this.git(['rev-list', '--parents', '-n', '1', '--end-of-options', commit]).toString().trim().split(/\s+/).slice(1);
  }

  /** Each commit of `range` (`A..B`) against its parents, as a rebase replays them. */
  replayed(from: string, to: string): Entry[] {
    const list = this.git(['rev-list', `--max-count=${GIT_TREE_LIMITS.commits + 1}`, '--end-of-options', `${from}..${to}`]).toString().trim();
    const commits = list ? list.split('\n') : [];
    if (commits.length > GIT_TREE_LIMITS.commits) throw new Unknown(`it replays more than ${GIT_TREE_LIMITS.commits} commits`);
    if (!commits.length) return [];
    return this.raw(this.git(['diff-tree', '--stdin', '--no-commit-id', '-m', '--root', '-r', '-z', '--raw', '--no-renames', '--no-ext-diff', '--no-textconv', '--full-index'], commits.join('\n') + '\n'));
  }

  /**
   * What in the work tree differs from the index: a tracked file missing, of another type or
   * mode, or whose bytes hash to another object (hashed as a blob, no filter: a file a filter
   * would change counts as changed, which only lists more). A path through a symbolic link
   * (`k/x` with `k` a link) counts as changed and is never opened; nothing is followed.
   */
  workTree(): Entry[] {
    const out: Entry[] = [];
    const dirOk = new Map<string, boolean>();
    const realDir = (rel: string): boolean => {
      if (rel === '' || rel === '.') return true;
      const known = dirOk.get(rel);
      if (known !== undefined) return known;
      const up = realDir(path.posix.dirname(rel));
      const st = up ? fs.lstatSync(path.join(this.top, rel), { throwIfNoEntry: false }) : undefined;
      const ok = !!st && st.isDirectory();
      dirOk.set(rel, ok);
      return ok;
    };
    for (const rec of this.git(['ls-files', '-s', '-z']).toString('latin1').split('\0')) {
      if (Date.now() > this.deadline) throw new Unknown('the work tree took too long to compare');
      const m = /^(\d{6}) ([0-9a-f]+) (\d)\t([\s\S]*)$/.exec(rec);
      if (!m) continue;
      const rel = utf8(m[4]);
      const entry = { path: rel, mode: m[1], oid: m[2] };
      if (m[1] === '160000') continue; // a submodule's own tree is not written by these commands
      if (m[3] !== '0' || !realDir(path.posix.dirname(rel)) || !this.same(path.join(this.top, rel), m[1], m[2])) out.push(entry);
    }
    return out;
  }

  private same(file: string, mode: string, oid: string): boolean {
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!st) return false;
    if (mode === '120000') return st.isSymbolicLink() && this.blobId(Buffer.from(fs.readlinkSync(file, { encoding: 'buffer' }))) === oid;
    if (!st.isFile() || st.size > GIT_TREE_LIMITS.fileBytes) return false;
    if (((st.mode & 0o100) !== 0) !== (mode === '100755')) return false;
    this.hashed += st.size;
    if (this.hashed > GIT_TREE_LIMITS.hashBytes) throw new Unknown('the work tree is too big to compare');
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    } catch {
      return false;
    }
    try {
      const fst = fs.fstatSync(fd);
      if (!fst.isFile() || fst.size !== st.size) return false;
      const h = createHash(this.format);
      h.update(`blob ${fst.size}\0`);
      const buf = Buffer.alloc(Math.min(1 << 20, Math.max(1, fst.size)));
      let n: number;
      let total = 0;
      while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) {
        h.update(buf.subarray(0, n));
        total += n;
        if (total > fst.size) return false;
      }
      return total === fst.size && h.digest('hex') === oid;
    } finally {
      fs.closeSync(fd);
    }
  }

  private blobId(data: Buffer): string {
    return createHash(this.format).update(`blob ${data.length}\0`).update(data).digest('hex');
  }

  /** A symbolic link's target as the tree holds it (capped). */
  linkTarget(oid: string): string {
    const data = this.git(['cat-file', 'blob', oid]);
    return data.subarray(0, 1024).toString('utf8');
  }

  /**
   * The directory core.hooksPath names, from every config file git would read when the command
   * runs (system and global included: reading config runs nothing), without this look's own
   * override; null when unset.
   */
  hooksDir(): string | null {
    let v: string;
    try {
      const env = { ...this.env };
      delete env.GIT_CONFIG_GLOBAL;
      delete env.GIT_CONFIG_NOSYSTEM;
      const config = SAFE_CONFIG.filter((c, i) => c !== 'core.hooksPath=/dev/null' && SAFE_CONFIG[i + 1] !== 'core.hooksPath=/dev/null');
      v = this.git(['config', '--get', 'core.hooksPath'], undefined, env, config).toString().replace(/\n$/, '');
    } catch (e) {
      if (e instanceof Unknown && /failed/.test(e.message)) return null; // not set
      throw e;
    }
    if (!v) return null;
    if (v === '~' || v.startsWith('~/')) v = path.join(os.homedir(), v.slice(1));
    return path.resolve(this.top, v);
  }
}

