// Flood control: how many prompts may wait at once. Three caps, every one checked for every
// new prompt (identical requests share a prompt and add nothing):
//   - per task (`maxPendingPerTask`); a request without a task counts against the same
//     number on its own connection, as if the connection were its task. Requests as a task
//     through a remote count apart from the task's others (per task and remote): a token
//     that leaked to a server must not fill the task's share and starve its own agent;
//     the remote cap bounds them;
//   - per connection (`maxPendingPerConnection`), across all the tasks it asks for;
//   - per remote (`airlock remote`): its agents all arrive through one ssh forward, however
//     many connections they open, so a remote as a whole waits on at most
//     `maxPendingPerConnection` prompts and cannot fill the daemon's total alone, starving
//     the agents of this machine (red team: two connections of a remote filled it);
//   - for the whole daemon (`maxPendingTotal`), so that many connections or many tasks
//     cannot bury the human either (issue 10: 50 connections made 1,000 prompts in 2 s).
// A request over a cap is refused at once (-32001) and recorded; the prompts already
// shown are not touched.
import type { Settings } from '../contract/approver';

export interface PendingView {
  task: string | null;
  /** The connections waiting on this prompt (undefined: an in-process caller). */
  connections: readonly (string | undefined)[];
  /** The remote the prompt's requests came through (airlock remote), if any. */
  remote?: string | undefined;
}

type Limits = Pick<Settings, 'maxPendingPerTask' | 'maxPendingPerConnection' | 'maxPendingTotal'>;

/**
 * Why a new prompt for (task, connection) would exceed a cap, or null when it fits.
 * `task` is 'new' for the grants a `task.start` asks for: a task that does not exist yet
 * has no prompts of its own, so only the connection and total caps apply.
 */
export function overPendingCap(
  pending: Iterable<PendingView>,
  task: string | null | { new: true },
  connection: string | undefined,
  limits: Limits,
  remote?: string,
): string | null {
  let total = 0;
  let ofRemote = 0;
  let ofTask = 0;
  let ofConnection = 0;
  let ofConnectionNoTask = 0;
  for (const p of pending) {
    total++;
    if (remote !== undefined && p.remote === remote) ofRemote++;
    if (typeof task === 'string' && p.task === task && p.remote === remote) ofTask++;
    if (p.connections.includes(connection)) {
      ofConnection++;
      if (p.task === null) ofConnectionNoTask++;
    }
  }
  const wait = 'wait for the human to answer';
  if (typeof task === 'string' && ofTask >= limits.maxPendingPerTask) return `too many prompts waiting for task ${task}${remote !== undefined ? ` from remote ${remote}` : ''} (limit ${limits.maxPendingPerTask}); ${wait}`;
  if (task === null && ofConnectionNoTask >= limits.maxPendingPerTask) return `too many prompts waiting for this connection (limit ${limits.maxPendingPerTask}); ${wait}`;
  if (ofConnection >= limits.maxPendingPerConnection) {
    return `too many prompts waiting for this connection across its tasks (limit ${limits.maxPendingPerConnection}); ${wait}`;
  }
  if (remote !== undefined && ofRemote >= limits.maxPendingPerConnection) {
    return `too many prompts waiting from remote ${remote} across its connections (limit ${limits.maxPendingPerConnection}); ${wait}`;
  }
  if (total >= limits.maxPendingTotal) return `too many prompts waiting in Airlock as a whole (limit ${limits.maxPendingTotal}); ${wait}`;
  return null;
}
