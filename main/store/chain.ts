// The history hash chain. A row's hash covers every stored column (as stored text) and
// the previous row's hash, so changing, removing or reordering any row breaks the chain.
import * as crypto from 'node:crypto';

export const GENESIS = '0'.repeat(64);

export interface ChainedColumns {
  id: number;
  ts: number;
  task: string | null;
  source: string;
  tool: string;
  action: string;
  resource: string | null;
  resources: string;
  summary: string;
  args: string | null;
  cwd: string | null;
  process: string | null;
  ssh: string | null;
  risk_level: string;
  risk_reasons: string;
  decision: string;
  decided_by: string;
  grant_id: string | null;
  scope: string | null;
  reason: string;
  /** JSON of RemoteInfo; NULL for local requests (and every row before migration 006). */
  remote: string | null;
}

export function rowHash(prevHash: string, r: ChainedColumns): string {
  const canonical = JSON.stringify([
    r.id, r.ts, r.task, r.source, r.tool, r.action, r.resource, r.resources, r.summary, r.args,
    r.cwd, r.process, r.ssh, r.risk_level, r.risk_reasons, r.decision, r.decided_by, r.grant_id,
    r.scope, r.reason,
    // Hashed only when set, so rows written before the column existed still verify;
    // clearing it on a remote row changes the hash like any other edit.
    ...(r.remote !== null && r.remote !== undefined ? [r.remote] : []),
  ]);
  // One-shot hash of one string (issue 15: a Hash object and three updates per event showed in
  // the decision profile). The bytes hashed are the same: prevHash, "\n", canonical, as UTF-8.
  return sha256Hex(`${prevHash}\n${canonical}`);
}

/** crypto.hash (Node >= 20.12, every version package.json allows); createHash where it is missing. */
const sha256Hex: (text: string) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

export interface ChainVerdict {
  ok: boolean;
  count: number;
  firstBad?: { id: number; reason: string };
}

/**
 * The walk `audit verify` makes, fed rows in id order (all at once, or page by page so the
 * daemon can answer other work between pages), then the chain head. It names the row where
 * history stops being what Airlock wrote: an altered or missing row, a row inserted before the
 * first or after the head, a head that was removed, cut back or pushed forward.
 */
export class ChainWalk {
  private prev = GENESIS;
  private expected = 1;
  private count = 0;
  private bad: ChainVerdict | null = null;
  /** The first row past the end of an unbroken chain (inserted after it, or a head cut back). */
  private beyond: number | null = null;

  /** Feeds the next rows (ascending ids); false once a bad row is found (feeding more is pointless). */
  feed(rows: Iterable<ChainedColumns & { prev_hash: string; hash: string }>): boolean {
    for (const r of rows) {
      if (this.bad) return false;
      if (r.id < this.expected) {
        // Ids are unique and ascending, so only a row numbered below 1 gets here.
        return this.fail(r.id, `event ${r.id} is not part of the chain (it starts at event 1): a row was inserted`);
      }
      if (r.id !== this.expected) {
        if (this.beyond === null) this.beyond = r.id;
        return this.fail(this.expected, `event ${this.expected} is missing`);
      }
      if (r.prev_hash !== this.prev) return this.fail(r.id, `event ${r.id} does not follow event ${r.id - 1} (previous hash differs)`);
      if (rowHash(this.prev, r) !== r.hash) return this.fail(r.id, `event ${r.id} was altered (its content no longer matches its hash)`);
      this.prev = r.hash;
      this.expected++;
      this.count++;
    }
    return true;
  }

  /**
   * The verdict, given the chain head (null: there is no head row) and a way to read the hash
   * of an event already walked (the one the head names, when history goes on past it).
   */
  finish(head: { id: number; hash: string } | null, hashAt: (id: number) => string | undefined): ChainVerdict {
    const gap = this.bad;
    const headId = head?.id ?? 0;
    // A gap right after the head's own event is not a removal: the rows past it were added.
    if (gap && this.beyond !== null && gap.firstBad!.id === headId + 1 && this.count === headId && (head?.hash ?? GENESIS) === this.prev) {
      return { ok: false, count: this.count, firstBad: { id: this.beyond, reason: `event ${this.beyond} comes after the chain head (event ${headId}): it was added outside Airlock` } };
    }
    if (gap) return gap;
    if (head === null) {
      if (this.count === 0) return { ok: true, count: 0 };
      return { ok: false, count: this.count, firstBad: { id: this.count, reason: `the chain head is missing while ${this.count} events exist: it was removed, so where history ends cannot be checked` } };
    }
    if (this.count < head.id) {
      return { ok: false, count: this.count, firstBad: { id: this.count + 1, reason: `history ends at event ${this.count} but the chain head says ${head.id}: events were removed` } };
    }
    if ((head.id === 0 ? GENESIS : hashAt(head.id)) !== head.hash) {
      return { ok: false, count: this.count, firstBad: { id: head.id, reason: `the chain head does not match event ${head.id}: the head or the event was edited` } };
    }
    if (this.count > head.id) {
      return { ok: false, count: this.count, firstBad: { id: head.id + 1, reason: `event ${head.id + 1} comes after the chain head (event ${head.id}): it was added outside Airlock, or the head was cut back` } };
    }
    return { ok: true, count: this.count };
  }

  private fail(id: number, reason: string): false {
    this.bad = { ok: false, count: this.count, firstBad: { id, reason } };
    return false;
  }
}

/**
 * Anchors (issue: the chain is not anchored outside the database). The chain alone cannot
 * tell a history that was rewritten with every hash recomputed, head included, from the one
 * Airlock wrote; an anchor taken earlier (`audit.head`, kept off this machine) can: its event
 * must still be there with the same hash, which covers every event up to it. Applied after
 * the walk; a chain that already failed keeps its own first bad row.
 */
export function checkAnchors(
  verdict: ChainVerdict,
  anchors: readonly { id: number; hash: string }[],
  hashAt: (id: number) => string | undefined,
): ChainVerdict & { anchors: { id: number; hash: string; ok: boolean; reason?: string }[] } {
  const checks = anchors.map(({ id, hash }) => {
    const now = hashAt(id);
    if (now === undefined) {
      return { id, hash, ok: false, reason: `event ${id} of the anchor is not in history any more (history holds ${verdict.count} events): events up to it were removed and the chain was rebuilt` };
    }
    if (now !== hash) {
      return { id, hash, ok: false, reason: `event ${id} is not the event the anchor names (hash ${now.slice(0, 12)}… where the anchor says ${hash.slice(0, 12)}…): history up to event ${id} was rewritten since the anchor was taken` };
    }
    return { id, hash, ok: true };
  });
  const failed = checks.find((c) => !c.ok);
  if (!failed || !verdict.ok) return { ...verdict, ok: verdict.ok && !failed, anchors: checks };
  return { ok: false, count: verdict.count, firstBad: { id: failed.id, reason: failed.reason! }, anchors: checks };
}
