// `airlock/client`: ask Airlock from any TypeScript agent framework.
//
//   import { AirlockClient } from 'airlock/client';
//   const airlock = await AirlockClient.connect();
//   const a = await airlock.ask({ source: 'api', tool: 'fs.write', action: 'write',
//                                 resource: '/repo/src/x.ts', summary: 'write src/x.ts' });
//   if (a.decision !== 'allow') throw new Error(a.reason);
import { airlockPaths } from '../os/paths';
import type { AgentAnswer } from '../contract/agent';
import type { Action, Source } from '../contract/common';
import { isTaskToken, taskIdOf } from '../contract/task-ref';
import { AirlockProtocolError, RpcClient } from './rpc-client';

export { isTaskToken, taskIdOf };

export { RpcClient, AirlockRpcError, AirlockProtocolError } from './rpc-client';
export type { AgentAnswer };

export interface AskParams {
  source: Source;
  tool: string;
  action: Action;
  resource?: string;
  resources?: string[];
  summary: string;
  args?: unknown;
  /** A task id (its token is added from AIRLOCK_TASK_TOKEN when that is the task's) or the token itself. */
  task?: string;
  /** The task's capability token (from task.start); needed on the shared request.sock. */
  token?: string;
  cwd?: string;
}

/** What task.start answers (main/contract/agent.ts TaskStartResult). */
export interface TaskStarted {
  task: string;
  sshAuthSock: string | null;
  grants: string[];
  /** The capability token: on the shared request.sock it, not the id, acts as the task. */
  token: string;
  /** The task's own request socket: everything sent there belongs to the task. */
  requestSock: string | null;
  declined?: number[];
  /** The task's egress proxy (see main/contract/agent.ts TaskStartResult). */
  egress?: { sock: string; caBundle: string | null; nodePreload: string; placeholders: Record<string, string> } | null;
}

/**
 * The token to send beside `task`: AIRLOCK_TASK_TOKEN when it belongs to that task (the
 * shell of `eval "$(airlock task start --env)"` has both). None when `task` is a token.
 */
export function taskTokenFor(task: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (isTaskToken(task)) return undefined;
  const t = env.AIRLOCK_TASK_TOKEN;
  return t && isTaskToken(t) && taskIdOf(t) === task ? t : undefined;
}

function withToken<T extends { task?: string; token?: string }>(p: T): T {
  if (!p.task || p.token !== undefined) return p;
  const token = taskTokenFor(p.task);
  return token ? { ...p, token } : p;
}

/** request.sock of the running daemon, following the same rules as the daemon itself. */
export function defaultRequestSocket(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AIRLOCK_REQUEST_SOCK) return env.AIRLOCK_REQUEST_SOCK;
  return airlockPaths(env).requestSock;
}

/** The private directory beside the sockets, where integrations may keep small state files. */
export function airlockRuntimeDir(env: NodeJS.ProcessEnv = process.env): string {
  return airlockPaths(env).sockets;
}

/** True when the error means "no daemon there" (not started, stale socket, timed out). */
export function isDaemonUnavailable(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ENOTSOCK' || code === 'EACCES' || /timed out connecting/.test(String((e as Error)?.message));
}

/**
 * A `request` answer as the contract shapes it (decision, reason, event), or an
 * AirlockProtocolError: `null`, or `{decision: "allow"}` alone, from something answering in
 * the daemon's place must never read as allowed (nor crash the caller with a TypeError).
 */
export function agentAnswerOf(r: unknown): AgentAnswer {
  const a = r as Partial<Record<keyof AgentAnswer, unknown>> | null;
  const ok =
    !!a && typeof a === 'object' && !Array.isArray(a) && (a.decision === 'allow' || a.decision === 'deny') && typeof a.reason === 'string' && Number.isInteger(a.event) &&
    (a.grant === undefined || typeof a.grant === 'string') && (a.task === undefined || typeof a.task === 'string');
  if (!ok) throw new AirlockProtocolError("the Airlock daemon's answer is not a decision (allow or deny, a reason, an event)");
  return a as AgentAnswer;
}

/** One question on a fresh connection: connect, ask, close. */
export async function askOnce(p: AskParams, socketPath = defaultRequestSocket()): Promise<AgentAnswer> {
  const c = await AirlockClient.connect(socketPath);
  try {
    return await c.ask(p);
  } finally {
    c.close();
  }
}

export class AirlockClient {
  private constructor(readonly rpc: RpcClient) {}

  static async connect(socketPath = defaultRequestSocket()): Promise<AirlockClient> {
    return new AirlockClient(await RpcClient.connect(socketPath));
  }

  /** Waits for the human (or a grant) and returns the decision. */
  async ask(p: AskParams): Promise<AgentAnswer> {
    return agentAnswerOf(await this.rpc.call<unknown>('request', withToken(p)));
  }

  startTask(p: { name: string; cwd?: string; grants?: unknown[] }): Promise<TaskStarted> {
    return this.rpc.call('task.start', p);
  }

  /** May a sandbox of this task have the network (the task holds a transfer grant)? */
  taskNetwork(task: string, token?: string): Promise<{ allowed: boolean; reason: string }> {
    return this.rpc.call('task.network', withToken({ task, ...(token ? { token } : {}) }));
  }

  endTask(task: string, token?: string): Promise<Record<string, never>> {
    return this.rpc.call('task.end', withToken({ task, ...(token ? { token } : {}) }));
  }

  close(): void {
    this.rpc.close();
  }
}
