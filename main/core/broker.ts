// The broker: request → validate → classify → risk → grants → answer or prompt.
// Every answer is committed to history (store.appendEvent) before it is returned.
import type { AgentAnswer, AgentRequest, GrantSpec, TaskStartParams } from '../contract/agent';
import type { ApproverNotification, DecideParams, Grant, Prompt, Settings, Task } from '../contract/approver';
import { ACTION_RANK, LIMITS, riskier, type Action, type DecidedBy, type Risk, type Scope } from '../contract/common';
import { RPC, RpcError } from '../contract/rpc';
import type { Store } from '../store';
import { newId } from '../store/ids';
import { evaluateGrants, evaluateParts, exactCommandPattern, exactResourcePattern, GrantIndex, nearMissText } from './grants';
import { suggest } from './suggest';
import type { CommandClassifier, KeyScope, RequestContext, TaskSocketService } from './ports';
import type { CoreRequest } from './request';
import { assessRisk, rank, remember, type TaskMemory } from './risk';
import { applyPatch, resolveSettings } from './settings';

export interface BrokerOptions {
  store: Store;
  classifier?: CommandClassifier;
  taskSockets?: TaskSocketService;
  now?: () => number;
}

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
  timer: NodeJS.Timeout;
  /** task.start with grants: the human accepts or refuses them as one prompt. */
  taskGrants?: { specs: Omit<GrantSpec, 'task'>[]; resolve(ids: string[]): void };
}

const DURATION_DEFAULT_SEC = 15 * 60;

export function capArgs(args: unknown): string | null {
  if (args === undefined) return null;
  let text: string;
  try {
    text = JSON.stringify(args) ?? 'null';
  } catch {
    return JSON.stringify({ unserializable: true });
  }
  if (Buffer.byteLength(text) <= LIMITS.recordedArgsBytes) return text;
  return JSON.stringify({ truncated: true, bytes: Buffer.byteLength(text), head: text.slice(0, LIMITS.recordedArgsBytes / 2) });
}

export class Broker implements KeyScope {
  readonly store: Store;
  private readonly classifier?: CommandClassifier;
  /** Set by the daemon once the SSH agent runs; without it tasks have no SSH socket. */
  taskSockets?: TaskSocketService;
  private readonly now: () => number;
  private settingsCache: Settings;
  private grantCache: GrantIndex | null = null;
  private readonly pending = new Map<string, Pending>();
  /** Chain-rule memory per running task (see risk.ts). */
  private readonly memories = new Map<string, TaskMemory>();
  private readonly listeners = new Set<(n: ApproverNotification) => void>();
  private closed = false;

  constructor(opts: BrokerOptions) {
    this.store = opts.store;
    this.classifier = opts.classifier;
    this.taskSockets = opts.taskSockets;
    this.now = opts.now ?? Date.now;
    this.settingsCache = resolveSettings(this.store.readSettings());
  }

  // ---- notifications --------------------------------------------------------------

