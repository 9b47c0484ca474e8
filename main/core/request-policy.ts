// The policy: normalise → classify → risk → grants → verdict. It decides and does nothing
// else: no store, no clock of its own, no prompts. What it needs to know about the world
// (the task, the grants in force, the settings, what a task did before) comes in through
// PolicyFacts; the broker turns its verdict into an answer or a prompt.
import type { AgentRequest } from '../contract/agent';
import type { Grant, Settings } from '../contract/approver';
import { ACTION_RANK, LIMITS, riskier, type Action, type Risk } from '../contract/common';
import { RPC, RpcError } from '../contract/rpc';
import { taskIdOf } from '../contract/task-ref';
import { MAX_CALL_RESOURCES, mcpAction, splitMcpTool, type ActionOrigin, type ToolAnnotations } from './classify/mcp';
import { mcpMethodVerdict } from './classify/mcp-methods';
import { conditionWords } from './condition';
import { conditionMissText, conditionOutcome, coversLocalDestination, denyMayReach, evaluateGrants, evaluateParts, nearMissText, partsDeny, type GrantIndex } from './grants';
import { capArgs } from './history-recorder';
import type { ClaudeDirKeeper, CommandClassifier, GitTreeProbe, PathResolver, RepoLookalikeProbe, RequestContext } from './ports';
import { applyGitTrees } from './git-tree-paths';
import { applyRealPaths } from './real-paths';
import type { ConfigDirValue } from './claude-config';
import { ClaudeDirMemory } from './claude-dir-memory';
import { egressRemote } from './egress-remote';
import type { CoreRequest } from './request';
import { assessRisk, rank, type TaskMemory } from './risk';
import { taskNameReasons } from './task-names';

/** What the policy reads about the world; every read is synchronous and has no effect. */
export interface PolicyFacts {
  settings(): Settings;
  /** A running task (throws the error to answer for an unknown or ended one). */
  liveTask(id: string): { name: string; cwd: string | null; remote?: string | null };
  /** Other running tasks whose name reads the same as this task's (task-names.ts); none when not given. */
  namesakes?(task: string): string[];
  /** The task a caller on a shared socket may act as, by its token (throws otherwise). */
  authorizeTask(p: { task?: string; token?: string }): string;
  /** What an MCP server declared for a tool in an earlier tools/list. */
  mcpTool(server: string, tool: string): { annotations: ToolAnnotations | null; description: string | null } | null;
  activeGrants(): GrantIndex;
  memoryOf(task: string): TaskMemory;
}

export interface PolicyOptions {
  classifier?: CommandClassifier;
  /** Resolves symbolic links in request paths (main/os/real-path.ts); without it paths are taken as written. */
  realPaths?: PathResolver;
  /** Finds a bare-repository look-alike around a git command's working directory (main/os/git-lookalike.ts). */
  repoLookalike?: RepoLookalikeProbe;
  /** Lists what a git command that rewrites the work tree writes (main/os/git-tree.ts); without it such a command is placed nowhere. */
  gitTree?: GitTreeProbe;
  /**
   * The running daemon's own files and directories (database, keys, secrets, sockets, tasks/;
   * as given and resolved): a write or delete there is critical like one of the default
   * locations (risk.ts DISABLES_APPROVER), which cannot know a custom AIRLOCK_HOME.
   */
  ownPaths?: readonly string[];
  /** CLAUDE_CONFIG_DIR as the daemon itself and its ancestors have it (with their working directories): always protected. */
  claudeConfigEnv?: readonly ConfigDirValue[];
  /** Where the directories seen are kept across restarts (main/store); without it they last until the daemon stops. */
  claudeDirKeeper?: ClaudeDirKeeper;
  now?: () => number;
}

/** The answer without asking anyone (`grants`: the allow grants that matched, whose uses it spends). */
export interface AnswerVerdict {
  kind: 'answer';
  req: CoreRequest;
  risk: Risk;
  decision: 'allow' | 'deny';
  decidedBy: 'grant' | 'policy';
  grant: string | null;
  reason: string;
  grants?: Grant[];
}

/** Nothing settles it: the human is asked (`nearMiss`: a grant that almost matched, in words). */
export interface PromptVerdict {
  kind: 'prompt';
  req: CoreRequest;
  risk: Risk;
  nearMiss?: string;
}

