// What the core needs from the outside world, as interfaces. The SSH agent (main/ssh)
// and the process layer (main/os) implement them; the broker never imports them directly.
import type { AgentAnswer, AgentRequest } from '../contract/agent';
import type { Key } from '../contract/approver';
import type { ProcessInfo, SshInfo } from '../contract/common';

/** Facts about a request that only the daemon knows (never taken from the agent's JSON). */
export interface RequestContext {
  process?: ProcessInfo;
  ssh?: SshInfo;
  /** Set when the request came through a task's own socket: the request belongs to that task. */
  boundTask?: string;
  /** Peer connection id, so a disconnect can cancel its pending prompts. */
  connection?: string;
}

/** The one entry point for every request, whatever socket it came through. */
export interface Asker {
  ask(req: AgentRequest, ctx: RequestContext): Promise<AgentAnswer>;
}

/** Key management behind ApproverService `keys.*` (implemented by main/ssh). */
export interface KeyService {
  list(): Promise<Key[]>;
  import(p: { path?: string; pem?: string; passphrase?: string; name?: string }): Promise<Key>;
  generate(p: { type: string; name: string }): Promise<Key>;
  remove(fingerprint: string): Promise<void>;
}

/** Per-task SSH agent sockets (implemented by main/ssh). */
export interface TaskSocketService {
  /** Opens the task's own agent socket and returns its path. */
  open(task: string): Promise<string>;
  close(task: string): Promise<void>;
}
