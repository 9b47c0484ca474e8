// Tasks and grants as records: the only part of the core that reads or writes them (and
// the MCP tool reports) in the store. It keeps the index of active grants the policy
// matches against, checks a task's token, and answers the two questions other parts ask
// about a task (its keys, its network). Opening and closing a task's sockets is
// task-lifecycle.ts's job.
import type { GrantSpec, McpToolsReport } from '../contract/agent';
import type { Grant, Task } from '../contract/approver';
import { EGRESS_TOOL } from '../contract/constants';
import { RPC, RpcError } from '../contract/rpc';
import type { Store } from '../store';
import { newId } from '../store/ids';
import { lowersKnownTool, type McpToolInfo, type ToolAnnotations } from './classify/mcp';
import { compileCondition, ConditionError, conditionWords } from './condition';
import { GrantIndex, mayAnswerEgress } from './grants';
import type { NotificationBus } from './notification-bus';
import type { KeyScope } from './ports';
import { nameKey } from './task-names';
import type { CoreRequest } from './request';
import { taskClaim, tokenMatches } from './task-token';

export type TasksAndGrantsStore = Pick<
  Store,
  | 'activeGrants'
  | 'insertGrant'
  | 'getGrant'
  | 'revokeGrant'
  | 'listGrants'
  | 'getMcpTool'
  | 'putMcpTools'
  | 'insertTask'
  | 'taskTokenHash'
  | 'setTaskSocket'
  | 'endTask'
  | 'getTask'
  | 'listTasks'
>;

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

export class TasksAndGrants implements KeyScope {
  private grantCache: GrantIndex | null = null;
  /** Running tasks by the form of their name (task-names.ts), rebuilt after a task starts or ends. */
  private nameCache: { keyOf: Map<string, string>; byKey: Map<string, string[]> } | null = null;

  constructor(
    private readonly store: TasksAndGrantsStore,
    private readonly bus: NotificationBus,
    private readonly now: () => number = Date.now,
  ) {}

  // ---- grants -------------------------------------------------------------------------

  /** The grants in force now, indexed by tool (rebuilt after any change). */
  activeGrants(): GrantIndex {
    if (!this.grantCache) this.grantCache = new GrantIndex(this.store.activeGrants(this.now()));
    return this.grantCache;
  }

  /** Something changed the grants (created, revoked, a use spent, a task ended): the index is rebuilt on next use. */
  grantsChanged(): void {
    this.grantCache = null;
    this.bus.publish({ method: 'grants.changed', params: {} });
  }

  listGrants(p: { task?: string; includeInactive?: boolean }): Grant[] {
    return this.store.listGrants({ task: p.task, includeInactive: p.includeInactive, now: this.now() }).map(withConditionWords);
  }

  createGrant(spec: GrantSpec, createdBy: string): Grant {
    checkCondition(spec.when);
    if (spec.task) this.liveTask(spec.task, `no task ${spec.task}`);
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
    this.onGrantCreated?.(g);
    return g;
  }

  /** Told of every grant made here (grants.create, task.start): a deny one answers the prompts it covers (PromptQueue.applyDenyGrants). */
  onGrantCreated?: (g: Grant) => void;

  /** Stores a grant built elsewhere (a prompt's decision); the caller announces the change. */
  insertGrant(g: Grant): void {
    this.store.insertGrant(g);
  }

  /**
   * Revokes a grant. One that does not exist, or was revoked before, is an error (-32004) that
   * says so and where to look: "revoked" printed for a typo'd id, or for a second revoke, would
   * tell the human a grant was taken away when nothing changed.
   */
  revokeGrant(id: string): void {
    const g = this.store.getGrant(id);
    if (!g) throw new RpcError(RPC.notFound, `no grant ${id} (airlock grants list --all shows every grant, revoked ones too)`);
    if (g.revokedAt !== null || !this.store.revokeGrant(id, this.now())) {
      throw new RpcError(RPC.notFound, `grant ${id} was already revoked${g.revokedAt !== null ? ` at ${new Date(g.revokedAt).toISOString()}` : ''}; nothing changed (airlock grants list shows the grants in force)`);
    }
    this.grantsChanged();
  }

