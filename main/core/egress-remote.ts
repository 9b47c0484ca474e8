// A task started through a remote (`airlock remote`, tasks.remote) is the remote's, and so is
// everything its egress proxy does: the connection is asked as the remote's request
// (request-policy.ts) and what went through it is recorded with the remote too
// (history-recorder.ts), so history filtered or shown by remote sees the whole connection.
import type { RemoteInfo } from '../contract/common';

/** How an egress event of `task`, started through remote `remote`, is marked. */
export function egressRemote(task: string, remote: string): RemoteInfo {
  return { name: remote, via: `the egress proxy of task ${task} (started through remote ${remote})` };
}
