// The request as the core sees it after validation and classification: one shape for
// every source (API, exec, hook, MCP, SSH).
import type { Action, ProcessInfo, RemoteInfo, SshInfo } from '../contract/common';

export interface CoreRequest {
  source: string;
  tool: string;
  action: Action;
  /** The main resource (what a prompt shows first). */
  resource: string | null;
  /** Every resource the request touches; grants must cover all of them. */
  resources: string[];
  summary: string;
  /** The args as sent, for history (already capped). */
  argsText: string | null;
  args: unknown;
  task: string | null;
  /** The task's name and working directory, read once when the request was validated. */
  taskInfo?: { name: string; cwd: string | null };
  cwd: string | null;
  process?: ProcessInfo;
  ssh?: SshInfo;
  /** Asked by Airlock's SSH agent itself (RequestContext.viaSshAgent), never by the agent's JSON. */
  viaSshAgent?: true;
  /** Egress only: where the connection goes (from the proxy, never from the agent's JSON). */
  egress?: import('./ports').EgressFacts;
  /** Arrived through a remote's socket (airlock remote): set by the daemon, never by the agent. */
  remote?: RemoteInfo;
  /** Shell commands only: each part of the command line as the daemon's classifier saw it. */
  parts?: { command: string; action: Action; resources: string[]; unlisted?: string }[];
  /** Extra risk from classification (e.g. `curl | sh`). */
  classifierRisk: { level: import('../contract/common').RiskLevel; reason: string }[];
  /**
   * Claude Code settings directories other than ~/.claude (CLAUDE_CONFIG_DIR) known for this
   * request: from the requesting processes' environment, the hook's word, and earlier requests.
   * Only ever adds protection (core/claude-config.ts).
   */
  claudeDirs?: string[];
  /** MCP: where the action came from (the server's annotations, the human's pin, the tool's name). */
  actionOrigin?: 'annotation' | 'pin' | 'name';
}
