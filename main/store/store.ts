// Every SQL statement of Airlock lives in main/store. The daemon is the only writer;
// readers (CLI fallbacks) open the database read-only.
// Over 400 lines on purpose: the rule "SQL only in main/store" puts every query here, one
// short method each; the chain, migrations, search index and group commit are separate files.
import type Database from 'better-sqlite3';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AuditAnchor, AuditHead, AuditResult, Destination, Grant, HistoryEvent, HistoryQuery, Remote, Task } from '../contract/approver';
import type { Action, DecidedBy, Outcome, ProcessInfo, RemoteInfo, Risk, Scope, SshInfo } from '../contract/common';
import { SOURCES } from '../contract/constants';
import { ChainWalk, GENESIS, checkAnchors, rowHash, type ChainedColumns } from './chain';
import { damaged, faultOf, isLockError, LOCK_BUDGET_MS, LOCK_TRY_MS, StoreFault } from './faults';
import { GroupCommit } from './group-commit';
import { GrantStamps, type StampOutcome } from './grant-stamps';
import { openForDaemon, openReadOnly, quickCheck } from './open';
import { BackgroundIndexer, QUIET_MS } from './background-index';
import { indexBatch, indexTail } from './search-index';
import { framesOfBatch, newWriteSignal, noteBackgroundWrite, noteCommit, noteWrite, readWriteSignal, WAL_BACKFILLED } from './write-signal';
import { deepFreeze } from '../../shared/deep-freeze';

/** A history row before the store gives it an id and a hash (contract/approver.ts HistoryEvent, the one definition). */
export type NewEvent = Omit<HistoryEvent, 'id' | 'hash' | 'args'> & {
  /** Already capped JSON text (or null). */
  args: string | null;
};

export interface EventEffects {
  /** Take one use of each of these grants (and stamp last_used_at) in the same transaction. */
  consumeGrants?: string[];
  /** A grant created by the decision (scope task/duration/always), inserted first. */
  createGrant?: Grant;
}

type EventRow = ChainedColumns & { prev_hash: string; hash: string };
type StagedEvent = { row: EventRow; effects: EventEffects };
type GrantRow = {
  id: string; task: string | null; source: string; tool: string; action: string; resource: string;
  key: string | null; effect: string; expires_at: number | null; uses_left: number | null;
  forwarded: number; note: string | null; created_at: number; created_by: string;
  revoked_at: number | null; last_used_at: number | null; when_expr?: string | null; remote?: string | null;
};
export interface LearnedMcpTool {
  annotations: Record<string, unknown> | null;
  description: string | null;
  learnedAt: number;
}
type TaskRow = { id: string; name: string; cwd: string | null; created_at: number; ended_at: number | null; ssh_auth_sock: string | null; remote: string | null };

function parseJson<T>(text: string | null): T | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/**
 * A connection's process tree is read once (os/private-socket.ts, which freezes it) and the
 * same object comes with each of its requests: a frozen one is serialised once, not once per
 * event (issue 15). The value events carry is the JSON read back (as getEvent would return
 * it), frozen too because events share it. An object that is not frozen could change
 * between two events, so it is serialised every time.
 */
const processJsons = new WeakMap<object, { json: string; value: unknown }>();
function processJson(p: object): { json: string; value: unknown } {
  if (!Object.isFrozen(p)) {
    const json = JSON.stringify(p);
    return { json, value: JSON.parse(json) };
  }
  let c = processJsons.get(p);
  if (!c) {
    const json = JSON.stringify(p);
    c = { json, value: deepFreeze(JSON.parse(json)) };
    processJsons.set(p, c);
  }
  return c;
}

export function toEvent(r: EventRow): HistoryEvent {
  return {
    id: r.id,
    ts: r.ts,
    task: r.task,
    source: r.source,
    tool: r.tool,
    action: r.action as Action,
    resource: r.resource,
    resources: parseJson<string[]>(r.resources) ?? [],
    summary: r.summary,
    args: parseJson<unknown>(r.args),
    cwd: r.cwd,
    process: parseJson<ProcessInfo>(r.process),
    ssh: parseJson<SshInfo>(r.ssh),
    remote: parseJson<RemoteInfo>(r.remote ?? null),
    risk: { level: r.risk_level as Risk['level'], reasons: parseJson<string[]>(r.risk_reasons) ?? [] },
    decision: r.decision as Outcome,
    decidedBy: r.decided_by as DecidedBy,
    grant: r.grant_id,
    scope: r.scope as Scope | null,
    reason: r.reason,
    hash: r.hash,
  };
}

function toGrant(r: GrantRow): Grant {
  return {
    id: r.id,
    task: r.task,
    source: r.source,
    tool: r.tool,
    // A set of actions is stored as its JSON array (`["write","delete"]`).
    action: (r.action.startsWith('[') ? (parseJson<string[]>(r.action) ?? ['execute']) : r.action) as Grant['action'],
    resource: r.resource,
    key: r.key,
    effect: r.effect as Grant['effect'],
    expiresAt: r.expires_at,
    usesLeft: r.uses_left,
    forwarded: r.forwarded === 1,
    remote: r.remote ?? null,
    note: r.note,
    createdAt: r.created_at,
    createdBy: r.created_by,
    revokedAt: r.revoked_at,
    lastUsedAt: r.last_used_at,
    when: r.when_expr ?? null,
  };
}

function toTask(r: TaskRow): Task {
  return { id: r.id, name: r.name, cwd: r.cwd, createdAt: r.created_at, endedAt: r.ended_at, sshAuthSock: r.ssh_auth_sock, remote: r.remote ?? null };
}

/**
 * Quote every word so user text can never be FTS5 syntax (NEAR, OR, column filters). Control
 * characters separate words: FTS5 reads its query as a C string, so a NUL inside one would end
 * it early ("unterminated string", an internal error for what is only odd search text).
 */
