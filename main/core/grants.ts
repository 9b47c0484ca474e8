// Grant matching: which grants decide a request. Pure functions, table-tested.
import type { Grant } from '../contract/approver';
import { escapeGlob, globMatches } from './glob';
import type { CoreRequest } from './request';

export type Miss = 'task' | 'source' | 'tool' | 'action' | 'resource' | 'key' | 'forwarded' | 'expired' | 'used-up' | 'revoked';

/** Why `g` does not match `r` (first reason), or null when it matches. */
export function grantMiss(g: Grant, r: CoreRequest, now: number): Miss | null {
  if (g.revokedAt !== null) return 'revoked';
  if (g.expiresAt !== null && g.expiresAt <= now) return 'expired';
  if (g.usesLeft !== null && g.usesLeft <= 0) return 'used-up';
  if (g.task !== null && g.task !== r.task) return 'task';
  if (!globMatches(g.source, r.source)) return 'source';
  if (!globMatches(g.tool, r.tool)) return 'tool';
  if (g.action !== '*' && g.action !== r.action) return 'action';
  if (g.key !== null && g.key !== r.ssh?.fingerprint) return 'key';
  if (r.ssh?.forwarded && !g.forwarded) return 'forwarded';
  if (!resourcesCovered(g.resource, r.resources)) return 'resource';
  return null;
}

export function resourcesCovered(glob: string, resources: string[]): boolean {
  if (glob === '*' || glob === '**') return true;
  if (resources.length === 0) return false;
  return resources.every((res) => globMatches(glob, res));
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
