// The contract's plain constants, without zod: the Claude Code hook and the shell
// classifier load these on every tool call, where zod's start-up cost (~70 ms) shows.
// common.ts builds the schemas from them; nothing is written twice.

export const LIMITS = {
  /** JSON-RPC line cap on both sockets (DESIGN.md: lines over 1 MiB are refused). */
  lineBytes: 1024 * 1024,
  /** How much of an agent's raw args/line is kept in history. */
  recordedArgsBytes: 64 * 1024,
  text: 4096,
  summary: 2000,
  name: 256,
  resources: 256,
} as const;

export const ACTIONS = ['read', 'write', 'delete', 'transfer', 'execute', 'sign', 'other'] as const;
export type Action = (typeof ACTIONS)[number];

/** How dangerous an action is by itself; a compound request takes its riskiest part. */
export const ACTION_RANK: Record<Action, number> = {
  read: 0,
  other: 1,
  write: 2,
  sign: 3,
  delete: 4,
  transfer: 5,
  execute: 6,
};

export const riskier = (a: Action, b: Action): Action => (ACTION_RANK[b] > ACTION_RANK[a] ? b : a);

/** `egress`: a sandbox's outbound connection through its task's egress proxy (resource `host:port`). */
export const SOURCES = ['api', 'exec', 'claude-code', 'mcp', 'ssh', 'egress'] as const;
/** The tool of every egress request (source `egress`): one connection, or one plain HTTP request, to `host:port`. */
export const EGRESS_TOOL = 'net.connect';
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
