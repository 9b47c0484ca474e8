// The full `airlock` command line: one command file per subcommand under ./commands;
// register it here. (index.ts decides whether this needs loading at all.)
import { Command, CommanderError } from 'commander';
import { EXIT, EXIT_HELP, faultExit } from './exit-codes';
import { StoreFault } from '../store/faults';
import { CliError } from './util';
import { registerServe } from './commands/serve';
import { registerWatch } from './commands/watch';
import { registerCheck } from './commands/check';
import { registerTask } from './commands/task';
import { registerGrants } from './commands/grants';
import { registerHistory } from './commands/history';
import { registerKeys } from './commands/keys';
import { registerHook } from './commands/hook';
import { registerExec } from './commands/exec';
import { registerMcp } from './commands/mcp';
import { registerSecrets } from './commands/secrets';
import { registerRemote } from './commands/remote';

const program = new Command()
  .name('airlock')
  .description('Human-in-the-loop for AI agents: an SSH agent and a sudo-like approver that ask before high-impact actions.')
  .version(require('../../../package.json').version as string)
  .showHelpAfterError('(run with --help for usage)')
  // `airlock task|grants|keys|remote|secrets` alone lists, `airlock audit` alone verifies (a
  // default subcommand), so a mistyped subcommand reaches that default as an argument: say so.
  .configureOutput({
    outputError: (str, write) =>
      write(str.replace(/^error: too many arguments for '(list|verify)'\. Expected 0 arguments but got \d+\./m, 'error: unknown subcommand')),
  })
  .addHelpText('after', `\nEnvironment:\n  AIRLOCK_HOME   holds the database, keys and sockets (default: platform data dir)\n\n${EXIT_HELP}`)
  // Needed by `exec`/`mcp` passThroughOptions: airlock's own options come before a subcommand.
  .enablePositionalOptions()
  .exitOverride();

registerServe(program);
registerWatch(program);
registerCheck(program);
registerTask(program);
registerGrants(program);
registerHistory(program);
registerKeys(program);
registerHook(program);
registerExec(program);
registerMcp(program);
registerSecrets(program);
registerRemote(program);

program.parseAsync(process.argv).catch((e: unknown) => {
  if (e instanceof CommanderError) {
    process.exit(e.exitCode === 0 ? 0 : EXIT.usage);
  }
  if (e instanceof CliError) {
    process.stderr.write(`airlock: ${e.message}\n`);
    process.exit(e.exitCode);
  }
  // A database fault that reached here unhandled still gets its one line and code, no stack.
  if (e instanceof StoreFault) {
    process.stderr.write(`airlock: ${e.message}\n`);
    process.exit(faultExit(e.kind));
  }
  process.stderr.write(`airlock: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(EXIT.internal);
});
