// The grant half of the write fuzzer's oracle: asks the real core whether a grant a human
// would make from this line's prompt covers the line, and whether that grant also covers
// what the line really did. Everything here is the daemon's own code: RequestPolicy
// (re-classification, the symbolic-link resolver of main/os/real-path.ts, risk, grants,
// the per-part rule for shell commands), grantFromDecision (the grant "allow for this
// task" makes), suggest (the wider pattern the prompt offers). The grants tried:
//   exact     — "allow for this task" as offered: the command's non-read parts, verbatim;
//   suggested — the prompt's suggestion (`{cp,cp *}`, `/repo/dir/**`), when it makes one;
//   workspace — a pattern a human may type: the action on everything under the task's
//               directory (`/tmp/w/**`), which by design never reaches .git/hooks or secrets.
// A covered line's change is checked as a request naming it would be: the part's command
// with that path as its resource, through the same partCovered the core uses, or the
// whole-request route (action and resource glob).
import * as path from 'node:path';
import type { Grant } from '../../main/contract/approver';
import type { Action } from '../../main/contract/common';
import { classifyShell } from '../../main/core/classify/shell';
import { GrantIndex, actionCovers, partCovered, resourcesCovered } from '../../main/core/grants';
import { grantFromDecision } from '../../main/core/prompt-decisions';
import type { PathResolver } from '../../main/core/ports';
import type { CoreRequest } from '../../main/core/request';
import { RequestPolicy } from '../../main/core/request-policy';
import { assessRisk } from '../../main/core/risk';
import { DEFAULT_SETTINGS } from '../../main/core/settings';
import { suggest } from '../../main/core/suggest';
import { resolveRealPaths } from '../../main/os/real-path';
import { SANDBOX_CWD, within, type Effect } from './classify-write-oracle';

const TASK = 'fuzzwrite';
const NOW = 1_800_000_000_000;
/**
 * Only grants decide what changes things: every other action asks. Reads are allowed, as by
 * default: a line's read parts (`cd $x`, `cd -`) then need no grant, so a grant for its write
 * part alone decides (with reads asking, `cd $x; cp a b` under `{cp,cp *}` was never covered
 * and the fuzzer never saw where the cp really wrote).
 */
const ASK_ALL = { ...DEFAULT_SETTINGS, policy: { read: 'allow', write: 'ask', delete: 'ask', transfer: 'ask', execute: 'ask', sign: 'ask', other: 'ask' } as const };

export interface GrantCheck {
  name: 'exact' | 'suggested' | 'workspace';
  grant: Grant;
  /** The core allowed the line by this grant alone, without asking. */
  covered: boolean;
}

/**
 * The daemon's resolver, seeing the sandbox's /tmp where it really is on this host
 * (`hostTmp`): the scene's links resolve as bash will follow them.
 */
export function sandboxResolver(hostTmp: string): PathResolver {
  const toHost = (p: string) => (p === '/tmp' || p.startsWith('/tmp/') ? hostTmp + p.slice(4) : p);
  const toSandbox = (p: string) => (p === hostTmp || p.startsWith(hostTmp + '/') ? '/tmp' + p.slice(hostTmp.length) : p);
  return (paths, opts) => {
    const hostPaths = paths.map(toHost);
    const globs = opts?.globs ?? [];
    const r = resolveRealPaths(hostPaths, { ...(opts ?? {}), globs: globs.map(toHost) });
    const real = new Map<string, string>();
    paths.forEach((p, i) => {
      const t = r.real.get(hostPaths[i]!);
      if (t !== undefined) real.set(p, toSandbox(t));
    });
    const hardLinks = new Map<string, string>();
    for (const [k, v] of r.hardLinks ?? []) hardLinks.set(toSandbox(k), toSandbox(v));
    const matched = new Map<string, string[]>();
    for (const g of globs) {
      const ms = r.globs.get(toHost(g));
      if (ms) matched.set(g, ms.map(toSandbox));
    }
    return { real, incomplete: r.incomplete, hardLinks, globs: matched };
  };
}

