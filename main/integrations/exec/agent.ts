// `airlock task start NAME [--sandbox] [--network] -- AGENT…`: a whole agent run as one
// task. The agent gets AIRLOCK_TASK and the task's own SSH_AUTH_SOCK; with --sandbox it
// runs under bubblewrap (see sandbox.ts) and sees only the workspace, request.sock and
// its SSH socket. The network is opened only if the human accepts, at start, the task's
// request for a transfer grant (--network) — the agent never reads grants itself.
import { AirlockClient, AirlockRpcError, defaultRequestSocket, isDaemonUnavailable } from '../../client';
import { ExecStop, prepare } from './exec';
import { findBwrap, NO_BWRAP, unsafeSandboxCwd } from './sandbox';
import { runCommand, type RunOutcome } from './run';
import * as os from 'node:os';
import * as path from 'node:path';

export interface TaskAgentOptions {
  name: string;
  cwd: string;
  argv: string[];
  sandbox: boolean;
  /** Ask the human for a transfer grant at start; with --sandbox, the network follows it. */
  network: boolean;
  readOnly: string[];
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

export async function runTaskAgent(o: TaskAgentOptions): Promise<{ task: string; outcome: RunOutcome }> {
  if (o.argv.length === 0) throw new ExecStop('usage', 'no agent command after --');
  if (o.sandbox) {
    if (!findBwrap(o.env)) throw new ExecStop('sandbox', NO_BWRAP);
    const unsafe = unsafeSandboxCwd(o.cwd, o.env.HOME ? path.resolve(o.env.HOME) : os.homedir());
    if (unsafe) throw new ExecStop('sandbox', `--sandbox: ${unsafe}; nothing was run`);
  }
  let client: AirlockClient;
  try {
    client = await AirlockClient.connect(defaultRequestSocket(o.env));
  } catch (e) {
    throw new ExecStop('unavailable', `${isDaemonUnavailable(e) ? 'the Airlock daemon is not running' : (e as Error).message}; nothing was run`);
  }
  try {
    let started: { task: string; sshAuthSock: string | null; grants: string[] };
    try {
      started = await client.rpc.call('task.start', {
        name: o.name,
        cwd: o.cwd,
        ...(o.network ? { grants: [{ action: 'transfer', effect: 'allow', note: `network for the agent (${o.argv[0]})` }] } : {}),
      });
    } catch (e) {
      if (e instanceof AirlockRpcError) throw new ExecStop('usage', e.message);
      throw new ExecStop('unavailable', (e as Error).message);
    }
    const network = o.network && started.grants.length > 0;
    o.log(
      `task ${started.task} started${o.sandbox ? ` in a sandbox (network ${network ? 'on' : o.network ? 'off: the human refused it' : 'off'})` : ''}`,
    );
    const env: NodeJS.ProcessEnv = { ...o.env, AIRLOCK_TASK: started.task };
    if (started.sshAuthSock) env.SSH_AUTH_SOCK = started.sshAuthSock;
    else delete env.SSH_AUTH_SOCK;
    const p = prepare({ argv: o.argv, shell: false, cwd: o.cwd, sandbox: o.sandbox, readOnly: o.readOnly, env }, network);
    const outcome = await runCommand({ file: p.file, args: p.args, cwd: o.cwd, env, stdin: 'inherit', ownSession: o.sandbox });
    // The task's grants die with the agent.
    await client.endTask(started.task).catch(() => undefined);
    return { task: started.task, outcome };
  } finally {
    client.close();
  }
}
