// The broker: request → validate → classify → risk → grants → answer or prompt.
// Every answer is committed to history (store.appendEvent) before it is returned.
import type { AgentAnswer, AgentRequest, GrantSpec, McpToolsReport, TaskStartParams } from '../contract/agent';
import type { ApproverNotification, DecideParams, Grant, Prompt, Settings, Task } from '../contract/approver';
import { ACTION_RANK, LIMITS, riskier, type Action, type DecidedBy, type Risk, type Scope } from '../contract/common';
import { RPC, RpcError } from '../contract/rpc';
import { isLockError, LOCK_BUDGET_MS, type Store } from '../store';
import { newId } from '../store/ids';
import { overPendingCap } from './flood';
import { mcpAction, splitMcpTool, type ActionOrigin, type ToolAnnotations } from './classify/mcp';
import { compileCondition, ConditionError, conditionWords } from './condition';
import { suggestConditions } from './condition-suggest';
import {
  actionCovers,
  conditionArgs,
  conditionMissText,
  conditionOutcome,
  evaluateGrants,
  evaluateParts,
  exactCommandPattern,
  exactResourcePattern,
  GrantIndex,
  nearMissText,
} from './grants';
import { escapeGlob } from './glob';
import { suggest } from './suggest';
import type { CommandClassifier, EgressCore, EgressEndpoint, EgressRecord, EgressService, KeyScope, PathResolver, RequestContext, TaskSocketService } from './ports';
import { applyRealPaths } from './real-paths';
import type { CoreRequest } from './request';
import { assessRisk, PLACEHOLDER_LEAK_TOOL, rank, remember, type TaskMemory } from './risk';
import { applyPatch, resolveSettings } from './settings';
import { describeTaskGrants, grantLine } from './task-grants';
import { newTaskToken, redactTokens, taskClaim, tokenMatches } from './task-token';
import { taskIdOf } from '../contract/task-ref';

