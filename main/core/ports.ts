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

/** Re-classification of shell commands by the daemon (implemented in main/core/classify). */
export interface CommandClassification {
  /** The riskiest part's action. */
  action: import('../contract/common').Action;
  /** Every resource of every part (paths absolute when cwd was given, hosts, URLs). */
  resources: string[];
  /** One line per part, e.g. "rm -rf build → delete build". */
  parts: { command: string; action: import('../contract/common').Action; resources: string[] }[];
  /** Reasons that raise risk, e.g. "downloads and runs code (curl | sh)". */
  riskReasons: { level: import('../contract/common').RiskLevel; reason: string }[];
}
export type CommandClassifier = (command: string, cwd?: string) => CommandClassification;

/** Push side of ApproverService: what `subscribe` delivers (ui.sock, web socket, IPC). */
export interface NotificationSource {
  subscribe(listener: (n: import('../contract/approver').ApproverNotification) => void): () => void;
}

/** Lets the SSH agent list only the keys a task's grants name (null: no limit). */
export interface KeyScope {
  keysVisibleTo(task: string): Set<string> | null;
}
