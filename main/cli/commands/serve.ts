import type { Command } from 'commander';
import * as path from 'node:path';
import { startCore } from '../../api/daemon';
import { CliError, parseWhole } from '../util';
import { EXIT, faultExit } from '../exit-codes';
import { faultOf, StoreFault } from '../../store/faults';
import { airlockPaths } from '../../os/paths';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the Airlock daemon headless (request.sock, ui.sock, SSH agent); AIRLOCK_HOME picks where')
    .option('--web', 'also serve the web UI on 127.0.0.1 (prints its URL with its token; the token and port are kept across restarts so open tabs reconnect)')
    .option('--port <n>', 'port of the web UI (0: the last run\'s port if free, else any free port)', '0')
    .option('--new-web-token', 'make a new web UI token (signs out every open tab)')
    .option('--upstream <path>', 'front an existing SSH agent socket: its keys are listed beside ours, each signature approved first (default: the upstreamAgent setting)')
    .action(async (opts: { web?: boolean; port: string; upstream?: string; newWebToken?: boolean }, cmd: Command) => {
      // Both only mean something for the web UI: without --web they would be ignored in
      // silence, and `serve --port 7777` would leave the user waiting for a page that never comes.
      for (const [flag, name] of [['--port', 'port'], ['--new-web-token', 'newWebToken']] as const) {
        if (!opts.web && cmd.getOptionValueSource(name) === 'cli') throw new CliError(`${flag} is for the web UI: add --web (airlock serve --web ${flag}${flag === '--port' ? ' ' + opts.port : ''})`);
      }
      const port = parseWhole('--port', opts.port, 0, 65535);
      const started = Date.now();
      let core: Awaited<ReturnType<typeof startCore>>;
      try {
        core = await startCore({
          log: (l) => process.stdout.write(`airlock: ${l}\n`),
          upstream: opts.upstream ? path.resolve(opts.upstream) : null,
          // SSH keys sealed with a passphrase instead of the master key file (main/ssh/sealer.ts).
          keyPassphrase: process.env.AIRLOCK_KEY_PASSPHRASE || undefined,
          // The renderer is built next to the compiled CLI: $AIRLOCK_OUT/app.
          ...(opts.web ? { web: { appDir: path.join(__dirname, '..', '..', '..', 'app'), port, newToken: opts.newWebToken ?? false } } : {}),
        });
      } catch (err) {
        // A lock or damage met by a start-up write or read after the file opened: the same fault.
        const e = faultOf(err, airlockPaths().db);
        if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE' && opts.web) {
          // On [::1] too: a tab at http://localhost:PORT goes there first (main/api/web-server.ts).
          const v6 = (e as { address?: unknown }).address === '::1';
          const where = v6 ? `[::1] (a tab at http://localhost:${port} would reach that program, not Airlock)` : '127.0.0.1';
          throw new CliError(`cannot start: port ${port} on ${where} is in use by another program: choose another --port (0 picks a free one)`, EXIT.internal);
        }
        // One clear line (a wrong key passphrase, a socket in use, a newer database), no stack;
        // a damaged, unopenable or locked database has its own exit code (65, 66, 75).
        throw new CliError(`cannot start: ${(e as Error).message}`, e instanceof StoreFault ? faultExit(e.kind) : EXIT.internal);
      }
      const web = core.web;
      if (web) {
        process.stdout.write(`airlock: web UI ${web.url}\n`);
        process.stdout.write(`airlock: (from another machine: ssh -L ${web.port}:127.0.0.1:${web.port} this-host, then open the same URL)\n`);
      }
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