export type Verdict = AnswerVerdict | PromptVerdict;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export class RequestPolicy {
  private readonly classifier?: CommandClassifier;
  private readonly realPaths?: PathResolver;
  private readonly repoLookalike?: RepoLookalikeProbe;
  private readonly gitTree?: GitTreeProbe;
  private readonly ownPaths: readonly string[];
  private readonly claudeDirs: ClaudeDirMemory;
  private readonly now: () => number;

  constructor(
    private readonly facts: PolicyFacts,
    opts: PolicyOptions = {},
  ) {
    this.classifier = opts.classifier;
    this.realPaths = opts.realPaths;
    this.repoLookalike = opts.repoLookalike;
    this.gitTree = opts.gitTree;
    this.ownPaths = opts.ownPaths ?? [];
    this.claudeDirs = new ClaudeDirMemory(opts.claudeConfigEnv ?? [], { ...(opts.claudeDirKeeper ? { keeper: opts.claudeDirKeeper } : {}), ...(opts.realPaths ? { resolve: opts.realPaths } : {}) });
    this.now = opts.now ?? Date.now;
  }

  decide(raw: AgentRequest, ctx: RequestContext): Verdict {
    return this.evaluate(this.normalize(raw, ctx));
  }

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
      task = req.task !== undefined || req.token !== undefined ? this.facts.authorizeTask(req) : null;
    }
    let taskInfo: CoreRequest['taskInfo'];
    let remote = ctx.remote;
    if (task) {
      const t = this.facts.liveTask(task);
      taskInfo = { name: t.name, cwd: t.cwd };
      // A task started through a remote is the remote's: what its egress proxy asks is
      // decided as that remote's request (its grants, never this machine's allow grants),
      // exactly as task.network counts them (tasks-and-grants.ts).
      if (ctx.egress && !remote && t.remote) remote = egressRemote(task, t.remote);
      // The prompt shows the name an agent may have chosen to look like another task's or Airlock's.
      for (const reason of taskNameReasons({ id: task, name: t.name }, this.facts.namesakes?.(task) ?? [])) classifierRisk.push({ level: 'medium', reason });
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
      if (this.realPaths && (command.includes('..') || req.cwd?.includes('..'))) rawParts = this.classifier(command, req.cwd, { rawPaths: true }).parts.map(({ gitTree: _asked, ...p }) => p);
      if (ACTION_RANK[c.action] > ACTION_RANK[action]) {
        classifierRisk.push({ level: 'medium', reason: `the caller called this ${action}, but the command does ${c.action}` });
      }
      action = riskier(action, c.action);
      for (const r of c.resources) if (!resources.includes(r)) resources.push(r);
      classifierRisk.push(...c.riskReasons);
      // `git checkout evil` writes what evil holds: the daemon lists it, path by path.
      applyGitTrees(c.parts, resources, classifierRisk, this.gitTree);
      // The classifier is pure: it takes the working directory as the session's repository.
      // After a `cd sub` (a read) the next call's directory is `sub`, and if the agent planted
      // HEAD, objects/, refs/ and a config there, git would obey that config. Any command
      // that names git is then judged as running code (SECURITY.md, red team wave 4).
      const lookalike = this.repoLookalike && req.cwd && ACTION_RANK[action] < ACTION_RANK.execute && /\bgit\b/.test(command) ? this.repoLookalike(req.cwd) : null;
      if (lookalike) {
        action = 'execute';
        classifierRisk.push({ level: 'high', reason: `git here would take ${lookalike.slice(0, 200)} as a repository (HEAD, objects/, refs/ and no .git): its config is a plain file an agent can write, and it can name programs git runs` });
      }
    }
    let actionOrigin: ActionOrigin | undefined;
    // Only the daemon's own egress proxy speaks for `egress`: an agent claiming it is refused.
    if ((req.source === 'egress') !== !!ctx.egress) {
      throw new RpcError(RPC.invalidParams, 'invalid params: source: egress requests come only from the task\'s egress proxy');
    }
    const method = req.source === 'mcp' ? this.mcpMethodOf(req) : null;
    if (method) {
      // resources/read, prompts/get, an unknown method …: what the method and its params
      // reach, derived here again; the proxy's word only ever adds to it.
      action = method.pinned ?? riskier(action, method.action);
      if (method.pinned) actionOrigin = 'pin';
      for (const r of method.resources) if (!resources.includes(r)) resources.push(r);
      classifierRisk.push(...method.reasons);
    } else if (req.source === 'mcp') {
      const m = this.mcpActionOf(req);
      if (m) {
        action = m.action;
        actionOrigin = m.origin;
        classifierRisk.push(...m.reasons);
      }
      // The hook found more paths in the call than can be judged one by one (the proxy
      // refuses such a call): one left out could be the one a deny is for, so it is asked.
      if (isObject(req.args) && req.args.pathsCut === true) {
        // Critical: not even a broad allow grant may pass it, since a deny on a path past the cap was never checked.
        classifierRisk.push({ level: 'critical', reason: `the call names more than ${MAX_CALL_RESOURCES} paths or URLs: too many to judge one by one (a deny grant on one left out would not be seen), so it is asked` });
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
      ...(ctx.viaSshAgent ? { viaSshAgent: true as const } : {}),
      ...(ctx.egress ? { egress: ctx.egress } : {}),
      ...(remote ? { remote } : {}),
      ...(parts ? { parts } : {}),
      classifierRisk,
      ...(actionOrigin ? { actionOrigin } : {}),
    };
    // The CLAUDE_CONFIG_DIR directories first: a hard link to the settings there counts too.
    const dirs = this.claudeDirs.forRequest([...(ctx.claudeConfigEnv ?? []), ...(req.claudeConfigDir !== undefined ? [{ value: req.claudeConfigDir, cwd: req.cwd ?? null }] : [])]);
    if (this.realPaths) applyRealPaths(core, this.realPaths, rawParts, dirs);
    if (dirs.length) core.claudeDirs = dirs;
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
    const pins = this.facts.settings().mcpToolActions;
    const pinned = Object.prototype.hasOwnProperty.call(pins, req.tool) ? pins[req.tool] : undefined;
    if (pinned) return { action: pinned, origin: 'pin', reasons: [{ level: 'low', reason: `action ${pinned} pinned by you (mcpToolActions)` }] };
    const split = splitMcpTool(req.tool);
    if (!split) return null;
    const [server, tool] = split;
    const a = isObject(req.args) ? req.args : {};
    // The proxy sends what its server declared in this session's tools/list (the hook never
    // sends annotations: a tool's input goes under args.arguments, out of the agent's reach).
    const info = isObject(a.annotations)
      ? { annotations: a.annotations as ToolAnnotations, description: typeof a.description === 'string' ? a.description : null }
      : this.facts.mcpTool(server, tool);
    const args = isObject(a.arguments) ? a.arguments : a;
    return mcpAction(tool, info, args);
  }

  /**
   * An MCP request for a method other than tools/call (`args.method`, the label's tool part
   * the same: `server/resources/read`): its action, resources and reasons from the method and
   * its params (core/classify/mcp-methods.ts), and the human's pin. A tool call never carries
   * `args.method` (the proxy and the hook build args themselves), so a server's tool that is
   * named `resources/read` stays a tool call, judged by its annotations.
   */
  private mcpMethodOf(req: AgentRequest): { action: Action; pinned?: Action; resources: string[]; reasons: CoreRequest['classifierRisk'] } | null {
    const split = splitMcpTool(req.tool);
    const a = isObject(req.args) ? req.args : null;
    if (!split || !a || typeof a.method !== 'string' || a.method !== split[1] || a.method === 'tools/call') return null;
    const v = mcpMethodVerdict(a.method, a.arguments, split[0], req.cwd);
    const pins = this.facts.settings().mcpToolActions;
    const pinned = Object.prototype.hasOwnProperty.call(pins, req.tool) ? pins[req.tool] : undefined;
    const reasons: CoreRequest['classifierRisk'] = [...v.reasons];
    if (pinned) reasons.push({ level: 'low', reason: `action ${pinned} pinned by you (mcpToolActions)` });
    if (v.refuse) return { action: 'other', ...(pinned ? { pinned } : {}), resources: v.resources, reasons: [...reasons, { level: 'medium', reason: `${v.refuse}: it cannot be judged` }] };
    return { action: v.action, ...(pinned ? { pinned } : {}), resources: v.resources, reasons };
  }

  /** A normalised request's risk with what its task has done so far (chain rules). */
  riskOf(req: CoreRequest): Risk {
    return assessRisk(req, req.task ? this.facts.memoryOf(req.task) : {}, this.ownPaths);
  }

  /** Risk, then grants, then the default policy; what none of them settles is a prompt. */
  evaluate(req: CoreRequest): Verdict {
    const risk = this.riskOf(req);
    const settings = this.facts.settings();
    const now = this.now();
    const index = this.facts.activeGrants();
    let verdict = index.evaluate(req, now);
    // This machine or the local network through the egress proxy: a wildcard over hosts
    // does not reach it (grants.ts coversLocalDestination); another grant naming it may.
    let localNote: string | undefined;
    const localRes = req.egress?.local ? req.resources[0] : undefined;
    if (localRes !== undefined && verdict.allow && !coversLocalDestination(verdict.allow, localRes)) {
      localNote = `grant ${verdict.allow.id} (\`${verdict.allow.resource}\`) covers any host, not ${req.egress!.local}: asked; a grant naming ${localRes} would cover it`;
      verdict = evaluateGrants(index.forTool(req.tool).filter((g) => coversLocalDestination(g, localRes)), req, now);
    }
    const answer = (decision: 'allow' | 'deny', decidedBy: 'grant' | 'policy', grant: string | null, reason: string): Verdict => ({ kind: 'answer', req, risk, decision, decidedBy, grant, reason });

    if (verdict.deny) return answer('deny', 'grant', verdict.deny.id, denyReason(verdict.deny, req));
    // Deny beats allow part by part too: a deny reaching one part of a shell command denies it
    // even when an allow covers the whole request (blackbox9).
    const partDeny = req.parts?.length ? partsDeny(index.forTool(req.tool), req, now, req.taskInfo?.cwd ?? null) : undefined;
    if (partDeny) return answer('deny', 'grant', partDeny.id, denyReason(partDeny, req));
    const blindDeny = req.parts?.length ? denyMayReach(index.forTool(req.tool), req, now) : undefined;
    if (blindDeny) {
      const blind = req.parts!.find((p) => p.unlisted)!;
      return { kind: 'prompt', req, risk, nearMiss: `deny grant ${blindDeny.id} (\`${blindDeny.resource}\`${blindDeny.note ? `, ${blindDeny.note}` : ''}) may reach what \`${blind.command}\` writes, and Airlock cannot tell where that is: asked, not allowed by a grant` };
    }
    if (verdict.allow && risk.level !== 'critical') return allowByGrants(req, risk, [verdict.allow]);
    if (req.parts?.length) {
      const allows = (a: Action) => settings.policy[a] === 'allow' && rank(risk.level) < rank('high');
      const pv = evaluateParts(index.forTool(req.tool), req, now, allows, req.taskInfo?.cwd ?? null);
      if (pv.deny) return answer('deny', 'grant', pv.deny.id, denyReason(pv.deny, req));
      if (pv.covered && risk.level !== 'critical') {
        if (pv.covered.length) return allowByGrants(req, risk, pv.covered);
        return answer('allow', 'policy', null, `the default policy allows every part of this command`);
      }
      if (pv.uncovered.length && pv.uncovered.length < req.parts.length) {
        const list = (ps: typeof pv.uncovered) => ps.slice(0, 3).map((p) => `\`${p.command}\``).join(', ');
        return { kind: 'prompt', req, risk, nearMiss: `the rest of this command is allowed; not covered: ${list(pv.uncovered)}` };
      }
    }
    const policy = settings.policy[req.action];
    if (policy === 'deny' && risk.level !== 'critical') return answer('deny', 'policy', null, `the default policy denies ${req.action}`);
    if (policy === 'allow' && rank(risk.level) < rank('high')) return answer('allow', 'policy', null, `the default policy allows ${req.action}`);
    const near = localNote
      ? localNote
      : verdict.near
      ? nearMissText(verdict.near, req)
      : verdict.nearCondition
        ? conditionMissText(verdict.nearCondition, req, conditionWords(verdict.nearCondition.when ?? ''))
        : undefined;
    return { kind: 'prompt', req, risk, ...(near !== undefined ? { nearMiss: near } : {}) };
  }
}