  subscribe(listener: (n: ApproverNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Notifications that originate outside the broker (the SSH agent's key changes). */
  publish(n: ApproverNotification): void {
    this.emit(n);
  }

  private emit(n: ApproverNotification): void {
    for (const l of this.listeners) {
      try {
        l(n);
      } catch {
        // A broken listener (e.g. a closed socket) must not break the broker.
      }
    }
  }

  // ---- settings -----------------------------------------------------------------------

  get settings(): Settings {
    return this.settingsCache;
  }

  updateSettings(patch: Parameters<typeof applyPatch>[1]): Settings {
    const next = applyPatch(this.settingsCache, patch);
    this.store.writeSettings(next as unknown as Record<string, unknown>);
    this.settingsCache = next;
    return next;
  }

  // ---- requests -----------------------------------------------------------------------

  /** Normalises an agent request: task binding, re-classification, MCP overrides. */
  normalize(req: AgentRequest, ctx: RequestContext): CoreRequest {
    let task = req.task ?? null;
    if (ctx.boundTask) {
      if (task && task !== ctx.boundTask) throw new RpcError(RPC.invalidParams, `invalid params: task: this socket belongs to task ${ctx.boundTask}`);
      task = ctx.boundTask;
    }
    let taskInfo: CoreRequest['taskInfo'];
    if (task) {
      const t = this.store.getTask(task);
      if (!t) throw new RpcError(RPC.invalidParams, `invalid params: task: no task ${task} (start one with task.start)`);
      if (t.endedAt !== null) throw new RpcError(RPC.invalidParams, `invalid params: task: task ${task} has ended`);
      taskInfo = { name: t.name, cwd: t.cwd };
    }
    let action = req.action;
    const resources = [...new Set([...(req.resource ? [req.resource] : []), ...(req.resources ?? [])])];
    const classifierRisk: CoreRequest['classifierRisk'] = [];
    let parts: CoreRequest['parts'];
    const command = (req.args as { command?: unknown } | undefined)?.command;
    if (this.classifier && (req.source === 'exec' || req.source === 'claude-code') && typeof command === 'string') {
      const c = this.classifier(command, req.cwd);
      parts = c.parts;
      if (ACTION_RANK[c.action] > ACTION_RANK[action]) {
        classifierRisk.push({ level: 'medium', reason: `the caller called this ${action}, but the command does ${c.action}` });
      }
      action = riskier(action, c.action);
      for (const r of c.resources) if (!resources.includes(r)) resources.push(r);
      classifierRisk.push(...c.riskReasons);
    }
    if (req.source === 'mcp') {
      const pinned = this.settingsCache.mcpToolActions[req.tool];
      if (pinned) action = pinned;
    }
    return {
      source: req.source,
      tool: req.tool,
      action,
      resource: req.resource ?? resources[0] ?? null,
      resources: resources.slice(0, LIMITS.resources),
      summary: req.summary,
      argsText: capArgs(req.args),
      args: req.args,
      task,
      ...(taskInfo ? { taskInfo } : {}),
      cwd: req.cwd ?? null,
      process: ctx.process,
      ssh: ctx.ssh,
      ...(parts ? { parts } : {}),
      classifierRisk,
    };
  }

  private activeGrants(): GrantIndex {
    if (!this.grantCache) this.grantCache = new GrantIndex(this.store.activeGrants(this.now()));
    return this.grantCache;
  }

  private grantsChanged(): void {
    this.grantCache = null;
    this.emit({ method: 'grants.changed', params: {} });
  }

  async ask(raw: AgentRequest, ctx: RequestContext): Promise<AgentAnswer> {
    if (this.closed) throw new RpcError(RPC.refused, 'Airlock is shutting down; retry when it is back');
    const req = this.normalize(raw, ctx);
    const risk = assessRisk(req, req.task ? this.memoryOf(req.task) : {});
    const now = this.now();
    const candidates = this.activeGrants().forTool(req.tool);
    const verdict = evaluateGrants(candidates, req, now);

    if (verdict.deny) {
      return this.answer(req, risk, 'deny', 'grant', verdict.deny.id, null, `denied by grant ${verdict.deny.id}${verdict.deny.note ? ` (${verdict.deny.note})` : ''}`);
    }
    if (verdict.allow && risk.level !== 'critical') return this.allowByGrants(req, risk, [verdict.allow]);
    if (req.parts?.length) {
      const allows = (a: Action) => this.settingsCache.policy[a] === 'allow' && rank(risk.level) < rank('high');
      const pv = evaluateParts(candidates, req, now, allows, req.taskInfo?.cwd ?? null);
      if (pv.deny) {
        return this.answer(req, risk, 'deny', 'grant', pv.deny.id, null, `denied by grant ${pv.deny.id}${pv.deny.note ? ` (${pv.deny.note})` : ''}`);
      }
      if (pv.covered && risk.level !== 'critical') {
        if (pv.covered.length) return this.allowByGrants(req, risk, pv.covered);
        return this.answer(req, risk, 'allow', 'policy', null, null, `the default policy allows every part of this command`);
      }
      if (pv.uncovered.length && pv.uncovered.length < req.parts.length) {
        const list = (ps: typeof pv.uncovered) => ps.slice(0, 3).map((p) => `\`${p.command}\``).join(', ');
        return this.prompt(req, risk, ctx, `the rest of this command is allowed; not covered: ${list(pv.uncovered)}`);
      }
    }
    const policy = this.settingsCache.policy[req.action];
    if (policy === 'deny' && risk.level !== 'critical') {
      return this.answer(req, risk, 'deny', 'policy', null, null, `the default policy denies ${req.action}`);
    }
    if (policy === 'allow' && rank(risk.level) < rank('high')) {
      return this.answer(req, risk, 'allow', 'policy', null, null, `the default policy allows ${req.action}`);
    }
    return this.prompt(req, risk, ctx, verdict.near ? nearMissText(verdict.near, req) : undefined);
  }

  private memoryOf(task: string): TaskMemory {
    let m = this.memories.get(task);
    if (!m) {
      m = {};
      for (const e of this.store.taskAllowedEvents(task)) remember(m, e.action, e.resources);
      this.memories.set(task, m);
    }
    return m;
  }

  private allowByGrants(req: CoreRequest, risk: Risk, grants: Grant[]): AgentAnswer {
    const g = grants[0]!;
    const ids = grants.map((x) => x.id);
    const notes = grants.map((x) => x.note).filter(Boolean);
    const reason = `allowed by grant ${ids.join(', ')}${notes.length ? ` (${notes.join('; ')})` : ''}`;
    const limited = grants.filter((x) => x.usesLeft !== null);
    // Spend uses in memory at once, so concurrent requests cannot overdraw a grant.
    for (const x of limited) x.usesLeft = x.usesLeft! - 1;
    const a = this.answer(req, risk, 'allow', 'grant', g.id, null, reason, ids);
    for (const x of grants) x.lastUsedAt = this.now();
    if (limited.length) this.grantsChanged();
    return a;
  }

  /** Commits the event, then returns the answer (never the other way round). */
  private answer(
    req: CoreRequest,
    risk: Risk,
    decision: 'allow' | 'deny',
    decidedBy: DecidedBy,
    grant: string | null,
    scope: Scope | null,
    reason: string,
    consumeGrants?: string[],
    createGrant?: Grant,
  ): AgentAnswer {
    const ev = this.store.appendEvent(
      {
        ts: this.now(),
        task: req.task,
        source: req.source,
        tool: req.tool,
        action: req.action,
        resource: req.resource,
        resources: req.resources,
        summary: req.summary,
        args: req.argsText,
        cwd: req.cwd,
        process: req.process ?? null,
        ssh: req.ssh ?? null,
        risk,
        decision,
        decidedBy,
        grant,
        scope,
        reason,
      },
      { consumeGrants, createGrant },
    );
    if (decision === 'allow' && req.task) remember(this.memoryOf(req.task), req.action, req.resources);
    this.emit({ method: 'event.recorded', params: ev });
    return { decision, reason, event: ev.id, ...(grant ? { grant } : {}) };
  }

  /** Records an attempt that never reached policy (malformed line, bad params, wrong peer). */
  recordRejected(p: { source: string; tool: string; summary: string; raw: unknown; reason: string; process?: CoreRequest['process']; task?: string | null }): number {
    const ev = this.store.appendEvent({
      ts: this.now(),
      task: p.task && this.store.getTask(p.task) ? p.task : null,
      source: p.source.slice(0, 64),
      tool: p.tool.slice(0, LIMITS.name),
      action: 'other',
      resource: null,
      resources: [],
      summary: p.summary.slice(0, LIMITS.summary),
      args: capArgs(p.raw),
      cwd: null,
      process: p.process ?? null,
      ssh: null,
      risk: { level: 'low', reasons: [] },
      decision: 'reject',
      decidedBy: 'invalid',
      grant: null,
      scope: null,
      reason: p.reason.slice(0, LIMITS.text),
    });
    this.emit({ method: 'event.recorded', params: ev });
    return ev.id;
  }

  private coalesceKey(r: CoreRequest): string {
    return JSON.stringify([r.task, r.source, r.tool, r.action, r.resources, r.summary, r.argsText, r.ssh?.fingerprint, r.ssh?.forwarded, r.ssh?.host]);
  }

  private pendingCountFor(task: string | null, connection?: string): number {
    let n = 0;
    for (const p of this.pending.values()) {
      if (task ? p.prompt.task === task : p.waiters.some((w) => w.connection === connection)) n++;
    }
    return n;
  }

  private prompt(req: CoreRequest, risk: Risk, ctx: RequestContext, nearMiss?: string): Promise<AgentAnswer> {
    const key = this.coalesceKey(req);
    for (const p of this.pending.values()) {
      if (p.coalesceKey === key && !p.taskGrants) {
        return new Promise((resolve) => p.waiters.push({ resolve, connection: ctx.connection, req }));
      }
    }
    const cap = this.settingsCache.maxPendingPerTask;
    if (this.pendingCountFor(req.task, ctx.connection) >= cap) {
      const reason = `too many prompts waiting for ${req.task ? `task ${req.task}` : 'this connection'} (limit ${cap}); wait for the human to answer`;
      this.answer(req, risk, 'deny', 'system', null, null, reason);
      return Promise.reject(new RpcError(RPC.refused, reason));
    }
    const now = this.now();
    const id = newId('p');
    const suggestion = suggest(req, risk, req.taskInfo?.cwd ?? null);
    const prompt: Prompt = {
      id,
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
      ...(nearMiss ? { nearMiss } : {}),
      ...(suggestion ? { suggestion } : {}),
      createdAt: now,
      expiresAt: now + this.settingsCache.promptTimeoutSec * 1000,
    };
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.timeout(id), this.settingsCache.promptTimeoutSec * 1000);
      timer.unref();
      this.pending.set(id, { prompt, risk, coalesceKey: key, waiters: [{ resolve, connection: ctx.connection, req }], timer });
      this.emit({ method: 'pending.added', params: prompt });
    });
  }

