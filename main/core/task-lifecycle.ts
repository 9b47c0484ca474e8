// Starting and ending a task: its record and token (TasksAndGrants), its own sockets (SSH
// agent, request.sock, egress proxy: opened through ports), and the one prompt for the
// grants it asks for at start (PromptQueue).
import type { z } from 'zod';
import { boundTaskCannotStart, type TaskStartParams, type TaskStartResult } from '../contract/agent';
import type { Task } from '../contract/approver';
import { LIMITS } from '../contract/common';
import { RPC, RpcError } from '../contract/rpc';
import { newId } from '../store/ids';
import type { ProcessInfo } from '../contract/common';
import { capArgs, type HistoryRecorder } from './history-recorder';
import type { NotificationBus } from './notification-bus';
import type { EgressService, RequestContext, TaskActor, TaskEnding, TaskSocketService, TaskStarter } from './ports';
import type { PromptQueue } from './prompt-queue';
import type { CoreRequest } from './request';
import { taskNameReasons } from './task-names';
import { newTaskToken } from './task-token';
import { checkCondition, type TasksAndGrants } from './tasks-and-grants';

/** What a task gets besides its record; each one absent where this process does not run it. */
export interface TaskResources {
  /** The task's own SSH agent socket (main/ssh); without it tasks have no SSH socket. */
  ssh?: TaskSocketService;
  /** The task's own request.sock (main/api/task-request-sockets.ts). */
  requests?: TaskSocketService;
  /** The task's egress proxy (main/integrations/egress); without it a sandbox has no way out. */
  egress?: EgressService;
}

/**
 * Tasks running at once in this daemon, each with its own listening sockets (SSH agent,
 * request.sock, egress proxy): without a cap an agent could start tasks until the daemon ran
 * out of file descriptors (6,000 took 12 s), and then the human's own agent.sock and the
 * hook stop being answered. Generous for people (every Claude Code session and MCP proxy
 * session is a task); one over it is refused (-32001) and recorded, as the prompt caps are.
 */
export const MAX_RUNNING_TASKS = 1000;

/** What task.start answers (the contract's TaskStartResult). */
export type StartedTask = z.input<typeof TaskStartResult>;

const AGENT: TaskActor = { side: 'agent', source: 'api', via: 'request.sock' };

/** "airlock (pid 4242)": the process a row names, short. */
function whoIs(p: ProcessInfo | undefined): string {
  if (!p) return '';
  const name = (p.argv[0] ?? p.exe ?? '').split('/').pop() || 'unknown process';
  return ` by ${name.slice(0, 80)} (pid ${p.pid})`;
}

/** policy: an agent's own start or end (nobody is asked); human: the human side; system: the daemon. */
function decidedByOf(a: TaskActor): 'policy' | 'human' | 'system' {
  return a.side === 'human' ? 'human' : a.side === 'system' ? 'system' : 'policy';
}

function endWords(e: TaskEnding): string {
  switch (e.why) {
    case 'ended':
      return e.by.side === 'human' ? `ended by the human (${e.by.via})` : `ended by its agent (task.end on ${e.by.via})`;
    case 'owner-exited':
      return 'its Claude Code session was let go: the Claude Code process it belonged to has exited';
    case 'unowned':
      return 'its Claude Code session was let go: its session file named no owner process';
    case 'made-way':
      return 'its Claude Code session was let go to make way for a newer session of the same Claude Code process (at most 16 per process; the least recently used goes)';
    case 'not-kept':
      return "its Claude Code session's task file could not be written, so it was ended at once (else every call would start another)";
    case 'remote-removed':
      return `remote ${e.remote ?? '?'} was removed, and its tasks with it`;
  }
}

export class TaskLifecycle implements TaskStarter {
  /** Tasks started by this daemon and not ended: those hold sockets (MAX_RUNNING_TASKS). */
  private readonly running = new Set<string>();

  constructor(
    private readonly tasks: TasksAndGrants,
    private readonly queue: Pick<PromptQueue, 'overCap' | 'askTaskGrants' | 'denyTask'>,
    private readonly recorder: Pick<HistoryRecorder, 'answer' | 'forgetTask' | 'recordTask'>,
    private readonly bus: NotificationBus,
    private readonly resources: TaskResources = {},
    private readonly now: () => number = Date.now,
  ) {}

