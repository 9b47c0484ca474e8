// The processes a process started, and theirs (Linux /proc): what `airlock exec --timeout`
// must stop besides the command itself, since the command shares our process group (a
// terminal's Ctrl-C and job control keep working) and so cannot be killed as a group the way
// coreutils' timeout does. Each process is named by pid and start time, so a pid reused in
// between is never signalled. Elsewhere (no /proc) the list is empty.
import * as fs from 'node:fs';
import { parseStat, readChainNode, type ChainNode } from './process-chain';

/** Processes looked at per scan, at most (a fork bomb cannot keep us reading). */
const MAX_SCAN = 100_000;

/** Every live descendant of `pid` (not `pid` itself), breadth first. */
export function descendants(pid: number): ChainNode[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, ChainNode[]>();
  let seen = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name) || ++seen > MAX_SCAN) continue;
    const n = readChainNode(Number(name));
    if (!n) continue;
    const list = children.get(n.ppid);
    if (list) list.push(n);
    else children.set(n.ppid, [n]);
  }
  const out: ChainNode[] = [];
  const queue = [pid];
  const done = new Set<number>([pid]);
  while (queue.length) {
    for (const c of children.get(queue.shift()!) ?? []) {
      if (done.has(c.pid)) continue;
      done.add(c.pid);
      out.push(c);
      queue.push(c.pid);
    }
  }
  return out;
}

/** Sends `signal` to the process if it is still the one `node` names (same start time). */
export function signalIfSame(node: ChainNode, signal: NodeJS.Signals): boolean {
  const now = readChainNode(node.pid);
  if (!now || now.start !== node.start) return false;
  try {
    process.kill(node.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True when the process `node` names is still there and not a zombie waiting to be reaped. */
export function stillRunning(node: ChainNode): boolean {
  // One read of its stat: still the same process (start time), and not a zombie.
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${node.pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const now = parseStat(node.pid, stat);
  return now.node.start === node.start && now.state !== 'Z';
}