export function ftsQuery(text: string): string | null {
  const words = text.split(/[\s\u0000-\u001f\u007f]+/).filter(Boolean).slice(0, 16);
  if (words.length === 0) return null;
  const quoted = words.map((w) => `"${w.replace(/"/g, '""')}"`);
  // The last word is a prefix, as in every search-as-you-type box (`git pu` finds `git push`).
  // One letter is left whole: a one-letter prefix matches most of a large history for nothing.
  if (words[words.length - 1]!.length >= 2) quoted[quoted.length - 1] += '*';
  return quoted.join(' ');
}

export class Store {
  private readonly sql: Database.Database;
  /** The chain head including staged events (what the next event chains to). */
  private head: { id: number; hash: string };
  /** The chain head as committed: where `head` rewinds to if a batch fails. */
  private committedHead: { id: number; hash: string };
  /** Events staged for the next group commit (group-commit.ts), in chain order. */
  private readonly queue: GroupCommit<StagedEvent>;
  /** Last-used times of grants without a use limit, written at most once a second (grant-stamps.ts). */
  private readonly grantStamps = new GrantStamps();
  /** Each staged event's commit, by the object appendEvent returned. */
  private readonly commits = new WeakMap<HistoryEvent, Promise<void>>();
  private maintenance: { worker: Worker; timer: NodeJS.Timeout; indexer: BackgroundIndexer } | null = null;
  /** When the last event was staged, and how many since the last checkpoint: background work waits for a pause (write-signal.ts). */
  private readonly writes = newWriteSignal();
  private readonly stmts;
  /** Statements of constant SQL, prepared on first use (issue 15: getTask and taskTokenHash prepared per request). Keyed by the literal SQL text, so bounded by this file; never for built SQL or iterate(). */
  private readonly preparedOnce = new Map<string, Database.Statement>();

  private prepared(sql: string): Database.Statement {
    let st = this.preparedOnce.get(sql);
    if (!st) this.preparedOnce.set(sql, (st = this.sql.prepare(sql)));
    return st;
  }

