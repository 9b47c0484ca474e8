import type { Command } from 'commander';
import { startCore } from '../../api/daemon';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the Airlock daemon headless (request.sock, ui.sock, SSH agent); AIRLOCK_HOME picks where')
    .action(async () => {
      const started = Date.now();
      const core = await startCore({ log: (l) => process.stdout.write(`airlock: ${l}\n`) });
      process.stdout.write(`airlock: ready in ${Date.now() - started} ms (pid ${process.pid}); approve with \`airlock watch\`\n`);
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stdout.write(`airlock: ${signal}, stopping (open prompts are denied and recorded)\n`);
        await core.close();
        process.exit(0);
      };
      process.on('SIGTERM', () => void stop('SIGTERM'));
      process.on('SIGINT', () => void stop('SIGINT'));
      process.on('SIGHUP', () => void stop('SIGHUP'));
    });
}