  keysVisibleTo(task: string): Set<string> | null {
    const keys = this.activeGrants().all.filter((g) => g.task === task && g.effect === 'allow' && g.key !== null).map((g) => g.key!);
    return keys.length ? new Set(keys) : null;
  }

  /**
   * Whether a sandbox of `task` may have the network: counted exactly as the task's egress
   * requests are decided (source egress, tool net.connect, action transfer, from where the
   * task was started: a remote's task asks as that remote, request-policy.ts), with the
   * decision's own matching (grants.ts mayAnswerEgress) — so an expired or used-up grant,
   * one of another task or remote, one for an SSH key, another tool or source, or a
   * resource no `host:port` can match (a path, a command) does not count. Allowed: an allow
   * grant answers connections without a condition, and no deny grant may answer any (a
   * deny under a condition counts: it may). An allow under a condition is not the network:
   * each connection is asked unless the condition holds. Whoever asks, the answer is about
   * the task (a remote may ask only about its own tasks: controlRefusal). One bit about
   * the agent's own task; it decides nothing.
   */
  taskNetwork(task: string): { allowed: boolean; reason: string } {
    const t = this.liveTask(task, `no task ${task}`);
    const probe: CoreRequest = {
      source: 'egress', tool: EGRESS_TOOL, action: 'transfer', resource: null, resources: [], summary: '', argsText: null, args: {}, task,
      cwd: null, classifierRisk: [], ...(t.remote ? { remote: { name: t.remote, via: 'task.network' } } : {}),
    };
    const now = this.now();
    const reach = this.activeGrants().forTool(EGRESS_TOOL).filter((g) => mayAnswerEgress(g, probe, now));
    if (reach.some((g) => g.effect === 'deny')) return { allowed: false, reason: 'a grant denies transfers for this task' };
    const allows = reach.filter((g) => g.effect === 'allow');
    const allow = allows.find((g) => !g.when);
    if (allow) return { allowed: true, reason: `grant ${allow.id} allows transfers${allow.resource === '*' || allow.resource === '**' ? '' : ` to ${allow.resource}`}` };
    const conditional = allows[0];
    if (conditional) return { allowed: false, reason: `grant ${conditional.id} allows transfers only when ${conditionWords(conditional.when ?? '')}: each connection is asked unless that holds` };
    return { allowed: false, reason: 'the task holds no transfer grant' };
  }

  // ---- tasks --------------------------------------------------------------------------

  /** A task that exists and has not ended, else the error that says so (`missing` when there is none). */
  liveTask(id: string, missing = `no task ${id} (start one with task.start)`): Task {
    const t = this.store.getTask(id);
    if (!t) throw new RpcError(RPC.invalidParams, `invalid params: task: ${missing}`);
    if (t.endedAt !== null) throw new RpcError(RPC.invalidParams, `invalid params: task: task ${id} has ended`);
    return t;
  }

  getTask(id: string): Task | null {
    return this.store.getTask(id);
  }

  listTasks(includeEnded: boolean): Task[] {
    return this.store.listTasks(includeEnded);
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
    this.liveTask(id, `no task ${id.slice(0, 64)} (start one with task.start)`);
    if (claim.token === null) {
      throw new RpcError(
        RPC.invalidParams,
        `invalid params: token: acting as task ${id} on the shared request.sock needs its token — send "token" (the token task.start returned) beside "task", or the token itself as "task"; or connect to the task's own socket (requestSock)`,
      );
    }
    if (!tokenMatches(this.store.taskTokenHash(id), claim.token)) throw new RpcError(RPC.invalidParams, `invalid params: token: not the token of task ${id}`);
    return id;
  }

