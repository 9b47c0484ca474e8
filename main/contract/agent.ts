// The agent side (request.sock): it may ask and start/end its own tasks, nothing else.
import { z } from 'zod';
import { Action, Decision, Id, LIMITS, Source, Timestamp } from './common';

const text = (max: number = LIMITS.text) => z.string().max(max);
const glob = text().min(1);

export const GrantSpec = z.strictObject({
  task: Id.nullable().optional(),
  source: glob.optional(),
  tool: glob.optional(),
  action: z.union([Action, z.literal('*')]),
  resource: glob.optional(),
  key: text(256).optional(),
  effect: z.enum(['allow', 'deny']),
  expiresAt: Timestamp.optional(),
  uses: z.number().int().positive().max(1_000_000).optional(),
  /** SSH: a grant matches forwarded agent requests only when this is true. */
  forwarded: z.boolean().optional(),
  note: text(1000).optional(),
});
export type GrantSpec = z.infer<typeof GrantSpec>;
export type GrantSpecInput = z.input<typeof GrantSpec>;

export const AgentRequest = z.strictObject({
  source: Source,
  tool: text(LIMITS.name).min(1),
  action: Action,
  resource: text().optional(),
  /** Every resource a compound request touches (e.g. each part of a shell pipeline). */
  resources: z.array(text()).max(LIMITS.resources).optional(),
  summary: text(LIMITS.summary),
  /** Recorded as sent (capped). For `exec`/Bash, `args.command` is re-classified by the broker. */
  args: z.unknown().optional(),
  task: Id.optional(),
  cwd: text().optional(),
});
export type AgentRequest = z.infer<typeof AgentRequest>;

export const AgentAnswer = z.object({
  decision: Decision,
  reason: z.string(),
  event: z.number().int(),
  grant: z.string().optional(),
});
export type AgentAnswer = z.infer<typeof AgentAnswer>;

export const TaskStartParams = z.strictObject({
  name: text(LIMITS.name).min(1),
  cwd: text().optional(),
  grants: z.array(GrantSpec.omit({ task: true })).max(64).optional(),
});
export type TaskStartParams = z.infer<typeof TaskStartParams>;
export const TaskStartResult = z.object({
  task: z.string(),
  sshAuthSock: z.string().nullable(),
  /** Grants the human accepted from `grants` (none when the human refused them). */
  grants: z.array(z.string()),
});
export const TaskEndParams = z.strictObject({ task: Id });

/** Method table of request.sock. Adapters are generated from it; add methods here only. */
export const agentMethods = {
  request: { params: AgentRequest, result: AgentAnswer },
  'task.start': { params: TaskStartParams, result: TaskStartResult },
  'task.end': { params: TaskEndParams, result: z.object({}) },
  /** May a sandbox of this task have the network? Yes when the task holds a transfer grant. */
  'task.network': { params: TaskEndParams, result: z.object({ allowed: z.boolean(), reason: z.string() }) },
} as const;
export type AgentMethods = typeof agentMethods;
