// A process and its parents as /proc says, each process's `stat` read once and only when a
// reader gets that far up. One chain per connection serves both what is read about the peer:
// its process tree up to the session leader (peer.ts processInfo, for "who" in a prompt) and
// its environment further up, past a `setsid` (claude-config-env.ts). Linux only; elsewhere
// the chain is empty.
import * as fs from 'node:fs';

/** Parents read at most (a chain deeper than this is cut; what was read counts). */
export const MAX_ANCESTORS = 64;

/** One process of the chain: fields 4, 6 and 22 of /proc/<pid>/stat. */
export interface ChainNode {
  pid: number;
  ppid: number;
  /** The session id (a session leader's pid equals it). */
  sid: number;
  /** Start time in clock ticks since boot: with the pid it names one process for good; null when unreadable. */
  start: string | null;
}

/** /proc/<pid>/stat fields from field 3 on: the parenthesised comm before them may hold spaces and parens. */
export const fieldsAfterComm = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** The process's stat fields, or null when it is gone (or there is no /proc). */
export function readChainNode(pid: number): ChainNode | null {
  if (pid <= 0) return null;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  return parseStat(pid, stat).node;
}

/** The ChainNode a /proc/<pid>/stat text describes, and the process's state letter (R, S, Z …). */
export function parseStat(pid: number, stat: string): { node: ChainNode; state: string } {
  const f = fieldsAfterComm(stat);
  const start = f[22 - 3];
  return { node: { pid, ppid: Number(f[1] ?? 0), sid: Number(f[3] ?? 0), start: start && /^\d+$/.test(start) ? start : null }, state: f[0] ?? '' };
}

export class ProcessChain {
  private readonly nodes: ChainNode[] = [];
  private ended = false;

  constructor(readonly pid: number) {}

  /**
   * The process `i` steps up (0: the process itself), or null above init, past a process
   * that is gone, or past MAX_ANCESTORS. Read on first ask, then kept.
   */
  at(i: number): ChainNode | null {
    while (this.nodes.length <= i && !this.ended) {
      const below = this.nodes[this.nodes.length - 1];
      const next = this.nodes.length >= MAX_ANCESTORS ? null : !below ? readChainNode(this.pid) : below.pid === 1 || below.ppid <= 0 ? null : readChainNode(below.ppid);
      if (next) this.nodes.push(next);
      else this.ended = true;
    }
    return this.nodes[i] ?? null;
  }
}
