// The shell fuzzer's worker: classifies mutated commands in a loop. Before each one it
// writes the command and its number into shared memory, so the main thread can name the
// input even if classification never returns (a hang cannot post a message).
import { parentPort, workerData } from 'node:worker_threads';
import { ACTIONS } from '../../main/contract/common';
import { classifyShell } from '../../main/core/classify/shell';
import { clipText, errorText, prng, type FuzzFailure } from './lib';
import { SHELL_SEEDS, mutateCommand } from './shell-corpus';

export interface ShellWorkerData {
  seed: number;
  seconds: number;
  slowMs: number;
  maxIterations: number;
  /** [0] = inputs started, [1] = input length in UTF-16 units; then the text. */
  shared: SharedArrayBuffer;
}
export type ShellWorkerMessage =
  | { type: 'failure'; failure: FuzzFailure }
  | { type: 'done'; iterations: number; stats: Record<string, number> };

export const SHARED_TEXT_UNITS = 256 * 1024;

const RANK: Record<string, number> = { read: 0, other: 1, write: 2, sign: 3, delete: 4, transfer: 5, execute: 6 };

function run(d: ShellWorkerData): void {
  const head = new Int32Array(d.shared, 0, 2);
  const text = new Uint16Array(d.shared, 8, SHARED_TEXT_UNITS);
  const r = prng(d.seed);
  const stats: Record<string, number> = { slowestMs: 0, handledCrashes: 0 };
  const post = (m: ShellWorkerMessage) => parentPort!.postMessage(m);
  const deadline = Date.now() + d.seconds * 1000;
  let i = 0;
  for (; Date.now() < deadline && i < d.maxIterations; i++) {
    let cmd = r.chance(0.05) ? r.pick(SHELL_SEEDS) : mutateCommand(r, r.pick(SHELL_SEEDS));
    if (r.chance(0.3)) cmd = mutateCommand(r, cmd);
    // A dangerous first part must never be hidden by whatever follows it.
    const guarded = r.chance(0.2);
    if (guarded) cmd = `rm -rf /victim; ${cmd}`;
    const n = Math.min(cmd.length, SHARED_TEXT_UNITS);
    for (let k = 0; k < n; k++) text[k] = cmd.charCodeAt(k);
    Atomics.store(head, 1, n);
    Atomics.store(head, 0, i + 1);
    const t0 = performance.now();
    try {
      const c = classifyShell(cmd, r.chance(0.5) ? '/repo' : undefined);
      const ms = performance.now() - t0;
      stats.slowestMs = Math.max(stats.slowestMs!, ms);
      stats[`action:${c.action}`] = (stats[`action:${c.action}`] ?? 0) + 1;
      const bad = (message: string) => post({ type: 'failure', failure: { kind: 'wrong answer', message, input: clipText(cmd, 2000) } });
      if (ms > d.slowMs) post({ type: 'failure', failure: { kind: 'slow', message: `took ${ms.toFixed(0)} ms (limit ${d.slowMs}) for ${cmd.length} chars`, input: clipText(cmd, 2000) } });
      if (!(ACTIONS as readonly string[]).includes(c.action)) bad(`action ${String(c.action)}`);
      if (c.parts.length > 200 || c.resources.length > 256) bad(`${c.parts.length} parts, ${c.resources.length} resources (caps 200, 256)`);
      if (c.resources.some((x) => typeof x !== 'string' || x.length > 4096)) bad('a resource is not a string of at most 4096 characters');
      if (guarded && RANK[c.action]! < RANK.delete!) bad(`"rm -rf /victim; …" classified as ${c.action}`);
      const crash = c.riskReasons.find((x) => /classifier failed/.test(x.reason));
      // Safe (answered as execute) but still an exception in the walker: report the first.
      if (crash && stats.handledCrashes!++ === 0) post({ type: 'failure', failure: { kind: 'handled exception', message: crash.reason, input: clipText(cmd, 2000) } });
    } catch (e) {
      post({ type: 'failure', failure: { kind: `threw ${(e as Error)?.name ?? 'non-error'}`, message: errorText(e), input: clipText(cmd, 2000) } });
    }
  }
  post({ type: 'done', iterations: i, stats });
}

if (parentPort && workerData) run(workerData as ShellWorkerData);
