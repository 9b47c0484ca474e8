// Fuzz target: the shell classifier (main/core/classify/shell.ts), which the daemon runs
// synchronously on every exec/Bash request — a slow or hanging input stalls every
// approval. Runs in a worker watched from here: if one input takes longer than HANG_MS
// the worker is terminated, the input (read from shared memory) is reported as a hang,
// and a fresh worker goes on. Oracles (in shell-worker.ts): never throws, a valid action,
// caps respected, `rm -rf /victim; <anything>` is never less than delete, under SLOW_MS.
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { clipText, type FuzzFailure, type FuzzOptions, type FuzzReport } from './lib';
import { SHARED_TEXT_UNITS, type ShellWorkerData, type ShellWorkerMessage } from './shell-worker';

export const SLOW_MS = Number(process.env.FUZZ_SHELL_SLOW_MS ?? 1000);
/** No answer for this long is a hang; never less than twice the slowness limit (the smoke relaxes that to 10 s for known-slow long commands, which a loaded machine stretches further). */
const hangMs = (slowMs: number) => Math.max(5000, 2 * slowMs);

export async function fuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const t0 = Date.now();
  const deadline = t0 + opts.seconds * 1000;
  const failures: FuzzFailure[] = [];
  const stats: Record<string, number> = { workers: 0 };
  let iterations = 0;
  for (let round = 0; Date.now() < deadline - 200 && round < 20 && failures.length < 10; round++) {
    const shared = new SharedArrayBuffer(8 + SHARED_TEXT_UNITS * 2);
    const head = new Int32Array(shared, 0, 2);
    const data: ShellWorkerData = { seed: (opts.seed + round * 0x9e3779b9) >>> 0, seconds: Math.max(0.2, (deadline - Date.now()) / 1000), slowMs: opts.slowMs ?? SLOW_MS, maxIterations: opts.maxIterations ?? 10_000_000, shared };
    const w = new Worker(path.join(__dirname, 'shell-worker.js'), { workerData: data });
    const HANG_MS = hangMs(data.slowMs);
    stats.workers!++;
    const outcome = await new Promise<'done' | 'hang' | 'error'>((resolve) => {
      let last = -1;
      let since = Date.now();
      const watch = setInterval(() => {
        const now = Atomics.load(head, 0);
        if (now !== last) {
          last = now;
          since = Date.now();
        } else if (Date.now() - since > HANG_MS) {
          clearInterval(watch);
          const n = Atomics.load(head, 1);
          const text = String.fromCharCode(...new Uint16Array(shared, 8, n).subarray(0, 20_000));
          failures.push({ kind: 'hang', message: `no answer within ${HANG_MS} ms (input ${now}, ${n} chars)`, input: clipText(text, 2000) });
          iterations += now;
          resolve('hang');
        }
      }, 100);
      w.on('message', (m: ShellWorkerMessage) => {
        if (m.type === 'failure') {
          if (failures.length < 20) failures.push(m.failure);
        } else {
          iterations += m.iterations;
          for (const [k, v] of Object.entries(m.stats)) stats[k] = k === 'slowestMs' ? Math.max(stats[k] ?? 0, v) : (stats[k] ?? 0) + v;
          clearInterval(watch);
          resolve('done');
        }
      });
      w.on('error', (e) => {
        failures.push({ kind: 'worker crashed', message: String(e?.stack ?? e), input: `seed ${data.seed}` });
        clearInterval(watch);
        resolve('error');
      });
    });
    await w.terminate();
    if (opts.log) opts.log(`shell: worker ${round + 1} ${outcome}; ${iterations} inputs, ${failures.length} failures`);
    if (outcome === 'done') break;
  }
  return { target: 'shell', seed: opts.seed, iterations, ms: Date.now() - t0, failures, stats };
}
