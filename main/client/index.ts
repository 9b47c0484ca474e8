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

  endTask(task: string): Promise<Record<string, never>> {
    return this.rpc.call('task.end', { task });
  }

  close(): void {
    this.rpc.close();
  }
}
