import type { Command } from 'commander';
import { EXIT } from '../exit-codes';
import { CliError } from '../util';

export function registerHook(program: Command): void {
  const hook = program.command('hook').description('hooks for agents that call out before each tool use');
  hook
    .command('claude-code')
    .description('Claude Code PreToolUse hook: reads the tool call on stdin, prints allow/deny/ask')
    .option('--install', 'add the hook to ~/.claude/settings.json (keeps what is there) and say what changed')
    .option('--unpinned', "with --install: let the hook follow AIRLOCK_REQUEST_SOCK anywhere (only for a server reached by `airlock remote`; by default it talks only to this Airlock's directory)")
    .option('--node', 'with --install: install the Node hook even when this build has the native one (dist/native/airlock-hook)')
    .addHelpText('after', '\nSet up:\n  airlock hook claude-code --install\n\nThe daemon not running → the hook answers "ask" and Claude Code prompts as usual.')
    .action(async (o: { install?: boolean; unpinned?: boolean; node?: boolean }) => {
      if (o.install) {
        // Lazy: the hook path below must stay light.
        const { installHook, SettingsFileError } = require('../../integrations/claude-code/install') as typeof import('../../integrations/claude-code/install');
        let r;
        try {
          r = installHook({ pinned: !o.unpinned, node: o.node });
        } catch (e) {
          // A settings.json that is not settings is bad input data (65, EX_DATAERR); anything
          // else (no permission to write) keeps 1.
          throw new CliError((e as Error).message, e instanceof SettingsFileError ? EXIT.dataError : EXIT.failed);
        }
        const what = { added: 'added the Airlock PreToolUse hook to', updated: 'updated the Airlock PreToolUse hook in', unchanged: 'the Airlock PreToolUse hook is already in' }[r.action];
        process.stdout.write(`${what} ${r.file}\n  command: ${r.command}\n  matcher: * (every tool)\n`);
        if (r.backup) process.stdout.write(`  previous file kept as ${r.backup}\n`);
        return;
      }
      const { runClaudeCodeHook } = require('../../integrations/claude-code/hook') as typeof import('../../integrations/claude-code/hook');
      await runClaudeCodeHook();
    });
  hook
    .command('command-wrapper')
    .description("print the quote-safe command template for assistants that run shell text through one ({command}), e.g. nanobot's tools.exec.commandWrapper")
    .option('--airlock <path>', 'how the assistant reaches airlock', 'airlock')
    .option('--args <flags>', 'extra flags for airlock exec, e.g. "--sandbox --task $AIRLOCK_TASK"', '')
    .addHelpText('after', '\nThe recipe and why it is safe: docs/command-wrapper.md')
    .action((o: { airlock: string; args: string }) => {
      const { commandWrapperTemplate } = require('../../integrations/exec/wrapper') as typeof import('../../integrations/exec/wrapper');
      process.stdout.write(commandWrapperTemplate(o.airlock, o.args) + '\n');
    });
}