  /** `by`: who starts it (recorded); without it, an agent through request.sock as `ctx` says. */
  async startTask(p: TaskStartParams, ctx: RequestContext, by?: TaskActor): Promise<StartedTask> {
    if (ctx.boundTask) throw boundTaskCannotStart(ctx.boundTask);
    const { ssh, requests, egress } = this.resources;
    const secrets = [...new Set(p.secrets ?? [])];
    if (secrets.length) {
      if (!egress) throw new RpcError(RPC.invalidParams, 'invalid params: secrets: this Airlock runs no egress proxy, so a task cannot use secrets');
      const known = new Set(egress.secretNames());
      const missing = secrets.filter((n) => !known.has(n));
      if (missing.length) throw new RpcError(RPC.invalidParams, `invalid params: secrets: no secret named ${missing.join(', ')} (add it with: airlock secrets add NAME --host HOST)`);
    }
    // Conditions are checked before anything exists, so a bad one is an error, not a prompt.
    (p.grants ?? []).forEach((g, i) => checkCondition(g.when, `grants.${i}.when`));
    if (this.running.size >= MAX_RUNNING_TASKS) {
      this.refuseStart(p, ctx, `too many running tasks (${MAX_RUNNING_TASKS}, each with its own sockets): end the finished ones (airlock task list; airlock task end ID) and retry`, 'a task start over the running-task cap');
    }
    // Grants asked for at start are a prompt: the flood caps apply before the task exists.
    if (p.grants?.length) {
      const reason = this.queue.overCap({ new: true }, ctx.connection, ctx.remote?.name);
      if (reason) this.refuseStart(p, ctx, reason, 'a task asks for standing grants');
    }
    // Where it was started (the socket says, never the request): only there may it be ended from the agent side.
    const task: Task = { id: newId('t'), name: p.name, cwd: p.cwd ?? null, createdAt: this.now(), endedAt: null, sshAuthSock: null, remote: ctx.remote?.name ?? null };
    const { token, hash } = newTaskToken(task.id);
    this.tasks.insertTask(task, hash);
    this.running.add(task.id);
    const actor: TaskActor = by ?? { ...AGENT, ...(ctx.process ? { process: ctx.process } : {}), ...(ctx.remote ? { remote: ctx.remote } : {}) };
    try {
      this.recordStart(task, p, actor, secrets);
    } catch (e) {
      // Not recorded, so not started: no task runs that history does not know of.
      this.running.delete(task.id);
      this.tasks.endTask(task.id);
      throw e;
    }
    if (ssh) {
      task.sshAuthSock = await ssh.open(task.id);
      this.tasks.setTaskSocket(task.id, task.sshAuthSock);
    }
    const requestSock = requests
      ? await requests.open(task.id, { end: (process) => this.endTask(task.id, { why: 'ended', by: { side: 'agent', source: 'api', via: `tasks/${task.id}/request.sock`, ...(process ? { process } : {}) } }).then(() => undefined) })
      : null;
    const endpoint = egress ? await egress.open(task.id, secrets) : null;
    this.bus.publish({ method: 'tasks.changed', params: {} });
    let grants: string[] = [];
    let declined: number[] | undefined;
    if (p.grants && p.grants.length > 0) {
      // A new task named like a running one (or like Airlock) asking for grants: the prompt says so.
      ({ ids: grants, declined } = await this.queue.askTaskGrants(task, p.grants, ctx, taskNameReasons(task, this.tasks.namesakes(task.id))));
    }
    return { task: task.id, sshAuthSock: task.sshAuthSock, grants, token, requestSock, ...(declined?.length ? { declined } : {}), egress: endpoint };
  }

  /** The start's history row: who, through which socket, the name and directory as given. */
  private recordStart(task: Task, p: TaskStartParams, actor: TaskActor, secrets: string[]): void {
    const asks = p.grants?.length ?? 0;
    this.recorder.recordTask({
      task: task.id,
      tool: 'task.start',
      source: actor.source,
      summary: `task "${p.name.slice(0, 200)}" started through ${actor.via}${whoIs(actor.process)}${asks ? `, asking for ${asks} grant(s)` : ''}`,
      args: { name: p.name, cwd: task.cwd, via: actor.via, side: actor.side, ...(secrets.length ? { secrets } : {}), ...(asks ? { grantsAsked: asks } : {}) },
      cwd: task.cwd,
      process: actor.process,
      remote: actor.remote,
      decidedBy: decidedByOf(actor),
      reason:
        actor.side === 'human'
          ? 'started from the human side'
          : `starting a task asks nothing: it names the work its requests are asked under${asks ? '; the grants it asks for are a prompt of their own' : ''}`,
    });
  }

  /** A task.start refused before the task exists: recorded (decided by the system), then -32001. */
  private refuseStart(p: TaskStartParams, ctx: RequestContext, reason: string, risk: string): never {
    const what = p.grants?.length ? `task "${p.name}" asks for ${p.grants.length} grant(s)` : `task "${p.name}" asks to start`;
    const req: CoreRequest = {
      source: 'api', tool: 'task.start', action: 'other', resource: null, resources: [], summary: what.slice(0, LIMITS.summary),
      argsText: capArgs(p.grants ?? null), args: p.grants ?? null, task: null, cwd: p.cwd ?? null, process: ctx.process, classifierRisk: [],
    };
    this.recorder.answer({ req, risk: { level: 'medium', reasons: [risk] }, decision: 'deny', decidedBy: 'system', grant: null, scope: null, reason });
    throw new RpcError(RPC.refused, reason);
  }

  /**
   * Ends the task: recorded (who, why) and its sockets closed. False when it had already
   * ended (nothing recorded, nothing done); an unknown task is -32004.
   */
  async endTask(id: string, ending: TaskEnding): Promise<boolean> {
    this.running.delete(id);
    if (!this.tasks.endTask(id)) return false;
    const t = this.tasks.getTask(id);
    const words = endWords(ending);
    // Recorded before anything closes; a row that cannot be written (the database failing)
    // still lets the task's sockets close, then says so.
    let unrecorded: unknown = null;
    try {
      this.recorder.recordTask({
        task: id,
        tool: 'task.end',
        source: ending.by.source,
        summary: `task "${(t?.name ?? id).slice(0, 200)}" ended${whoIs(ending.by.process)}: ${words}`,
        args: { name: t?.name ?? null, why: ending.why, via: ending.by.via, side: ending.by.side, ...(ending.remote ? { remote: ending.remote } : {}) },
        cwd: t?.cwd ?? null,
        process: ending.by.process,
        remote: ending.by.remote,
        decidedBy: decidedByOf(ending.by),
        reason: words,
      });
    } catch (e) {
      unrecorded = e;
    }
    // Before any await: a decision arriving meanwhile finds no prompt of this task to allow.
    this.queue.denyTask(id);
    await this.resources.requests?.close(id);
    await this.resources.ssh?.close(id);
    await this.resources.egress?.close(id);
    this.tasks.setTaskSocket(id, null);
    this.recorder.forgetTask(id);
    this.tasks.grantsChanged();
    this.bus.publish({ method: 'tasks.changed', params: {} });
    if (unrecorded) throw unrecorded;
    return true;
  }
}
