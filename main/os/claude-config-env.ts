// CLAUDE_CONFIG_DIR as a requesting process and its ancestors have it, read from
// /proc/<pid>/environ (same user: the socket already checked the peer's uid). Claude Code
// keeps its settings (and Airlock's hook) there when the variable is set; the hook runs
// inside Claude Code's environment, so the hook's own process shows it, and so does every
// shell Claude Code's Bash tool starts. The whole parent chain is read, not only up to the
// session leader (a `setsid` on the way cuts a session, not the parents). Linux only;
// elsewhere the hook says it itself (AgentRequest.claudeConfigDir).
//
// This reads what the processes say and no more: each value with the working directory of
// the process that has it. Which directory that names (relative values, `~/`, the length a
// path may have, where links lead) is the core's one rule (core/claude-config.ts).
import * as fs from 'node:fs';
import { MAX_ANCESTORS, ProcessChain } from './process-chain';

export { MAX_ANCESTORS };

/** One CLAUDE_CONFIG_DIR value as a process has it, with that process's working directory (null when unreadable). */
export interface ConfigEnvValue {
  value: string;
  cwd: string | null;
}
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

function valuesOf(pid: number, start: string | null): string[] {
  const key = `${pid}:${start}`;
  const known = start !== null ? seen.get(key) : undefined;
  if (known) return known;
  const environ = readBounded(`/proc/${pid}/environ`, MAX_ENVIRON_BYTES);
  const values = environ ? configValuesOf(environ) : [];
  // Only a successful read of a process known by its start time is kept (a process not yet
  // readable is read again next time; without a start time a reused pid could not be told apart).
  if (environ && start !== null) {
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

/**
 * Every CLAUDE_CONFIG_DIR value of the process `chain` starts at and of all its parents (up
 * to MAX_ANCESTORS), nearest first, each with that process's working directory, as read.
 * Empty where there is no /proc.
 */
export function claudeConfigValuesOf(chain: ProcessChain): ConfigEnvValue[] {
  const out: ConfigEnvValue[] = [];
  if (chain.pid <= 0 || !fs.existsSync('/proc/self')) return out;
  for (let i = 0; i < MAX_ANCESTORS; i++) {
    const node = chain.at(i);
    if (!node) break;
    const values = valuesOf(node.pid, node.start);
    if (!values.length) continue;
    const cwd = cwdOf(node.pid);
    for (const value of values) out.push({ value, cwd });
  }
  return out;
}
