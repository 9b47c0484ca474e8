// Rejected attempts (garbage lines, refused params, connections over a cap, foreign peers)
// come from agents, and an agent can send them as fast as it can write. Each one used to be
// its own history row, so a spamming client wrote rows without bound. Now, per fixed window
// of WINDOW_MS:
//   - each peer — a connection (the socket's name + the daemon's connection id), or for an
//     attempt without one (a refused connection) the peer process — gets its first
//     PER_PEER attempts recorded one by one, as before (honest mistakes, even a busy client's
//     share of them, stay exact; the soak sends ~50 per connection in 10 s);
//   - all peers together get at most TOTAL such rows, and the peers of one task (an attempt
//     carrying the task, or arriving on a socket under tasks/<id>/) at most PER_TASK of
//     them: a sandboxed agent reaches only its own task's sockets, so it cannot spend the
//     whole window and push other tasks' or the main sockets' attempts into a bare count
//     (an unsandboxed process of the same user still can: see SECURITY.md, it can do worse);
//   - everything past that is counted, and when the window ends each peer that went over
//     gets ONE row saying how many more it sent and the last of them; attempts that had no
//     peer budget left at all (many connections at once) share one more row.
// So history grows by at most TOTAL + (peers recorded) + 1 ≤ 2·TOTAL + 1 rows per window
// whatever the flood, and nothing is silently dropped: the counts are in history.
// Written down: a coalesced attempt is answered at once (its error line) and counted in the
// window's row, written when the window ends; a kill -9 inside the window loses that count
// (the rows already written stay, chained). Past the budget an attempt's own details are in
// no row unless it was its peer's last: only counted. Requests that reach policy never come
// here (HistoryRecorder records each of them as its own row).
import type { RejectedAttempt } from './ports';

export const REJECTION_WINDOW_MS = 10_000;
export const REJECTIONS_PER_PEER = 100;
export const REJECTIONS_TOTAL = 2000;
export const REJECTIONS_PER_TASK = 500;

/** The task an attempt belongs to: the one it carries, else the task socket it came on. */
function taskOf(p: RejectedAttempt): string | null {
  return p.task ?? /^tasks\/([^/]+)\//.exec(p.source)?.[1] ?? null;
}

interface Bucket {
  recorded: number;
  more: number;
  last: RejectedAttempt;
}

/** The peer's pid (from the process, or the raw credentials of a refused peer). */
function pidOf(p: RejectedAttempt): number | 'unknown' {
  const raw = p.raw as { pid?: unknown } | null;
  return p.process?.pid ?? (raw && typeof raw === 'object' && typeof raw.pid === 'number' ? raw.pid : 'unknown');
}

/** Who sent an attempt: the socket's name and the connection, else the peer process. */
function peerKey(p: RejectedAttempt): string {
  return `${p.source}\0${p.connection ?? `pid ${pidOf(p)}`}`;
}

export class RejectionCoalescer {
  private windowStart = -Infinity;
  private recorded = 0;
  private readonly peers = new Map<string, Bucket>();
  /** Rows written one by one this window, per task. */
  private readonly ofTask = new Map<string, number>();
  private overflow: { more: number; last: RejectedAttempt } | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** Writes one row; returns its event id. */
    private readonly write: (p: RejectedAttempt) => number,
    private readonly now: () => number = Date.now,
    private readonly limits = { windowMs: REJECTION_WINDOW_MS, perPeer: REJECTIONS_PER_PEER, total: REJECTIONS_TOTAL, perTask: REJECTIONS_PER_TASK },
  ) {}

  /** The event id of the row written, or 0 when the attempt was counted into the window's row. */
  record(p: RejectedAttempt): number {
    const t = this.now();
    if (t - this.windowStart >= this.limits.windowMs) {
      this.flush();
      this.windowStart = t;
    }
    const key = peerKey(p);
    let b = this.peers.get(key);
    const task = taskOf(p);
    const room = this.recorded < this.limits.total && (task === null || (this.ofTask.get(task) ?? 0) < this.limits.perTask);
    if (!b && room) this.peers.set(key, (b = { recorded: 0, more: 0, last: p }));
    if (b && room && b.recorded < this.limits.perPeer) {
      b.recorded++;
      this.recorded++;
      if (task !== null) this.ofTask.set(task, (this.ofTask.get(task) ?? 0) + 1);
      return this.write(p);
    }
    if (b) {
      b.more++;
      b.last = p;
    } else if (this.overflow) {
      this.overflow.more++;
      this.overflow.last = p;
    } else this.overflow = { more: 1, last: p };
    this.timer ??= setTimeout(() => this.flush(), Math.max(0, this.windowStart + this.limits.windowMs - t)).unref();
    return 0;
  }

  /** Writes the window's counted rows now (the window ends, or the daemon stops). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const secs = Math.round(this.limits.windowMs / 1000);
    const rows: RejectedAttempt[] = [];
    for (const b of this.peers.values()) {
      if (b.more === 0) continue;
      const pid = pidOf(b.last);
      rows.push({
        ...b.last,
        summary: `${b.more} more rejected attempts from ${b.last.connection ? `one connection of process ${pid}` : `process ${pid}`} on ${b.last.source} within ${secs} s (after the first ${b.recorded}), counted in one row; the last: ${b.last.summary}`,
        raw: { coalesced: b.more, last: b.last.raw },
        reason: `${b.last.reason} (and ${b.more - 1} more like it, coalesced)`,
      });
    }
    if (this.overflow) {
      const o = this.overflow;
      rows.push({
        ...o.last,
        summary: `${o.more} more rejected attempts from many connections within ${secs} s (past ${this.limits.total} rows in all, or ${this.limits.perTask} for one task), counted in one row; the last: ${o.last.summary}`,
        raw: { coalesced: o.more, last: o.last.raw },
        reason: `${o.last.reason} (and ${o.more - 1} more, coalesced)`,
      });
    }
    this.peers.clear();
    this.ofTask.clear();
    this.overflow = null;
    this.recorded = 0;
    // The next attempt starts a new window.
    this.windowStart = -Infinity;
    for (const r of rows) {
      try {
        this.write(r);
      } catch {
        // A closed or locked store: the count is lost, never the daemon.
      }
    }
  }
}
