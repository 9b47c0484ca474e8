// `airlock watch` in a detached tmux pane against a fresh daemon, for tests that read the
// screen and type keys as a person would. Registers its own before/after hooks.
import { after, before } from 'node:test';
import { execFileSync } from 'node:child_process';
import type { RpcClient } from '../../main/client/rpc-client';
import { CLI, startDaemon, waitFor, type Daemon } from './daemon';

export interface WatchPane {
  /** Set once the before hook has run. */
  d: Daemon;
  agent: RpcClient;
  session: string;
  tmux(...args: string[]): string;
  screen(): string;
}

export function watchInTmux(name: string, cols: number, rows: number): WatchPane {
  const session = `${name}-${process.pid}`;
  const tmux = (...args: string[]): string => execFileSync('tmux', args, { encoding: 'utf8' });
  const pane = { session, tmux, screen: () => tmux('capture-pane', '-p', '-t', session) } as WatchPane;
  before(async () => {
    pane.d = await startDaemon();
    pane.agent = await pane.d.agent();
    tmux('new-session', '-d', '-s', session, '-x', String(cols), '-y', String(rows), '-e', `AIRLOCK_HOME=${pane.d.home}`, process.execPath, CLI, 'watch');
    await waitFor(() => /0 pending/.test(pane.screen()), 'watch to show its header');
  });
  after(async () => {
    try {
      tmux('kill-session', '-t', session);
    } catch {
      // already gone
    }
    pane.agent?.close();
    await pane.d?.stop();
  });
  return pane;
}
