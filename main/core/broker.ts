// The broker: the one door every agent request comes through (the Asker port). The
// policy decides (request-policy.ts); an answer is committed to history before it is
// returned (history-recorder.ts); what the policy cannot settle waits for the human
// (prompt-queue.ts). Tasks, grants and their sockets are tasks-and-grants.ts and
// task-lifecycle.ts.
import type { AgentAnswer, AgentRequest } from '../contract/agent';
import { RPC, RpcError } from '../contract/rpc';
import { isLockError } from '../store';
import type { HistoryRecorder } from './history-recorder';
import type { EgressCore, EgressRecord, RejectedAttempt, RequestContext, RequestDesk, SigningEnded } from './ports';
import type { PromptQueue } from './prompt-queue';
import type { RequestPolicy } from './request-policy';
import type { TasksAndGrants } from './tasks-and-grants';

export interface BrokerParts {
  policy: RequestPolicy;
  queue: PromptQueue;
  recorder: HistoryRecorder;
  grants: Pick<TasksAndGrants, 'grantsChanged'>;
  now?: () => number;
}

export class Broker implements RequestDesk, EgressCore {
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly parts: BrokerParts) {
    this.now = parts.now ?? Date.now;
  }

  /**
   * Asks not yet answered, so a shutdown can let their (deny) answers leave before the sockets
   * close: a count, and who waits for it to reach zero. (Was a Set of a promise per ask and a
   * `then` to remove it: two promises and two microtask jobs per decision, issue 15.)
   */
  private inflight = 0;
  private readonly whenIdle: (() => void)[] = [];

  ask(raw: AgentRequest, ctx: RequestContext): Promise<AgentAnswer> {
    // Counted at once (answer runs synchronously up to its first await) and uncounted in
    // its `finally`, whether it answered or threw.
    return this.answer(raw, ctx);
  }

  private async answer(raw: AgentRequest, ctx: RequestContext): Promise<AgentAnswer> {
    this.inflight++;
    try {
      // A grant or the policy answers synchronously; only a prompt is awaited here
      // (one microtask hop less per granted decision than awaiting a value).
      const d = this.decide(raw, ctx);
      const a = d instanceof Promise ? await d : d;
      // Group commit: the event was staged with the others of this turn; the answer leaves
      // only once their transaction has committed (a failed commit throws: no answer is given).
      try {
        await this.parts.recorder.committed(a);
      } catch (e) {
        // Another process held the database's lock past the retry budget (main/store/faults.ts):
        // what could not be recorded is denied, with the reason, never allowed and never left hanging.
        if (isLockError(e)) return this.parts.recorder.unrecorded(a);
        throw e;
      }
      return a;
    } finally {
      if (--this.inflight === 0) for (const wake of this.whenIdle.splice(0)) wake();
    }
  }

  private decide(raw: AgentRequest, ctx: RequestContext): AgentAnswer | Promise<AgentAnswer> {
    if (this.closed) throw new RpcError(RPC.refused, 'Airlock is shutting down; retry when it is back');
    const v = this.parts.policy.decide(raw, ctx);
    if (v.kind === 'prompt') return this.parts.queue.ask(v.req, v.risk, ctx, v.nearMiss);
    const { req, risk, decision, decidedBy, grant, reason, grants } = v;
    if (!grants) return this.parts.recorder.answer({ req, risk, decision, decidedBy, grant, scope: null, reason });
    const limited = grants.filter((x) => x.usesLeft !== null);
    // Spend uses in memory at once, so concurrent requests cannot overdraw a grant.
    for (const x of limited) x.usesLeft = x.usesLeft! - 1;
    const a = this.parts.recorder.answer({ req, risk, decision, decidedBy, grant, scope: null, reason, consumeGrants: grants.map((x) => x.id) });
    for (const x of grants) x.lastUsedAt = this.now();
    if (limited.length) this.parts.grants.grantsChanged();
    return a;
  }

  /** The requester went away: its open prompts are answered (deny) so history has them. */
  dropConnection(connection: string): void {
    this.parts.queue.dropConnection(connection);
  }

  /**
   * The SSH agent can no longer sign with a prompt's key (removed, expired, agent locked):
   * the prompt is answered "deny" by the system now, not left for an "allow" that would be
   * recorded as allowed and sign nothing.
   */
  signingEnded(e: SigningEnded): void {
    this.parts.queue.denySignatures((r) => {
      if (e.locked) return 'the SSH agent was locked (ssh-add -x) before the human answered';
      const origin = (r.args as { keyOrigin?: unknown } | undefined)?.keyOrigin;
      if (origin === 'upstream' || e.held(r.ssh!.fingerprint)) return null;
      return `the key ${r.ssh!.fingerprint} was removed (or its ssh-add lifetime ran out) before the human answered`;
    });
  }

  recordEgress(r: EgressRecord): void {
    this.parts.recorder.recordEgress(r);
  }

  recordPlaceholderLeak(p: Parameters<EgressCore['recordPlaceholderLeak']>[0]): void {
    this.parts.recorder.recordPlaceholderLeak(p);
  }

  recordRejected(p: RejectedAttempt): number {
    return this.parts.recorder.recordRejected(p);
  }

  /** Refuses new requests and denies every open prompt (recorded) so no requester hangs across a restart. */
  shutdown(): void {
    this.closed = true;
    this.parts.queue.denyAll('Airlock stopped before the human answered');
  }

  /**
   * Resolves once every ask in flight has its answer (after shutdown: the denies, recorded),
   * or after `maxMs`, whichever is first — so `airlock serve` stopped with Ctrl-C tells each
   * waiting requester "deny" instead of just closing on it.
   */
  async drained(maxMs: number): Promise<void> {
    if (this.inflight === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((r) => (timer = setTimeout(r, maxMs)));
    await Promise.race([new Promise<void>((r) => this.whenIdle.push(r)), limit]);
    clearTimeout(timer);
  }
}
