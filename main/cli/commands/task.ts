import type { Command } from 'commander';
import path from 'node:path';
import type { Task } from '../../contract/approver';
import { callUi, CliError, connectAgent, fmtTime, printJson, table } from '../util';
import { AirlockRpcError } from '../../client/rpc-client';
import type { TaskStarted } from '../../client';
import { EXIT } from '../exit-codes';
import { shellWord } from '../../../shared/shell-word';


export function registerTask(program: Command): void {
  const task = program.command('task').description('start, end and list tasks (a task owns its grants and its SSH socket)');
  task
    .command('start <name>')
    .description('start a task; prints its id and, with --env, shell exports for AIRLOCK_TASK, AIRLOCK_TASK_TOKEN and SSH_AUTH_SOCK')
    .argument('[agent...]', 'after --: run this agent as the task (ends the task when it exits)')
    .option('--cwd <dir>', 'the task working directory', process.cwd())
    .option('--env', 'print `export …` lines for eval')
    .option('--json', 'print JSON')
    .option('--sandbox', 'with an agent: run it under bubblewrap (workspace, request.sock and its SSH socket only)')
    .option('--network', 'with an agent: ask the human at start for a transfer grant, which then covers every destination of its egress proxy but this machine and the local network')
    .option('--secret <name...>', "secrets the task uses: its sandbox sees a placeholder, the egress proxy injects the value on the secret's hosts")
    .option('--ro <path...>', 'with --sandbox: extra paths visible read-only')
    .option('--keep-env <name...>', 'with --sandbox: pass these variables although their names look like credentials (*KEY*, *SECRET*, *TOKEN*, passwords), which the sandbox does not get otherwise; --secret is the way that keeps the value out')
    .addHelpText('after', '\nExamples:\n  eval "$(airlock task start "fix CI" --env)"\n  airlock task start "fix CI" --sandbox -- claude')
    .action(async (name: string, agent: string[], o: { cwd: string; env?: boolean; json?: boolean; sandbox?: boolean; network?: boolean; secret?: string[]; ro?: string[]; keepEnv?: string[] }) => {
      if (agent.length > 0 || o.sandbox) {
        const { runTaskAgentCli } = require('./task-agent') as typeof import('./task-agent');
        return runTaskAgentCli(name, agent, o);
      }
      const c = await connectAgent();
      try {
        const r = await c.call<TaskStarted>('task.start', { name, cwd: path.resolve(o.cwd), ...(o.secret?.length ? { secrets: o.secret } : {}) });
        if (o.json) printJson(r);
        else if (o.env) {
          // The token, not the id, acts as the task on the shared request.sock; our clients
          // (exec, check, mcp, the hook, airlock/client) send it beside AIRLOCK_TASK.
          // Quoted: the socket path holds AIRLOCK_HOME, which may hold a space, `$` or `;`, and
          // these lines are eval'd.
          process.stdout.write(`export AIRLOCK_TASK=${shellWord(r.task)}\n`);
          process.stdout.write(`export AIRLOCK_TASK_TOKEN=${shellWord(r.token)}\n`);
          if (r.sshAuthSock) process.stdout.write(`export SSH_AUTH_SOCK=${shellWord(r.sshAuthSock)}\n`);
        } else {
          process.stdout.write(`${r.task}\n`);
          // Shown once (the daemon keeps a hash): without it the id alone cannot act as the task
          // on the shared request.sock, so `exec --task ID` would be refused. stdout stays the id.
          process.stderr.write(`airlock: to act as this task (exec, check, mcp): export AIRLOCK_TASK=${r.task} AIRLOCK_TASK_TOKEN=${r.token} — or start it with --env\n`);
        }
      } catch (e) {
        if (e instanceof AirlockRpcError) throw new CliError(e.message, EXIT.usage);
        throw e;
      } finally {
        c.close();
      }
    });
  task
    .command('end <id>')
    .description('end a task: its grants stop matching and its SSH socket is removed')
    .action(async (id: string) => {
      await callUi('tasks.end', { task: id });
      process.stdout.write(`ended ${id}\n`);
    });
  task
    .command('list', { isDefault: true })
    .description('list running tasks (--all: ended ones too)')
    .option('--all', 'include ended tasks')
    .option('--json', 'print JSON')
    .action(async (o: { all?: boolean; json?: boolean }) => {
      const { tasks } = await callUi<{ tasks: Task[] }>('tasks.list', { includeEnded: o.all ?? false });
      if (o.json) return printJson(tasks);
      if (tasks.length === 0) return void process.stdout.write('no tasks\n');
      process.stdout.write(
        table([
          ['ID', 'STARTED', 'ENDED', 'NAME', 'FROM', 'CWD'],
          ...tasks.map((t) => [t.id, fmtTime(t.createdAt), fmtTime(t.endedAt), t.name, t.remote ? `remote ${t.remote}` : 'this machine', t.cwd ?? '']),
        ]),
      );
    });
}
