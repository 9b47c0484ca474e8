// What a human's answer to a prompt creates: the grant for "always / for this task / for
// N minutes", the pair of grants for "only reads from this server", and which of the
// grants a task asked for at start are accepted. Pure: the queue commits what these build.
import type { DecideParams, Grant, PromptGrant } from '../contract/approver';
import type { Action } from '../contract/common';
import { RPC, RpcError } from '../contract/rpc';
import { newId } from '../store/ids';
import { splitMcpTool } from './classify/mcp';
import { conditionWords } from './condition';
import { escapeGlob } from './glob';
import { coversLocalDestination, exactCommandPattern, exactResourcePattern, grantMiss, partCovered } from './grants';
import { globMatches } from './glob';
import type { CoreRequest } from './request';

export const DURATION_DEFAULT_SEC = 15 * 60;

/** Every action but read: "never write, delete, move or send" for a whole server. */
const NOT_READ: Action[] = ['write', 'delete', 'transfer', 'execute', 'other', 'sign'];

function expiresAt(d: DecideParams, now: number): number | null {
  return d.scope === 'duration' ? now + (d.durationSec ?? DURATION_DEFAULT_SEC) * 1000 : null;
}

/** "for 15 min", or seconds under a minute (a 1-second grant is not "for 0 min"). */
function durationText(ms: number): string {
  const sec = Math.max(1, Math.round(ms / 1000));
  return sec < 60 ? `for ${sec} s` : `for ${Math.round(sec / 60)} min`;
}

function scopeText(d: DecideParams, expires: number | null, now: number, task: string | null): string {
  if (d.scope === 'duration') return `${durationText(expires! - now)}${task ? ' (this task)' : ''}`;
  return d.scope === 'task' ? 'for this task' : 'always';
}

/**
 * The task a grant made from a prompt is for. "For this task" is the task by definition; "for N
 * minutes" is too when the request has one — like sudo's per-terminal timestamp, the human's
 * "yes for a while" is for the requester they saw, not for every other agent (another task would
 * otherwise ride a grant made for this one's request). A request with no task gets a grant for no
 * task, as before.
 */
function grantTask(req: CoreRequest, d: DecideParams): string | null {
  return d.scope === 'task' || d.scope === 'duration' ? (req.task ?? null) : null;
}

/** Refuses a decision that cannot be made for this request (checked before anything is created). */
export function checkDecision(req: CoreRequest, d: DecideParams): void {
  if (d.scope === 'once' && (d.when !== undefined || d.serverReadOnly)) {
    throw new RpcError(RPC.invalidParams, `invalid params: ${d.when !== undefined ? 'when' : 'serverReadOnly'}: needs a grant (scope task, duration or always), not once`);
  }
  if (d.scope === 'task' && !req.task) {
    throw new RpcError(RPC.invalidParams, 'invalid params: scope: this request belongs to no task; choose once, duration or always');
  }
}

