// `airlock remote`: agents on other machines ask this Airlock through `ssh -R`.
// `add` opens the remote's own request socket here and prints the exact ssh command and
// the server-side environment. Only that agent-side socket is forwarded: the server can
// ask, never decide (ui.sock stays on this machine).
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import type { Command } from 'commander';
import type { Remote } from '../../contract/approver';
import { RemoteName } from '../../contract/common';
import { airlockPaths } from '../../os/paths';
import { forwardAgentValue, forwardField, sshPathProblem } from '../../ssh/forward-spec';
import { hasHidden, visible } from '../../../shared/display-text';
import { shellWord } from '../../../shared/shell-word';
import { callUi, CliError, fmtTime, printJson, table } from '../util';

/** Quotes for a POSIX shell when needed (paths with spaces, the remote command). */
const shq = shellWord;

export interface RemotePlan {
  remote: Remote;
  /** The socket on the server: ssh -R creates it (0600, by sshd's StreamLocalBindMask). */
  serverSocket: string;
  /** ssh's arguments before the destination: the forward, the agent, fail if the forward fails. */
  sshOptions: string[];
  env: { AIRLOCK_REQUEST_SOCK: string };
  /** One line to paste: the options, the destination, a login shell with the env set. */
  command: string;
}

/**
 * Why `destination` cannot stand where the printed ssh line puts it, or null. The line is
 * pasted into a shell as it is: a destination starting with `-` is read by ssh as an option
 * (`-oProxyCommand=…` runs a command here, `-J host` goes through another machine); one with
 * a blank, a control, bidi or invisible character, or a shell metacharacter names no host
 * and would make the line read as something it is not (OpenSSH 9.6 refuses such names too).
 */
