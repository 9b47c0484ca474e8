// Group commit (issue 15). Decisions that arrive together are written in ONE transaction:
// a commit costs about as much for one row as for thirty, so batching is what lets
// throughput grow with the number of clients. The rules:
//  - items are written in the order they were pushed (the store has already chained them);
//  - a batch is flushed on setImmediate, never on a timer: a lone request waits for no
//    one, it only yields the rest of the current turn of the event loop (requests that
//    arrived in the same turn join it);
//  - every item's promise settles only after its batch committed (or failed): callers
//    answer the agent after that, so no answer ever leaves before its row is durable;
//  - anyone may flush() synchronously first (reads of history, verify, grant writes) so
//    what they see and write follows every decision already made.
// A failed batch rejects every item in it (the store then rewinds its chain head): the
// answers in it were not given, so nobody acted on them.
// A batch that failed only because another process holds the database's lock (issue 10,
// item 9) stays staged and is tried again with back-off (25 ms doubling to 400 ms), the
// event loop free in between; items pushed meanwhile join it. Only when the lock outlasts
// the retry budget does the batch fail (and its answers become denies, Broker.ask).

interface Batch {
  promise: Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A failed batch nobody awaits (e.g. an egress record) must not become an unhandled
  // rejection that kills the daemon; whoever does await it still sees the error.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** Which failures are worth waiting out (a lock), and for how long in all. */
export interface RetryPolicy {
  transient(e: unknown): boolean;
  budgetMs: number;
}

export class GroupCommit<T> {
  private items: T[] = [];
  private batch: Batch | null = null;
  private scheduled = false;
  /** Since when the current batch has been waiting for a lock, and the next try's timer. */
  private waiting: { since: number; delay: number; timer: NodeJS.Timeout | null } | null = null;
  /**
   * How many batches were written, how many items in all, and how long the writes held the
   * thread (better-sqlite3 commits synchronously: nothing else runs meanwhile). Tests and
   * benches read these; the daemon logs them at shutdown.
   */
  readonly stats = { batches: 0, items: 0, largest: 0, writeMs: 0 };

  /**
   * `write` runs one transaction over the batch and throws if it did not commit;
   * `failed` is told before the batch's promises reject.
   */
  constructor(
    private readonly write: (items: T[]) => void,
    private readonly failed: (e: unknown) => void,
    private readonly retry?: RetryPolicy,
  ) {}

  /** Stages one item; the promise settles when its batch has committed (or failed). */
  push(item: T): Promise<void> {
    this.items.push(item);
    this.batch ??= newBatch();
    // Waiting for a lock: the scheduled retry takes this item too.
    if (!this.scheduled && !this.waiting) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
    return this.batch.promise;
  }

  get pending(): number {
    return this.items.length;
  }

  /**
   * Writes everything staged now, synchronously. Returns the error if the batch failed (its
   * promises reject with it), or `{ error, waiting: true }` when it stays staged for a retry.
   * While a retry is scheduled, other callers do not try again (each try may block the
   * thread for the database's busy timeout): they see what is committed. `final` (closing)
   * makes a waiting batch fail now instead.
   */
  flush(opts: { final?: boolean; retrying?: boolean } = {}): { error: unknown; waiting?: true } | null {
    if (this.items.length === 0) return null;
    if (this.waiting && !opts.retrying && !opts.final) return { error: new Error('waiting for the database lock'), waiting: true };
    if (this.waiting?.timer) clearTimeout(this.waiting.timer);
    const items = this.items;
    const batch = this.batch!;
    const t0 = performance.now();
    try {
      this.write(items);
    } catch (e) {
      const w = this.waiting;
      if (!opts.final && this.retry?.transient(e)) {
        const since = w?.since ?? Date.now();
        const delay = w ? Math.min(w.delay * 2, 400) : 25;
        if (Date.now() - since + delay <= this.retry.budgetMs) {
          const timer = setTimeout(() => this.flush({ retrying: true }), delay);
          this.waiting = { since, delay, timer };
          return { error: e, waiting: true };
        }
      }
      this.waiting = null;
      this.items = [];
      this.batch = null;
      this.failed(e);
      batch.reject(e);
      return { error: e };
    }
    this.waiting = null;
    this.items = [];
    this.batch = null;
    this.stats.writeMs += performance.now() - t0;
    this.stats.batches++;
    this.stats.items += items.length;
    this.stats.largest = Math.max(this.stats.largest, items.length);
    batch.resolve();
    return null;
  }
}
