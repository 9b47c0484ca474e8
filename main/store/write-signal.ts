// What the main thread tells the checkpoint worker about writes, without a message per
// event: memory both threads share, holding when the last event was staged (epoch ms) and
// how many were staged since the worker last checkpointed (checkpoint-worker.ts says why it
// waits). Typed arrays over a SharedArrayBuffer stay shared when passed in workerData.
export const CHECKPOINT_AFTER = 4000;

export interface WriteSignal {
  /** [0]: when the last event was staged (epoch ms). */
  at: Float64Array;
  /** [0]: events staged since the last checkpoint. */
  count: Int32Array;
}

export function newWriteSignal(): WriteSignal {
  const buffer = new SharedArrayBuffer(16);
  return { at: new Float64Array(buffer, 0, 1), count: new Int32Array(buffer, 8, 1) };
}

/** Main thread, once per staged event. */
export function noteWrite(s: WriteSignal, now: number): void {
  s.at[0] = now;
  Atomics.add(s.count, 0, 1);
}

/** Writes that are not events (search index slices): they need a checkpoint too, but they must not look like traffic. */
export function noteBackgroundWrite(s: WriteSignal, n: number): void {
  Atomics.add(s.count, 0, n);
}

export function readWriteSignal(s: WriteSignal): { lastWriteAt: number; staged: number } {
  return { lastWriteAt: s.at[0]!, staged: Atomics.load(s.count, 0) };
}

/** Worker, before a checkpoint: the events it covers are no longer counted (later ones are). */
export function takeStagedCount(s: WriteSignal, n: number): void {
  Atomics.sub(s.count, 0, n);
}

/** Whether a checkpoint tick should run now: after a pause in writes, or once the WAL holds many events. */
export function checkpointDue(s: WriteSignal, now: number, quietMs: number): number {
  const { lastWriteAt, staged } = readWriteSignal(s);
  if (staged === 0) return 0;
  return now - lastWriteAt >= quietMs || staged >= CHECKPOINT_AFTER ? staged : 0;
}
