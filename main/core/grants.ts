// Grant matching: which grants decide a request. Pure functions, table-tested.
import type { Grant } from '../contract/approver';
import { escapeGlob, globMatches, isPathPattern } from './glob';
import type { CoreRequest } from './request';
import { sensitivePart } from './risk';

export type Miss = 'task' | 'source' | 'tool' | 'action' | 'resource' | 'key' | 'forwarded' | 'expired' | 'used-up' | 'revoked';

/** Checks every field but action and resource (shared by whole-request and per-part matching). */
function scopeMiss(g: Grant, r: CoreRequest, now: number): Miss | null {
  if (g.revokedAt !== null) return 'revoked';
  if (g.expiresAt !== null && g.expiresAt <= now) return 'expired';
  if (g.usesLeft !== null && g.usesLeft <= 0) return 'used-up';
  if (g.task !== null && g.task !== r.task) return 'task';
  if (!globMatches(g.source, r.source)) return 'source';
  if (!globMatches(g.tool, r.tool)) return 'tool';
  if (g.key !== null && g.key !== r.ssh?.fingerprint) return 'key';
  if (r.ssh?.forwarded && !g.forwarded) return 'forwarded';
  return null;
}

/** Why `g` does not match `r` (first reason), or null when it matches. */
export function grantMiss(g: Grant, r: CoreRequest, now: number): Miss | null {
  // The action first: one comparison that rules out most grants before any glob runs.
  if (g.action !== '*' && g.action !== r.action) return 'action';
  const scope = scopeMiss(g, r, now);
  if (scope) return scope;
  if (!resourcesCovered(g.resource, r.resources, g.effect)) return 'resource';
  return null;
}