  private timeout(id: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.finish(p, 'deny', 'timeout', null, null, `no answer within ${this.settingsCache.promptTimeoutSec} s: denied by default`);
  }

  /** Resolves every waiter of a prompt, each with its own committed event. */
  private finish(p: Pending, decision: 'allow' | 'deny', by: DecidedBy, grant: Grant | null, scope: Scope | null, reason: string): AgentAnswer | null {
    clearTimeout(p.timer);
    this.pending.delete(p.prompt.id);
    let first: AgentAnswer | null = null;
    if (p.taskGrants) {
      p.taskGrants.resolve([]);
    }
    p.waiters.forEach((w, i) => {
      const a = this.answer(w.req, p.risk, decision, by, grant?.id ?? null, scope, reason, undefined, i === 0 && grant ? grant : undefined);
      first ??= a;
      w.resolve(a);
    });
    if (grant) this.grantsChanged();
    this.emit({ method: 'pending.resolved', params: { id: p.prompt.id, decision, reason, event: first ? (first as AgentAnswer).event : 0 } });
    return first;
  }

  /** The requester went away: its waiters are answered (deny) so history has them. */
  dropConnection(connection: string): void {
    for (const p of [...this.pending.values()]) {
      const gone = p.waiters.filter((w) => w.connection === connection);
      if (gone.length === 0) continue;
      if (gone.length === p.waiters.length) {
        this.finish(p, 'deny', 'system', null, null, 'the requester disconnected before the human answered');
      } else {
        p.waiters = p.waiters.filter((w) => w.connection !== connection);
        for (const w of gone) this.answer(w.req, p.risk, 'deny', 'system', null, null, 'the requester disconnected before the human answered');
      }
    }
  }

