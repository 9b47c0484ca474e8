// CLAUDE_CONFIG_DIR as a requesting process and its ancestors have it, read from
// /proc/<pid>/environ (same user: the socket already checked the peer's uid). Claude Code
// keeps its settings (and Airlock's hook) there when the variable is set; the hook runs
// inside Claude Code's environment, so the hook's own process shows it, and so does every
// shell Claude Code's Bash tool starts. The whole parent chain is read, not only up to the
// session leader (a `setsid` on the way cuts a session, not the parents). Linux only;
// elsewhere the hook says it itself (AgentRequest.claudeConfigDir).
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Parents read at most (a chain deeper than this is cut; what was read counts). */
export const MAX_ANCESTORS = 64;
/** Bytes of one environment read at most (Linux's own limit for argv + env is a few MB). */
export const MAX_ENVIRON_BYTES = 1024 * 1024;
const NAME = Buffer.from('CLAUDE_CONFIG_DIR=');
/** One read buffer for every environ read (the walk is synchronous). */
const READ_BUF = Buffer.allocUnsafe(64 * 1024);
/**
 * What each process's environment said, by pid and start time (a pid alone may be reused).
 * The environment a process was started with does not change, and the same parents (Claude
 * Code, its shells) are walked for every tool call: reading them again cost ~1 ms a connection.
 */
const seen = new Map<string, string[]>();
const MAX_SEEN = 1024;

function readBounded(file: string, max: number): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    const buf = READ_BUF;
    while (size < max) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, max - size), null);
      if (n <= 0) break;
      chunks.push(Buffer.from(buf.subarray(0, n)));
      size += n;
    }
    return Buffer.concat(chunks);
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Every CLAUDE_CONFIG_DIR=… entry of one process's environment (a duplicate counts too). */
export function configValuesOf(environ: Buffer): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < environ.length && out.length < 8) {
    let end = environ.indexOf(0, start);
    if (end < 0) end = environ.length;
    if (end - start >= NAME.length && environ.compare(NAME, 0, NAME.length, start, start + NAME.length) === 0) {
      out.push(environ.subarray(start + NAME.length, end).toString('utf8'));
    }
    start = end + 1;
  }
  return out;
}

/** The parent pid and start time (fields 4 and 22 of /proc/<pid>/stat), or null when the process is gone. */
function statOf(pid: number): { ppid: number; start: string } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1] ?? 0), start: f[19] ?? '' };
  } catch {
    return null;
  }
}

function valuesOf(pid: number, start: string): string[] {
  const key = `${pid}:${start}`;
  const known = seen.get(key);
  if (known) return known;
  const environ = readBounded(`/proc/${pid}/environ`, MAX_ENVIRON_BYTES);
  const values = environ ? configValuesOf(environ) : [];
  // Only a successful read is kept (a process not yet readable is read again next time).
  if (environ) {
    if (seen.size >= MAX_SEEN) seen.clear();
    seen.set(key, values);
  }
  return values;
}

function cwdOf(pid: number): string | null {
  try {
    return fs.readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

function realOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * The absolute directories CLAUDE_CONFIG_DIR names for `pid` and its parents: a relative
 * value (an empty one included: Claude Code joins it as '') is taken from that process's
 * working directory. Each is listed as written (tidied) and, when it exists, as its real
 * path. Empty where there is no /proc.
 */
export function claudeConfigDirsOf(pid: number): string[] {
  const out = new Set<string>();
  if (pid <= 0 || !fs.existsSync('/proc/self')) return [];
  let cur = pid;
  for (let i = 0; i < MAX_ANCESTORS && cur > 0; i++) {
    const st = statOf(cur);
    if (!st) break;
    const values = valuesOf(cur, st.start);
    if (values.length) {
      const cwd = cwdOf(cur);
      for (const v of values) {
        if (v.length > 4096) continue;
        let d: string | null = null;
        if (v.startsWith('/')) d = v;
        else if (cwd) d = path.join(cwd, v);
        if (d === null) continue;
        d = path.posix.normalize(d).replace(/(.)\/+$/, '$1');
        out.add(d);
        const real = realOrNull(d);
        if (real) out.add(real);
      }
    }
    if (cur === 1) break;
    cur = st.ppid;
  }
  return [...out];
}
