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
import { RpcClient } from './rpc-client';

export { RpcClient, AirlockRpcError } from './rpc-client';
export type { AgentAnswer };

export interface AskParams {
  source: Source;
  tool: string;
  action: Action;
  resource?: string;
  resources?: string[];
  summary: string;
  args?: unknown;
  task?: string;
  cwd?: string;
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
  ask(p: AskParams): Promise<AgentAnswer> {
    return this.rpc.call<AgentAnswer>('request', p);
  }

  startTask(p: { name: string; cwd?: string }): Promise<{ task: string; sshAuthSock: string | null; grants: string[] }> {
    return this.rpc.call('task.start', p);
  }

  /** May a sandbox of this task have the network (the task holds a transfer grant)? */
  taskNetwork(task: string): Promise<{ allowed: boolean; reason: string }> {
    return this.rpc.call('task.network', { task });
  }

  endTask(task: string): Promise<Record<string, never>> {
    return this.rpc.call('task.end', { task });
  }

  close(): void {
    this.rpc.close();
  }
}
