// Grant matching: which grants decide a request. Pure functions, table-tested.
// Over 400 lines on purpose: the matcher and its index (GrantIndex) must agree exactly, and
// the differential tests (test/unit/grant-index.test.ts, condition-index.test.ts) are easiest
// to trust with both in one file.
import * as os from 'node:os';
import * as path from 'node:path';
import type { GrantAction } from '../contract/agent';
import type { Grant } from '../contract/approver';
import { ACTION_RANK, type Action } from '../contract/common';
import type { CelInput } from '@bufbuild/cel';
import { celArgs, compileCondition, ConditionError, type CompiledCondition } from './condition';
import { CONDITION_INDEX_MIN, ConditionIndex } from './condition-index';
import { argsInPathForm, pathForm } from './condition-paths';
import { expandBraces } from './classify/sh-braces';
import { commandForms } from './command-forms';
import { escapeGlob, globMatches, isPathPattern } from './glob';
import type { CoreRequest } from './request';
import { sensitivePart } from './risk';
import { isWithin } from './classify/path-within';
import { workspaceOf } from './workspace';

export type Miss = 'task' | 'source' | 'tool' | 'action' | 'resource' | 'condition' | 'key' | 'forwarded' | 'remote' | 'expired' | 'used-up' | 'revoked';

/** Whether a grant's action (one, `*`, or a set) covers `a`. */
export function actionCovers(ga: GrantAction, a: Action): boolean {
  return ga === '*' || ga === a || (Array.isArray(ga) && ga.includes(a));
}

/** A grant action in words: `write`, `any action`, `write, delete or execute`. */
export function actionText(ga: GrantAction): string {
  if (ga === '*') return 'any action';
  if (!Array.isArray(ga)) return ga;
  return ga.length === 1 ? ga[0]! : `${ga.slice(0, -1).join(', ')} or ${ga[ga.length - 1]}`;
}

/**
 * What a grant's condition sees as `args`: the tool's own arguments. MCP requests (proxy
 * and hook) carry them under `args.arguments`; every other request's args are its
 * arguments (exec: `args.argv`, `args.command`). Arguments an integration had to cut to
 * fit the request (`args.truncated`) cannot be checked.
 */
export function conditionArgs(r: CoreRequest): { args: unknown } | { error: string } {
  const a = r.args;
  const obj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (obj(a) && a.truncated === true) return { error: 'the arguments were cut to fit the request, so a condition cannot check them' };
  if (r.source === 'mcp' && obj(a) && obj(a.arguments)) return { args: a.arguments };
  return { args: a ?? {} };
}

/**
 * The condition input of a request, converted once per request (a decision may check many
 * grants): the arguments as written and, when they hold oddly spelled paths, the same in
 * each PathForm (condition-paths.ts).
 */
interface ConditionInput {
  input: CelInput;
  /** The arguments with their paths in plain form (an allow must hold here too), if that differs. */
  plain?: CelInput;
  /** More spellings a deny is checked against (absolute, `~`), those that differ. */
  denyAlso: CelInput[];
}
const inputs = new WeakMap<CoreRequest, ConditionInput | { error: string }>();
function conditionInput(r: CoreRequest): ConditionInput | { error: string } {
  let v = inputs.get(r);
  if (!v) {
    const a = conditionArgs(r);
    if ('error' in a) v = a;
    else {
      try {
        const raw = a.args ?? {};
        const plain = argsInPathForm(raw, 'plain');
        // A relative path as the tool resolves it too, from the request's cwd (a deny only).
        const forms = [...(['absolute', 'tilde'] as const), ...(r.cwd ? [{ cwd: r.cwd }] : [])];
        const denyAlso = forms.map((f) => argsInPathForm(raw, f)).filter((x) => x !== null).map((x) => celArgs(x));
        v = { input: celArgs(raw), ...(plain !== null ? { plain: celArgs(plain) } : {}), denyAlso };
      } catch (e) {
        v = { error: (e as Error).message };
      }
    }
    inputs.set(r, v);
  }
  return v;
}

