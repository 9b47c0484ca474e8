import type { Command } from 'commander';
import * as path from 'node:path';
import type { Key } from '../../contract/approver';
import { CliError, callUi, fmtTime, printJson, table } from '../util';

// `rsa` and `ecdsa` as in ssh-keygen -t (RSA 3072, ECDSA P-256; the contract maps them).
const TYPES = ['ed25519', 'ecdsa-p256', 'ecdsa-p384', 'ecdsa-p521', 'rsa-3072', 'rsa-4096', 'rsa', 'ecdsa'];

/** Reads a passphrase from stdin when asked with --passphrase-stdin (never from argv: ps shows argv). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin) {
    const b = c as Buffer;
    size += b.length;
    if (size > 4096) throw new CliError('passphrase on stdin is too long');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

function row(k: Key): string[] {
  return [k.name, k.type, k.fingerprint, k.origin, k.confirm ? 'confirm' : '', k.expiresAt ? fmtTime(k.expiresAt) : '-', fmtTime(k.lastUsedAt)];
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description("the SSH agent's keys: list, import, generate, remove");
  keys
    .command('list', { isDefault: true })
    .option('--json', 'print JSON')
    .option('--public', 'print the public keys (authorized_keys lines)')
    .action(async (o: { json?: boolean; public?: boolean }) => {
      const r = await callUi<{ keys: Key[] }>('keys.list');
      if (o.json) return printJson(r.keys);
      if (o.public) return void process.stdout.write(r.keys.map((k) => k.publicKey + '\n').join(''));
      if (r.keys.length === 0) return void process.stdout.write('no keys (airlock keys import ~/.ssh/id_ed25519, or airlock keys generate NAME)\n');
      process.stdout.write(table([['NAME', 'TYPE', 'FINGERPRINT', 'ORIGIN', '', 'EXPIRES', 'LAST USED'], ...r.keys.map(row)]));
    });
  keys
    .command('import <file>')
    .description('import an OpenSSH or PEM private key (sealed at rest; the file is left as it is)')
    .option('-n, --name <name>', 'name shown in prompts (default: the key comment or file name)')
    .option('--passphrase-stdin', "read the key's passphrase from stdin")
    .option('--json', 'print JSON')
    .action(async (file: string, o: { name?: string; passphraseStdin?: boolean; json?: boolean }) => {
      const passphrase = o.passphraseStdin ? await readStdin() : undefined;
      const r = await callUi<{ key: Key }>('keys.import', {
        path: path.resolve(file),
        ...(passphrase !== undefined ? { passphrase } : {}),
        ...(o.name ? { name: o.name } : {}),
      }).catch((e: unknown) => {
        // The daemon says what is missing; here, say how to give it.
        if (e instanceof CliError && passphrase === undefined && /encrypted: give its passphrase/.test(e.message)) {
          throw new CliError(`${e.message} (on stdin: airlock keys import ${file} --passphrase-stdin)`, e.exitCode);
        }
        throw e;
      });
      if (o.json) return printJson(r.key);
      process.stdout.write(`imported ${r.key.name} ${r.key.fingerprint}\n`);
    });
  keys
    .command('generate <name>')
    .description('generate a new key inside Airlock and print its public key')
    .option('-t, --type <type>', TYPES.join('|'), 'ed25519')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { type: string; json?: boolean }) => {
      if (!TYPES.includes(o.type)) throw new CliError(`--type must be one of ${TYPES.join(', ')}`);
      const r = await callUi<{ key: Key }>('keys.generate', { type: o.type, name });
      if (o.json) return printJson(r.key);
      process.stdout.write(`${r.key.publicKey}\n`);
    });
  keys
    .command('remove <fingerprint>')
    .description('remove a key (a stored key is deleted from disk)')
    .action(async (fingerprint: string) => {
      await callUi('keys.remove', { fingerprint });
      process.stdout.write(`removed ${fingerprint}\n`);
    });
}
