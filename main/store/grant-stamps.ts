// When a grant without a use limit was last used (issue 15, the decision p50). Every
// decision a grant answers stamps its `last_used_at`. For a grant with a use limit that
// UPDATE also takes the use, so it stays in the decision's own transaction, always. For a
// grant without one it only moves a time the grants view shows ("used 5 minutes ago"), and
// it cost a lone decision ~20 µs of CPU (an UPDATE and one more WAL frame, measured in one
// process with the Store: 96 vs 77 µs per event staged and committed): about a quarter of
// what Airlock adds to a committed insert. So, as a key's last-used time already is
// (Store.touchKey), it is written at most once a second per grant, in whichever decision's
// transaction comes first after that second; the time in between is kept here, every read of
// grants through the Store shows it, and close() writes it. A crash loses at most the last
// second of it; uses are never deferred.
//
// This file holds no SQL: the Store asks it, per grant a batch spent, whether the UPDATE may
// be skipped, and tells it what a committed batch did (nothing is learned from a batch that
// rolled back).

/** At most one `last_used_at` write per grant without a use limit in this long. */
export const GRANT_STAMP_MS = 1000;

/** What one batch did to one grant, applied once the batch committed. */
export type StampOutcome =
  | { id: string; at: number; wrote: true; unlimited: boolean }
  | { id: string; at: number; wrote: false };

export class GrantStamps {
  /** Grants known to have no use limit: the time on disk, and a later one not yet written. */
  private readonly open = new Map<string, { written: number; pending: number | null }>();

  /**
   * May the batch skip the UPDATE of grant `id`, last used at `at`? Only for a grant this
   * store has seen written with no use limit (uses_left NULL never changes: only a use takes
   * from it, and NULL stays NULL), within GRANT_STAMP_MS after the time on disk. A clock that
   * stepped back writes at once, so the time on disk is never left ahead of a later use.
   */
  maySkip(id: string, at: number): boolean {
    const o = this.open.get(id);
    return o !== undefined && at >= o.written && at - o.written < GRANT_STAMP_MS;
  }

  /** After a commit: what its UPDATEs wrote (and learned), and what they skipped. */
  committed(outcomes: readonly StampOutcome[]): void {
    for (const s of outcomes) {
      if (s.wrote) {
        if (s.unlimited) this.open.set(s.id, { written: s.at, pending: null });
        else this.open.delete(s.id);
      } else {
        const o = this.open.get(s.id);
        if (o) o.pending = s.at;
      }
    }
  }

  /** The last-used time a read must show for grant `id` (the one not yet written, if any). */
  lastUsed(id: string, onDisk: number | null): number | null {
    return this.open.get(id)?.pending ?? onDisk;
  }

  /** Times not yet written (for close); they count as written once the caller has. */
  takePending(): { id: string; at: number }[] {
    const out: { id: string; at: number }[] = [];
    for (const [id, o] of this.open) {
      if (o.pending === null) continue;
      out.push({ id, at: o.pending });
      o.written = o.pending;
      o.pending = null;
    }
    return out;
  }
}
