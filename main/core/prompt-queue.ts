// The prompts waiting for the human: one per distinct request (identical requests share
// one, which says how many it answers, and each gets its own answer and event), capped (flood.ts), denied when nobody
// answers in time or when the requester goes away, and answered by `pending.decide`.
// Every answer is committed through the HistoryRecorder before a waiter hears it.
// Over 400 lines on purpose: every path that answers, moves or re-counts a waiting prompt is
// here (decide, timeout, disconnect, deny grants, re-shown risk), so none misses the others' bookkeeping.
import type { AgentAnswer, GrantSpec } from '../contract/agent';
import type { DecideParams, Grant, Prompt, Settings, Task } from '../contract/approver';
import { LIMITS, riskier, type Action, type DecidedBy, type Risk, type Scope } from '../contract/common';
import { RPC, RpcError } from '../contract/rpc';
import { newId } from '../store/ids';
import { splitMcpTool } from './classify/mcp';
import { overPendingCap } from './flood';
import { capArgs, type HistoryRecorder } from './history-recorder';
import type { NotificationBus } from './notification-bus';
import type { ConsequenceProbe, RequestContext } from './ports';
import { checkDecision, grantFromDecision, grantShortfall, serverReadOnlyGrants, taskGrantChoice } from './prompt-decisions';
import type { CoreRequest } from './request';
import { suggest } from './suggest';
import { conditionSuggestions, withPastMatches } from './prompt-suggestions';
import { scopeRefusal } from './friction';
import { promptFacts } from './prompt-facts';
import { coalesceKey, withWaiting } from './prompt-coalesce';
import type { OwnInstall } from './agent-chain';
import { describeTaskGrants, grantLine } from './task-grants';
import { checkCondition, withConditionWords, type TasksAndGrants } from './tasks-and-grants';

interface Waiter {
  resolve(a: AgentAnswer): void;
  connection?: string;
  req: CoreRequest;
}

interface Pending {
  prompt: Prompt;
  risk: Risk;
  coalesceKey: string;
  waiters: Waiter[];
  cancelTimer: () => void;
  /** task.start with grants: the human accepts or refuses them as one prompt. */
  taskGrants?: { specs: Omit<GrantSpec, 'task'>[]; resolve(r: { ids: string[]; declined: number[] }): void };
}

/** Runs `fn` after `ms` unless cancelled; never keeps the process alive by itself. */
export type Schedule = (fn: () => void, ms: number) => () => void;

const realSchedule: Schedule = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

export interface PromptQueueDeps {
  recorder: HistoryRecorder;
  grants: Pick<TasksAndGrants, 'createGrant' | 'insertGrant' | 'grantsChanged'>;
  settings: () => Settings;
  bus: NotificationBus;
  now?: () => number;
  schedule?: Schedule;
  /** Looks at the disk for a prompt's consequence line and diff (main/os/consequence-probe.ts); without it prompts have none. */
  consequences?: ConsequenceProbe;
  /** Where this Airlock is installed, so "who" skips its own processes (core/agent-chain.ts). */
  ownInstall?: OwnInstall;
  /** A request's risk as the policy assesses it now (RequestPolicy.riskOf); without it prompts are never assessed again. */
  riskOf?: (req: CoreRequest) => Risk;
  /** The deny grant that would answer a request now, if any (RequestPolicy.evaluate); without it new deny grants leave prompts as they are. */
  denyingGrant?: (req: CoreRequest) => { grant: string; reason: string } | null;
}

/** How many replaced prompt ids are remembered, to tell a late answer where its prompt went. */
const REPLACED_KEPT = 256;

export class PromptQueue {
  private readonly pending = new Map<string, Pending>();
  private readonly recorder: HistoryRecorder;
  private readonly grants: PromptQueueDeps['grants'];
  private readonly settings: () => Settings;
  private readonly bus: NotificationBus;
  private readonly now: () => number;
  private readonly schedule: Schedule;
  private readonly consequences?: ConsequenceProbe;
  private readonly ownInstall: OwnInstall;
  private readonly riskOf?: (req: CoreRequest) => Risk;
  private readonly denyingGrant?: PromptQueueDeps['denyingGrant'];
  /** Prompts shown again under a new id because their risk rose (reassessTask): old id → why. */
  private readonly replaced = new Map<string, string>();

  constructor(deps: PromptQueueDeps) {
    this.riskOf = deps.riskOf;
    this.denyingGrant = deps.denyingGrant;
    this.consequences = deps.consequences;
    this.ownInstall = deps.ownInstall ?? { roots: [] };
    this.recorder = deps.recorder;
    this.grants = deps.grants;
    this.settings = deps.settings;
    this.bus = deps.bus;
    this.now = deps.now ?? Date.now;
    this.schedule = deps.schedule ?? realSchedule;
  }

