// A throw-away OpenSSH server on 127.0.0.1 for the SSH agent tests: its own host key,
// config and authorized_keys in a temp dir, foreground (-D), logging to stderr (-e).
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeKey, run, startChild } from './ssh';
import { waitFor } from './daemon';

/** Who logs in: the user running the tests (root in CI containers). */
export const USER = os.userInfo().username;

export interface Sshd {
  port: number;
  dir: string;
  hostKeyPub: string;
  authorizedKeys: string;
  output(): string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** `extraConfig`: more sshd_config lines (e.g. `PubkeyAcceptedAlgorithms rsa-sha2-256`). */
export async function startSshd(dir: string, extraConfig: string[] = []): Promise<Sshd> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Debian's sshd refuses to start without its privilege separation directory.
  if (!fs.existsSync('/run/sshd') && process.getuid?.() === 0) fs.mkdirSync('/run/sshd', { mode: 0o755 });
  const hostKey = path.join(dir, 'ssh_host_ed25519_key');
  const r = await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'test-host', '-f', hostKey]);
  if (r.code !== 0) throw new Error(`ssh-keygen: ${r.stderr}`);
  const authorizedKeys = path.join(dir, 'authorized_keys');
  fs.writeFileSync(authorizedKeys, '', { mode: 0o600 });
  // The port is free when asked for, but something else (a client's ephemeral port, another
  // test's listen) can take it before sshd binds it: then a fresh port, a few times.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const sshd = await sshdOn(dir, port, hostKey, authorizedKeys, extraConfig);
    if (sshd) return sshd;
    if (attempt === 3) throw new Error('sshd found its port taken 3 times in a row');
  }
}

/** sshd on `port`; null when the port was taken meanwhile. */
async function sshdOn(dir: string, port: number, hostKey: string, authorizedKeys: string, extraConfig: string[]): Promise<Sshd | null> {
  const config = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      'PidFile none',
      `AuthorizedKeysFile ${authorizedKeys}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'AllowAgentForwarding yes',
      'LogLevel VERBOSE',
      ...extraConfig,
      '',
    ].join('\n'),
  );
  const child = startChild('/usr/sbin/sshd', ['-D', '-e', '-f', config]);
  await waitFor(() => /Server listening on 127\.0\.0\.1/.test(child.output()) || child.proc.exitCode !== null, 'sshd to listen', 30_000);
  if (child.proc.exitCode !== null) {
    if (/Address already in use/.test(child.output())) return null;
    throw new Error(`sshd exited: ${child.output()}`);
  }
  return {
    port,
    dir,
    hostKeyPub: fs.readFileSync(hostKey + '.pub', 'utf8').trim(),
    authorizedKeys,
    output: child.output,
    stop: child.stop,
  };
}

/** ssh(1) options that keep the test away from the user's config and ask nothing on a tty. */
export function sshArgs(sshd: Sshd, knownHosts: string, extra: string[] = []): string[] {
  return [
    '-F', '/dev/null',
    '-o', `UserKnownHostsFile=${knownHosts}`,
    '-o', 'GlobalKnownHostsFile=/dev/null',
    '-o', 'StrictHostKeyChecking=yes',
    '-o', 'BatchMode=yes',
    '-o', 'PasswordAuthentication=no',
    '-o', 'ConnectTimeout=10',
    '-o', 'IdentityFile=none',
    ...extra,
    '-p', String(sshd.port),
    `${USER}@127.0.0.1`,
  ];
}

/**
 * A throw-away sshd in `sshdDir` that lets in a fresh ed25519 client key (made under
 * `fxParent`), and a known_hosts file that knows the server: the set-up of every test that
 * logs in with the client's own key (the outer login of a remote, not through Airlock).
 */
export async function startSshdForClient(sshdDir: string, fxParent: string): Promise<{ sshd: Sshd; clientKey: string; knownHosts: string }> {
  const sshd = await startSshd(sshdDir);
  const fx = fs.mkdtempSync(path.join(fxParent, 'fx-'));
  const clientKey = await makeKey(fx, 'client', ['-t', 'ed25519']);
  fs.writeFileSync(sshd.authorizedKeys, fs.readFileSync(clientKey + '.pub'));
  const knownHosts = path.join(fx, 'known_hosts');
  fs.writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${sshd.hostKeyPub}\n`);
  return { sshd, clientKey, knownHosts };
}