/** Whether the request's arguments are checked in more than one spelling (the condition index looks up only one). */
function hasPathForms(input: ConditionInput): boolean {
  return input.plain !== undefined || input.denyAlso.length > 0;
}

/** true: the condition holds; false: it does not; a string: it could not be checked (why). */
const compiledOf = new WeakMap<Grant, CompiledCondition | string>();
export function conditionOutcome(g: Grant, r: CoreRequest): true | false | string {
  if (!g.when) return true;
  let c = compiledOf.get(g);
  if (c === undefined || (typeof c !== 'string' && c.source !== g.when)) {
    try {
      c = compileCondition(g.when);
    } catch (e) {
      c = e instanceof ConditionError ? `the condition no longer compiles: ${e.message}` : String(e);
    }
    compiledOf.set(g, c);
  }
  if (typeof c === 'string') return c;
  const input = conditionInput(r);
  if ('error' in input) return input.error;
  const cond = c;
  const one = (x: CelInput): true | false | string => {
    const v = cond.evaluateInput(x);
    return v.ok ? v.value : v.error;
  };
  const asWritten = one(input.input);
  if (!hasPathForms(input)) return asWritten;
  if (g.effect === 'allow') {
    // Holds only if it holds for the paths as written and as they resolve.
    if (asWritten !== true || input.plain === undefined) return asWritten;
    return one(input.plain);
  }
  // A deny holds if it holds for any spelling; an error in one still counts (conditionMiss).
  const all = [asWritten, ...(input.plain !== undefined ? [one(input.plain)] : []), ...input.denyAlso.map(one)];
  return all.find((o) => o === true) ?? all.find((o) => typeof o === 'string') ?? false;
}

/**
 * A condition decides whether the grant applies. For an allow grant only a strict `true`
 * matches. For a deny grant, a condition that cannot be checked (missing field, wrong
 * type, cut arguments) counts as matching: a deny that cannot be checked must never let
 * an allow grant through.
 */
function conditionMiss(g: Grant, r: CoreRequest): boolean {
  if (!g.when) return false;
  const o = conditionOutcome(g, r);
  return g.effect === 'allow' ? o !== true : o === false;
}

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
  // Remote requests (airlock remote, ssh -R) are allowed only by grants naming that remote;
  // an allow grant without one is for this machine only. A deny grant without a remote
  // denies everywhere (deny is the safe direction); with one, only there.
  const from = r.remote?.name ?? null;
  const limitedTo = g.remote ?? null;
  if (limitedTo !== null ? limitedTo !== from : g.effect === 'allow' && from !== null) return 'remote';
  return null;
}

/** Every check but the condition (the only one that runs an expression, so it goes last). */
function missBeforeCondition(g: Grant, r: CoreRequest, now: number): Miss | null {
  // The action first: one comparison that rules out most grants before any glob runs.
  if (!actionCovers(g.action, r.action)) return 'action';
  const scope = scopeMiss(g, r, now);
  if (scope) return scope;
  if (!resourcesCovered(g.resource, r.resources, g.effect, r.claudeDirs)) return 'resource';
  // A part that writes files it does not list (tar -x, unzip, patch) is covered by no allow
  // but one for anything (`*`, `**`): its real paths are not among the resources.
  if (g.effect === 'allow' && g.resource !== '*' && g.resource !== '**' && r.parts?.some((p) => p.unlisted)) return 'resource';
  return null;
}

/** Why `g` does not match `r` (first reason), or null when it matches. */
export function grantMiss(g: Grant, r: CoreRequest, now: number): Miss | null {
  return missBeforeCondition(g, r, now) ?? (conditionMiss(g, r) ? 'condition' : null);
}

/** What a destination `host:port` is made of (an IPv6 address is bracketed, and brackets are glob syntax). */
const DESTINATION_CHARS = /^[A-Za-z0-9._:-]*$/;

