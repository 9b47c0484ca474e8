// The ONLY module that loads the native addon (DESIGN.md boundary). Everything else asks
// here for "who is on the other end of this socket".
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as net from 'node:net';
import type { ProcessInfo, ProcessNode } from '../contract/common';
import { redactTokenText } from '../contract/task-ref';
import { ProcessChain, readChainNode } from './process-chain';

/** Freezes a process tree before it is shared: every request of a connection carries the same object (store.ts processJson serialises a frozen one once). */
export { deepFreeze } from '../../shared/deep-freeze';

export interface PeerCred {
  pid: number;
  uid: number;
  gid: number;
}

interface Addon {
  peerCred(fd: number): PeerCred;
}

let addon: Addon | null = null;
function load(): Addon {
  if (addon) return addon;
  const candidates = [
    path.join(__dirname, '..', '..', '..', 'native', 'build', 'Release', 'airlock_peercred.node'),
    path.join(__dirname, '..', '..', 'native', 'build', 'Release', 'airlock_peercred.node'),
    path.join((process as { resourcesPath?: string }).resourcesPath ?? '', 'native', 'airlock_peercred.node'),
  ];
  for (const c of candidates) {
    if (fs.existsSync(c)) {
      addon = require(c) as Addon;
      return addon;
    }
  }
  throw new Error('the peer-credentials addon is not built: run `npm run build` (it runs node-gyp in native/)');
}

/** Fails loudly at start-up rather than serving a socket whose peers cannot be checked. */
export function assertPeerCredAvailable(): void {
  load();
}

/** Node keeps the fd of a connected Unix socket on its libuv handle. */
function socketFd(socket: net.Socket): number {
  const handle = (socket as unknown as { _handle?: { fd?: number } })._handle;
  const fd = handle?.fd;
  if (typeof fd !== 'number' || fd < 0) throw new Error('socket has no file descriptor');
  return fd;
}

export function peerOf(socket: net.Socket): PeerCred {
  return load().peerCred(socketFd(socket));
}

function readProc(pid: number, file: string): Buffer | null {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`);
  } catch {
    return null;
  }
}

/**
 * When the process started (/proc/<pid>/stat field 22, in clock ticks since boot): with the
 * pid it names one process for good, as a pid alone does not once the pid is reused. Null
 * when it cannot be read (the process is gone, or no /proc).
 */
export function processStartTime(pid: number): string | null {
  return readChainNode(pid)?.start ?? null;
}

function nodeOf(pid: number): ProcessNode {
  let exe: string | null;
  try {
    exe = fs.readlinkSync(`/proc/${pid}/exe`);
  } catch {
    exe = null;
  }
  const cmdline = readProc(pid, 'cmdline');
  const argv = cmdline ? cmdline.toString('utf8').split('\0').filter((s, i, a) => i < a.length - 1 || s !== '') : [];
  // A task token on a command line (`airlock exec --task TOKEN`) never reaches a prompt or
  // history; redacted before the cut, so a token across the cut is not left half shown.
  return { pid, exe, argv: argv.slice(0, 64).map((a) => redactTokenText(a.slice(0, 1100)).slice(0, 1024)) };
}

/**
 * The requesting process and its ancestors up to (and including) its session leader,
 * nearest first. Linux reads /proc; elsewhere only the pid is known. `chain`: the peer's
 * chain when the connection keeps one (its stat reads are shared with claude-config-env.ts).
 */
export function processInfo(cred: PeerCred, maxDepth = 16, chain: ProcessChain = new ProcessChain(cred.pid)): ProcessInfo {
  if (cred.pid <= 0 || !fs.existsSync('/proc/self')) {
    return { pid: cred.pid, uid: cred.uid, gid: cred.gid, exe: null, argv: [], tree: [] };
  }
  const tree: ProcessNode[] = [];
  let want = cred.pid;
  for (let depth = 0; depth < maxDepth; depth++) {
    const cur = chain.at(depth);
    // A process gone before its stat was read still shows as its pid (and what else is left of it).
    tree.push(nodeOf(cur?.pid ?? want));
    if (!cur || cur.pid === cur.sid || cur.ppid <= 1) break;
    want = cur.ppid;
  }
  return { pid: cred.pid, uid: cred.uid, gid: cred.gid, exe: tree[0]!.exe, argv: tree[0]!.argv, tree };
}

/** `claude → bash → git → ssh`, oldest first, as a prompt shows it. */
export function describeTree(info: ProcessInfo): string {
  return [...info.tree]
    .reverse()
    .map((n) => path.basename(n.exe ?? n.argv[0] ?? String(n.pid)))
    .join(' → ');
}
