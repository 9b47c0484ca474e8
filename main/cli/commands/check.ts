import path from 'node:path';
import type { Command } from 'commander';
import { ACTIONS, SOURCES } from '../../contract/common';
import type { AgentAnswer } from '../../contract/agent';
import { AirlockRpcError } from '../../client/rpc-client';
import { taskTokenFor } from '../../client';
import { EXIT } from '../exit-codes';
import { CliError, connectAgent, printJson } from '../util';

const withTaskToken = (task: string): { token?: string } => {
  const token = taskTokenFor(task);
  return token ? { token } : {};
};

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('ask Airlock whether an action may happen (waits for a grant or the human); exit 0 allowed, 126 denied')
    .requiredOption('-a, --action <action>', `one of ${ACTIONS.join(', ')}`)
    .requiredOption('-t, --tool <tool>', 'the tool, e.g. fs.write or deploy')
    .option('-r, --resource <resource...>', 'what it acts on (path, host, URL); repeat for several')
    .option('-s, --summary <text>', 'one readable line for the prompt')
    .option('--source <source>', `one of ${SOURCES.join(', ')}`, 'api')
    .option('--task <id>', 'the task this belongs to (see `airlock task start`; its token comes from AIRLOCK_TASK_TOKEN, or give the token here)', process.env.AIRLOCK_TASK)
    .option('--cwd <dir>', 'working directory', process.cwd())
    .option('--json', 'print the answer as JSON')
    .addHelpText('after', '\nExample:\n  airlock check -a write -t fs.write -r "$PWD/src/app.ts" -s "write src/app.ts" && echo allowed')
    .action(async (o: { action: string; tool: string; resource?: string[]; summary?: string; source: string; task?: string; cwd: string; json?: boolean }) => {
      const c = await connectAgent();
      let a: AgentAnswer;
      try {
        a = await c.call<AgentAnswer>('request', {
          source: o.source,
          tool: o.tool,
          action: o.action,
          ...(o.resource?.length ? { resource: o.resource[0], resources: o.resource } : {}),
          summary: o.summary ?? `${o.action} ${o.tool}${o.resource ? ' ' + o.resource.join(' ') : ''}`,
          // On the shared socket a task needs its token (AIRLOCK_TASK_TOKEN, or --task TOKEN).
          ...(o.task ? { task: o.task, ...withTaskToken(o.task) } : {}),
          cwd: path.resolve(o.cwd),
        });
      } catch (e) {
        if (e instanceof AirlockRpcError) throw new CliError(e.message, EXIT.usage);
        throw e;
      } finally {
        c.close();
      }
      if (o.json) printJson(a);
      if (a.decision === 'allow') {
        if (!o.json) process.stdout.write(`allowed: ${a.reason} (event ${a.event})\n`);
        return;
      }
      // One line, as `exec` prints it; no "denied: denied by …" when the reason says it already.
      process.stderr.write(`airlock: ${/^denied\b/i.test(a.reason) ? '' : 'denied: '}${a.reason}${a.event > 0 ? ` (event ${a.event})` : ''}\n`);
      process.exitCode = EXIT.denied;
    });
}
