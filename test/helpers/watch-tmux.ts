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

/**
 * Runs a scenario in which a key lands inside watch's input guard (half a second after what
 * re-armed it: a new prompt on screen, j/k, a resize, a focus-in) and must be ignored. The
 * scenario returns true when the key was ignored and the rest of it held, false when the
 * key acted. On a loaded machine a key can reach watch more than half a second after the
 * event that re-armed the guard (tmux, watch or the test stalled), and then acting on it is
 * right; so the scenario runs afresh, up to `attempts` times. A guard that does not hold
 * acts every time, and the test fails.
 */
export async function guardHolds(what: string, scenario: (attempt: number) => Promise<boolean>, attempts = 3): Promise<void> {
  for (let i = 1; i <= attempts; i++) if (await scenario(i)) return;
  throw new Error(`${what}: the key acted in all ${attempts} attempts; the input guard does not hold`);
}

/**
 * Waits until `re` matches the screen with the prompt card drawn whole. A frame is one
 * write, but tmux may take it in two reads, and a capture between them shows the top of the
 * new card over the rest of the old screen; the keys line ("[d]/Esc deny …") is the card's
 * last, so it is waited for too.
 */
export async function waitForCard(screen: () => string, re: RegExp, what: string): Promise<string> {
  let s = '';
  await waitFor(() => {
    s = screen();
    return re.test(s) && /\[d\]\/Esc deny/.test(s);
  }, what);
  return s;
}
