// `airlock task start NAME [--sandbox] [--network] -- AGENT…`: a whole agent run as one
// task. The agent gets AIRLOCK_TASK, AIRLOCK_REQUEST_SOCK = the task's own request.sock
// (everything it asks is the task's; it cannot start other tasks) and the task's own
// SSH_AUTH_SOCK — never the token, which stays with us to end the task. With --sandbox it
// runs under bubblewrap (see sandbox.ts) and sees only the workspace and the task's socket
// directory, and never the network: its one way out is the task's egress proxy,
// where every new destination is a request (--network asks the human at start for a
// transfer grant for the task, which then covers those requests; --secret NAME gives the
// sandbox a placeholder the proxy swaps for the secret on the secret's hosts).
import { AirlockClient, AirlockRpcError, defaultRequestSocket, type TaskStarted } from '../../client';
import { ExecStop, prepare, refuseUnsafeSandbox } from './exec';
import { findBwrap, NO_BWRAP, type SandboxEgress } from './sandbox';
import { runCommand, type RunOutcome } from './run';
import { withheldNote } from './sandbox-env';

export interface TaskAgentOptions {
  name: string;
  cwd: string;
  argv: string[];
  sandbox: boolean;
  /** Ask the human for a transfer grant at start; with --sandbox, the network follows it. */
  network: boolean;
  /** Secrets (by name) the task uses through its egress proxy. */
  secrets?: string[];
  readOnly: string[];
  /** With sandbox: variables kept although their names look like credentials (`--keep-env`). */
  keepEnv?: string[];
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

export async function runTaskAgent(o: TaskAgentOptions): Promise<{ task: string; outcome: RunOutcome }> {
  if (o.argv.length === 0) throw new ExecStop('usage', 'no agent command after --');
  if (o.sandbox) {
    if (!findBwrap(o.env)) throw new ExecStop('sandbox', NO_BWRAP);
    refuseUnsafeSandbox(o.cwd, o.readOnly, o.env);
  }
  let client: AirlockClient;
  try {
    client = await AirlockClient.connect(defaultRequestSocket(o.env));
  } catch (e) {
    // The client's message names the socket and says to start `airlock serve`.
    throw new ExecStop('unavailable', `${(e as Error).message}; nothing was run`);
  }
  try {
    let started: TaskStarted & { egress?: SandboxEgress | null };
    try {
      started = await client.rpc.call('task.start', {
        name: o.name,
        cwd: o.cwd,
        ...(o.secrets?.length ? { secrets: o.secrets } : {}),
        ...(o.network ? { grants: [{ action: 'transfer', effect: 'allow', note: `network for the agent (${o.argv[0]})` }] } : {}),
      });
    } catch (e) {
      if (e instanceof AirlockRpcError) throw new ExecStop('usage', e.message);
      throw new ExecStop('unavailable', (e as Error).message);
    }
    const granted = o.network && started.grants.length > 0;
    const egress = started.egress ?? null;
    o.log(
      `task ${started.task} started${
        o.sandbox
          ? ` in a sandbox (${egress ? `network through the egress proxy: ${granted ? 'the task may connect anywhere but this machine and the local network, which ask' : o.network ? 'the human refused the transfer grant, every destination asks' : 'every new destination asks'}` : 'no network: this Airlock runs no egress proxy'})`
          : ''
      }`,
    );
    const env: NodeJS.ProcessEnv = { ...o.env, AIRLOCK_TASK: started.task };
    delete env.AIRLOCK_TASK_TOKEN;
    if (started.requestSock) env.AIRLOCK_REQUEST_SOCK = started.requestSock;
    if (started.sshAuthSock) env.SSH_AUTH_SOCK = started.sshAuthSock;
    else delete env.SSH_AUTH_SOCK;
    const p = prepare({ argv: o.argv, shell: false, cwd: o.cwd, sandbox: o.sandbox, readOnly: o.readOnly, keepEnv: o.keepEnv ?? [], env }, egress, started.task);
    if (p.withheld.length) o.log(withheldNote(p.withheld).replace(/^airlock: /, ''));
    const outcome = await runCommand({ file: p.file, args: p.args, cwd: o.cwd, env, stdin: 'inherit', ownSession: o.sandbox });
    // The task's grants die with the agent (the token proves it is ours to end).
    await client.endTask(started.task, started.token).catch(() => undefined);
    return { task: started.task, outcome };
  } finally {
    client.close();
  }
}
