// CPU time a process has used (all its threads, user + system), from /proc/<pid>/stat:
// on a shared 2-core machine the wall-clock rate moves with whatever else runs, while the
// CPU a server spends per request moves far less, so the benches report both (issue 15).
// Linux only: elsewhere NaN, and the tables print "—".
import * as fs from 'node:fs';

/** USER_HZ: the unit of /proc's times; 100 on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

export function processCpuUs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND) * 1e6;
  } catch {
    return NaN;
  }
}

/** µs of CPU per request, or "—" when /proc could not tell. */
export const cpuText = (us: number) => (Number.isFinite(us) ? `${us.toFixed(0)} µs` : '—');
export const cpuRatio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '—');
