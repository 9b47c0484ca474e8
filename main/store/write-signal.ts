// What the main thread tells the checkpoint worker about writes, without a message per
// event: memory both threads share, holding when the last event was staged (epoch ms) and
// about how many WAL frames (pages) were written since the worker last checkpointed
// (checkpoint-worker.ts says why it waits). Typed arrays over a SharedArrayBuffer stay
// shared when passed in workerData.

/**
 * Checkpoint anyway once about this many frames are in the WAL, writes flowing or not: a
 * quarter of wal_autocheckpoint (open.ts, 20,000), so the main thread never reaches its own
 * checkpoint (measured: a 69 ms commit when a capped count of 4,000 events let it happen).
 */
export const CHECKPOINT_AFTER = 5000;

/**
 * WAL frames one event's commit writes, about: measured 8.8 for a lone event (the events
 * row, its indexes, the chain head), plus its text spilling onto overflow pages.
 */
export function framesOf(rowBytes: number): number {
  return 9 + Math.ceil(rowBytes / 4000);
}

/**
 * WAL frames one transaction of `events` events (`rowBytes` of text in all) writes, about. A
 * WAL frame is a page, and the events of one group commit share their pages: the same
 * rightmost leaf of the table and of each of the six indexes, one chain head. Measured
 * (4 KiB pages, ~650-byte rows with a process tree): 8.4 frames for one event, 13.7 for 8,
 * 23.2 for 32, so counting framesOf per event overstated a batch of 32 about 13 times and
 * checkpointed (an fsync, the WAL lock) that much more often than the WAL needed. Kept on
 * the generous side (test/unit/background-index.test.ts checks it is never below what SQLite
 * wrote): an estimate too low would let the WAL reach the main thread's own autocheckpoint.
 */
export function framesOfBatch(events: number, rowBytes: number): number {
  return 9 + Math.ceil(rowBytes / 2000) + Math.ceil(events / 4);
}

/** The worker's message after a checkpoint that moved the whole WAL (checkpoint-worker.ts says why). */
export const WAL_BACKFILLED = 'wal-backfilled';

export interface WriteSignal {
  /** [0]: when the last event was staged (epoch ms). */
  at: Float64Array;
  /** [0]: WAL frames written (estimated) since the last checkpoint. */
  count: Int32Array;
}

export function newWriteSignal(): WriteSignal {
  const buffer = new SharedArrayBuffer(16);
  return { at: new Float64Array(buffer, 0, 1), count: new Int32Array(buffer, 8, 1) };
}

/** Main thread, once per staged event (`frames`: framesOf its row). */
export function noteWrite(s: WriteSignal, now: number, frames: number): void {
  s.at[0] = now;
  Atomics.add(s.count, 0, frames);
}

/** Main thread, once per committed transaction of events (`frames`: framesOfBatch). */
export function noteCommit(s: WriteSignal, frames: number): void {
  Atomics.add(s.count, 0, frames);
}

/** Writes that are not events (search index slices): they need a checkpoint too, but they must not look like traffic. */
export function noteBackgroundWrite(s: WriteSignal, frames: number): void {
  Atomics.add(s.count, 0, frames);
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