export interface BrokerOptions {
  store: Store;
  classifier?: CommandClassifier;
  taskSockets?: TaskSocketService;
  taskRequestSockets?: TaskSocketService;
  egress?: EgressService;
  /** Resolves symbolic links in request paths (main/os/real-path.ts); without it paths are taken as written. */
  realPaths?: PathResolver;
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
  taskGrants?: { specs: Omit<GrantSpec, 'task'>[]; resolve(r: { ids: string[]; declined: number[] }): void };
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

/** 1536 → "1.5 KiB": sizes in prompts and history summaries. */
export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** A grant as the UIs get it: with its condition in words. */
export function withConditionWords(g: Grant): Grant {
  return g.when ? { ...g, whenText: conditionWords(g.when) } : g;
}

/** Compiles a grant condition now (creation time), so a bad one is refused with the reason. */
export function checkCondition(when: string | undefined, field = 'when'): void {
  if (when === undefined) return;
  try {
    compileCondition(when);
  } catch (e) {
    if (e instanceof ConditionError) throw new RpcError(RPC.invalidParams, `invalid params: ${field}: ${e.message}`);
    throw e;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Every action but read: "never write, delete, move or send" for a whole server. */
const NOT_READ: Action[] = ['write', 'delete', 'transfer', 'execute', 'other', 'sign'];

export class Broker implements KeyScope, EgressCore {
  readonly store: Store;
  private readonly classifier?: CommandClassifier;
  /** Set by the daemon once the SSH agent runs; without it tasks have no SSH socket. */
  taskSockets?: TaskSocketService;
  /** Each task's own request.sock (main/api/task-request-sockets.ts), set by the daemon. */
  taskRequestSockets?: TaskSocketService;
  /** Set by the daemon: per-task egress proxies (main/integrations/egress); without it a sandbox has no way out. */
  egress?: EgressService;
  private readonly now: () => number;
  private readonly realPaths?: PathResolver;
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
    this.taskRequestSockets = opts.taskRequestSockets;
    this.egress = opts.egress;
    this.now = opts.now ?? Date.now;
    this.realPaths = opts.realPaths;
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
    const classifierRisk: CoreRequest['classifierRisk'] = [];
    let task: string | null;
    if (ctx.boundTask) {
      // A task's own socket: the request is the task's whatever it claims (never honoured,
      // not refused either: it is decided as the task's and the prompt says what it claimed).
      task = ctx.boundTask;
      const claimed = req.task !== undefined ? taskIdOf(req.task) : null;
      if (claimed !== null && claimed !== task) {
        classifierRisk.push({ level: 'medium', reason: `it named task ${claimed.slice(0, 64)}, but came through the socket of task ${task} and counts as that task's` });
      }
    } else {
      task = req.task !== undefined || req.token !== undefined ? this.authorizeTask(req) : null;
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
    let parts: CoreRequest['parts'];
    let rawParts: CoreRequest['parts'];
    const command = (req.args as { command?: unknown } | undefined)?.command;
    if (this.classifier && (req.source === 'exec' || req.source === 'claude-code') && typeof command === 'string') {
      const c = this.classifier(command, req.cwd);
      parts = c.parts;
      // `..` folded lexically hides where a path after a symbolic link leads (real-paths.ts).
      if (this.realPaths && (command.includes('..') || req.cwd?.includes('..'))) rawParts = this.classifier(command, req.cwd, { rawPaths: true }).parts;
      if (ACTION_RANK[c.action] > ACTION_RANK[action]) {
        classifierRisk.push({ level: 'medium', reason: `the caller called this ${action}, but the command does ${c.action}` });
      }
      action = riskier(action, c.action);
      for (const r of c.resources) if (!resources.includes(r)) resources.push(r);
      classifierRisk.push(...c.riskReasons);
    }
    // Only the daemon's own egress proxy speaks for `egress`: an agent claiming it is refused.
    if ((req.source === 'egress') !== !!ctx.egress) {
      throw new RpcError(RPC.invalidParams, 'invalid params: source: egress requests come only from the task\'s egress proxy');
    }
    let actionOrigin: ActionOrigin | undefined;
    if (req.source === 'mcp') {
      const m = this.mcpActionOf(req);
      if (m) {
        action = m.action;
        actionOrigin = m.origin;
        classifierRisk.push(...m.reasons);
      }
    }
    const core: CoreRequest = {
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
      ...(ctx.egress ? { egress: ctx.egress } : {}),
      ...(ctx.remote ? { remote: ctx.remote } : {}),
      ...(parts ? { parts } : {}),
      classifierRisk,
      ...(actionOrigin ? { actionOrigin } : {}),
    };
    if (this.realPaths) applyRealPaths(core, this.realPaths, rawParts);
    return core;
  }

  /**
   * The action of an MCP call (proxy or hook), by the one mapping of classify/mcp.ts: the
   * human's pin; else the annotations the proxy sent with this call or learned earlier for
   * this server (tools/list, kept in the store); else the tool's name, which never makes a
   * read. The caller's own `action` is not trusted for `server/tool` calls.
   */
  private mcpActionOf(req: AgentRequest): { action: Action; origin: ActionOrigin; reasons: CoreRequest['classifierRisk'] } | null {
    // Own keys only: a tool named `constructor` or `toString` found Object.prototype's
    // function as its "pin", and the request could then be neither recorded nor answered.
    const pins = this.settingsCache.mcpToolActions;
    const pinned = Object.prototype.hasOwnProperty.call(pins, req.tool) ? pins[req.tool] : undefined;
    if (pinned) return { action: pinned, origin: 'pin', reasons: [{ level: 'low', reason: `action ${pinned} pinned by you (mcpToolActions)` }] };
    const split = splitMcpTool(req.tool);
    if (!split) return null;
    const [server, tool] = split;
    const a = isObject(req.args) ? req.args : {};
    let info: { annotations: ToolAnnotations | null; description: string | null } | null = null;
    // The proxy sends what its server declared in this session's tools/list (the hook never
    // sends annotations: a tool's input goes under args.arguments, out of the agent's reach).
    if (isObject(a.annotations)) info = { annotations: a.annotations as ToolAnnotations, description: typeof a.description === 'string' ? a.description : null };
    else {
      const learned = this.store.getMcpTool(server, tool);
      if (learned) info = { annotations: learned.annotations as ToolAnnotations | null, description: learned.description };
    }
    const args = isObject(a.arguments) ? a.arguments : a;
    return mcpAction(tool, info, args);
  }

  /**
   * `airlock mcp` reports a server's tools/list. The server's claim, reported agent-side, so
   * a report never turns a tool known as not read-only into a read (a fake report cannot
   * make \`gmail/delete_all\` silent through the hook); pins still win over everything.
   */
  learnMcpTools(p: McpToolsReport): { learned: number; kept: string[] } {
    const kept: string[] = [];
    const rows: { name: string; annotations: Record<string, unknown> | null; description: string | null }[] = [];
    for (const t of p.tools) {
      const next = { annotations: (t.annotations ?? null) as ToolAnnotations | null, description: t.description ?? null };
      const old = this.store.getMcpTool(p.server, t.name);
      if (old) {
        const before = mcpAction(t.name, { annotations: old.annotations as ToolAnnotations | null, description: old.description }).action;
        const after = mcpAction(t.name, next).action;
        if (ACTION_RANK[after] < ACTION_RANK[before]) {
          kept.push(t.name);
          continue;
        }
      }
      rows.push({ name: t.name, annotations: t.annotations ?? null, description: t.description ?? null });
    }
    if (rows.length) this.store.putMcpTools(p.server, rows, this.now());
    return { learned: rows.length, kept };
  }

  /**
   * The task a caller on the shared request.sock may act as: it must present the task's
   * token (as `token`, or as `task` itself). The id alone is refused, with what to send.
   * Unknown and ended tasks are refused first (the Claude Code hook starts a new task then).
   */
  authorizeTask(p: { task?: string; token?: string }): string {
    const claim = taskClaim(p);
    if (!claim) throw new RpcError(RPC.invalidParams, 'invalid params: task: required here — send the token task.start returned (as "token" beside "task", or as "task")');
    const id = claim.task;
    const t = this.store.getTask(id);
    if (!t) throw new RpcError(RPC.invalidParams, `invalid params: task: no task ${id.slice(0, 64)} (start one with task.start)`);
    if (t.endedAt !== null) throw new RpcError(RPC.invalidParams, `invalid params: task: task ${id} has ended`);
    if (claim.token === null) {
      throw new RpcError(
        RPC.invalidParams,
        `invalid params: token: acting as task ${id} on the shared request.sock needs its token — send "token" (the token task.start returned) beside "task", or the token itself as "task"; or connect to the task's own socket (requestSock)`,
      );
    }
    if (!tokenMatches(this.store.taskTokenHash(id), claim.token)) throw new RpcError(RPC.invalidParams, `invalid params: token: not the token of task ${id}`);
    return id;
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

    if (verdict.deny) return this.answer(req, risk, 'deny', 'grant', verdict.deny.id, null, this.denyReason(verdict.deny, req));
    if (verdict.allow && risk.level !== 'critical') return this.allowByGrants(req, risk, [verdict.allow]);
    if (req.parts?.length) {
      const allows = (a: Action) => this.settingsCache.policy[a] === 'allow' && rank(risk.level) < rank('high');
      const pv = evaluateParts(candidates, req, now, allows, req.taskInfo?.cwd ?? null);
      if (pv.deny) return this.answer(req, risk, 'deny', 'grant', pv.deny.id, null, this.denyReason(pv.deny, req));
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
    const near = verdict.near
      ? nearMissText(verdict.near, req)
      : verdict.nearCondition
        ? conditionMissText(verdict.nearCondition, req, conditionWords(verdict.nearCondition.when ?? ''))
        : undefined;
    return this.prompt(req, risk, ctx, near);
  }

  /** Why a deny grant denied: its note, and its condition in words (or why it could not be checked). */
  private denyReason(g: Grant, req: CoreRequest): string {
    let why = `denied by grant ${g.id}${g.note ? ` (${g.note})` : ''}`;
    if (g.when) {
      const o = conditionOutcome(g, req);
      why += typeof o === 'string' ? `: its condition (${conditionWords(g.when)}) could not be checked (${o}), so the deny applies` : `: ${conditionWords(g.when)}`;
    }
    return why;
  }

  private memoryOf(task: string): TaskMemory {
    let m = this.memories.get(task);
    if (!m) {
      m = {};
      for (const e of this.store.taskAllowedEvents(task)) remember(m, e.action, e.resources, e.tool, e.reason);
      this.memories.set(task, m);
    }
    return m;
  }

  private allowByGrants(req: CoreRequest, risk: Risk, grants: Grant[]): AgentAnswer | Promise<AgentAnswer> {
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

  /**
   * Commits the event, then returns the answer (never the other way round). While another
   * process holds the database's write lock the commit is retried with back-off, the event
   * loop free between attempts (each waits at most LOCK_TRY_MS); after LOCK_BUDGET_MS in all
   * the answer is a deny that says why. An answer that could not be committed is never an
   * allow, and the requester never hangs. Synchronous when the first attempt commits.
   */
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
  ): AgentAnswer | Promise<AgentAnswer> {
    const commit = () => this.commitAnswer(req, risk, decision, decidedBy, grant, scope, reason, consumeGrants, createGrant);
    try {
      return commit();
    } catch (e) {
      if (!isLockError(e)) throw e;
    }
    return this.commitWhenUnlocked(req, commit, () => {
      if (createGrant) this.grantsChanged();
    });
  }

  private async commitWhenUnlocked(req: CoreRequest, commit: () => AgentAnswer, committedLate: () => void): Promise<AgentAnswer> {
    const started = Date.now();
    let why = `the history database stayed locked by another process for ${LOCK_BUDGET_MS} ms`;
    for (let delay = 25; Date.now() - started + delay <= LOCK_BUDGET_MS; delay = Math.min(delay * 2, 400)) {
      await new Promise((r) => setTimeout(r, delay));
      if (this.closed) {
        why = 'Airlock stopped while the history database was locked';
        break;
      }
      try {
        const a = commit();
        committedLate();
        return a;
      } catch (e) {
        if (!isLockError(e)) {
          why = `the history database failed (${(e as Error).message})`;
          break;
        }
      }
    }
    // Not recorded: the database is what fails. `event: 0` says so (real events start at 1).
    const reason = `${why}; Airlock answers only what it has recorded (close the program holding ${this.store.file}, then retry)`;
    return { decision: 'deny', reason, event: 0, ...(req.task ? { task: req.task } : {}) };
  }

  private commitAnswer(
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
        remote: req.remote ?? null,
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
    return { decision, reason, event: ev.id, ...(grant ? { grant } : {}), ...(req.task ? { task: req.task } : {}) };
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
      args: redactTokens(capArgs(p.raw)),
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
    return JSON.stringify([r.task, r.source, r.tool, r.action, r.resources, r.summary, r.argsText, r.ssh?.fingerprint, r.ssh?.forwarded, r.ssh?.host, r.remote?.name]);
  }

  /** Why one more prompt for (task, connection) is refused (see flood.ts), or null. */
  private overCap(task: string | null | { new: true }, connection: string | undefined): string | null {
    const views = [...this.pending.values()].map((p) => ({ task: p.prompt.task, connections: p.waiters.map((w) => w.connection) }));
    return overPendingCap(views, task, connection, this.settingsCache);
  }

  private prompt(req: CoreRequest, risk: Risk, ctx: RequestContext, nearMiss?: string): Promise<AgentAnswer> {
    const key = this.coalesceKey(req);
    for (const p of this.pending.values()) {
      if (p.coalesceKey === key && !p.taskGrants) {
        return new Promise((resolve) => p.waiters.push({ resolve, connection: ctx.connection, req }));
      }
    }
    const reason = this.overCap(req.task, ctx.connection);
    if (reason) {
      // Refused whether or not the record can be made now (a locked database retries it).
      void this.answer(req, risk, 'deny', 'system', null, null, reason);
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
      ...(req.remote ? { remote: req.remote } : {}),
      ...(nearMiss ? { nearMiss } : {}),
      ...(req.egress ? { egress: req.egress } : {}),
      ...(suggestion ? { suggestion } : {}),
      ...(req.actionOrigin ? { actionOrigin: req.actionOrigin } : {}),
      ...(req.source === 'mcp' && splitMcpTool(req.tool) ? { mcpServer: splitMcpTool(req.tool)![0] } : {}),
      ...this.conditionSuggestions(req),
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

  /** Conditions the human can start from, built from this request's own arguments. */
  private conditionSuggestions(req: CoreRequest): { conditions?: { when: string; words: string }[] } {
    if (req.ssh) return {};
    const input = conditionArgs(req);
    if ('error' in input) return {};
    const list = suggestConditions(input.args);
    return list.length ? { conditions: list } : {};
  }

  private timeout(id: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    // The timeout in force when the prompt was made, not the setting now (it may have changed since).
    const sec = Math.round((p.prompt.expiresAt - p.prompt.createdAt) / 1000);
    this.finish(p, 'deny', 'timeout', null, null, `no answer within ${sec} s: denied by default`);
  }

  /** Resolves every waiter of a prompt, each with its own committed event. */
  private finish(p: Pending, decision: 'allow' | 'deny', by: DecidedBy, grant: Grant | null, scope: Scope | null, reason: string): AgentAnswer | null {
    clearTimeout(p.timer);
    this.pending.delete(p.prompt.id);
    let first: AgentAnswer | null = null;
    if (p.taskGrants) {
      p.taskGrants.resolve({ ids: [], declined: p.taskGrants.specs.map((_, i) => i) });
    }
    p.waiters.forEach((w, i) => {
      const a = this.answer(w.req, p.risk, decision, by, grant?.id ?? null, scope, reason, undefined, i === 0 && grant ? grant : undefined);
      if (a instanceof Promise) return void a.then(w.resolve);
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
        for (const w of gone) void this.answer(w.req, p.risk, 'deny', 'system', null, null, 'the requester disconnected before the human answered');
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
    if (d.scope === 'once' && (d.when !== undefined || d.serverReadOnly)) {
      throw new RpcError(RPC.invalidParams, `invalid params: ${d.when !== undefined ? 'when' : 'serverReadOnly'}: needs a grant (scope task, duration or always), not once`);
    }
    if (d.scope === 'once') {
      this.finish(p, d.decision, 'human', null, 'once', `${who} once by the human`);
      return {};
    }
    if (d.scope === 'task' && !req.task) {
      throw new RpcError(RPC.invalidParams, 'invalid params: scope: this request belongs to no task; choose once, duration or always');
    }
    checkCondition(d.when);
    if (d.serverReadOnly) return this.decideServerReadOnly(p, req, d);
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
      // A grant made from a remote's prompt is for that remote only.
      remote: req.remote?.name ?? null,
      note: `from prompt: ${req.summary}`.slice(0, 1000),
      createdAt: now,
      createdBy: 'human',
      revokedAt: null,
      lastUsedAt: null,
      when: d.when ?? null,
    };
    const scopeText = d.scope === 'task' ? 'for this task' : d.scope === 'duration' ? `for ${Math.round((grant.expiresAt! - now) / 60000)} min` : 'always';
    this.finish(p, d.decision, 'human', grant, d.scope, `${who} ${scopeText} by the human (grant ${grant.id}${grant.when ? `, when ${conditionWords(grant.when)}` : ''})`);
    return { grant: withConditionWords(grant) };
  }

  /**
   * "Only reads from this server": an allow grant for `server/*` reads and a deny grant for
   * every other action of `server/*`, in the chosen scope. This request is answered by them:
   * allowed when it is a read, denied otherwise.
   */
  private decideServerReadOnly(p: Pending, req: CoreRequest, d: DecideParams): { grant?: Grant } {
    const split = req.source === 'mcp' ? splitMcpTool(req.tool) : null;
    if (!split) throw new RpcError(RPC.invalidParams, 'invalid params: serverReadOnly: only for an MCP request (tool server/name)');
    const now = this.now();
    const tool = `${escapeGlob(split[0])}/*`;
    const base = {
      task: d.scope === 'task' ? req.task : null,
      source: 'mcp',
      tool,
      resource: '**',
      key: null,
      expiresAt: d.scope === 'duration' ? now + (d.durationSec ?? DURATION_DEFAULT_SEC) * 1000 : null,
      usesLeft: null,
      forwarded: false,
      createdAt: now,
      createdBy: 'human',
      revokedAt: null,
      lastUsedAt: null,
      when: null,
    };
    const allow: Grant = { ...base, id: newId('g'), action: 'read', effect: 'allow', note: `only reads from ${split[0]}` };
    const deny: Grant = { ...base, id: newId('g'), action: NOT_READ, effect: 'deny', note: `${split[0]}: never write, delete, move or send` };
    this.store.insertGrant(deny);
    const read = req.action === 'read';
    const scopeText = d.scope === 'task' ? 'for this task' : d.scope === 'duration' ? `for ${Math.round((deny.expiresAt! - now) / 60000)} min` : 'always';
    this.finish(p, read ? 'allow' : 'deny', 'human', allow, d.scope, `the human allowed only reads from ${split[0]} ${scopeText} (grants ${allow.id}, ${deny.id}); this ${req.action} is ${read ? 'allowed' : 'denied'}`);
    return { grant: read ? allow : deny };
  }

  // ---- grants -------------------------------------------------------------------------

  createGrant(spec: GrantSpec, createdBy: string): Grant {
    checkCondition(spec.when);
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
      remote: spec.remote ?? null,
      note: spec.note ?? null,
      createdAt: this.now(),
      createdBy,
      revokedAt: null,
      lastUsedAt: null,
      when: spec.when ?? null,
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
    const transfer = this.activeGrants().all.filter((g) => (g.task === null || g.task === task) && actionCovers(g.action, 'transfer'));
    if (transfer.some((g) => g.effect === 'deny')) return { allowed: false, reason: 'a grant denies transfers for this task' };
    const allow = transfer.find((g) => g.effect === 'allow');
    return allow ? { allowed: true, reason: `grant ${allow.id} allows transfers` } : { allowed: false, reason: 'the task holds no transfer grant' };
  }

  keysVisibleTo(task: string): Set<string> | null {
    const keys = this.activeGrants().all.filter((g) => g.task === task && g.effect === 'allow' && g.key !== null).map((g) => g.key!);
    return keys.length ? new Set(keys) : null;
  }

  // ---- egress -------------------------------------------------------------------------

  /** What went through an allowed connection: one chained event after it ended (never a value of a secret). */
  recordEgress(r: EgressRecord): void {
    const t = this.store.getTask(r.task);
    const what = r.kind === 'tunnel' ? `tunnel to ${r.host}:${r.port}` : `${r.method} ${r.host}:${r.port}${r.path ?? ''}${r.status !== null ? ` → ${r.status}` : ''}`;
    const summary = `${what} (${r.address}): sent ${bytesText(r.bytesOut)}, received ${bytesText(r.bytesIn)}${r.injected.length ? `; injected ${r.injected.join(', ')}` : ''}${r.error ? `; ${r.error}` : ''}`;
    const ev = this.store.appendEvent({
      ts: this.now(),
      task: t ? r.task : null,
      source: 'egress',
      tool: r.kind === 'tunnel' ? 'net.tunnel' : 'net.request',
      action: 'transfer',
      resource: `${r.host.includes(':') ? `[${r.host}]` : r.host}:${r.port}`,
      resources: [],
      summary: summary.slice(0, LIMITS.summary),
      args: capArgs({ method: r.method, host: r.host, port: r.port, address: r.address, path: r.path, status: r.status, bytesOut: r.bytesOut, bytesIn: r.bytesIn, injected: r.injected, connectEvent: r.connectEvent, ...(r.error ? { error: r.error } : {}) }),
      cwd: null,
      process: r.process ?? null,
      ssh: null,
      risk: { level: 'low', reasons: [] },
      decision: 'allow',
      decidedBy: 'system',
      grant: null,
      scope: null,
      reason: `recorded when the connection ended (allowed in event ${r.connectEvent})`,
    });
    this.emit({ method: 'event.recorded', params: ev });
  }

  /** A placeholder sent where its secret does not belong: left as is, recorded critical, and the task's risk is critical from now on. */
  recordPlaceholderLeak(p: { task: string; secret: string; host: string; port: number; where: string; process?: CoreRequest['process'] }): void {
    const resource = `${p.host.includes(':') ? `[${p.host}]` : p.host}:${p.port}`;
    const reason = `the placeholder for ${p.secret} was sent to ${p.host} (${p.where}); it was left as is`;
    const ev = this.store.appendEvent({
      ts: this.now(),
      task: this.store.getTask(p.task) ? p.task : null,
      source: 'egress',
      tool: PLACEHOLDER_LEAK_TOOL,
      action: 'transfer',
      resource,
      resources: [resource],
      summary: reason.slice(0, LIMITS.summary),
      args: capArgs({ secret: p.secret, host: p.host, port: p.port, where: p.where }),
      cwd: null,
      process: p.process ?? null,
      ssh: null,
      risk: { level: 'critical', reasons: [reason] },
      decision: 'allow',
      decidedBy: 'system',
      grant: null,
      scope: null,
      reason,
    });
    remember(this.memoryOf(p.task), 'transfer', [resource], PLACEHOLDER_LEAK_TOOL, reason);
    this.emit({ method: 'event.recorded', params: ev });
  }

  // ---- tasks --------------------------------------------------------------------------

  async startTask(
    p: TaskStartParams,
    ctx: RequestContext,
  ): Promise<{ task: string; sshAuthSock: string | null; grants: string[]; token: string; requestSock: string | null; declined?: number[]; egress: EgressEndpoint | null }> {
    // A task's own socket cannot start tasks: a new task would escape this one's deny grants.
    if (ctx.boundTask) throw new RpcError(RPC.refused, `task.start is refused on the socket of task ${ctx.boundTask}: a task cannot start other tasks (the human or a client outside the task can)`);
    const secrets = [...new Set(p.secrets ?? [])];
    if (secrets.length) {
      if (!this.egress) throw new RpcError(RPC.invalidParams, 'invalid params: secrets: this Airlock runs no egress proxy, so a task cannot use secrets');
      const known = new Set(this.egress.secretNames());
      const missing = secrets.filter((n) => !known.has(n));
      if (missing.length) throw new RpcError(RPC.invalidParams, `invalid params: secrets: no secret named ${missing.join(', ')} (add it with: airlock secrets add NAME --host HOST)`);
    }
    // Conditions are checked before anything exists, so a bad one is an error, not a prompt.
    (p.grants ?? []).forEach((g, i) => checkCondition(g.when, `grants.${i}.when`));
    // Grants asked for at start are a prompt: the flood caps apply before the task exists.
    if (p.grants?.length) {
      const reason = this.overCap({ new: true }, ctx.connection);
      if (reason) {
        const req: CoreRequest = {
          source: 'api', tool: 'task.start', action: 'other', resource: null, resources: [], summary: `task "${p.name}" asks for ${p.grants.length} grant(s)`.slice(0, LIMITS.summary),
          argsText: capArgs(p.grants), args: p.grants, task: null, cwd: p.cwd ?? null, process: ctx.process, classifierRisk: [],
        };
        void this.answer(req, { level: 'medium', reasons: ['a task asks for standing grants'] }, 'deny', 'system', null, null, reason);
        throw new RpcError(RPC.refused, reason);
      }
    }
    const task: Task = { id: newId('t'), name: p.name, cwd: p.cwd ?? null, createdAt: this.now(), endedAt: null, sshAuthSock: null };
    const { token, hash } = newTaskToken(task.id);
    this.store.insertTask(task, hash);
    if (this.taskSockets) {
      task.sshAuthSock = await this.taskSockets.open(task.id);
      this.store.setTaskSocket(task.id, task.sshAuthSock);
    }
    const requestSock = this.taskRequestSockets ? await this.taskRequestSockets.open(task.id) : null;
    const egress = this.egress ? await this.egress.open(task.id, secrets) : null;
    this.emit({ method: 'tasks.changed', params: {} });
    let grants: string[] = [];
    let declined: number[] | undefined;
    if (p.grants && p.grants.length > 0) ({ ids: grants, declined } = await this.askTaskGrants(task, p.grants, ctx));
    return { task: task.id, sshAuthSock: task.sshAuthSock, grants, token, requestSock, ...(declined?.length ? { declined } : {}), egress };
  }

  /**
   * Grants a task asks for at start are one prompt; nothing is granted silently. The prompt
   * carries every grant in full (Prompt.grants); the summary only counts them.
   */
  private askTaskGrants(task: Task, asked: Omit<GrantSpec, 'task'>[], ctx: RequestContext): Promise<{ ids: string[]; declined: number[] }> {
    // The remote a grant is for is the socket's, never the agent's claim.
    const specs = asked.map((s) => ({ ...s, remote: ctx.remote?.name ?? null }));
    const action = specs.reduce<Action>((a, s) => (s.action === '*' ? 'execute' : Array.isArray(s.action) ? s.action.reduce(riskier, a) : riskier(a, s.action)), 'read');
    const grants = describeTaskGrants(specs);
    const blank = grants.filter((g) => g.needsConfirmation);
    const reasons = ['a task asks for standing grants'];
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
    const id = newId('p');
    const prompt: Prompt = {
      id, task: task.id, taskName: task.name, source: 'api', tool: req.tool, action, resource: null, resources: req.resources,
      summary: req.summary, args: specs, cwd: task.cwd, risk, ...(ctx.process ? { process: ctx.process } : {}),
      grants,
      ...(ctx.remote ? { remote: ctx.remote } : {}),
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

  /**
   * Accepting creates every grant except those marked needsConfirmation that the decision
   * does not confirm by index: one key press never hands out a blank cheque. Whatever the
   * scope chosen, the grants are the task's (they die with it).
   */
  private decideTaskGrants(p: Pending, d: DecideParams): { grant?: Grant } {
    const tg = p.taskGrants!;
    const described = p.prompt.grants ?? describeTaskGrants(tg.specs);
    const confirm = new Set(d.confirmGrants ?? []);
    for (const i of confirm) {
      if (!described[i]?.needsConfirmation) {
        throw new RpcError(RPC.invalidParams, `invalid params: confirmGrants: ${i} is not a grant of this prompt that needs confirming (those are: ${described.filter((g) => g.needsConfirmation).map((g) => g.index).join(', ') || 'none'})`);
      }
    }
    if (d.decision === 'allow' && !described.some((g) => !g.needsConfirmation || confirm.has(g.index))) {
      throw new RpcError(
        RPC.invalidParams,
        `invalid params: confirmGrants: every grant asked for allows a high-impact action on anything; confirm each one you accept by index (${described.map((g) => g.index).join(', ')}) or deny`,
      );
    }
    p.taskGrants = undefined;
    if (d.decision === 'deny') {
      tg.resolve({ ids: [], declined: described.map((g) => g.index) });
      this.finish(p, 'deny', 'human', null, d.scope, 'the human refused the grants this task asked for');
      return {};
    }
    const ids: string[] = [];
    const declined: number[] = [];
    tg.specs.forEach((s, i) => {
      if (described[i]!.needsConfirmation && !confirm.has(i)) declined.push(i);
      else ids.push(this.createGrant({ ...s, task: p.prompt.task }, confirm.has(i) ? 'human (task.start, confirmed)' : 'human (task.start)').id);
    });
    tg.resolve({ ids, declined });
    const notCreated = declined.length
      ? `; not created (a wildcard of a high-impact action the human did not confirm): ${declined.map((i) => `#${i} ${grantLine(described[i]!)}`).join('; ')}`
      : '';
    this.finish(p, 'allow', 'human', null, d.scope, `the human accepted ${ids.length} of ${tg.specs.length} grant(s) for this task: ${ids.join(', ')}${notCreated}`.slice(0, LIMITS.text));
    return {};
  }

  async endTask(id: string): Promise<void> {
    const t = this.store.getTask(id);
    if (!t) throw new RpcError(RPC.notFound, `no task ${id}`);
    if (!this.store.endTask(id, this.now())) return;
    await this.taskRequestSockets?.close(id);
    await this.taskSockets?.close(id);
    await this.egress?.close(id);
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
