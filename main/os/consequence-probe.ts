// The disk side of "what will happen" (core/consequence.ts). Every look is bounded, since
// the paths come from an agent: a walk stops after MAX_ENTRIES entries or MAX_WALK_MS
// (and says "at least"), a file is read only when it is regular and at most MAX_READ
// bytes, nothing under /proc, /sys or /dev is opened (a FIFO would block, /proc/self/…
// is the daemon's own memory), and symbolic links are never followed by the walk (rm -rf
// does not follow them either).
import * as fs from 'node:fs';
import * as path from 'node:path';

// The shape of core/ports.ts ConsequenceProbe, repeated here: main/os is a leaf and
// imports nothing of the core (TypeScript checks the two agree where the daemon wires them).
interface Measure { kind: 'file' | 'dir' | 'link' | 'other' | 'missing'; files: number; bytes: number; capped: boolean }
type ReadResult = { text: string } | { missing: true } | { refused: string };
export interface DiskProbe {
  measure(path: string): Measure;
  readText(path: string): ReadResult;
  gitRemoteUrl(cwd: string, remote: string): string | null;
}

export const PROBE_LIMITS = { entries: 20_000, walkMs: 150, readBytes: 512 * 1024, configBytes: 64 * 1024, repoDepth: 40 };

const KERNEL = /^\/(proc|sys|dev)(\/|$)/;

function measure(p: string, limits = PROBE_LIMITS): Measure {
  if (KERNEL.test(path.resolve(p))) return { kind: 'other', files: 0, bytes: 0, capped: false };
  let st: fs.Stats;
  try {
    st = fs.lstatSync(p);
  } catch {
    return { kind: 'missing', files: 0, bytes: 0, capped: false };
  }
  if (st.isSymbolicLink()) return { kind: 'link', files: 0, bytes: 0, capped: false };
  if (st.isFile()) return { kind: 'file', files: 1, bytes: st.size, capped: false };
  if (!st.isDirectory()) return { kind: 'other', files: 0, bytes: 0, capped: false };
  const deadline = Date.now() + limits.walkMs;
  let files = 0;
  let bytes = 0;
  let seen = 0;
  let capped = false;
  const stack = [p];
  while (stack.length && !capped) {
    const dir = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > limits.entries || Date.now() > deadline) {
        capped = true;
        break;
      }
      const full = path.join(dir, e.name);
      if (e.isDirectory()) stack.push(full);
      else {
        files++;
        if (e.isFile()) {
          try {
            bytes += fs.lstatSync(full).size;
          } catch {
            // Gone meanwhile: not counted.
          }
        }
      }
    }
  }
  return { kind: 'dir', files, bytes, capped };
}

function readText(p: string, max = PROBE_LIMITS.readBytes): ReadResult {
  if (!path.isAbsolute(p)) return { refused: 'not an absolute path' };
  if (KERNEL.test(path.resolve(p))) return { refused: 'a kernel file (/proc, /sys, /dev) is never read' };
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not hang the daemon; fstat below refuses it anyway.
    fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { missing: true } : { refused: `cannot read it (${code ?? 'error'})` };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { refused: 'not a regular file' };
    if (st.size > max) return { refused: `the file is ${st.size} bytes, over the ${max}-byte diff limit` };
    const buf = Buffer.alloc(st.size);
    const n = fs.readSync(fd, buf, 0, st.size, 0);
    const data = buf.subarray(0, n);
    if (data.includes(0)) return { refused: 'a binary file' };
    return { text: data.toString('utf8') };
  } finally {
    fs.closeSync(fd);
  }
}

function readSmall(p: string, max: number): string | null {
  const r = readText(p, max);
  return 'text' in r ? r.text : null;
}

/** The repository's config file for `cwd`: `.git/config`, or the common dir's for a worktree (`.git` is a file). */
export function gitConfigPath(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (let i = 0; i < PROBE_LIMITS.repoDepth; i++) {
    const dotGit = path.join(dir, '.git');
    let st: fs.Stats | null;
    try {
      st = fs.statSync(dotGit);
    } catch {
      st = null;
    }
    if (st?.isDirectory()) return path.join(dotGit, 'config');
    if (st?.isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(readSmall(dotGit, 4096) ?? '');
      if (!m) return null;
      const gitdir = path.resolve(dir, m[1]!.trim());
      const common = readSmall(path.join(gitdir, 'commondir'), 4096)?.trim();
      return path.join(common ? path.resolve(gitdir, common) : gitdir, 'config');
    }
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
  return null;
}

interface GitConfig {
  remotes: Map<string, { url?: string; pushurl?: string }>;
  insteadOf: { base: string; prefix: string; push: boolean }[];
}

/** The parts of git's config syntax `git push` needs: [remote "x"] url/pushurl, [url "b"] (push)insteadOf. */
export function parseGitConfig(text: string): GitConfig {
  const cfg: GitConfig = { remotes: new Map(), insteadOf: [] };
  let section: { kind: string; name: string } | null = null;
  for (const raw of text.split('\n').slice(0, 5000)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const sec = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (sec) {
      section = { kind: sec[1]!.toLowerCase(), name: (sec[2] ?? '').replace(/\\(.)/g, '$1') };
      continue;
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (!kv || !section) continue;
    const key = kv[1]!.toLowerCase();
    let value = kv[2]!.replace(/\s+[#;].*$/, '').trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (section.kind === 'remote' && (key === 'url' || key === 'pushurl')) {
      const r = cfg.remotes.get(section.name) ?? {};
      // The first url is the one git pushes to (later ones are extra push targets).
      if (r[key] === undefined) r[key] = value;
      cfg.remotes.set(section.name, r);
    } else if (section.kind === 'url' && (key === 'insteadof' || key === 'pushinsteadof')) {
      cfg.insteadOf.push({ base: section.name, prefix: value, push: key === 'pushinsteadof' });
    }
  }
  return cfg;
}

/** The URL `git push <remote>` goes to: pushurl, else url with (push)insteadOf rewritten (longest prefix wins). */
export function pushUrlOf(cfg: GitConfig, remote: string): string | null {
  const r = cfg.remotes.get(remote);
  if (!r) return null;
  if (r.pushurl) return r.pushurl;
  if (!r.url) return null;
  const url = r.url;
  const rewrite = (push: boolean) =>
    cfg.insteadOf.filter((x) => x.push === push && url.startsWith(x.prefix)).sort((a, b) => b.prefix.length - a.prefix.length)[0];
  const x = rewrite(true) ?? rewrite(false);
  return x ? x.base + url.slice(x.prefix.length) : url;
}

export function createConsequenceProbe(): DiskProbe {
  return {
    measure: (p) => measure(p),
    readText: (p) => readText(p),
    gitRemoteUrl(cwd, remote) {
      // `git push https://host/x.git`: the "remote" is already the URL.
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(remote) || /^[^/\s]+@[^/\s]+:/.test(remote)) return remote;
      const file = gitConfigPath(cwd);
      const text = file ? readSmall(file, PROBE_LIMITS.configBytes) : null;
      return text === null ? null : pushUrlOf(parseGitConfig(text), remote);
    },
  };
}