/** The grant a decision with a scope other than once makes from this request, and the reason recorded. */
export function grantFromDecision(req: CoreRequest, d: DecideParams, now: number): { grant: Grant; reason: string } {
  const who = d.decision === 'allow' ? 'allowed' : 'denied';
  const grant: Grant = {
    id: newId('g'),
    task: grantTask(req, d),
    source: req.source,
    // The request's own tool name is a literal, not a pattern: a server's tool named `*` (or an
    // API request's) allowed "for this task" made `server/*`, every tool of that server (black
    // box wave 14). The web card and watch send it back unedited as the pattern: escaped too.
    tool: d.pattern?.tool === undefined || d.pattern.tool === req.tool ? escapeGlob(req.tool) : d.pattern.tool,
    action: req.action,
    resource: d.pattern?.resource ?? (req.parts?.length ? exactCommandPattern(req.parts) : exactResourcePattern(req.resources)),
    key: req.ssh?.fingerprint ?? null,
    effect: d.decision,
    expiresAt: expiresAt(d, now),
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
  const reason = `${who} ${scopeText(d, grant.expiresAt, now, grant.task)} by the human (grant ${grant.id}${grant.when ? `, when ${conditionWords(grant.when)}` : ''})`;
  return { grant, reason };
}

/**
 * Why a grant a decision made does not answer the very request it was made from, or null when
 * it does: the human may edit the pattern ("always" for `src/*` on a write to `lib/x`), and a
 * condition may not hold for it. Judged as request-policy.ts would judge the same request next
 * time — a shell command part by part (a part the default policy allows counts as covered),
 * a wildcard over hosts not reaching this machine — except that risk is left out: a critical
 * request asks whatever grants say, and that is not the grant's pattern.
 */
export function grantShortfall(g: Grant, req: CoreRequest, now: number, policyAllows: (a: Action) => boolean): string | null {
  const local = req.egress?.local ? req.resources[0] : undefined;
  if (local !== undefined && !coversLocalDestination(g, local)) return `\`${g.resource}\` covers any host, not ${req.egress!.local}`;
  const miss = grantMiss(g, req, now);
  if (miss === null) return null;
  if (req.parts?.length) {
    const open = req.parts.filter((part) => !partCovered(g, req, part, now, req.taskInfo?.cwd ?? null) && !(g.effect === 'allow' && policyAllows(part.action)));
    const byGrant = req.parts.some((part) => partCovered(g, req, part, now, req.taskInfo?.cwd ?? null));
    if (open.length === 0 && byGrant) return null;
    if (open.length) return `it does not cover ${open.slice(0, 3).map((part) => `\`${part.command}\``).join(', ')}`;
  }
  switch (miss) {
    case 'tool':
      return `its tool \`${g.tool}\` does not match ${req.tool}`;
    case 'resource': {
      const outside = req.resources.filter((r) => !globMatches(g.resource, r));
      return outside.length ? `\`${outside.slice(0, 3).join('`, `')}\` is outside \`${g.resource}\`` : `\`${g.resource}\` does not reach ${req.resources.slice(0, 3).join(', ')} (a hook, secret or settings file needs naming itself)`;
    }
    case 'condition':
      return 'its condition does not hold for it';
    default:
      return `it misses on ${miss}`;
  }
}

/**
 * "Only reads from this server": an allow grant for `server/*` reads and a deny grant for
 * every other action of `server/*`, in the chosen scope. This request is answered by them:
 * allowed when it is a read, denied otherwise.
 */
export function serverReadOnlyGrants(req: CoreRequest, d: DecideParams, now: number): { allow: Grant; deny: Grant; decision: 'allow' | 'deny'; reason: string } {
  const split = req.source === 'mcp' ? splitMcpTool(req.tool) : null;
  if (!split) throw new RpcError(RPC.invalidParams, 'invalid params: serverReadOnly: only for an MCP request (tool server/name)');
  const base = {
    task: grantTask(req, d),
    source: 'mcp',
    tool: `${escapeGlob(split[0])}/*`,
    resource: '**',
    key: null,
    expiresAt: expiresAt(d, now),
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
  const read = req.action === 'read';
  const reason = `the human allowed only reads from ${split[0]} ${scopeText(d, deny.expiresAt, now, deny.task)} (grants ${allow.id}, ${deny.id}); this ${req.action} is ${read ? 'allowed' : 'denied'}`;
  return { allow, deny, decision: read ? 'allow' : 'deny', reason };
}

/**
 * Accepting creates every grant except those marked needsConfirmation that the decision
 * does not confirm by index: one key press never hands out a blank cheque. Returns the
 * indexes to create and to decline (throws for a decision that cannot be taken).
 */
export function taskGrantChoice(described: PromptGrant[], d: DecideParams): { accept: number[]; declined: number[]; confirmed: Set<number> } {
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
  if (d.decision === 'deny') return { accept: [], declined: described.map((g) => g.index), confirmed: confirm };
  const accept: number[] = [];
  const declined: number[] = [];
  described.forEach((g, i) => (g.needsConfirmation && !confirm.has(i) ? declined : accept).push(i));
  return { accept, declined, confirmed: confirm };
}
