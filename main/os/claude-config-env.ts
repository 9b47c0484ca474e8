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
    const buf = Buffer.allocUnsafe(64 * 1024);
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

function parentOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? 0);
  } catch {
    return 0;
  }
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
    const environ = readBounded(`/proc/${cur}/environ`, MAX_ENVIRON_BYTES);
    const values = environ ? configValuesOf(environ) : [];
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
    cur = parentOf(cur);
  }
  return [...out];
}