  listPending(): Prompt[] {
    return [...this.pending.values()].map((p) => p.prompt).sort((a, b) => a.createdAt - b.createdAt);
  }

  decide(d: DecideParams): { grant?: Grant } {
    const p = this.pending.get(d.id);
    if (!p) throw new RpcError(RPC.notFound, `no pending prompt ${d.id} (it was answered or timed out)`);
    if (p.taskGrants) return this.decideTaskGrants(p, d);
    const req = p.waiters[0]!.req;
    const who = d.decision === 'allow' ? 'allowed' : 'denied';
    if (d.scope === 'once') {
      this.finish(p, d.decision, 'human', null, 'once', `${who} once by the human`);
      return {};
    }
    if (d.scope === 'task' && !req.task) {
      throw new RpcError(RPC.invalidParams, 'invalid params: scope: this request belongs to no task; choose once, duration or always');
    }
    const now = this.now();
    const grant: Grant = {
      id: newId('g'),
      task: d.scope === 'task' ? req.task : null,
      source: req.source,
      tool: d.pattern?.tool ?? req.tool,
      action: req.action,
      resource: d.pattern?.resource ?? (req.parts?.length ? exactCommandPattern(req.parts) : exactResourcePattern(req.resources)),
      key: req.ssh?.fingerprint ?? null,
      effect: d.decision,
      expiresAt: d.scope === 'duration' ? now + (d.durationSec ?? DURATION_DEFAULT_SEC) * 1000 : null,
      usesLeft: null,
      forwarded: req.ssh?.forwarded ?? false,
      note: `from prompt: ${req.summary}`.slice(0, 1000),
      createdAt: now,
      createdBy: 'human',
      revokedAt: null,
      lastUsedAt: null,
    };
    const scopeText = d.scope === 'task' ? 'for this task' : d.scope === 'duration' ? `for ${Math.round((grant.expiresAt! - now) / 60000)} min` : 'always';
    this.finish(p, d.decision, 'human', grant, d.scope, `${who} ${scopeText} by the human (grant ${grant.id})`);
    return { grant };
  }

