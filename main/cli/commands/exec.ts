import type { Command } from 'commander';
import * as path from 'node:path';
import { EXIT } from '../exit-codes';
import { CliError, parseTimeoutSeconds } from '../util';

export function registerExec(program: Command): void {
  program
    .command('exec')
    .description('ask Airlock, then run a command (sudo for agents): exits with its code, or 126 when denied')
    .argument('[cmd...]', 'the command and its arguments, after --')
    // As with sudo: everything from the command's name on is the command's, so `airlock exec ls -d /tmp`
    // works without `--` (options go before the command).
    .passThroughOptions()
    .option('--task <id>', 'the task this belongs to', process.env.AIRLOCK_TASK)
    .option('--sandbox', 'run under bubblewrap: cwd read-write, system read-only, no home, no network; with --task, its way out is the task\'s egress proxy, where every new destination asks')
    .option('--timeout <seconds>', 'stop the command, and every process it started, after this many seconds (exit 124)')
    .option('--cwd <dir>', 'working directory', process.cwd())
    .option('--shell', 'CMD is shell text run by /bin/sh -c (pipes, &&, redirections)')
    .option('--stdin-command', 'read the shell text from stdin (the command-wrapper recipe, docs/command-wrapper.md)')
    .option('--ro <path...>', 'with --sandbox: extra paths visible read-only')
    .option('--keep-env <name...>', 'with --sandbox: pass these variables although their names look like credentials (*KEY*, *SECRET*, *TOKEN*, passwords), which the sandbox does not get otherwise')
    .addHelpText(
      'after',
      `
Examples:
  airlock exec -- git push origin main
  airlock exec --shell -- 'npm test && rm -rf dist'
  airlock exec --sandbox --timeout 600 -- make test

Denied: exit 126 and one line on stderr saying who denied and why. Nothing runs unless allowed.`,
    )
    .action(async (cmd: string[], o: { task?: string; sandbox?: boolean; timeout?: string; cwd: string; shell?: boolean; stdinCommand?: boolean; ro?: string[]; keepEnv?: string[] }) => {
      const { execWithApproval, ExecStop } = require('../../integrations/exec/exec') as typeof import('../../integrations/exec/exec');
      const { exitLike } = require('../../integrations/exec/run') as typeof import('../../integrations/exec/run');
      const timeoutSec = o.timeout !== undefined ? parseTimeoutSeconds(o.timeout) : undefined;
      let stdinCommand: string | undefined;
      if (o.stdinCommand) {
        if (cmd.length) throw new CliError('--stdin-command reads the command from stdin: give no command after --');
        stdinCommand = await readAll(1024 * 1024);
        // A here-document ends with one newline that is not part of the command.
        stdinCommand = stdinCommand.replace(/\n$/, '');
      }
      try {
        const outcome = await execWithApproval({
          argv: cmd,
          shell: !!o.shell,
          stdinCommand,
          cwd: path.resolve(o.cwd),
          task: o.task || undefined,
          sandbox: !!o.sandbox,
          timeoutSec,
          readOnly: (o.ro ?? []).map((p) => path.resolve(p)),
          keepEnv: o.keepEnv ?? [],
          env: process.env,
        });
        if (outcome.kind === 'timeout') process.stderr.write(`airlock: timed out after ${outcome.afterSec} s; the command was stopped\n`);
        if (outcome.kind === 'spawn-error') process.stderr.write(`airlock: cannot run ${cmd[0] ?? 'the command'}: ${outcome.message}\n`);
        exitLike(outcome);
      } catch (e) {
        if (e instanceof ExecStop) {
          const code = { denied: EXIT.denied, unavailable: EXIT.unavailable, usage: EXIT.usage, sandbox: EXIT.unavailable }[e.kind];
          throw new CliError(e.message, code);
        }
        throw e;
      }
    });
}

function readAll(max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    process.stdin.on('data', (d: Buffer) => {
      size += d.length;
      if (size > max) {
        process.stdin.destroy();
        reject(new CliError(`the command on stdin is larger than ${max} bytes`));
      } else chunks.push(d);
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}