  constructor(
    readonly file: string,
    opts: { readonly?: boolean } = {},
  ) {
    // A damaged, unopenable or locked file throws a StoreFault (faults.ts, open.ts).
    this.sql = opts.readonly ? openReadOnly(file) : openForDaemon(file);
    const db = this.sql;
    this.stmts = {
      // Positional parameters (issue 15): binding 23 values by name from an object cost a
      // measurable share of each row's insert; the order is insertEventValues' below.
      insertEvent: db.prepare(`INSERT INTO events (id, ts, task, source, tool, action, resource, resources, summary, args, cwd,
        process, ssh, risk_level, risk_reasons, decision, decided_by, grant_id, scope, reason, remote, prev_hash, hash)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      setHead: db.prepare(`INSERT INTO chain_head (one, id, hash) VALUES (1, ?, ?)
        ON CONFLICT(one) DO UPDATE SET id = excluded.id, hash = excluded.hash`),
      // RETURNING: whether the grant has a use limit, so one without can have its last-used
      // time written at most once a second (grant-stamps.ts).
      consumeGrant: db.prepare(`UPDATE grants SET uses_left = CASE WHEN uses_left IS NULL THEN NULL ELSE uses_left - ? END,
        last_used_at = ? WHERE id = ? RETURNING uses_left`),
      stampGrant: db.prepare('UPDATE grants SET last_used_at = ? WHERE id = ?'),
      insertGrant: db.prepare(`INSERT INTO grants (id, task, source, tool, action, resource, key, effect, expires_at, uses_left,
        forwarded, note, created_at, created_by, revoked_at, last_used_at, when_expr, remote) VALUES (@id, @task, @source, @tool, @action, @resource,
        @key, @effect, @expires_at, @uses_left, @forwarded, @note, @created_at, @created_by, @revoked_at, @last_used_at, @when_expr, @remote)`),
      getEvent: db.prepare('SELECT * FROM events WHERE id = ?'),
      touchKey: db.prepare(`INSERT INTO key_usage (fingerprint, last_used_at) VALUES (?, ?)
        ON CONFLICT(fingerprint) DO UPDATE SET last_used_at = max(last_used_at, excluded.last_used_at)`),
    };
    this.head = this.readHead();
    this.committedHead = this.head;
    const writeBatch = this.sql.transaction((batch: StagedEvent[]) => {
      // The uses a batch spends are written once per grant, at the end of the same
      // transaction (issue 15: thirty decisions through one grant were thirty UPDATEs of
      // one row). The row ends the same as with one UPDATE per event: every use taken,
      // last_used_at the batch's last event's time. A grant a decision creates is inserted
      // in event order, so it exists before any use of it is written.
      const spent = new Map<string, { uses: number; at: number }>();
      const stamps: StampOutcome[] = [];
      for (const { row, effects } of batch) {
        if (effects.createGrant) this.stmts.insertGrant.run(grantParams(effects.createGrant));
        for (const g of effects.consumeGrants ?? []) {
          const u = spent.get(g);
          if (u) {
            u.uses++;
            u.at = row.ts;
          } else spent.set(g, { uses: 1, at: row.ts });
        }
        this.stmts.insertEvent.run(...insertEventValues(row));
      }
      for (const [g, u] of spent) {
        // A grant without a use limit whose time on disk is under a second old: only its
        // last-used time would change, and that waits (grant-stamps.ts). Uses are always written.
        if (this.grantStamps.maySkip(g, u.at)) {
          stamps.push({ id: g, at: u.at, wrote: false });
          continue;
        }
        const r = this.stmts.consumeGrant.get(u.uses, u.at, g) as { uses_left: number | null } | undefined;
        stamps.push({ id: g, at: u.at, wrote: true, unlimited: r !== undefined && r.uses_left === null });
      }
      const last = batch[batch.length - 1]!;
      this.stmts.setHead.run(last.row.id, last.row.hash);
      return stamps;
    });
    this.queue = new GroupCommit<StagedEvent>(
      (batch) => {
        // Learned only from a batch that committed: a rolled-back UPDATE wrote nothing.
        this.grantStamps.committed(writeBatch(batch));
        const last = batch[batch.length - 1]!.row;
        this.committedHead = { id: last.id, hash: last.hash };
        let bytes = 0;
        for (const { row: r } of batch) bytes += r.summary.length + (r.args?.length ?? 0) + (r.process?.length ?? 0) + (r.ssh?.length ?? 0) + r.resources.length + (r.remote?.length ?? 0);
        noteCommit(this.writes, framesOfBatch(batch.length, bytes));
      },
      // Nothing of the batch was written (one transaction): the next event chains to the
      // last committed one, and the batch's answers are never given (their promises reject).
      () => (this.head = this.committedHead),
      // Another process holding the lock is waited out for LOCK_BUDGET_MS (faults.ts).
      { transient: isLockError, budgetMs: LOCK_BUDGET_MS },
    );
  }

  /**
   * The raw connection (tests, seeding, migrations' checks). Staged events are flushed
   * first, so whoever reads or writes through it sees every event already appended.
   */
  get db(): Database.Database {
    this.flush();
    return this.sql;
  }

  /**
   * Writes every staged event now. Everything that reads events or grants, or writes
   * grants, calls this first, so it sees (and orders after) every decision already made.
   */
  flush(): void {
    this.queue.flush();
  }

  /**
   * The daemon is up: from now on one attempt to write waits at most LOCK_TRY_MS for another
   * process's lock (a staged batch is retried with back-off, group-commit.ts). Until then
   * start-up writes wait up to START_LOCK_WAIT_MS (open.ts).
   */
  serving(): void {
    if (!this.sql.readonly) this.sql.pragma(`busy_timeout = ${LOCK_TRY_MS}`);
  }

  /** WAL frames (estimated) written since the last checkpoint took them; for tests and benches. */
  walFramesSinceCheckpoint(): number {
    return readWriteSignal(this.writes).staged;
  }

  /** Batches written so far (group commit); for tests and benches. */
  commitStats(): { batches: number; items: number; largest: number; writeMs: number } {
    return { ...this.queue.stats };
  }

  private readHead(): { id: number; hash: string } {
    const row = this.prepared('SELECT id, hash FROM chain_head WHERE one = 1').get() as { id: number; hash: string } | undefined;
    return row ?? { id: 0, hash: GENESIS };
  }

  /**
   * Background upkeep for the daemon: WAL checkpoints in a worker; search indexing here, only
   * while no events are being written (background-index.ts says why and when).
   */
  startMaintenance(intervalMs = 250): void {
    if (this.maintenance || this.sql.readonly) return;
    const worker = new Worker(path.join(__dirname, 'checkpoint-worker.js'), { workerData: { file: this.sql.name, intervalMs, signal: this.writes } });
    worker.on('message', (m: unknown) => {
      if (m === WAL_BACKFILLED) this.restartWal();
    });
    // After the listener: adding a 'message' listener refs the worker again, and an unclosed
    // store must not keep its process alive.
    worker.unref();
    // While another process holds the lock, each slice would wait LOCK_TRY_MS on the only
    // thread: skip ticks, twice as many after each busy one (up to 5 s), so a locked database
    // leaves the daemon free for the requests it must deny and for everything else.
    let skip = 0;
    let backoff = 0;
    const indexer = new BackgroundIndexer({
      db: this.sql,
      headId: () => this.committedHead.id,
      lastWriteAt: () => this.writes.at[0]!,
      now: Date.now,
      onBusy: (e) => {
        if (isLockError(e)) skip = backoff = Math.min(100, backoff * 2 || 1);
      },
      // A slice's FTS pages: a few per event (a generous guess; it only brings a checkpoint sooner).
      onIndexed: (n) => noteBackgroundWrite(this.writes, 2 * n + 4),
    });
    const timer = setInterval(() => {
      if (skip > 0) return void skip--;
      const before = skip;
      indexer.tick();
      if (skip === before) backoff = 0;
    }, 50);
    timer.unref();
    this.maintenance = { worker, timer, indexer };
  }

  /** WAL restarts done in a pause (restartWal); for tests and benches. */
  private walRestarts = 0;

  walStats(): { restartsInPause: number } {
    return { restartsInPause: this.walRestarts };
  }

  /**
   * The checkpoint worker has moved the whole WAL into the database: the next write restarts
   * the WAL and fsyncs its new header (checkpoint-worker.ts). Do that write now, while idle,
   * so no request's commit pays for it: set user_version to the value it has (page 1 is
   * rewritten unchanged; an UPDATE of a row to equal values writes no page, so it would not
   * restart anything). Not counted as a write (write-signal.ts), so it brings no checkpoint of
   * its own. Skipped while events are staged or a batch waits for a lock: their commit comes
   * first. A failure (another process's lock) only leaves the restart to the next write.
   */
  restartWal(): void {
    if (this.sql.readonly || this.queue.pending > 0) return;
    try {
      this.sql.transaction(() => {
        const v = this.sql.pragma('user_version', { simple: true }) as number;
        this.sql.pragma(`user_version = ${Number(v)}`);
      }).immediate();
      this.walRestarts++;
    } catch {
      // As above: the next write restarts the WAL.
    }
  }

  /** Adds every event not yet in the search index (cheap when there are none). */
  indexPending(): void {
    if (this.sql.readonly) return;
    for (let i = 0; i < 100_000 && indexBatch(this.sql, 5000) === 5000; i++);
  }

  close(): void {
    // A batch still waiting for a lock fails now (its answers are denied, never given).
    this.queue.flush({ final: true });
    try {
      this.writeTouches();
      this.writeGrantStamps();
    } catch {
      // Locked or failing: last-used times are not worth refusing to close.
    }
    if (this.maintenance) {
      clearInterval(this.maintenance.timer);
      this.maintenance.indexer.stop();
      this.maintenance.worker.postMessage('stop');
      this.maintenance = null;
    }
    if (!this.sql.readonly) this.indexPending();
    this.sql.close();
  }

  // ---- events -------------------------------------------------------------------

  /**
   * Chains one event (and its grant effects) and stages it for the next group commit
   * (group-commit.ts); returns it at once, with its id and hash. It is NOT durable yet:
   * await `committed(event)` before answering anyone on the strength of it.
   */
  stageEvent(e: NewEvent, effects: EventEffects = {}): HistoryEvent {
    // One object is the hashed columns and the stored row (prev_hash and hash filled in here):
    // copying it into a second object with a spread cost ~1.9 KB of garbage per event (issue
    // 15, sampling heap profiler; the daemon allocated ~29 KB per granted signature).
    const row: EventRow = {
      id: this.head.id + 1,
      ts: e.ts,
      task: e.task,
      source: e.source,
      tool: e.tool,
      action: e.action,
      resource: e.resource,
      resources: JSON.stringify(e.resources),
      summary: e.summary,
      args: e.args,
      cwd: e.cwd,
      process: e.process ? processJson(e.process).json : null,
      ssh: e.ssh ? JSON.stringify(e.ssh) : null,
      risk_level: e.risk.level,
      risk_reasons: JSON.stringify(e.risk.reasons),
      decision: e.decision,
      decided_by: e.decidedBy,
      grant_id: e.grant,
      scope: e.scope,
      reason: e.reason,
      remote: e.remote ? JSON.stringify(e.remote) : null,
      prev_hash: this.head.hash,
      hash: '',
    };
    wellFormed(row);
    // When the last event was staged (checkpoints wait for a pause); its WAL frames are
    // counted per transaction when its batch commits (framesOfBatch: events share pages).
    noteWrite(this.writes, Date.now(), 0);
    row.hash = rowHash(row.prev_hash, row);
    this.head = { id: row.id, hash: row.hash };
    // The event as getEvent would read it back, built from what was just written instead of
    // parsing the row's JSON columns again (issue 15: one serialisation per request).
    const ev: HistoryEvent = {
      id: row.id,
      ts: row.ts,
      task: row.task,
      source: row.source,
      tool: row.tool,
      action: e.action,
      resource: row.resource,
      resources: [...e.resources],
      summary: row.summary,
      args: parseJson<unknown>(row.args),
      cwd: row.cwd,
      process: e.process ? (processJson(e.process).value as ProcessInfo) : null,
      ssh: parseJson<SshInfo>(row.ssh),
      remote: parseJson<RemoteInfo>(row.remote),
      risk: { level: e.risk.level, reasons: [...e.risk.reasons] },
      decision: e.decision,
      decidedBy: e.decidedBy,
      grant: row.grant_id,
      scope: row.scope as Scope | null,
      reason: row.reason,
      hash: row.hash,
    };
    this.commits.set(ev, this.queue.push({ row, effects }));
    return ev;
  }

  /** Settles once an event stageEvent returned is committed; rejects if its batch failed. */
  committed(ev: HistoryEvent): Promise<void> {
    return this.commits.get(ev) ?? Promise.resolve();
  }

  /**
   * Appends one event (and its grant effects) and commits it, with everything staged
   * before it, in one transaction; returns it once committed (throws if it was not).
   */
  appendEvent(e: NewEvent, effects: EventEffects = {}): HistoryEvent {
    const ev = this.stageEvent(e, effects);
    const failed = this.queue.flush();
    // Waiting for another process's lock: it stays staged and is retried (group-commit.ts).
    if (failed && !failed.waiting) throw failed.error;
    return ev;
  }

  getEvent(id: number): HistoryEvent | null {
    this.flush();
    const r = this.stmts.getEvent.get(id) as EventRow | undefined;
    return r ? toEvent(r) : null;
  }

  eventCount(): number {
    return this.head.id;
  }

  /**
   * Why a filter can only be a typo, or null. Sources are an open set (a socket's name is the
   * source of the lines it rejected, `egress`, a remote's socket …), so a source is refused only
   * when it is none of the agent-side sources and no event in this history has it; a task only
   * when no task and no event has that id. `--source ecex` used to be "no events", exit 0.
   */
  historyFilterProblem(q: Pick<HistoryQuery, 'source' | 'task' | 'remote'>): string | null {
    this.flush();
    if (q.source !== undefined && !(SOURCES as readonly string[]).includes(q.source) && !this.prepared('SELECT 1 FROM events WHERE source = ? LIMIT 1').get(q.source)) {
      const known = (this.prepared('SELECT DISTINCT source FROM events ORDER BY source LIMIT 50').all() as { source: string }[]).map((r) => r.source);
      const all = [...new Set([...SOURCES, ...known])];
      return `source: no event has source "${q.source}" (sources: ${all.join(', ')})`;
    }
    if (q.task !== undefined && !this.prepared('SELECT 1 FROM tasks WHERE id = ?').get(q.task) && !this.prepared('SELECT 1 FROM events WHERE task = ? LIMIT 1').get(q.task)) {
      return `task: no task "${q.task}" in this history (airlock task list --all)`;
    }
    if (q.remote !== undefined && !this.prepared('SELECT 1 FROM remotes WHERE name = ?').get(q.remote) && !this.prepared("SELECT 1 FROM events WHERE json_extract(remote, '$.name') = ? LIMIT 1").get(q.remote)) {
      return `remote: no remote "${q.remote}" here or in this history (airlock remote list)`;
    }
    return null;
  }

  queryHistory(q: HistoryQuery): { events: HistoryEvent[]; cursor: string | null } {
    this.flush();
    const limit = q.limit ?? 100;
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, v: unknown) => {
      where.push(sql);
      params.push(v);
    };
    if (q.task !== undefined) add('e.task = ?', q.task);
    if (q.source !== undefined) add('e.source = ?', q.source);
    if (q.action !== undefined) add('e.action = ?', q.action);
    // No index of its own: every event would pay for it on insert (issue 15), and the tools
    // people filter by (task.start, task.end, Bash) are common; a rare one scans back by id.
    if (q.tool !== undefined) add('e.tool = ?', q.tool);
    if (q.decision !== undefined) add('e.decision = ?', q.decision);
    // events.remote is the RemoteInfo as JSON; no index (remote events are the rarer kind).
    if (q.remote !== undefined) add("json_extract(e.remote, '$.name') = ?", q.remote);
    if (q.since !== undefined) add('e.ts >= ?', q.since);
    if (q.until !== undefined) add('e.ts <= ?', q.until);
    if (q.cursor) {
      const before = Number(q.cursor);
      if (!Number.isInteger(before) || before < 0) throw new Error('cursor: not a cursor returned by history.query');
      add('e.id < ?', before);
    }
    const fts = q.text ? ftsQuery(q.text) : null;
    if (fts) this.indexPending();
    // Read-only: the events past the index are searched in a temporary index (search-index.ts indexTail).
    const tail = fts && this.sql.readonly ? indexTail(this.sql) : null;
    let sql: string;
    if (fts && tail) {
      sql = `SELECT e.* FROM (SELECT rowid FROM events_fts WHERE events_fts MATCH ? UNION SELECT rowid FROM ${tail} WHERE events_fts_tail MATCH ?) f
        JOIN events e ON e.id = f.rowid ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY f.rowid DESC LIMIT ?`;
      params.unshift(fts, fts);
    } else if (fts) {
      sql = `SELECT e.* FROM events_fts f JOIN events e ON e.id = f.rowid WHERE events_fts MATCH ?
        ${where.length ? 'AND ' + where.join(' AND ') : ''} ORDER BY f.rowid DESC LIMIT ?`;
      params.unshift(fts);
    } else {
      sql = `SELECT e.* FROM events e ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY e.id DESC LIMIT ?`;
    }
    params.push(limit + 1);
    const rows = this.sql.prepare(sql).all(...params) as EventRow[];
    const page = rows.slice(0, limit);
    const cursor = rows.length > limit && page.length ? String(page[page.length - 1]!.id) : null;
    return { events: page.map(toEvent), cursor };
  }

  /**
   * Walks the whole chain; reports the first row that was altered, removed or reordered.
   * SQLite's quick_check runs first: a damaged file is reported as damage (`damaged`), never
   * as tampering, and tampering is only claimed of a file SQLite finds sound.
   */
  verifyChain(anchors?: readonly AuditAnchor[]): AuditResult {
    try {
      // A reader's connection was checked when it opened (open.ts).
      const bad = this.sql.readonly ? null : quickCheck(this.sql);
      if (bad) return { ok: false, count: 0, damaged: damaged(this.file, bad).message };
      return this.withAnchors(this.walkChain(), anchors);
    } catch (e) {
      const f = faultOf(e, this.file);
      if (f instanceof StoreFault && f.kind === 'damaged') return { ok: false, count: 0, damaged: f.message };
      throw f;
    }
  }

  /**
   * The start-up look at the chain (the file already passed quick_check): the last `n` events
   * link to each other and to the chain head. Cheap whatever the history's size; the full
   * walk is `airlock audit verify`. Returns what is wrong, or null.
   */
  checkRecentChain(n = 200): string | null {
    this.flush();
    const head = this.readHead();
    const rows = (this.prepared('SELECT * FROM events ORDER BY id DESC LIMIT ?').all(n) as EventRow[]).reverse();
    const last = rows[rows.length - 1];
    if ((last?.id ?? 0) !== head.id || (last?.hash ?? GENESIS) !== head.hash) {
      return `the last event is ${last?.id ?? 0} but the chain head says ${head.id}: events were removed or the head was edited`;
    }
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const prev = i > 0 ? rows[i - 1]! : null;
      if (prev && (r.id !== prev.id + 1 || r.prev_hash !== prev.hash)) return `event ${r.id} does not follow event ${prev.id}`;
      if (rowHash(r.prev_hash, r) !== r.hash) return `event ${r.id} was altered (its content no longer matches its hash)`;
    }
    return null;
  }

  private walkChain(): AuditResult {
    this.flush();
    const walk = new ChainWalk();
    walk.feed(this.sql.prepare('SELECT * FROM events ORDER BY id').iterate() as IterableIterator<EventRow>);
    return walk.finish(this.readHeadRow(), (id) => this.eventHash(id));
  }

  /**
   * `verifyChain` for the daemon: the same walk, a page of rows at a time with a turn of the
   * event loop between pages, so prompts, requests and signatures are answered while a long
   * history is checked (the whole walk in one go stalled the daemon ~1 s per 100,000 events).
   * The last page and the head are read in one turn: events committed meanwhile are walked too.
   * `background` (the daemon's own check after start, which nobody waits for): short pages, each
   * only once no event was staged for QUIET_MS, like the search indexer, so a long history's walk
   * (~1 s of CPU per 100,000 events) never stands in front of a request or a signature; and no
   * flush, which would commit a forming batch early. It ends at the committed head.
   */
  async verifyChainAsync(opts: { pageSize?: number; quickCheck?: boolean; anchors?: readonly AuditAnchor[]; background?: boolean } = {}): Promise<AuditResult> {
    const pageSize = opts.pageSize ?? (opts.background ? 250 : 2000);
    try {
      const bad = this.sql.readonly || opts.quickCheck === false ? null : quickCheck(this.sql);
      if (bad) return { ok: false, count: 0, damaged: damaged(this.file, bad).message };
      const walk = new ChainWalk();
      const page = this.prepared('SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?');
      let after = Number.MIN_SAFE_INTEGER;
      for (let turn = 0; ; turn++) {
        if (turn > 0) await new Promise((r) => setImmediate(r));
        // Bounded: a flood that never pauses for an hour leaves the walk unfinished, not spinning.
        for (let waits = 0; opts.background && Date.now() - this.writes.at[0]! < QUIET_MS && waits < 120_000; waits++) await new Promise((r) => setTimeout(r, QUIET_MS));
        if (!this.sql.open) throw new Error('the database was closed during the walk');
        if (!opts.background) this.flush();
        const rows = page.all(after, pageSize) as EventRow[];
        if (!walk.feed(rows) || rows.length < pageSize) return this.withAnchors(walk.finish(this.readHeadRow(), (id) => this.eventHash(id)), opts.anchors);
        after = rows[rows.length - 1]!.id;
      }
    } catch (e) {
      const f = faultOf(e, this.file);
      if (f instanceof StoreFault && f.kind === 'damaged') return { ok: false, count: 0, damaged: f.message };
      throw f;
    }
  }

  /** Anchors given: each one checked against the events as they are (the walk's verdict kept when it failed first). */
  private withAnchors(verdict: AuditResult, anchors: readonly AuditAnchor[] | undefined): AuditResult {
    return anchors?.length ? checkAnchors(verdict, anchors, (id) => (id === 0 ? GENESIS : this.eventHash(id))) : verdict;
  }

  /** The chain head as an anchor to keep off this machine (`airlock audit head`). Committed events only. */
  chainHead(): AuditHead {
    this.flush();
    const head = this.readHeadRow() ?? { id: 0, hash: GENESIS };
    const ts = head.id > 0 ? ((this.prepared('SELECT ts FROM events WHERE id = ?').get(head.id) as { ts: number } | undefined)?.ts ?? null) : null;
    return { id: head.id, hash: head.hash, ts, anchor: `${head.id}:${head.hash}` };
  }

  isOpen(): boolean {
    return this.sql.open;
  }

  private readHeadRow(): { id: number; hash: string } | null {
    return (this.prepared('SELECT id, hash FROM chain_head WHERE one = 1').get() as { id: number; hash: string } | undefined) ?? null;
  }

  private eventHash(id: number): string | undefined {
    return (this.prepared('SELECT hash FROM events WHERE id = ?').get(id) as { hash: string } | undefined)?.hash;
  }

  // ---- grants -------------------------------------------------------------------

  insertGrant(g: Grant): void {
    this.flush();
    this.stmts.insertGrant.run(grantParams(g));
  }

  getGrant(id: string): Grant | null {
    this.flush();
    const r = this.prepared('SELECT * FROM grants WHERE id = ?').get(id) as GrantRow | undefined;
    return r ? this.toGrant(r) : null;
  }

  /** A grant as read, with a last-used time not yet written (grant-stamps.ts). */
  private toGrant(r: GrantRow): Grant {
    const g = toGrant(r);
    g.lastUsedAt = this.grantStamps.lastUsed(g.id, g.lastUsedAt);
    return g;
  }

  /** The last-used times of grants without a use limit that wait for their second (close). */
  private writeGrantStamps(): void {
    if (this.sql.readonly) return;
    const pending = this.grantStamps.takePending();
    if (pending.length === 0) return;
    this.sql.transaction(() => {
      for (const { id, at } of pending) this.stmts.stampGrant.run(at, id);
    })();
  }

  revokeGrant(id: string, at: number): boolean {
    this.flush();
    return this.prepared('UPDATE grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes > 0;
  }

  /** Not revoked, not expired, uses left, and (when bound to a task) the task is still running. */
  activeGrants(now: number): Grant[] {
    this.flush();
    const rows = this.sql
      .prepare(
        `SELECT g.* FROM grants g LEFT JOIN tasks t ON t.id = g.task
         WHERE g.revoked_at IS NULL AND (g.expires_at IS NULL OR g.expires_at > ?)
           AND (g.uses_left IS NULL OR g.uses_left > 0) AND (g.task IS NULL OR t.ended_at IS NULL)
         ORDER BY g.created_at`,
      )
      .all(now) as GrantRow[];
    return rows.map((r) => this.toGrant(r));
  }

  listGrants(opts: { task?: string; includeInactive?: boolean; now: number }): Grant[] {
    this.flush();
    if (!opts.includeInactive) {
      const active = this.activeGrants(opts.now);
      return opts.task === undefined ? active : active.filter((g) => g.task === opts.task);
    }
    const rows = (opts.task === undefined
      ? this.prepared('SELECT * FROM grants ORDER BY created_at').all()
      : this.prepared('SELECT * FROM grants WHERE task = ? ORDER BY created_at').all(opts.task)) as GrantRow[];
    return rows.map((r) => this.toGrant(r));
  }

  // ---- MCP tools learned by `airlock mcp` ----------------------------------------

  getMcpTool(server: string, tool: string): LearnedMcpTool | null {
    const r = this.prepared('SELECT annotations, description, learned_at FROM mcp_tools WHERE server = ? AND tool = ?').get(server, tool) as
      | { annotations: string | null; description: string | null; learned_at: number }
      | undefined;
    if (!r) return null;
    return { annotations: parseJson<Record<string, unknown>>(r.annotations), description: r.description, learnedAt: r.learned_at };
  }

  putMcpTools(server: string, tools: { name: string; annotations: Record<string, unknown> | null; description: string | null }[], at: number): void {
    const stmt = this.prepared(`INSERT INTO mcp_tools (server, tool, annotations, description, learned_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(server, tool) DO UPDATE SET annotations = excluded.annotations, description = excluded.description, learned_at = excluded.learned_at`);
    this.sql.transaction(() => {
      for (const t of tools) stmt.run(server, t.name, t.annotations ? JSON.stringify(t.annotations) : null, t.description, at);
    })();
  }

  // ---- tasks --------------------------------------------------------------------

  /** `tokenHash`: the SHA-256 (hex) of the task's capability token (migration 008); `t.remote`: where it was started (009). */
  insertTask(t: Task, tokenHash: string | null = null): void {
    this.sql
      .prepare('INSERT INTO tasks (id, name, cwd, created_at, ended_at, ssh_auth_sock, token_hash, remote) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(t.id, t.name, t.cwd, t.createdAt, t.endedAt, t.sshAuthSock, tokenHash, t.remote ?? null);
  }

  /** The SHA-256 (hex) of a task's capability token, or null (no task, or one from before migration 008). */
  taskTokenHash(id: string): string | null {
    const r = this.prepared('SELECT token_hash FROM tasks WHERE id = ?').get(id) as { token_hash: string | null } | undefined;
    return r?.token_hash ?? null;
  }

  /** At start-up no task socket is open yet: forget the paths a previous run recorded. */
  clearTaskSockets(): void {
    this.prepared('UPDATE tasks SET ssh_auth_sock = NULL WHERE ssh_auth_sock IS NOT NULL').run();
  }

  setTaskSocket(id: string, sock: string | null): void {
    this.prepared('UPDATE tasks SET ssh_auth_sock = ? WHERE id = ?').run(sock, id);
  }

  endTask(id: string, at: number): boolean {
    return this.prepared('UPDATE tasks SET ended_at = ? WHERE id = ? AND ended_at IS NULL').run(at, id).changes > 0;
  }

  getTask(id: string): Task | null {
    const r = this.prepared('SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;
    return r ? toTask(r) : null;
  }

  listTasks(includeEnded: boolean): Task[] {
    const sql = includeEnded
      ? 'SELECT * FROM tasks ORDER BY created_at DESC'
      : 'SELECT * FROM tasks WHERE ended_at IS NULL ORDER BY created_at DESC';
    return (this.sql.prepare(sql).all() as TaskRow[]).map(toTask);
  }

  /** Every allowed request of a task, oldest first: rebuilds the chain rules' memory after a restart. */
  *taskAllowedEvents(task: string): Generator<{ action: string; resources: string[]; tool: string; reason: string }> {
    this.flush();
    const it = this.sql
      .prepare(`SELECT action, resources, tool, reason FROM events WHERE task = ? AND decision = 'allow' ORDER BY id`)
      .iterate(task) as IterableIterator<{ action: string; resources: string; tool: string; reason: string }>;
    for (const r of it) yield { action: r.action, resources: parseJson<string[]>(r.resources) ?? [], tool: r.tool, reason: r.reason };
  }

  /**
   * A task's most recent requests (any decision), newest first, at most `limit`: what a
   * suggested grant "would have matched" is counted over these (bounded, issue 11 item 6).
   */
  taskRecentEvents(task: string, limit = 1000): { tool: string; action: string; resources: string[]; command: string | null }[] {
    this.flush();
    const rows = this.sql
      // A task's own start and end rows (action other) are not requests a grant could match:
      // "would have matched 1 of the last 3" must not count them.
      .prepare(`SELECT tool, action, resources, args FROM events WHERE task = ? AND NOT (action = 'other' AND tool IN ('task.start', 'task.end')) ORDER BY id DESC LIMIT ?`)
      .all(task, Math.max(0, Math.floor(limit))) as { tool: string; action: string; resources: string | null; args: string | null }[];
    return rows.map((r) => {
      const args = parseJson<unknown>(r.args);
      const command = args && typeof args === 'object' && typeof (args as { command?: unknown }).command === 'string' ? (args as { command: string }).command : null;
      return { tool: r.tool, action: r.action, resources: parseJson<string[]>(r.resources) ?? [], command };
    });
  }

  /**
   * A task's egress destinations from its history: decisions (`net.connect`) and what went
   * through (`net.tunnel`, `net.request`, whose args carry bytes and injected secret names).
   */
  egressDestinations(task: string, maxEvents = 100_000): Destination[] {
    this.flush();
    const rows = this.sql
      .prepare(`SELECT resource, tool, decision, args, ts FROM events WHERE task = ? AND source = 'egress' ORDER BY id LIMIT ?`)
      .all(task, maxEvents) as { resource: string | null; tool: string; decision: string; args: string | null; ts: number }[];
    const by = new Map<string, Destination>();
    for (const r of rows) {
      if (!r.resource) continue;
      let d = by.get(r.resource);
      if (!d) by.set(r.resource, (d = { resource: r.resource, allowed: 0, denied: 0, bytesOut: 0, bytesIn: 0, injected: [], lastAt: r.ts }));
      d.lastAt = Math.max(d.lastAt, r.ts);
      if (r.tool === 'net.connect') {
        if (r.decision === 'allow') d.allowed++;
        else d.denied++;
      } else if (r.tool === 'net.tunnel' || r.tool === 'net.request') {
        const a = parseJson<{ bytesOut?: unknown; bytesIn?: unknown; injected?: unknown }>(r.args) ?? {};
        if (typeof a.bytesOut === 'number') d.bytesOut += a.bytesOut;
        if (typeof a.bytesIn === 'number') d.bytesIn += a.bytesIn;
        if (Array.isArray(a.injected)) for (const n of a.injected) if (typeof n === 'string' && !d.injected.includes(n)) d.injected.push(n);
      }
    }
    return [...by.values()].sort((a, b) => b.lastAt - a.lastAt);
  }

  // ---- remotes (airlock remote) ---------------------------------------------------

  listRemotes(): { name: string; createdAt: number }[] {
    return (this.prepared('SELECT name, created_at FROM remotes ORDER BY name').all() as { name: string; created_at: number }[]).map((r) => ({
      name: r.name,
      createdAt: r.created_at,
    }));
  }

  /** Returns the remote, inserting it first when it is new. */
  addRemote(name: string, at: number): Pick<Remote, 'name' | 'createdAt'> {
    this.prepared('INSERT INTO remotes (name, created_at) VALUES (?, ?) ON CONFLICT(name) DO NOTHING').run(name, at);
    const r = this.prepared('SELECT name, created_at FROM remotes WHERE name = ?').get(name) as { name: string; created_at: number };
    return { name: r.name, createdAt: r.created_at };
  }

  removeRemote(name: string): boolean {
    return this.prepared('DELETE FROM remotes WHERE name = ?').run(name).changes > 0;
  }

  // ---- CLAUDE_CONFIG_DIR directories seen (core/claude-dir-memory.ts) --------------------

  /** The kept directories, in the order they were first seen (at most `max`). */
  claudeConfigDirs(max: number): string[] {
    return (this.prepared('SELECT dir FROM claude_config_dirs ORDER BY rowid LIMIT ?').all(max) as { dir: string }[]).map((r) => r.dir);
  }

  /**
   * Keeps one more directory, unless `max` are kept already (a flood stops there; none is
   * ever pushed out or removed). True when it is kept (now or before).
   */
  keepClaudeConfigDir(dir: string, at: number, max: number): boolean {
    this.prepared('INSERT OR IGNORE INTO claude_config_dirs (dir, first_seen) SELECT ?, ? WHERE (SELECT count(*) FROM claude_config_dirs) < ?').run(dir, at, max);
    return this.prepared('SELECT 1 FROM claude_config_dirs WHERE dir = ?').get(dir) !== undefined;
  }

  // ---- SSH key use (stored keys only) -----------------------------------------------

  /**
   * A signature's "last used" time is shown, never relied on, so it stays off the signing
   * path: kept here and written at most once a second in one transaction (and at close).
   * A profile showed the old per-signature prepare + commit at 9% of a signature's CPU.
   * A kill -9 can lose the last second of these times, never an event.
   */
  private readonly touches = new Map<string, number>();
  private touchTimer: NodeJS.Timeout | null = null;

  private writeTouches(): void {
    if (this.touchTimer) clearTimeout(this.touchTimer);
    this.touchTimer = null;
    if (this.touches.size === 0 || this.sql.readonly) return;
    const all = [...this.touches];
    this.touches.clear();
    this.sql.transaction(() => {
      for (const [fp, at] of all) this.stmts.touchKey.run(fp, at);
    })();
  }

  keyUsage(): Map<string, number> {
    this.writeTouches();
    const rows = this.prepared('SELECT fingerprint, last_used_at FROM key_usage').all() as { fingerprint: string; last_used_at: number }[];
    return new Map(rows.map((r) => [r.fingerprint, r.last_used_at]));
  }

  touchKey(fingerprint: string, at: number): void {
    const before = this.touches.get(fingerprint);
    if (before === undefined || at > before) this.touches.set(fingerprint, at);
    if (!this.touchTimer) {
      this.touchTimer = setTimeout(() => {
        try {
          this.writeTouches();
        } catch {
          // Busy or closed: a last-used time is not worth an error (the next touch retries).
        }
      }, 1000);
      this.touchTimer.unref();
    }
  }

  forgetKey(fingerprint: string): void {
    this.touches.delete(fingerprint);
    this.prepared('DELETE FROM key_usage WHERE fingerprint = ?').run(fingerprint);
  }

  // ---- settings -----------------------------------------------------------------

  readSettings(): Record<string, unknown> {
    const rows = this.prepared('SELECT key, value FROM settings').all() as { key: string; value: string }[];
    const out: Record<string, unknown> = {};
    for (const r of rows) out[r.key] = parseJson<unknown>(r.value);
    return out;
  }

  writeSettings(values: Record<string, unknown>): void {
    const stmt = this.prepared('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
    this.sql.transaction(() => {
      for (const [k, v] of Object.entries(values)) stmt.run(k, JSON.stringify(v));
    })();
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Replaces lone UTF-16 surrogates with U+FFFD in every text column, in place. SQLite
 * stores UTF-8, so a lone surrogate would be read back as different text than was
 * hashed, and one agent request could make `audit verify` report tampering (found by
 * test/fuzz/json-rpc.fuzz.ts; test/unit/store-unicode.test.ts).
 */
function wellFormed(cols: ChainedColumns): void {
  const c = cols as unknown as Record<string, unknown>;
  for (const k of Object.keys(c)) {
    const v = c[k];
    if (typeof v === 'string') c[k] = toWellFormed(v);
  }
}

/**
 * String.prototype.toWellFormed does exactly the replacement above, natively (issue 15: the
 * regular expression over every column showed in the decision profile); the expression
 * remains for a runtime without it.
 */
const toWellFormed: (v: string) => string =
  typeof (String.prototype as { toWellFormed?: unknown }).toWellFormed === 'function'
    ? (v) => (v as string & { toWellFormed(): string }).toWellFormed()
    : (v) => v.replace(LONE_SURROGATE, '\ufffd');

/** A row's values in the column order of the insertEvent statement. */
function insertEventValues(r: EventRow): unknown[] {
  return [
    r.id, r.ts, r.task, r.source, r.tool, r.action, r.resource, r.resources, r.summary, r.args, r.cwd, r.process, r.ssh,
    r.risk_level, r.risk_reasons, r.decision, r.decided_by, r.grant_id, r.scope, r.reason, r.remote, r.prev_hash, r.hash,
  ];
}

function grantParams(g: Grant): GrantRow {
  return {
    id: g.id,
    task: g.task,
    source: g.source,
    tool: g.tool,
    action: Array.isArray(g.action) ? JSON.stringify(g.action) : g.action,
    resource: g.resource,
    key: g.key,
    effect: g.effect,
    expires_at: g.expiresAt,
    uses_left: g.usesLeft,
    forwarded: g.forwarded ? 1 : 0,
    note: g.note,
    created_at: g.createdAt,
    created_by: g.createdBy,
    revoked_at: g.revokedAt,
    last_used_at: g.lastUsedAt,
    when_expr: g.when ?? null,
    remote: g.remote ?? null,
  };
}