  // ---- grants -------------------------------------------------------------------------

  createGrant(spec: GrantSpec, createdBy: string): Grant {
    if (spec.task) {
      const t = this.store.getTask(spec.task);
      if (!t) throw new RpcError(RPC.invalidParams, `invalid params: task: no task ${spec.task}`);
      if (t.endedAt !== null) throw new RpcError(RPC.invalidParams, `invalid params: task: task ${spec.task} has ended`);
    }
    const g: Grant = {
      id: newId('g'),
      task: spec.task ?? null,
      source: spec.source ?? '*',
      tool: spec.tool ?? '*',
      action: spec.action,
      resource: spec.resource ?? '**',
      key: spec.key ?? null,
      effect: spec.effect,
      expiresAt: spec.expiresAt ?? null,
      usesLeft: spec.uses ?? null,
      forwarded: spec.forwarded ?? false,
      note: spec.note ?? null,
      createdAt: this.now(),
      createdBy,
      revokedAt: null,
      lastUsedAt: null,
    };
    this.store.insertGrant(g);
    this.grantsChanged();
    return g;
  }

  revokeGrant(id: string): void {
    if (!this.store.getGrant(id)) throw new RpcError(RPC.notFound, `no grant ${id}`);
    this.store.revokeGrant(id, this.now());
    this.grantsChanged();
  }

  /**
   * Whether a sandbox of `task` may have the network: the task holds an allow grant for
   * transfers (bound to it or to any task) and no deny grant for them. One bit about the
   * agent's own task; it reads no grant's details and decides nothing.
   */
  taskNetwork(task: string): { allowed: boolean; reason: string } {
    const t = this.store.getTask(task);
    if (!t) throw new RpcError(RPC.invalidParams, `invalid params: task: no task ${task}`);
    if (t.endedAt !== null) throw new RpcError(RPC.invalidParams, `invalid params: task: task ${task} has ended`);
    const transfer = this.activeGrants().all.filter((g) => (g.task === null || g.task === task) && (g.action === 'transfer' || g.action === '*'));
    if (transfer.some((g) => g.effect === 'deny')) return { allowed: false, reason: 'a grant denies transfers for this task' };
    const allow = transfer.find((g) => g.effect === 'allow');
    return allow ? { allowed: true, reason: `grant ${allow.id} allows transfers` } : { allowed: false, reason: 'the task holds no transfer grant' };
  }

  keysVisibleTo(task: string): Set<string> | null {
    const keys = this.activeGrants().all.filter((g) => g.task === task && g.effect === 'allow' && g.key !== null).map((g) => g.key!);
    return keys.length ? new Set(keys) : null;
  }

  // ---- tasks --------------------------------------------------------------------------

