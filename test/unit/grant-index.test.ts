// The grant index (GrantIndex.evaluate) against the plain linear matcher
// (evaluateGrants over every grant that can name the tool): random grants × random
// requests with a fixed seed, and the answers must be identical: the same deny, the same
// allow, the same condition near miss, and, when nothing decided, the same resource near
// miss. Pattern and path pools are chosen to sit on the index's edges: `/work` vs
// `/work/**` vs `/workshop/*`, `~/`, braces, `?`, `//work`, relative paths, commands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Grant } from '../../main/contract/approver';
import { evaluateGrants, GrantIndex, type GrantVerdict } from '../../main/core/grants';
import type { CoreRequest } from '../../main/core/request';
import type { Action } from '../../main/contract/common';
import { pick, rng } from '../helpers/seeded-random';

const NOW = 1_800_000_000_000;

const ACTIONS: Action[] = ['read', 'write', 'delete', 'execute', 'network', 'sign'] as Action[];
const TOOLS = ['Write', 'Bash', 'fs/write_file', 'fs/read'];
const GRANT_TOOLS = [...TOOLS, '*', 'fs/*', '{Write,Bash}'];
const PATTERNS = [
  '**', '*', '/work/**', '/work/p1/**', '/work/p2/*', '/work/p1/f', '/work', '/workshop/*', '/work/p?/f', '/w{a,o}rk/p1/**',
  '/{work,repo}/**', '/repo/src/**', '/repo/.env', '/repo/**', '/repo/.git/hooks/*', '~/x/**', '//work/**', 'work/**',
  'npm run t1 *', 'git@github.com', '/bench/**', '/work/p1/', '/work//p1/**', '/wörk/a/**', '/.ssh/x/*',
];
const PATHS = [
  '/work', '/work/', '/work/p1', '/work/p1/f', '/work/p2/g', '/work/p3/f', '/workshop/a', '/repo/.env', '/repo/src/a.ts',
  '/repo/.git/hooks/pre-commit', '/bench/1/f', '//work/p1/f', 'work/p1/f', '', '/', 'npm run t1 x', 'git@github.com',
  '/wörk/a/b', '/work//p1/f', '/.ssh/x/id',
];
const WHEN = [undefined, undefined, undefined, 'args.n > 1', 'args.m == "x"'];

function randomGrant(r: () => number, i: number): Grant {
  const roll = r();
  const action = roll < 0.2 ? '*' : roll < 0.35 ? [pick(r, ACTIONS), pick(r, ACTIONS)] : pick(r, ACTIONS);
  const when = pick(r, WHEN);
  return {
    id: `g_${i}`, task: r() < 0.3 ? pick(r, ['t_1', 't_2']) : null, source: pick(r, ['*', '*', 'claude-code', 'mcp']),
    tool: pick(r, GRANT_TOOLS), action: action as Grant['action'], resource: pick(r, PATTERNS), key: null,
    effect: r() < 0.3 ? 'deny' : 'allow', expiresAt: r() < 0.1 ? NOW - 1 : r() < 0.1 ? NOW + 1 : null,
    usesLeft: r() < 0.2 ? Math.floor(r() * 3) : null, forwarded: false, note: null, createdAt: NOW - 1000, createdBy: 'human',
    revokedAt: r() < 0.05 ? NOW - 5 : null, lastUsedAt: null, remote: r() < 0.1 ? 'box' : null, ...(when ? { when } : {}),
  };
}

function randomRequest(r: () => number): CoreRequest {
  const n = Math.floor(r() * 3);
  const resources = Array.from({ length: n }, () => pick(r, PATHS));
  return {
    source: pick(r, ['claude-code', 'mcp', 'api']), tool: pick(r, TOOLS), action: pick(r, ACTIONS), resource: resources[0] ?? null,
    resources, summary: 'x', argsText: null, args: r() < 0.5 ? { n: Math.floor(r() * 3), m: pick(r, ['x', 'y']) } : { other: 1 },
    task: pick(r, ['t_1', 't_2', null]), cwd: '/work', classifierRisk: [], ...(r() < 0.1 ? { remote: { name: 'box', via: 'ssh' } } : {}),
  } as CoreRequest;
}

