// `airlock secrets`: secrets for the egress proxy. The value is read from stdin (or typed
// with echo off), never from argv, which every process on the machine can read in /proc.
// Once added, a value is never shown again: list shows names, hosts and headers only.
import type { Command } from 'commander';
import type { Secret } from '../../contract/approver';
import { CliError, callUi, fmtTime, printJson, table } from '../util';

const MAX = 16 * 1024;

async function readPiped(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin) {
    const b = c as Buffer;
    size += b.length;
    if (size > MAX + 2) throw new CliError('the secret on stdin is too long (16 KiB at most)');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Reads one line from the terminal without echoing it. */
function readHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    const onData = (d: Buffer) => {
      for (const ch of d.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(null);
        if (ch === '\u0003') return done(new CliError('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    const done = (e: Error | null) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (e) reject(e);
      else resolve(value);
    };
    stdin.on('data', onData);
  });
}

export function registerSecrets(program: Command): void {
  const secrets = program.command('secrets').description('secrets the egress proxy injects for sandboxed tasks (the sandbox sees only a placeholder)');
  secrets
    .command('list', { isDefault: true })
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const r = await callUi<{ secrets: Secret[] }>('secrets.list');
      if (o.json) return printJson(r.secrets);
      if (r.secrets.length === 0) return void process.stdout.write('no secrets (echo "$TOKEN" | airlock secrets add NAME --host HOST)\n');
      process.stdout.write(table([['NAME', 'HOSTS', 'HEADERS', 'ADDED'], ...r.secrets.map((s) => [s.name, s.hosts.join(','), s.headers.join(',') || '(any)', fmtTime(s.createdAt)])]));
    });
  secrets
    .command('add <name>')
    .description('add (or replace) a secret; the value is read from stdin, or typed with echo off')
    .requiredOption('--host <host...>', 'hosts the secret may be sent to (repeat; *.example.com for subdomains)')
    .option('--header <name...>', 'only inject it into these request headers (default: any header)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExamples:\n  gh auth token | airlock secrets add GITHUB_TOKEN --host api.github.com --host github.com --header Authorization\n  airlock task start "fix CI" --sandbox --secret GITHUB_TOKEN -- claude')
    .action(async (name: string, o: { host: string[]; header?: string[]; json?: boolean }) => {
      const value = process.stdin.isTTY ? await readHidden(`value of ${name} (not shown): `) : await readPiped();
      if (!value) throw new CliError('no value given (pipe it on stdin)');
      const r = await callUi<{ secret: Secret }>('secrets.add', { name, value, hosts: o.host, ...(o.header ? { headers: o.header } : {}) });
      if (o.json) return printJson(r.secret);
      process.stdout.write(`added ${r.secret.name} for ${r.secret.hosts.join(', ')}\n`);
    });
  secrets
    .command('remove <name>')
    .description('remove a secret: taken back at once, running tasks included (their requests carry the placeholder from then on)')
    .action(async (name: string) => {
      await callUi('secrets.remove', { name });
      process.stdout.write(`removed ${name}\n`);
    });
}