/** The deny grant that answers a (normalised) request now, and why; null when none does. */
export function denyingGrantOf(policy: Pick<RequestPolicy, 'evaluate'>, req: CoreRequest): { grant: string; reason: string } | null {
  const v = policy.evaluate(req);
  return v.kind === 'answer' && v.decision === 'deny' && v.decidedBy === 'grant' && v.grant ? { grant: v.grant, reason: v.reason } : null;
}

function allowByGrants(req: CoreRequest, risk: Risk, grants: Grant[]): AnswerVerdict {
  const ids = grants.map((x) => x.id);
  const notes = grants.map((x) => x.note).filter(Boolean);
  const reason = `allowed by grant ${ids.join(', ')}${notes.length ? ` (${notes.join('; ')})` : ''}`;
  return { kind: 'answer', req, risk, decision: 'allow', decidedBy: 'grant', grant: grants[0]!.id, reason, grants };
}

/** Why a deny grant denied: its note, and its condition in words (or why it could not be checked). */
function denyReason(g: Grant, req: CoreRequest): string {
  let why = `denied by grant ${g.id}${g.note ? ` (${g.note})` : ''}`;
  if (g.when) {
    const o = conditionOutcome(g, req);
    why += typeof o === 'string' ? `: its condition (${conditionWords(g.when)}) could not be checked (${o}), so the deny applies` : `: ${conditionWords(g.when)}`;
  }
  return why;
}