  /**
   * Why a caller may not end or inspect `task` (null: it may). `from` is the remote the call
   * came through (null: this machine). A remote controls only the tasks started through it:
   * a token that leaked to a server lets it ask as a task of this machine (marked remote,
   * never answered by the task's local grants), but not end it or learn about its grants.
   * This machine may end a remote's task it holds the token of (the human's machine; the
   * human can end any task anyway). Tasks from before origins were recorded count as local.
   */
  controlRefusal(task: string, from: string | null, method: string): string | null {
    if (from === null) return null;
    const origin = this.liveTask(task, `no task ${task}`).remote ?? null;
    if (origin === from) return null;
    const where = origin === null ? 'on this machine' : `through remote ${origin}`;
    return `${method} refused: task ${task} was started ${where}, and remote ${from} may end or inspect only tasks started through it (holding the token is not enough); end it ${origin === null ? 'on this machine (airlock task end ' + task + ', or the app\'s Tasks view)' : 'from Airlock on this machine'}`;
  }

  insertTask(task: Task, tokenHash: string): void {
    this.store.insertTask(task, tokenHash);
    this.nameCache = null;
  }

  /** Other running tasks whose name reads the same as this one's (task-names.ts). */
  namesakes(id: string): string[] {
    if (!this.nameCache) {
      const keyOf = new Map<string, string>();
      const byKey = new Map<string, string[]>();
      for (const t of this.store.listTasks(false)) {
        const k = nameKey(t.name);
        keyOf.set(t.id, k);
        byKey.set(k, [...(byKey.get(k) ?? []), t.id]);
      }
      this.nameCache = { keyOf, byKey };
    }
    const k = this.nameCache.keyOf.get(id);
    return k === undefined ? [] : (this.nameCache.byKey.get(k) ?? []).filter((x) => x !== id);
  }

  setTaskSocket(id: string, sock: string | null): void {
    this.store.setTaskSocket(id, sock);
  }

  /** Marks the task ended (its grants die with it); false when it had already ended. */
  endTask(id: string): boolean {
    if (!this.store.getTask(id)) throw new RpcError(RPC.notFound, `no task ${id} (airlock task list --all shows every task, ended ones too)`);
    this.nameCache = null;
    return this.store.endTask(id, this.now());
  }

  // ---- MCP tool reports ---------------------------------------------------------------

  /** What a server declared for a tool in an earlier tools/list (null: never reported). */
  mcpTool(server: string, tool: string): { annotations: ToolAnnotations | null; description: string | null } | null {
    const learned = this.store.getMcpTool(server, tool);
    return learned ? { annotations: learned.annotations as ToolAnnotations | null, description: learned.description } : null;
  }

  /**
   * `airlock mcp` reports a server's tools/list. The server's claim, reported agent-side, so
   * a report never turns a tool known as not read-only into a read (a fake report cannot
   * make \`gmail/delete_all\` silent through the hook); pins still win over everything.
   */
  learnMcpTools(p: McpToolsReport): { learned: number; kept: string[] } {
    const kept: string[] = [];
    const rows: { name: string; annotations: Record<string, unknown> | null; description: string | null }[] = [];
    // Entries of this report taken so far: a name listed twice is judged against its first entry.
    const taken = new Map<string, McpToolInfo>();
    for (const t of p.tools) {
      const next = { annotations: (t.annotations ?? null) as ToolAnnotations | null, description: t.description ?? null };
      const old = taken.get(t.name) ?? this.mcpTool(p.server, t.name);
      if (old && lowersKnownTool(t.name, old, next)) {
        kept.push(t.name);
        continue;
      }
      taken.set(t.name, next);
      rows.push({ name: t.name, annotations: t.annotations ?? null, description: t.description ?? null });
    }
    if (rows.length) this.store.putMcpTools(p.server, rows, this.now());
    return { learned: rows.length, kept };
  }
}
