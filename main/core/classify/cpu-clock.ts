// The classifier's time budget is counted in this process's CPU time, not wall time: the
// budget exists so that a hostile command cannot hold the daemon's event loop, and a daemon
// that is merely descheduled on a busy machine (2 vCPUs, a test suite beside it) spends
// nothing. A wall-clock budget turned ordinary commands into "too complex … execute" under
// load (seen in CI: 619 ms for a three-line command). process.cpuUsage() counts every thread
// of the process (GC helpers too), so the budget can only run out sooner, never later.

/** CPU milliseconds this process has used (user + system). */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