/**
 * Whether `g` may answer an egress request of `probe`'s task (task.network): the decision's
 * own checks (action, scopeMiss: task, source, tool, key, forwarded, remote, expiry, uses)
 * on a request that stands for every connection the task's proxy may ask. Only the
 * destination and the connection's arguments are unknown here, so the resource must be
 * able to name some `host:port`: a pattern whose literal start holds a character no
 * destination has (a path, `~/`, a command with a space, a URL's `/`) never matches one.
 * Conditions are the caller's to weigh (one may hold for some connections only).
 */
export function mayAnswerEgress(g: Grant, probe: CoreRequest, now: number): boolean {
  if (!actionCovers(g.action, probe.action) || scopeMiss(g, probe, now)) return false;
  return DESTINATION_CHARS.test(LITERAL_PREFIX.exec(g.resource)![0]);
}

const WILDCARD = /(?<!\\)[*?[{]/;

/**
 * May this allow reach an egress destination on this machine or the local network? Only
 * when its pattern names the host (`127.0.0.1:*`, `localhost:8080`, `{a.test:1,b.test:2}`);
 * a pattern that is a wildcard over hosts (`*`, `*:443`, `*.example.com:*`, a task's
 * `--network` grant) never does, as `/repo/**` never reaches `/repo/.git/hooks`: the
 * daemon's web UI, a database on loopback or the cloud metadata address are not "the
 * network" a human meant, and each asks.
 */
export function coversLocalDestination(g: Grant, resource: string): boolean {
  if (g.effect !== 'allow') return true;
  const host = resource.replace(/:\d+$/, '');
  return !(g.resource === '*' || g.resource === '**' || WILDCARD.test(g.resource)) || g.resource.includes(host) || g.resource.includes(escapeGlob(host));
}

/**
 * An allow covers a request when every resource matches the pattern (a deny: any one).
 * An allow pattern with wildcards never reaches a
 * path that can run code later or holds secrets unless it names that part itself
 * (`/repo/**` does not cover `/repo/.git/hooks/x`; `/repo/.git/hooks/*` does).
 */
/** `claudeDirs`: Claude Code settings directories CLAUDE_CONFIG_DIR names (risk.ts sensitivePart). */
export function resourcesCovered(glob: string, given: string[], effect: 'allow' | 'deny' = 'allow', claudeDirs: readonly string[] = []): boolean {
  const any = glob === '*' || glob === '**';
  // The words bash makes of a brace expansion (`src/{a,b}`, `.git/hoo{k,}s/x`): an allow must
  // cover each; a deny reaches any (and the word as written). Too many words: an allow misses.
  let resources = given;
  if (given.some((x) => x.includes('{'))) {
    const words = bashWords(given);
    if (words === null) return effect === 'deny' || any;
    resources = effect === 'deny' ? [...given, ...words] : words;
  }
  if (!any && resources.length === 0) return false;
  // A deny reaches a request when it reaches any one of its resources: a write listed as
  // both `dir/h/x` and its real target `.git/hooks/x` is denied by a deny on either.
  if (effect === 'deny') return any || resources.some((res) => globMatches(glob, res) || otherSpellings(res).some((x) => globMatches(glob, x)));
  return resources.every((res, i) => {
    if (!any && !globMatches(glob, res)) return false;
    if (!WILDCARD.test(glob)) return true;
    const part = sensitiveParts(resources, claudeDirs)[i];
    return part === null || glob.includes(part!);
  });
}

/**
 * A resource's other spellings of the same path: `..`/`.` resolved, `~` spelled out and the
 * home directory spelled `~`. A deny on `/etc/**` or `$HOME/Mail/**` must reach a resource
 * written `/tmp/../etc/x` or `~/Mail/x` by the matcher alone: the daemon adds real paths
 * (real-paths.ts) before it gets here, but past-matches and any caller of this pure
 * function get none. An allow needs no such help: a glob never matches a `..` segment, so
 * such a resource asks.
 */
function otherSpellings(res: string): string[] {
  const out: string[] = [];
  for (const f of ['plain', 'absolute', 'tilde'] as const) {
    const x = pathForm(res, f);
    if (x !== null && !out.includes(x)) out.push(x);
  }
  return out;
}

/**
 * The words bash makes of each resource's brace expansions, or null when too many. A word
 * made absolute by an expansion after the cwd the classifier joined (`/repo/{,/etc/x}` →
 * `/repo//etc/x`) is that absolute path (`/etc/x`), as bash sees it.
 */
function bashWords(resources: readonly string[]): string[] | null {
  const out: string[] = [];
  for (const res of resources) {
    if (!res.includes('{')) {
      out.push(res);
      continue;
    }
    const words = expandBraces(res);
    if (words === null) return null;
    for (const w of words) {
      const abs = /\/\/|\/~(\/|$)/.exec(w);
      out.push(abs ? w.slice(abs.index + 1) : w);
    }
  }
  return out;
}

/** sensitivePart of each resource, once per request's list (it runs ~20 regexes; a decision may check hundreds of allows). */
const sensitiveOf = new WeakMap<readonly string[], (string | null)[]>();
function sensitiveParts(resources: readonly string[], claudeDirs: readonly string[]): (string | null)[] {
  let parts = sensitiveOf.get(resources);
  if (!parts || parts.length !== resources.length) sensitiveOf.set(resources, (parts = resources.map((r) => sensitivePart(r, claudeDirs))));
  return parts;
}

type Part = NonNullable<CoreRequest['parts']>[number];

/**
 * One part of a shell command is covered by `g` when the pattern names the command
 * (`npm run test *`, `git commit *`: a command pattern grants that command, for the
 * grant's action or a lesser one) or when action and every resource of the part match as usual.
 */
export function partCovered(g: Grant, r: CoreRequest, part: Part, now: number, taskCwd: string | null = null): boolean {
  if (scopeMiss(g, r, now)) return false;
  if (conditionMiss(g, r)) return false;
  if (g.effect === 'allow' && part.unlisted && g.resource !== '*' && g.resource !== '**') return false;
  const commandPattern = !isPathPattern(g.resource) && g.resource !== '*' && g.resource !== '**';
  // A deny reaches every spelling of the command (`/bin/rm`, `\rm`, `env rm`, `sudo rm`, …).
  if (commandPattern && g.effect === 'deny' && commandForms(part.command).some((f) => globMatches(g.resource, f))) return true;
  if (commandPattern && globMatches(g.resource, part.command)) {
    if (g.effect === 'deny') return true;
    // A command pattern allows the command doing what it did when the grant was made, or
    // less: `{sed,sed *}` granted from `sed -i 's/a/b/' f` (a write) does not cover
    // `sed -i '1e cmd' f`, which runs a command (execute; found by the write fuzzer).
    if (!actionCovers(g.action, part.action) && !(typeof g.action === 'string' && g.action !== '*' && ACTION_RANK[part.action] < ACTION_RANK[g.action])) return false;
    // A command pattern allows the command, not every path it may name: files must stay
    // inside the task's working directory and away from hooks and secrets. A task directory
    // of / (or one holding the home directory) confines nothing: then no file is inside.
    // A resource computed at run time (`$f`, `$(…)`, kept verbatim by the classifier) can be
    // any path: `f=.git/hooks/pre-commit; echo x > $f` was covered by a grant for `echo x > $f`
    // (the write fuzzer). Only a path known now can be confined; the rest asks.
    // `~/n` is a path too (a host never starts with `~`): `echo x > ~/n` under `{echo,echo *}`
    // wrote in the home directory, outside the task's (the write fuzzer).
    // Each word a brace expansion becomes is checked (`{,/etc/x,}` is /etc/x).
    const workspace = workspaceOf(taskCwd);
    const words = bashWords(part.resources);
    return words !== null && words.every((res) => {
      // `~user/x`, `~-/x`, `~1/x` (kept as written, sh-words.ts resolvePath) lead wherever bash's
      // tilde expansion says: `{tee,tee *}` covered `tee ~nobody/x` (the write fuzzer, seed 21).
      if (/[$`]/.test(res) || /^~(?!\/|$)/.test(res) || sensitivePart(res, r.claudeDirs) !== null) return false;
      const abs = res === '~' || res.startsWith('~/') ? os.homedir() + res.slice(1) : res;
      return !abs.startsWith('/') || (workspace !== null && isWithin(path.posix.normalize(abs), workspace));
    });
  }
  if (!actionCovers(g.action, part.action)) return false;
  return resourcesCovered(g.resource, part.resources, g.effect, r.claudeDirs);
}

export interface PartsVerdict {
  deny?: Grant;
  /** The allow grants used, when every part is covered by a grant or `policyAllows`. */
  covered?: Grant[];
  uncovered: Part[];
}

/**
 * The first deny grant that reaches some part of a shell command: checked before any allow
 * of the whole request, since deny beats allow. A command-pattern deny (`rm *`, `git push *`)
 * or a deny of a lesser action on one part (`-a read -r '/secret/**'` for `cat /secret/x; rm y`)
 * was never looked at once an allow covered the whole request (blackbox9).
 */
export function partsDeny(grants: readonly Grant[], r: CoreRequest, now: number, taskCwd: string | null = null): Grant | undefined {
  for (const part of r.parts ?? []) {
    const deny = grants.find((g) => g.effect === 'deny' && partCovered(g, r, part, now, taskCwd));
    if (deny) return deny;
  }
  return undefined;
}

/**
 * A path deny that may reach a part whose files cannot be placed (`unlisted`: written after
 * `cd -` or `cd "$X"`, to `~user/…`, or extracted by `tar -x`). Only an allow of anything
 * covers such a part, and under one a deny of `/etc/**` never saw `cd /etc; cd -; echo x > passwd`
 * (blackbox9): with such a deny in scope the request is asked instead.
 */
export function denyMayReach(grants: readonly Grant[], r: CoreRequest, now: number): Grant | undefined {
  const blind = (r.parts ?? []).filter((p) => p.unlisted);
  if (blind.length === 0) return undefined;
  return grants.find((g) => g.effect === 'deny' && isPathPattern(g.resource) && blind.some((p) => actionCovers(g.action, p.action)) && !scopeMiss(g, r, now));
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
  /** An allow grant that missed only on its condition. */
  nearCondition?: Grant;
}

/**
 * Deny beats allow. Among allows, the one with the fewest uses left is spent first.
 * Conditions of deny grants are checked as they come; conditions of allow grants only
 * once no deny matched, best candidate first, until one holds (so a decision runs as few
 * expressions as it can: test/bench/conditions.bench.ts). `certainlyFalse` (from a
 * ConditionIndex) names grants whose condition is known to evaluate to exactly false for
 * `r`: they are not evaluated, and miss on their condition as they would have.
 */
export function evaluateGrants(grants: readonly Grant[], r: CoreRequest, now: number, certainlyFalse?: (g: Grant) => boolean): GrantVerdict {
  const v: GrantVerdict = {};
  const allows: Grant[] = [];
  for (const g of grants) {
    const miss = missBeforeCondition(g, r, now);
    if (miss === null) {
      if (g.effect === 'deny') {
        if (g.when && (certainlyFalse?.(g) || conditionMiss(g, r))) continue;
        v.deny = g;
        return v;
      }
      allows.push(g);
    } else if (miss === 'resource' && g.effect === 'allow' && !v.near) {
      v.near = g;
    }
  }
  // Fewest uses first; stable, so among equal uses the older grant first. Most grants
  // have no use limit: then the order is already right and nothing is sorted.
  if (allows.some((g) => g.usesLeft !== null)) {
    const uses = (g: Grant) => (g.usesLeft === null ? Infinity : g.usesLeft);
    allows.sort((a, b) => uses(a) - uses(b));
  }
  for (const g of allows) {
    if (!(g.when && certainlyFalse?.(g)) && !conditionMiss(g, r)) {
      v.allow = g;
      return v;
    }
    v.nearCondition ??= g;
  }
  return v;
}

export function nearMissText(g: Grant, r: CoreRequest): string {
  const scope = g.task ? 'the task' : 'a grant';
  const outside = r.resources.filter((res) => !globMatches(g.resource, res));
  return `${scope} may ${g.action === '*' ? 'act on' : actionText(g.action)} \`${g.resource}\`; this ${r.action} is to \`${outside.slice(0, 3).join('`, `')}\``;
}

/** "why was I asked" when a grant's condition did not hold. */
export function conditionMissText(g: Grant, r: CoreRequest, words: string): string {
  const o = conditionOutcome(g, r);
  const why = typeof o === 'string' ? `it could not be checked: ${o}` : 'it does not hold for these arguments';
  return `grant ${g.id} allows ${g.tool} only when ${words}; ${why}`;
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

/** The literal text of a pattern before its first special character (as glob.ts reads it). */
const LITERAL_PREFIX = /^[^*?[\]{}()!+@\\"'|,]*/;
/** The first segment of an absolute path: `/work/p1/f` → `work`. */
const FIRST_SEGMENT = /^\/([^/]+)/;
/** The bucket of grants whose action is `*` (no real action is spelled with a NUL). */
const ANY_ACTION = '\0any';
/** The bucket of grants whose resource has no literal first segment: looked at for every request. */
const ANY_SEGMENT = '\0any';

/**
 * The first directory a grant's resource pattern must start with, when the pattern says so
 * literally: `/work/p17/**` → `work`. A match of such a pattern always starts with its
 * literal prefix (glob.ts checks `startsWith` before the regex; the prefix holds `/work/`,
 * so the matched path's first segment is `work`). `/work/**` has no key: its prefix
 * `/work` also starts `/workshop`, and it matches `/work` itself. `~/`, commands, hosts
 * and `**` have no key either.
 */
function resourceKey(glob: string): string {
  if (!glob.startsWith('/')) return ANY_SEGMENT;
  const lit = LITERAL_PREFIX.exec(glob)![0].replace(/\/+$/, '');
  const m = /^\/([^/]+)\//.exec(lit);
  return m ? m[1]! : ANY_SEGMENT;
}

/**
 * Grants of one tool list bucketed by what is exact in them: the action and the literal
 * first directory of the resource. `lookup` returns, in the list's own order, every grant
 * that could pass the action and resource checks; the rest could only miss, so their
 * globs never run. Each grant is in one bucket per action it names.
 */
class Buckets {
  private readonly map = new Map<string, { ord: number; g: Grant }[]>();
  private readonly cache = new Map<string, Grant[]>();

  constructor(list: readonly Grant[]) {
    list.forEach((g, ord) => {
      const seg = resourceKey(g.resource);
      const actions = g.action === '*' ? [ANY_ACTION] : [...new Set(Array.isArray(g.action) ? g.action : [g.action])];
      for (const a of actions) {
        const k = `${a}\n${seg}`;
        const b = this.map.get(k);
        if (b) b.push({ ord, g });
        else this.map.set(k, [{ ord, g }]);
      }
    });
  }

  lookup(action: string, resources: readonly string[]): Grant[] {
    const segs = new Set<string>([ANY_SEGMENT]);
    // A deny is matched against a resource's other spellings too (`//etc/x`, `/tmp/../etc/x`,
    // `~/x`: otherSpellings), so their first directories are looked up as well.
    for (const res of resources) {
      for (const x of [res, ...otherSpellings(res)]) {
        const m = FIRST_SEGMENT.exec(x);
        if (m) segs.add(m[1]!);
      }
    }
    // JSON, not a joined string: a segment may hold any character (`/a\nb/x`), and two
    // requests whose keys collided would share a candidate list, hiding a deny from one.
    const ck = JSON.stringify([action, ...segs]);
    const hit = this.cache.get(ck);
    if (hit) return hit;
    const found: { ord: number; g: Grant }[][] = [];
    for (const a of action === ANY_ACTION ? [action] : [action, ANY_ACTION]) {
      for (const s of segs) {
        const b = this.map.get(`${a}\n${s}`);
        if (b) found.push(b);
      }
    }
    // One bucket is already in order; several are merged back into the list's order.
    const out = found.length === 1 ? found[0]!.map((x) => x.g) : found.flat().sort((x, y) => x.ord - y.ord).map((x) => x.g);
    // Bounded: keys come from requests (agent input); a full cache is dropped, not grown.
    if (this.cache.size >= 1_000) this.cache.clear();
    this.cache.set(ck, out);
    return out;
  }
}

/**
 * Grants grouped by tool, so a decision looks only at the grants that can name its tool:
 * the ones for exactly that tool and the ones whose tool is a pattern. Within those,
 * `evaluate` runs the globs only of grants whose action and literal first directory fit
 * the request (Buckets), which keeps a decision flat from 10 to 10,000 grants
 * (test/bench/growth.bench.ts). Its answers are exactly `evaluateGrants(forTool(tool))`'s
 * (test/unit/grant-index.test.ts compares them on random grants and requests).
 */
export class GrantIndex {
  private readonly byTool = new Map<string, Grant[]>();
  private readonly patternTools: Grant[] = [];
  private readonly buckets = new Map<string, Buckets>();
  private patternBuckets: Buckets | null = null;
  /** Per candidate list (keyed by its two cached halves): the list and its condition index. */
  private readonly entries = new WeakMap<Grant[], WeakMap<Grant[], Candidates>>();

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

  /** The grants of `forTool(r.tool)`, in its order, that could pass the action and resource checks. */
  candidates(r: CoreRequest): Grant[] {
    return this.entry(r).list;
  }

  private entry(r: CoreRequest): Candidates {
    const exact = this.byTool.get(r.tool);
    let b = exact ? this.buckets.get(r.tool) : undefined;
    if (exact && !b) {
      b = new Buckets(exact);
      this.buckets.set(r.tool, b);
    }
    this.patternBuckets ??= new Buckets(this.patternTools);
    const fromPattern = this.patternBuckets.lookup(r.action, r.resources);
    const own = b ? b.lookup(r.action, r.resources) : NO_GRANTS;
    let byPattern = this.entries.get(own);
    if (!byPattern) this.entries.set(own, (byPattern = new WeakMap()));
    let e = byPattern.get(fromPattern);
    if (!e) byPattern.set(fromPattern, (e = new Candidates(own.length ? own.concat(fromPattern) : fromPattern)));
    return e;
  }

  /**
   * For the conditions of `r`'s candidates: which are certainly false (ConditionIndex), or
   * undefined when every condition is to be evaluated (few of them, or arguments that
   * cannot be checked, whose error must reach each grant: a deny that cannot be checked denies).
   */
  private certainlyFalse(e: Candidates, r: CoreRequest): ((g: Grant) => boolean) | undefined {
    const index = e.conditions();
    if (!index) return undefined;
    const input = conditionInput(r);
    return 'error' in input || hasPathForms(input) ? undefined : index.certainlyFalse(input.input);
  }

  /**
   * `evaluateGrants(this.forTool(r.tool), r, now)`, running only the candidates' checks.
   * The near miss (an allow that missed only on its resource) is looked for in the whole
   * list, and only when neither a deny nor an allow decided: it is what a prompt shows,
   * and a decided request shows none.
   */
  evaluate(r: CoreRequest, now: number): GrantVerdict {
    const e = this.entry(r);
    const v = evaluateGrants(e.list, r, now, this.certainlyFalse(e, r));
    delete v.near;
    if (v.deny || v.allow) return v;
    const near = this.forTool(r.tool).find((g) => g.effect === 'allow' && missBeforeCondition(g, r, now) === 'resource');
    if (near) v.near = near;
    return v;
  }
}

const NO_GRANTS: Grant[] = [];

/** One candidate list, and the index of its conditions (built on first use, when worth it). */
class Candidates {
  private index: ConditionIndex | null | undefined;

  constructor(readonly list: Grant[]) {}

  conditions(): ConditionIndex | null {
    if (this.index === undefined) {
      let n = 0;
      for (const g of this.list) if (g.when) n++;
      const index = n >= CONDITION_INDEX_MIN ? new ConditionIndex(this.list) : null;
      this.index = index && index.size >= CONDITION_INDEX_MIN ? index : null;
    }
    return this.index;
  }
}