const WILDCARD = /(?<!\\)[*?[{]/;

/**
 * Every resource matches the pattern. An allow pattern with wildcards never reaches a
 * path that can run code later or holds secrets unless it names that part itself
 * (`/repo/**` does not cover `/repo/.git/hooks/x`; `/repo/.git/hooks/*` does).
 */
export function resourcesCovered(glob: string, resources: string[], effect: 'allow' | 'deny' = 'allow'): boolean {
  const any = glob === '*' || glob === '**';
  if (!any && resources.length === 0) return false;
  return resources.every((res) => {
    if (!any && !globMatches(glob, res)) return false;
    if (effect === 'deny' || !WILDCARD.test(glob)) return true;
    const part = sensitivePart(res);
    return part === null || glob.includes(part);
  });
}

type Part = NonNullable<CoreRequest['parts']>[number];

function within(dir: string, p: string): boolean {
  const d = dir.replace(/\/+$/, '');
  return p === d || p.startsWith(d + '/');
}

/**
 * One part of a shell command is covered by `g` when the pattern names the command
 * (`npm run test *`, `git commit *`: a command pattern grants that command, whatever
 * its action) or when action and every resource of the part match as usual.
 */
export function partCovered(g: Grant, r: CoreRequest, part: Part, now: number, taskCwd: string | null = null): boolean {
  if (scopeMiss(g, r, now)) return false;
  const commandPattern = !isPathPattern(g.resource) && g.resource !== '*' && g.resource !== '**';
  if (commandPattern && globMatches(g.resource, part.command)) {
    if (g.effect === 'deny') return true;
    // A command pattern allows the command, not every path it may name: files must stay
    // inside the task's working directory and away from hooks and secrets.
    return part.resources.every((res) => sensitivePart(res) === null && (!res.startsWith('/') || (taskCwd !== null && within(taskCwd, res))));
  }
  if (g.action !== '*' && g.action !== part.action) return false;
  return resourcesCovered(g.resource, part.resources, g.effect);
}

export interface PartsVerdict {
  deny?: Grant;
  /** The allow grants used, when every part is covered by a grant or `policyAllows`. */
  covered?: Grant[];
  uncovered: Part[];
}

/** Decides a shell command part by part: any denied part denies it; all covered allows it. */
export function evaluateParts(
  grants: readonly Grant[],
  r: CoreRequest,
  now: number,
  policyAllows: (a: Part['action']) => boolean,
  taskCwd: string | null = null,
): PartsVerdict {
  const used: Grant[] = [];
  const uncovered: Part[] = [];
  for (const part of r.parts ?? []) {
    const deny = grants.find((g) => g.effect === 'deny' && partCovered(g, r, part, now, taskCwd));
    if (deny) return { deny, uncovered: [] };
    const allow = grants.find((g) => g.effect === 'allow' && partCovered(g, r, part, now, taskCwd));
    if (allow) {
      if (!used.includes(allow)) used.push(allow);
    } else if (!policyAllows(part.action)) uncovered.push(part);
  }
  return uncovered.length === 0 ? { covered: used, uncovered } : { uncovered };
}

export interface GrantVerdict {
  deny?: Grant;
  allow?: Grant;
  /** An allow grant of this task that missed only on the resource: "why was I asked". */
  near?: Grant;
}

/** Deny beats allow. Among allows, the one with the fewest uses left is spent first. */
export function evaluateGrants(grants: readonly Grant[], r: CoreRequest, now: number): GrantVerdict {
  const v: GrantVerdict = {};
  for (const g of grants) {
    const miss = grantMiss(g, r, now);
    if (miss === null) {
      if (g.effect === 'deny') {
        v.deny = g;
        return v;
      }
      if (!v.allow || (g.usesLeft !== null && (v.allow.usesLeft === null || g.usesLeft < v.allow.usesLeft))) v.allow = g;
    } else if (miss === 'resource' && g.effect === 'allow' && !v.near) {
      v.near = g;
    }
  }
  return v;
}

export function nearMissText(g: Grant, r: CoreRequest): string {
  const scope = g.task ? 'the task' : 'a grant';
  const outside = r.resources.filter((res) => !globMatches(g.resource, res));
  return `${scope} may ${g.action === '*' ? 'act on' : g.action} \`${g.resource}\`; this ${r.action} is to \`${outside.slice(0, 3).join('`, `')}\``;
}

/** The exact-match resource pattern for a decision without an edited pattern. */
export function exactResourcePattern(resources: string[]): string {
  if (resources.length === 0) return '**';
  if (resources.length === 1) return escapeGlob(resources[0]!);
  return `{${resources.map(escapeGlob).join(',')}}`;
}

/** The exact-match pattern of a shell command: each of its (non-read) parts, verbatim. */
export function exactCommandPattern(parts: NonNullable<CoreRequest['parts']>): string {
  const open = parts.filter((p) => p.action !== 'read');
  const cmds = [...new Set((open.length ? open : parts).map((p) => escapeGlob(p.command)))];
  return cmds.length === 1 ? cmds[0]! : `{${cmds.join(',')}}`;
}

const GLOB_SPECIAL = /[*?[\]{}()!+@\\"'|,]/;

/**
 * Grants grouped by tool, so a decision looks only at the grants that can name its tool:
 * the ones for exactly that tool and the ones whose tool is a pattern. Keeps a decision
 * flat from 10 to 10,000 grants (test/bench/growth.bench.ts).
 */
export class GrantIndex {
  private readonly byTool = new Map<string, Grant[]>();
  private readonly patternTools: Grant[] = [];

  constructor(readonly all: readonly Grant[]) {
    for (const g of all) {
      if (GLOB_SPECIAL.test(g.tool)) this.patternTools.push(g);
      else {
        const list = this.byTool.get(g.tool);
        if (list) list.push(g);
        else this.byTool.set(g.tool, [g]);
      }
    }
  }

  forTool(tool: string): Grant[] {
    const exact = this.byTool.get(tool);
    return exact ? exact.concat(this.patternTools) : this.patternTools;
  }
}
