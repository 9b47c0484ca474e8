// "Who" for every new agent connection costs a dozen /proc reads (the process tree). Tools
// like git open a fresh connection per signature, so the tree of the same peer process is
// kept for a moment — but only while that process is provably the same one: same pid, same
// start time (a reused pid differs) and the same command line (an exec changes it).
import * as fs from 'node:fs';
import type { ProcessInfo } from '../contract/common';
import { type PeerCred, deepFreeze, processInfo, processStartTime } from '../os/peer';

export interface ProcessIdentity {
  /** /proc/<pid>/stat field 22: start time in clock ticks since boot. */
  startTime: string;
  cmdline: Buffer;
}

function readIdentity(pid: number): ProcessIdentity | null {
  try {
    const startTime = processStartTime(pid);
    if (!startTime) return null;
    return { startTime, cmdline: fs.readFileSync(`/proc/${pid}/cmdline`) };
  } catch {
    return null;
  }
}

const TTL_MS = 2000;
const MAX_ENTRIES = 256;

export class ProcessInfoCache {
  private readonly entries = new Map<number, { id: ProcessIdentity; uid: number; info: ProcessInfo; at: number }>();

  constructor(
    private readonly compute: (cred: PeerCred) => ProcessInfo = processInfo,
    private readonly identify: (pid: number) => ProcessIdentity | null = readIdentity,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The peer's process tree, frozen: it is shared by every connection of that process, and
   * history serialises a frozen tree once instead of once per signature (issue 15: the
   * profile of granted signatures showed processJson's stringify + parse on every one).
   */
  get(cred: PeerCred): ProcessInfo {
    const id = cred.pid > 0 ? this.identify(cred.pid) : null;
    if (!id) return deepFreeze(this.compute(cred));
    const hit = this.entries.get(cred.pid);
    const t = this.now();
    if (hit && t - hit.at < TTL_MS && hit.uid === cred.uid && hit.id.startTime === id.startTime && hit.id.cmdline.equals(id.cmdline)) {
      return hit.info;
    }
    const info = deepFreeze(this.compute(cred));
    this.entries.delete(cred.pid);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(cred.pid, { id, uid: cred.uid, info, at: t });
    return info;
  }
}