const ids = (v: GrantVerdict) => ({ deny: v.deny?.id, allow: v.allow?.id, near: v.deny || v.allow ? undefined : v.near?.id, nearCondition: v.nearCondition?.id });

test('the grant index gives the linear matcher\'s answer on 300 random grant sets × 60 requests (fixed seed)', () => {
  const r = rng(0x5eed15);
  let decided = 0;
  let nearMisses = 0;
  for (let set = 0; set < 300; set++) {
    const grants = Array.from({ length: 1 + Math.floor(r() * 40) }, (_, i) => randomGrant(r, i));
    const index = new GrantIndex(grants);
    for (let q = 0; q < 60; q++) {
      const req = randomRequest(r);
      const linear = ids(evaluateGrants(index.forTool(req.tool), req, NOW));
      const indexed = ids(index.evaluate(req, NOW));
      assert.deepEqual(indexed, linear, `set ${set} request ${q}: ${JSON.stringify(req.resources)} ${req.action} ${req.tool}`);
      if (linear.deny || linear.allow) decided++;
      if (linear.near) nearMisses++;
    }
  }
  // The pools must exercise every outcome, or the comparison proves little.
  assert.ok(decided > 1000, `only ${decided} decided`);
  assert.ok(nearMisses > 200, `only ${nearMisses} near misses`);
});

test('the index skips grants whose literal directory or action cannot match (their globs never run)', () => {
  const fill = Array.from({ length: 50 }, (_, i): Grant => ({
    id: `g_${i}`, task: null, source: '*', tool: '*', action: 'write', resource: `/work/p${i}/**`, key: null, effect: 'allow',
    expiresAt: null, usesLeft: null, forwarded: false, note: null, createdAt: NOW, createdBy: 'human', revokedAt: null, lastUsedAt: null,
  }));
  const wanted: Grant = { ...fill[0]!, id: 'g_bench', resource: '/bench/**' };
  const index = new GrantIndex([...fill, wanted, { ...fill[0]!, id: 'g_any', resource: '**', action: 'read' }]);
  const req = randomRequest(rng(1));
  const bench = { ...req, tool: 'Write', action: 'write' as Action, resources: ['/bench/1/f'], resource: '/bench/1/f' };
  assert.deepEqual(index.candidates(bench).map((g) => g.id), ['g_bench']);
  assert.equal(index.evaluate(bench, NOW).allow?.id, 'g_bench');
  // `/bench/**` has no key (its prefix `/bench` is not a whole directory), so it is looked at
  // for every request; a request under /work sees the 50 /work grants too.
  assert.equal(index.candidates({ ...bench, resources: ['/work/p7/x'] }).length, 51);
});

test('a directory name holding a newline does not share a cached candidate list with two other directories', () => {
  const base: Grant = {
    id: 'g_deny', task: null, source: '*', tool: '*', action: 'write', resource: '/a/x/**', key: null, effect: 'deny',
    expiresAt: null, usesLeft: null, forwarded: false, note: null, createdAt: NOW, createdBy: 'human', revokedAt: null, lastUsedAt: null,
  };
  const allow: Grant = { ...base, id: 'g_allow', resource: '**', effect: 'allow' };
  const index = new GrantIndex([base, allow]);
  const req = randomRequest(rng(2));
  const r1 = { ...req, tool: 'Write', action: 'write' as Action, resources: ['/a\nb/x/f'], resource: '/a\nb/x/f' };
  assert.equal(index.evaluate(r1, NOW).deny, undefined);
  // Same action; the segments `a` and `b` joined with a newline spell the first request's one.
  const r2 = { ...r1, resources: ['/a/x/f', '/b/y'], resource: '/a/x/f' };
  assert.equal(index.evaluate(r2, NOW).deny?.id, 'g_deny');
  assert.deepEqual(index.evaluate(r2, NOW), evaluateGrants(index.forTool('Write'), r2, NOW));
});