  async startTask(p: TaskStartParams, ctx: RequestContext): Promise<{ task: string; sshAuthSock: string | null; grants: string[] }> {
    const task: Task = { id: newId('t'), name: p.name, cwd: p.cwd ?? null, createdAt: this.now(), endedAt: null, sshAuthSock: null };
    this.store.insertTask(task);
    if (this.taskSockets) {
      task.sshAuthSock = await this.taskSockets.open(task.id);
      this.store.setTaskSocket(task.id, task.sshAuthSock);
    }
    this.emit({ method: 'tasks.changed', params: {} });
    let grants: string[] = [];
    if (p.grants && p.grants.length > 0) grants = await this.askTaskGrants(task, p.grants, ctx);
    return { task: task.id, sshAuthSock: task.sshAuthSock, grants };
  }

  /** Grants a task asks for at start are one prompt; nothing is granted silently. */
  private askTaskGrants(task: Task, specs: Omit<GrantSpec, 'task'>[], ctx: RequestContext): Promise<string[]> {
    const action = specs.reduce<Action>((a, s) => (s.action === '*' ? 'execute' : riskier(a, s.action)), 'read');
    const describe = (s: Omit<GrantSpec, 'task'>) => `${s.effect} ${s.action} ${s.tool ?? '*'} on ${s.resource ?? '**'}`;
    const req: CoreRequest = {
      source: 'api',
      tool: 'task.start',
      action,
      resource: null,
      resources: specs.map((s) => s.resource ?? '**'),
      summary: `task "${task.name}" asks for ${specs.length} grant(s): ${specs.map(describe).join('; ')}`.slice(0, LIMITS.summary),
      argsText: capArgs(specs),
      args: specs,
      task: task.id,
      cwd: task.cwd,
      process: ctx.process,
      classifierRisk: [],
    };
    const risk: Risk = { level: specs.some((s) => s.action === '*') ? 'high' : 'medium', reasons: ['a task asks for standing grants'] };
    const now = this.now();
    const id = newId('p');
    const prompt: Prompt = {
      id, task: task.id, taskName: task.name, source: 'api', tool: req.tool, action, resource: null, resources: req.resources,
      summary: req.summary, args: specs, cwd: task.cwd, risk, ...(ctx.process ? { process: ctx.process } : {}),
      createdAt: now, expiresAt: now + this.settingsCache.promptTimeoutSec * 1000,
    };
    return new Promise((resolveIds) => {
      const timer = setTimeout(() => this.timeout(id), this.settingsCache.promptTimeoutSec * 1000);
      timer.unref();
      const waiter: Waiter = { resolve: () => undefined, connection: ctx.connection, req };
      this.pending.set(id, { prompt, risk, coalesceKey: id, waiters: [waiter], timer, taskGrants: { specs, resolve: resolveIds } });
      this.emit({ method: 'pending.added', params: prompt });
    });
  }

  private decideTaskGrants(p: Pending, d: DecideParams): { grant?: Grant } {
    const tg = p.taskGrants!;
    p.taskGrants = undefined;
    if (d.decision === 'deny') {
      tg.resolve([]);
      this.finish(p, 'deny', 'human', null, d.scope, 'the human refused the grants this task asked for');
      return {};
    }
    const ids = tg.specs.map((s) => this.createGrant({ ...s, task: p.prompt.task }, 'human (task.start)').id);
    tg.resolve(ids);
    this.finish(p, 'allow', 'human', null, d.scope, `the human accepted ${ids.length} grant(s) for this task: ${ids.join(', ')}`);
    return {};
  }

  async endTask(id: string): Promise<void> {
    const t = this.store.getTask(id);
    if (!t) throw new RpcError(RPC.notFound, `no task ${id}`);
    if (!this.store.endTask(id, this.now())) return;
    await this.taskSockets?.close(id);
    this.store.setTaskSocket(id, null);
    this.memories.delete(id);
    this.grantsChanged();
    this.emit({ method: 'tasks.changed', params: {} });
  }

  /** Denies every open prompt (recorded) so no requester hangs across a restart. */
  shutdown(): void {
    this.closed = true;
    for (const p of [...this.pending.values()]) this.finish(p, 'deny', 'system', null, null, 'Airlock stopped before the human answered');
  }
}