export function destinationProblem(destination: string): string | null {
  if (destination === '') return 'it is empty';
  if (destination.startsWith('-')) return 'it starts with "-", so ssh would read it as an option';
  if (destination.length > 1024) return 'it is over 1024 characters';
  if (/[\s]/u.test(destination) || hasHidden(destination)) return 'it holds a blank, a control, bidi or invisible character';
  if (/['"`$\\;&|<>(){}*?!#]/.test(destination)) return 'it holds a shell metacharacter (\' " ` $ \\ ; & | < > ( ) { } * ? ! #)';
  return null;
}

export function planRemote(remote: Remote, destination: string, serverSocket: string | undefined, agentSock: string | null): RemotePlan {
  // A fresh unguessable name on every run: another user of the server cannot squat it in
  // advance, and a stale socket of an earlier session (sshd leaves it behind) never blocks
  // the forward. ExitOnForwardFailure: no session at all rather than one whose requests
  // go nowhere — or to whoever owns that path.
  const server = serverSocket ?? `/tmp/airlock-${remote.name}-${crypto.randomBytes(6).toString('hex')}.sock`;
  const sshOptions = [
    '-o', 'ExitOnForwardFailure=yes',
    // Escaped as ssh reads them (forward-spec.ts): a `%`, `:` or `\\` in a path (an
    // AIRLOCK_HOME, --server-socket) would otherwise make ssh use another socket.
    '-R', `${forwardField(server)}:${forwardField(remote.socket)}`,
    // Signatures on the server go to this Airlock's SSH agent (and are marked forwarded).
    ...(agentSock ? ['-o', `ForwardAgent=${forwardAgentValue(agentSock)}`] : []),
  ];
  const shell = `export AIRLOCK_REQUEST_SOCK=${shq(server)}; exec "\${SHELL:-/bin/sh}" -l`;
  const command = ['ssh', ...sshOptions.map(shq), '-t', shq(destination), shq(shell)].join(' ');
  return { remote, serverSocket: server, sshOptions, env: { AIRLOCK_REQUEST_SOCK: server }, command };
}

/** Refuses a socket path of this machine that ssh would not take literally (forward-spec.ts). */
function unprintable(p: string): void {
  const why = sshPathProblem(p);
  if (why) throw new CliError(`the socket ${JSON.stringify(visible(p))} cannot be put in an ssh command: ${why}. Set AIRLOCK_HOME (or XDG_RUNTIME_DIR) to a directory without it and restart Airlock`);
}

export function registerRemote(program: Command): void {
  const remote = program
    .command('remote')
    .description('agents on other machines ask this Airlock over SSH (ssh -R): set up a remote, print the ssh command');
  remote
    .command('add <name> [destination]')
    .description('open the remote\'s request socket here; print the ssh command and the server\'s environment (run again for a fresh command)')
    .option('--server-socket <path>', 'the socket path on the server (default: a fresh unguessable /tmp path each time)')
    .option('--no-agent', 'do not forward Airlock\'s SSH agent')
    .option('--json', 'print JSON (the ssh options, the environment)')
    .addHelpText('after', '\nExample:\n  airlock remote add build me@build.example.com\n  # then run the printed ssh command; on the server `airlock exec -- make deploy` asks here')
    .action(async (name: string, destination: string | undefined, o: { serverSocket?: string; agent: boolean; json?: boolean }) => {
      if (!RemoteName.safeParse(name).success) throw new CliError(`bad remote name "${name}": letters, digits and dashes (up to 32)`);
      const problem = destination === undefined ? null : destinationProblem(destination);
      if (problem !== null && destination !== undefined) throw new CliError(`bad destination ${JSON.stringify(visible(destination))}: ${problem}; give [user@]host or ssh://[user@]host[:port]`);
      if (o.serverSocket !== undefined && !o.serverSocket.startsWith('/')) throw new CliError('--server-socket must be an absolute path (sshd resolves relative ones against /)');
      const serverProblem = o.serverSocket === undefined ? null : sshPathProblem(o.serverSocket);
      if (serverProblem) throw new CliError(`bad --server-socket ${JSON.stringify(visible(o.serverSocket!))}: ${serverProblem}`);
      // Checked before the remote is added: a path ssh cannot be told literally gets no remote.
      const here = airlockPaths();
      for (const p of [...(o.agent ? [here.agentSock] : []), path.join(here.remotesDir, name, 'request.sock')]) unprintable(p);
      const { remote: r } = await callUi<{ remote: Remote }>('remotes.add', { name });
      unprintable(r.socket); // the daemon's AIRLOCK_HOME may differ from this shell's
      const plan = planRemote(r, destination ?? 'SERVER', o.serverSocket, o.agent ? airlockPaths().agentSock : null);
      if (o.json) {
        printJson(plan);
        return;
      }
      process.stdout.write(
        [
          `Remote "${r.name}": requests from it arrive here on ${r.socket}`,
          `(marked remote "${r.name}" in prompts and history; grants made from its prompts are for it only).`,
          '',
          'Connect from this machine:',
          '',
          `  ${plan.command}`,
          '',
          // OpenSSH (up to 9.x at least) drops ForwardAgent=PATH when its own SSH_AUTH_SOCK
          // reaches no agent (check_agent_present): the session would then have no agent at all.
          ...(o.agent && !process.env.SSH_AUTH_SOCK
            ? [`Note: SSH_AUTH_SOCK is not set here, and ssh forwards the agent only when it is: run`, `  export SSH_AUTH_SOCK=${shq(airlockPaths().agentSock)}`, 'first (Airlock as your SSH agent), or the server gets no agent.', '']
            : []),
          'On the server, in that session (the command above sets it already):',
          '',
          `  export AIRLOCK_REQUEST_SOCK=${shq(plan.serverSocket)}`,
          '  airlock exec -- make deploy        # asks the human here; so do airlock check, the hook and the MCP proxy',
          '',
        ].join('\n'),
      );
    });
  remote
    .command('list', { isDefault: true })
    .description('the remotes and their sockets here')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const { remotes } = await callUi<{ remotes: Remote[] }>('remotes.list');
      if (o.json) return printJson(remotes);
      process.stdout.write(table([['NAME', 'SINCE', 'SOCKET'], ...remotes.map((r) => [r.name, fmtTime(r.createdAt), r.socket])]));
    });
  remote
    .command('remove <name>')
    .description('close the remote\'s socket, deny its open prompts and revoke its allow grants (its deny grants stay)')
    .action(async (name: string) => {
      if (!RemoteName.safeParse(name).success) throw new CliError(`bad remote name "${name}"`);
      await callUi('remotes.remove', { name });
    });
}