  list(): Prompt[] {
    return [...this.pending.values()].map((p) => p.prompt).sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Why one more prompt for (task, connection) is refused (see flood.ts), or null. */
  overCap(task: string | null | { new: true }, connection: string | undefined, remote?: string): string | null {
    const views = [...this.pending.values()].map((p) => ({ task: p.prompt.task, connections: p.waiters.map((w) => w.connection), remote: p.prompt.remote?.name }));
    return overPendingCap(views, task, connection, this.settings(), remote);
  }

  /** Asks the human (or joins an identical open prompt); refused at once over a cap. */
  ask(req: CoreRequest, risk: Risk, ctx: RequestContext, nearMiss?: string): Promise<AgentAnswer> {
    const key = coalesceKey(req, risk, ctx.connection);
    for (const p of this.pending.values()) {
      if (p.coalesceKey === key && !p.taskGrants) {
        return new Promise((resolve) => {
          p.waiters.push({ resolve, connection: ctx.connection, req });
          this.countWaiting(p);
        });
      }
    }
    const reason = this.overCap(req.task, ctx.connection, ctx.remote?.name);
    if (reason) {
      this.recorder.answer({ req, risk, decision: 'deny', decidedBy: 'system', grant: null, scope: null, reason });
      return Promise.reject(new RpcError(RPC.refused, reason));
    }
    const now = this.now();
    const timeoutSec = this.settings().promptTimeoutSec;
    const suggestion = withPastMatches(suggest(req, risk, req.taskInfo?.cwd ?? null), req.task, this.recorder);
    const mcp = req.source === 'mcp' ? splitMcpTool(req.tool) : null;
    const prompt: Prompt = {
      id: newId('p'),
      task: req.task,
      taskName: req.taskInfo?.name ?? null,
      source: req.source as Prompt['source'],
      tool: req.tool,
      action: req.action,
      resource: req.resource,
      resources: req.resources,
      summary: req.summary,
      // The recorded (capped) args, never the raw value: args nested thousands deep make
      // JSON.stringify overflow the stack on the human side (test/fuzz/regressions.test.ts).
      args: req.argsText === null ? null : (JSON.parse(req.argsText) as unknown),
      cwd: req.cwd,
      risk,
      ...(req.process ? { process: req.process } : {}),
      ...(req.ssh ? { ssh: req.ssh } : {}),
      ...(req.remote ? { remote: req.remote } : {}),
      ...(nearMiss ? { nearMiss } : {}),
      ...(req.egress ? { egress: req.egress } : {}),
      ...(suggestion ? { suggestion } : {}),
      ...(req.actionOrigin ? { actionOrigin: req.actionOrigin } : {}),
      ...(mcp ? { mcpServer: mcp[0] } : {}),
      ...conditionSuggestions(req),
      ...promptFacts(req, this.consequences, this.ownInstall),
      createdAt: now,
      expiresAt: now + timeoutSec * 1000,
    };
    return new Promise((resolve) => this.add(prompt, risk, key, { resolve, connection: ctx.connection, req }, timeoutSec));
  }

  /**
   * Grants a task asks for at start are one prompt; nothing is granted silently. The prompt
   * carries every grant in full (Prompt.grants); the summary only counts them.
   */
  askTaskGrants(task: Task, asked: Omit<GrantSpec, 'task'>[], ctx: RequestContext, nameReasons: string[] = []): Promise<{ ids: string[]; declined: number[] }> {
    // The remote a grant is for is the socket's, never the agent's claim.
    const specs = asked.map((s) => ({ ...s, remote: ctx.remote?.name ?? null }));
    const action = specs.reduce<Action>((a, s) => (s.action === '*' ? 'execute' : Array.isArray(s.action) ? s.action.reduce(riskier, a) : riskier(a, s.action)), 'read');
    const grants = describeTaskGrants(specs);
    const blank = grants.filter((g) => g.needsConfirmation);
    const reasons = ['a task asks for standing grants', ...nameReasons];
    if (blank.length) reasons.push(`${blank.length} of them allow${blank.length === 1 ? 's' : ''} a high-impact action on anything (${blank.slice(0, 3).map(grantLine).join('; ')}): created only if you confirm each one`);
    const summary = `task "${task.name}" asks for ${specs.length} grant(s): ${grants.map(grantLine).join('; ')}`;
    const req: CoreRequest = {
      source: 'api',
      tool: 'task.start',
      action,
      resource: null,
      resources: specs.map((s) => s.resource ?? '**'),
      summary: summary.length > LIMITS.summary ? `${summary.slice(0, LIMITS.summary - 40)}… (all ${specs.length} listed in the prompt)` : summary,
      argsText: capArgs(specs),
      args: specs,
      task: task.id,
      cwd: task.cwd,
      process: ctx.process,
      ...(ctx.remote ? { remote: ctx.remote } : {}),
      classifierRisk: [],
    };
    const risk: Risk = { level: specs.some((s) => s.action === '*') || blank.length ? 'high' : 'medium', reasons };
    const now = this.now();
    const timeoutSec = this.settings().promptTimeoutSec;
    const id = newId('p');
    const prompt: Prompt = {
      id, task: task.id, taskName: task.name, source: 'api', tool: req.tool, action, resource: null, resources: req.resources,
      summary: req.summary, args: specs, cwd: task.cwd, risk, ...(ctx.process ? { process: ctx.process } : {}),
      grants,
      ...(ctx.remote ? { remote: ctx.remote } : {}),
      createdAt: now, expiresAt: now + timeoutSec * 1000,
    };
    return new Promise((resolveIds) => {
      this.add(prompt, risk, id, { resolve: () => undefined, connection: ctx.connection, req }, timeoutSec, { specs, resolve: resolveIds });
    });
  }

  private add(prompt: Prompt, risk: Risk, coalesceKey: string, waiter: Waiter, timeoutSec: number, taskGrants?: Pending['taskGrants']): void {
    const cancelTimer = this.schedule(() => this.timeout(prompt.id), timeoutSec * 1000);
    this.pending.set(prompt.id, { prompt, risk, coalesceKey, waiters: [waiter], cancelTimer, ...(taskGrants ? { taskGrants } : {}) });
    this.bus.publish({ method: 'pending.added', params: prompt });
  }

  private timeout(id: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    // The timeout in force when the prompt was made, not the setting now (it may have changed since).
    const sec = Math.round((p.prompt.expiresAt - p.prompt.createdAt) / 1000);
    this.finish(p, 'deny', 'timeout', null, null, `no answer within ${sec} s: denied by default`);
  }

  /** Resolves every waiter of a prompt, each with its own committed event. */
  /** `decidedByGrant`: false when `grant` is only created here, not what answers the request (its event then names no grant). */
  private finish(p: Pending, decision: 'allow' | 'deny', by: DecidedBy, grant: Grant | null, scope: Scope | null, reason: string, decidedByGrant = true, decidingGrant?: string): void {
    p.cancelTimer();
    this.pending.delete(p.prompt.id);
    let first: AgentAnswer | null = null;
    if (p.taskGrants) p.taskGrants.resolve({ ids: [], declined: p.taskGrants.specs.map((_, i) => i) });
    p.waiters.forEach((w, i) => {
      const a = this.recorder.answer({ req: w.req, risk: p.risk, decision, decidedBy: by, grant: decidedByGrant ? (grant?.id ?? decidingGrant ?? null) : null, scope, reason, ...(i === 0 && grant ? { createGrant: grant } : {}) });
      first ??= a;
      w.resolve(a);
    });
    if (grant) this.grants.grantsChanged();
    if (grant?.effect === 'deny') this.applyDenyGrants();
    this.bus.publish({ method: 'pending.resolved', params: { id: p.prompt.id, decision, reason, event: first ? (first as AgentAnswer).event : 0 } });
  }

  /** `waiting` follows the waiters (prompt-coalesce.ts, withWaiting). */
  private countWaiting(p: Pending): void {
    const u = withWaiting(p.prompt, p.waiters.length);
    if (u) this.bus.publish({ method: 'pending.updated', params: (p.prompt = u) });
  }

  /** The requester went away: its waiters are answered (deny) so history has them. */
  dropConnection(connection: string): void {
    const reason = 'the requester disconnected before the human answered';
    for (const p of [...this.pending.values()]) {
      const gone = p.waiters.filter((w) => w.connection === connection);
      if (gone.length === 0) continue;
      if (gone.length === p.waiters.length) {
        this.finish(p, 'deny', 'system', null, null, reason);
      } else {
        p.waiters = p.waiters.filter((w) => w.connection !== connection);
        this.countWaiting(p);
        // Resolved too (as when the whole prompt goes): no promise is left pending for ever.
        for (const w of gone) w.resolve(this.recorder.answer({ req: w.req, risk: p.risk, decision: 'deny', decidedBy: 'system', grant: null, scope: null, reason }));
      }
    }
  }

  /**
   * The task ended: its open prompts are answered (deny, recorded) and leave the queue, so
   * no answer given later can allow a request of a task that no longer runs, nor create a
   * grant for it ("allow for this task" on a dead task), and a task.start waiting on its
   * grants prompt is told none were accepted instead of hanging.
   */
  denyTask(task: string): void {
    for (const p of [...this.pending.values()]) {
      if (p.prompt.task === task) this.finish(p, 'deny', 'system', null, null, `task ${task} ended before the human answered`);
    }
  }

  /** The remote was removed: its open prompts are answered (deny, recorded), its forwarded agent's too. */
  denyRemote(name: string): void {
    for (const p of [...this.pending.values()]) {
      if (p.prompt.remote?.name === name) this.finish(p, 'deny', 'system', null, null, `remote ${name} was removed before the human answered`);
    }
  }

  /**
   * Signature prompts the agent can no longer honour (their key removed or expired, or the
   * agent locked): answered "deny" at once by the system with `why`, so none stays on screen
   * for an "allow" that would sign nothing yet be recorded as allowed (black-box wave 11).
   */
  denySignatures(why: (req: CoreRequest) => string | null): void {
    for (const p of [...this.pending.values()]) {
      const req = p.waiters[0]!.req;
      const reason = req.viaSshAgent && req.ssh ? why(req) : null;
      if (reason && this.pending.get(p.prompt.id) === p) this.finish(p, 'deny', 'system', null, null, reason);
    }
  }

  /**
   * A deny grant was made: every prompt still waiting that it (or any deny grant) now covers
   * is answered by it at once, as the same request sent now would be — deny beats allow, and
   * a "never" said while a request waits is meant for it too (black-box wave 11: an "allow
   * once" on a prompt shown before the human's `--deny ~/Mail/**` deleted the mail).
   */
  applyDenyGrants(): void {
    if (!this.denyingGrant) return;
    for (const p of [...this.pending.values()]) {
      if (p.taskGrants || this.pending.get(p.prompt.id) !== p) continue;
      const d = this.denyingGrant(p.waiters[0]!.req);
      if (d) this.finish(p, 'deny', 'grant', null, null, `${d.reason}, made while it waited`.slice(0, LIMITS.text), true, d.grant);
    }
  }

  /** Denies every open prompt (recorded) so no requester hangs across a restart. */
  denyAll(reason: string): void {
    for (const p of [...this.pending.values()]) this.finish(p, 'deny', 'system', null, null, reason);
  }

  /**
   * What the task did since its prompts were made changed its chain rules (it read a secret,
   * wrote a git hook, leaked a placeholder): each of its prompts still waiting is assessed
   * again, and one whose risk changed is shown again under a new id with the new risk — never
   * left as it was for an answer to what the human saw to decide what the request has become
   * (black-box wave 11: an egress prompt shown as high, then the task read .env silently, was
   * allowed once and the tunnel carried .env). An answer to the old id changes nothing
   * (-32004 saying where it went). Runs inside the answer that changed the memory: no decision comes between.
   */
  reassessTask(task: string): void {
    if (!this.riskOf) return;
    for (const p of [...this.pending.values()]) {
      if (p.prompt.task !== task || p.taskGrants) continue;
      const req = p.waiters[0]!.req;
      const risk = this.riskOf(req);
      if (risk.level === p.risk.level && JSON.stringify(risk.reasons) === JSON.stringify(p.risk.reasons)) continue;
      const old = p.prompt;
      const suggestion = withPastMatches(suggest(req, risk, req.taskInfo?.cwd ?? null), req.task, this.recorder);
      const prompt: Prompt = { ...old, id: newId('p'), risk };
      if (suggestion) prompt.suggestion = suggestion;
      else delete prompt.suggestion;
      p.cancelTimer();
      this.pending.delete(old.id);
      const why = `its risk changed from ${p.risk.level} to ${risk.level} while it waited (${risk.reasons.filter((r) => !p.risk.reasons.includes(r)).join('; ') || 'reasons changed'}); shown again as ${prompt.id}`;
      this.replaced.set(old.id, why.slice(0, LIMITS.text));
      if (this.replaced.size > REPLACED_KEPT) this.replaced.delete(this.replaced.keys().next().value!);
      const cancelTimer = this.schedule(() => this.timeout(prompt.id), Math.max(0, old.expiresAt - this.now()));
      this.pending.set(prompt.id, { ...p, prompt, risk, coalesceKey: coalesceKey(req, risk, p.waiters[0]!.connection), cancelTimer });
      // The new one first: a UI showing the old one moves to it (same place in the queue, a
      // new id, so its input guard starts again), and is never left with an empty screen.
      this.bus.publish({ method: 'pending.added', params: prompt });
      this.bus.publish({ method: 'pending.resolved', params: { id: old.id, decision: 'deny', reason: `not answered: ${why}`.slice(0, LIMITS.text), event: 0 } });
    }
  }

  decide(d: DecideParams): { grant?: Grant; notCovered?: string } {
    const p = this.pending.get(d.id);
    const moved = p ? undefined : this.replaced.get(d.id);
    if (moved) throw new RpcError(RPC.notFound, `prompt ${d.id} was not answered: ${moved}; answer that one`);
    if (!p) throw new RpcError(RPC.notFound, `no pending prompt ${d.id} (it was answered or timed out)`);
    if (p.taskGrants) return this.decideTaskGrants(p, d);
    const req = p.waiters[0]!.req;
    // Friction that grows with risk, in the daemon (friction.ts): no client can skip it.
    const refused = scopeRefusal(p.risk.level, d.decision, d.scope, d.decision === 'allow' || !!d.serverReadOnly);
    if (refused) throw new RpcError(RPC.invalidParams, `invalid params: scope: ${refused}`);
    checkDecision(req, d);
    if (d.scope === 'once') {
      this.finish(p, d.decision, 'human', null, 'once', `${d.decision === 'allow' ? 'allowed' : 'denied'} once by the human`);
      return {};
    }
    checkCondition(d.when);
    const now = this.now();
    if (d.serverReadOnly) {
      const ro = serverReadOnlyGrants(req, d, now);
      this.grants.insertGrant(ro.deny);
      this.finish(p, ro.decision, 'human', ro.allow, d.scope, ro.reason);
      this.applyDenyGrants();
      return { grant: ro.decision === 'allow' ? ro.allow : ro.deny };
    }
    const { grant, reason } = grantFromDecision(req, d, now);
    // An edited pattern (or a condition) may leave out the very request it was made from. The
    // human's answer still holds for this request, but once: history must not name a grant
    // as having decided what it does not cover. The grant is created all the same, named in
    // the reason (and returned), for the requests it does cover.
    const policy = this.settings().policy;
    const short = grantShortfall(grant, req, now, (a) => policy[a] === 'allow' && p.risk.level !== 'high' && p.risk.level !== 'critical');
    if (short) {
      const made = `grant ${grant.id} (${grant.effect} ${scopeWords(d.scope)}: ${grant.tool} \`${grant.resource}\`${grant.when ? ` when ${grant.when}` : ''})`;
      this.finish(p, d.decision, 'human', grant, 'once', `${d.decision === 'allow' ? 'allowed' : 'denied'} once by the human; ${made} was created but does not cover this request: ${short}`.slice(0, LIMITS.text), false);
      return { grant: withConditionWords(grant), notCovered: short };
    }
    this.finish(p, d.decision, 'human', grant, d.scope, reason);
    return { grant: withConditionWords(grant) };
  }

  /** Whatever the scope chosen, the grants a task asked for are the task's (they die with it). */
  private decideTaskGrants(p: Pending, d: DecideParams): { grant?: Grant } {
    const tg = p.taskGrants!;
    const described = p.prompt.grants ?? describeTaskGrants(tg.specs);
    const choice = taskGrantChoice(described, d);
    p.taskGrants = undefined;
    if (d.decision === 'deny') {
      tg.resolve({ ids: [], declined: choice.declined });
      this.finish(p, 'deny', 'human', null, d.scope, 'the human refused the grants this task asked for');
      return {};
    }
    const ids = choice.accept.map((i) => this.grants.createGrant({ ...tg.specs[i]!, task: p.prompt.task }, choice.confirmed.has(i) ? 'human (task.start, confirmed)' : 'human (task.start)').id);
    tg.resolve({ ids, declined: choice.declined });
    const notCreated = choice.declined.length
      ? `; not created (a wildcard of a high-impact action the human did not confirm): ${choice.declined.map((i) => `#${i} ${grantLine(described[i]!)}`).join('; ')}`
      : '';
    this.finish(p, 'allow', 'human', null, d.scope, `the human accepted ${ids.length} of ${tg.specs.length} grant(s) for this task: ${ids.join(', ')}${notCreated}`.slice(0, LIMITS.text));
    return {};
  }
}

/** "for this task", "always", "for a while": a decision's scope in the words of a reason. */
function scopeWords(scope: Scope): string {
  return scope === 'task' ? 'for this task' : scope === 'duration' ? 'for a while' : scope === 'always' ? 'always' : 'once';
}