/** A policy whose grants are whatever `current` holds (one grant tried at a time). */
function policyWith(current: { grants: Grant[] }, resolver: PathResolver): RequestPolicy {
  return new RequestPolicy(
    {
      settings: () => ASK_ALL,
      liveTask: () => ({ name: TASK, cwd: SANDBOX_CWD }),
      authorizeTask: () => TASK,
      mcpTool: () => null,
      activeGrants: () => new GrantIndex(current.grants),
      memoryOf: () => ({}),
    },
    { classifier: classifyShell, realPaths: resolver, now: () => NOW },
  );
}

export interface GrantProbe {
  req: CoreRequest;
  checks: GrantCheck[];
}

/** Which of the three grants cover `line`, decided by the core as for `airlock exec --shell` in a task. */
export function probeGrants(line: string, hostTmp: string): GrantProbe {
  const current = { grants: [] as Grant[] };
  const policy = policyWith(current, sandboxResolver(hostTmp));
  const req = policy.normalize({ source: 'exec', tool: 'exec', action: 'read', summary: line.slice(0, 1000), args: { command: line }, cwd: SANDBOX_CWD }, { boundTask: TASK });
  const risk = assessRisk(req, {});
  const decide = (pattern?: { tool: string; resource: string }) => grantFromDecision(req, { id: 'p', decision: 'allow', scope: 'task', ...(pattern ? { pattern } : {}) }, NOW).grant;
  const grants: Omit<GrantCheck, 'covered'>[] = [{ name: 'exact', grant: decide() }];
  const s = suggest(req, risk, SANDBOX_CWD);
  if (s) grants.push({ name: 'suggested', grant: decide({ tool: s.tool, resource: s.resource }) });
  grants.push({ name: 'workspace', grant: decide({ tool: 'exec', resource: `${SANDBOX_CWD}/**` }) });
  const checks = grants.map((g) => {
    current.grants = [g.grant];
    const v = policy.evaluate(req);
    return { ...g, covered: v.kind === 'answer' && v.decision === 'allow' && v.decidedBy === 'grant' };
  });
  return { req, checks };
}

/** Whether the core allows `line` by grant `g` alone, decided as probeGrants decides (a grant made from another line's prompt). */
export function lineCoveredBy(line: string, g: Grant, hostTmp: string): boolean {
  const current = { grants: [g] };
  const policy = policyWith(current, sandboxResolver(hostTmp));
  const req = policy.normalize({ source: 'exec', tool: 'exec', action: 'read', summary: line.slice(0, 1000), args: { command: line }, cwd: SANDBOX_CWD }, { boundTask: TASK });
  const v = policy.evaluate(req);
  return v.kind === 'answer' && v.decision === 'allow' && v.decidedBy === 'grant';
}

/**
 * Whether grant `g`, which covered `req`, would also cover a request naming this change:
 * some non-read part of the line with the changed path as its only resource, or the whole
 * request with that path. A removed path the line names is a move's source (`mv`, `gzip`),
 * judged as the part's own action; one it does not name is a delete.
 */
export function effectCovered(g: Grant, req: CoreRequest, e: Effect, gitNamed: boolean): boolean {
  // git's own bookkeeping under a .git directory (index, refs, HEAD, a new repository's
  // sample hooks): fixed by git, not chosen by the line. A live hook is not.
  if (gitNamed && /\/\.git(\/|$)/.test(e.path) && !/\/\.git\/hooks\/(?![^/]*\.sample$)[^/]+$/.test(e.path)) return true;
  const parts = (req.parts ?? []).filter((p) => p.action !== 'read');
  const named = parts.some((p) => p.resources.some((r) => r.startsWith('/') && within(e.path, r)));
  const action: Action | null = e.kind === 'delete' && !named ? 'delete' : null;
  for (const p of parts) if (partCovered(g, req, { ...p, action: action ?? p.action, resources: [e.path] }, NOW, SANDBOX_CWD)) return true;
  return actionCovers(g.action, action ?? req.action) && resourcesCovered(g.resource, [e.path], 'allow', req.claudeDirs);
}

export const grantTask = TASK;
export const sandboxPathOf = (hostTmp: string, p: string) => path.join(hostTmp, p.replace(/^\/tmp\/?/, ''));
