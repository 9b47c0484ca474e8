// When the daemon fills the search index (issue 15, the signature tail). Search never
// depends on it: a search first indexes every event not yet indexed (Store.indexPending), so
// this only keeps that catch-up short. What it must not do is stand in front of a request.
//
// Traced (test/bench/profile-sign.ts, the slowest 1% of granted signatures laid over the
// daemon's CPU profile): the old slice, up to 256 events every 50 ms whatever the load, was
// inside the slow signatures several times more often than inside the typical ones. Every
// slice runs on the only thread and delays whichever request arrives during it, and at ~20
// slices a second a sequential client meets one in about 1% of its requests: the p99.
//
// So the work goes where no request waits:
//  - while events are being written (one staged in the last QUIET_MS), nothing is indexed;
//  - once the daemon has been quiet for QUIET_MS, small slices (QUIET_SLICE events, a few
//    hundred µs) run back to back, each on setImmediate so a request that arrives is read and
//    answered before the next slice, until the index has caught up or a request comes;
//  - a backlog over MAX_BACKLOG (a flood that never pauses) is indexed regardless, the excess
//    plus QUIET_SLICE events a tick (at most BUSY_SLICE), so what a search has to catch up
//    on stays bounded and each slice stays short.
import type { Database } from 'better-sqlite3';
import { indexBatch, indexedUpTo } from './search-index';

export const QUIET_MS = 30;
export const QUIET_SLICE = 32;
export const BUSY_SLICE = 256;
export const MAX_BACKLOG = 2000;

export interface IndexerDeps {
  db: Database;
  /** The id of the last committed event. */
  headId(): number;
  /** When the last event was staged (same clock as now()). */
  lastWriteAt(): number;
  now(): number;
  /** A slice failed because the database was busy (another process's lock). */
  onBusy(e: unknown): void;
  /** A slice indexed n events (the WAL grew: the checkpoint worker is told). */
  onIndexed?(n: number): void;
}

export class BackgroundIndexer {
  private draining = false;
  private stopped = false;

  constructor(private readonly deps: IndexerDeps) {}

  backlog(): number {
    return Math.max(0, this.deps.headId() - indexedUpTo(this.deps.db));
  }

  private quiet(): boolean {
    return this.deps.now() - this.deps.lastWriteAt() >= QUIET_MS;
  }

  /** One tick of the maintenance timer. Returns what it did (for tests). */
  tick(): 'drain' | 'busy-slice' | 'idle' {
    if (this.draining || this.stopped) return this.draining ? 'drain' : 'idle';
    const backlog = this.backlog();
    if (backlog === 0) return 'idle';
    if (this.quiet()) {
      this.draining = true;
      this.drainSlice();
      return 'drain';
    }
    if (backlog > MAX_BACKLOG) {
      // What came in since the last tick plus a little: the backlog shrinks back under the
      // cap in short slices instead of one long one (at most BUSY_SLICE).
      this.slice(Math.min(BUSY_SLICE, backlog - MAX_BACKLOG + QUIET_SLICE));
      return 'busy-slice';
    }
    return 'idle';
  }

  /** Slices while quiet, one per turn of the event loop. Bounded: each either indexes or stops. */
  private drainSlice(): void {
    if (this.stopped || !this.quiet() || this.slice(QUIET_SLICE) < QUIET_SLICE) {
      this.draining = false;
      return;
    }
    setImmediate(() => this.drainSlice());
  }

  private slice(limit: number): number {
    try {
      const n = indexBatch(this.deps.db, limit);
      if (n > 0) this.deps.onIndexed?.(n);
      return n;
    } catch (e) {
      this.deps.onBusy(e);
      return 0;
    }
  }

  /** No slice runs after this (closing: a drain's next setImmediate finds it stopped). */
  stop(): void {
    this.stopped = true;
    this.draining = false;
  }
}
