// Runs the approved command as a child with our stdio, forwards signals, enforces the
// timeout, and reports how it ended so `airlock exec` can end the same way.
import { spawn, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import { descendants, signalIfSame, stillRunning } from '../../os/process-tree';
import type { ChainNode } from '../../os/process-chain';

export interface RunOptions {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Seconds; 0 or undefined = none. */
  timeoutSec?: number;
  /** Child stdin: inherit ours, or nothing (when our stdin carried the command text). */
  stdin: 'inherit' | 'ignore';
  /** Grace period between SIGTERM and SIGKILL on timeout. */
  killAfterMs?: number;
  /** The child runs in its own session (bwrap --new-session): the terminal's Ctrl-C cannot reach it, so we pass it on. */
  ownSession?: boolean;
}

export type RunOutcome =
  | { kind: 'exit'; code: number }
  | { kind: 'signal'; signal: NodeJS.Signals }
  | { kind: 'timeout'; afterSec: number }
  | { kind: 'spawn-error'; message: string; code: string | undefined };

/**
 * Signals we pass on. SIGINT/SIGQUIT from a terminal already reach the child (same
 * process group), so they are forwarded only when stdin is not a terminal (i.e. someone
 * ran `kill`), to avoid a double Ctrl-C.
 */
const ALWAYS = ['SIGTERM', 'SIGHUP', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH', 'SIGCONT'] as const;
const TTY_DELIVERED = ['SIGINT', 'SIGQUIT'] as const;

export function runCommand(o: RunOptions): Promise<RunOutcome> {
  return new Promise((resolve) => {
    // The handlers go in before the spawn: a signal that arrives between fork and the first
    // line after spawn() (the child may already be running and printing) would otherwise take
    // the default action and kill us, leaving the child running unsupervised. With a handler
    // in place the signal waits for the event loop, by when spawn() has returned.
    let child: ChildProcess | undefined;
    const viaTerminal = process.stdin.isTTY && !o.ownSession;
    const forwarded: NodeJS.Signals[] = [...ALWAYS, ...(viaTerminal ? [] : TTY_DELIVERED)];
    const handlers = new Map<NodeJS.Signals, () => void>();
    for (const sig of forwarded) {
      const h = () => {
        if (child && child.exitCode === null && child.signalCode === null) child.kill(sig);
      };
      handlers.set(sig, h);
      process.on(sig, h);
    }
    const dropHandlers = () => {
      for (const [sig, h] of handlers) process.off(sig, h);
    };
    try {
      child = spawn(o.file, o.args, { cwd: o.cwd, env: o.env, stdio: [o.stdin, 'inherit', 'inherit'] });
    } catch (e) {
      dropHandlers();
      resolve({ kind: 'spawn-error', message: (e as Error).message, code: (e as NodeJS.ErrnoException).code });
      return;
    }
    const started = child;
    // Ctrl-C while the terminal delivers it to both: we wait for the child rather than die first.
    const ignoreTty = () => undefined;
    if (viaTerminal) for (const sig of TTY_DELIVERED) process.on(sig, ignoreTty);

    // On timeout the whole tree the command started is stopped, not just the command: it
    // shares our process group (so a terminal's Ctrl-C and job control still work), so it
    // cannot be signalled as a group; its descendants are found in /proc instead, named by
    // pid and start time, and get the same SIGTERM, then SIGKILL after the grace period.
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const tree: ChainNode[] = [];
    let afterExit: (() => void) | null = null;
    const remember = () => {
      if (started.pid === undefined || started.exitCode !== null || started.signalCode !== null) return;
      for (const n of descendants(started.pid)) if (!tree.some((t) => t.pid === n.pid && t.start === n.start)) tree.push(n);
    };
    const timer =
      o.timeoutSec && o.timeoutSec > 0
        ? setTimeout(() => {
            timedOut = true;
            remember();
            started.kill('SIGTERM');
            for (const n of tree) signalIfSame(n, 'SIGTERM');
            killTimer = setTimeout(() => {
              remember();
              started.kill('SIGKILL');
              for (const n of tree) signalIfSame(n, 'SIGKILL');
              afterExit?.();
            }, o.killAfterMs ?? 5000);
          }, o.timeoutSec * 1000)
        : undefined;

    const cleanup = () => {
      if (timer) clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      dropHandlers();
      for (const sig of TTY_DELIVERED) process.off(sig, ignoreTty);
    };
    started.once('error', (e: NodeJS.ErrnoException) => {
      cleanup();
      resolve({ kind: 'spawn-error', message: e.message, code: e.code });
    });
    started.once('exit', (code, signal) => {
      if (timedOut) {
        // What it started and what ignored SIGTERM gets the SIGKILL before we report "stopped".
        let finished = false;
        let poll: NodeJS.Timeout | undefined = undefined;
        const done = () => {
          if (finished) return;
          finished = true;
          clearInterval(poll);
          cleanup();
          resolve({ kind: 'timeout', afterSec: o.timeoutSec ?? 0 });
        };
        if (!killTimer || !tree.some(stillRunning)) return done();
        // Signals land a moment later: done as soon as the last one is gone, else at the SIGKILL.
        afterExit = done;
        poll = setInterval(() => {
          if (!tree.some(stillRunning)) done();
        }, 50);
        return;
      }
      cleanup();
      if (signal) resolve({ kind: 'signal', signal });
      else resolve({ kind: 'exit', code: code ?? 1 });
    });
  });
}

/** Ends this process the way the child ended: same code, or the same signal. */
export function exitLike(outcome: RunOutcome): never {
  if (outcome.kind === 'exit') process.exit(outcome.code);
  if (outcome.kind === 'timeout') process.exit(124);
  if (outcome.kind === 'spawn-error') process.exit(outcome.code === 'ENOENT' ? 127 : 126);
  const sig = outcome.signal;
  // Re-raise with the default action so our parent sees "killed by SIGx".
  process.removeAllListeners(sig);
  try {
    process.kill(process.pid, sig);
  } catch {
    /* fall through */
  }
  process.exit(128 + (os.constants.signals[sig] ?? 1));
}
