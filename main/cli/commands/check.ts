import path from 'node:path';
import type { Command } from 'commander';
import { ACTIONS, SOURCES } from '../../contract/common';
import type { AgentAnswer } from '../../contract/agent';
import { AirlockRpcError } from '../../client/rpc-client';
import { agentAnswerOf, taskTokenFor } from '../../client';
import { EXIT } from '../exit-codes';
import { CliError, connectAgent, parseTimeoutSeconds, printJson } from '../util';

const withTaskToken = (task: string): { token?: string } => {
  const token = taskTokenFor(task);
  return token ? { token } : {};
};

/**
 * Without --timeout, how long `check` waits at most: a prompt lasts at most 3600 s (the
 * largest promptTimeoutSec), so a daemon silent for longer is not asking anyone; a script
 * must not hang on it for ever.
 */
const LONGEST_WAIT_SEC = 3600 + 300;

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
    .option('--timeout <seconds>', `stop waiting after this many seconds: the prompt is withdrawn and it exits 126 (without it: at most ${LONGEST_WAIT_SEC} s, then 69)`)
    .option('--json', 'print the answer as JSON')
    .addHelpText('after', '\nExample:\n  airlock check -a write -t fs.write -r "$PWD/src/app.ts" -s "write src/app.ts" && echo allowed')
    .action(async (o: { action: string; tool: string; resource?: string[]; summary?: string; source: string; task?: string; cwd: string; timeout?: string; json?: boolean }) => {
      const timeoutSec = o.timeout !== undefined ? parseTimeoutSeconds(o.timeout) : undefined;
      const c = await connectAgent();
      let a: AgentAnswer;
      let timer: NodeJS.Timeout | undefined;
      try {
        const asked = c.call<unknown>('request', {
          source: o.source,
          tool: o.tool,
          action: o.action,
          ...(o.resource?.length ? { resource: o.resource[0], resources: o.resource } : {}),
          summary: o.summary ?? `${o.action} ${o.tool}${o.resource ? ' ' + o.resource.join(' ') : ''}`,
          // On the shared socket a task needs its token (AIRLOCK_TASK_TOKEN, or --task TOKEN).
          ...(o.task ? { task: o.task, ...withTaskToken(o.task) } : {}),
          cwd: path.resolve(o.cwd),
        });
        // Closing the connection (finally) is what withdraws the prompt: the daemon records the
        // request as denied, its requester gone.
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                timeoutSec !== undefined
                  ? new CliError(`no answer in ${timeoutSec} s (--timeout): not allowed; the prompt was withdrawn`, EXIT.denied)
                  : new CliError(`no answer from the Airlock daemon in ${LONGEST_WAIT_SEC} s, longer than any prompt lasts: not allowed`, EXIT.unavailable),
              ),
            (timeoutSec ?? LONGEST_WAIT_SEC) * 1000,
          );
        });
        a = agentAnswerOf(await Promise.race([asked, late]));
      } catch (e) {
        if (e instanceof CliError) throw e;
        if (e instanceof AirlockRpcError) throw new CliError(e.message, EXIT.usage);
        // The daemon went away mid-prompt, or answered something that is not an answer: one line,
        // a code scripts read as "not allowed", never a stack trace.
        throw new CliError(`${(e as Error).message}; not allowed`, EXIT.unavailable);
      } finally {
        clearTimeout(timer);
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
