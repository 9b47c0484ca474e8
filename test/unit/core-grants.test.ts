import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Grant } from '../../main/contract/approver';
import { evaluateGrants, evaluateParts, exactResourcePattern, grantMiss, nearMissText, partCovered } from '../../main/core/grants';
import type { CoreRequest } from '../../main/core/request';
import { globMatches } from '../../main/core/glob';

const NOW = 1_800_000_000_000;

function req(p: Partial<CoreRequest> = {}): CoreRequest {
  const resources = p.resources ?? (p.resource ? [p.resource] : ['/repo/src/a.ts']);
  return {
    source: 'claude-code', tool: 'Write', action: 'write', resource: resources[0] ?? null, resources, summary: 'x',
    argsText: null, args: undefined, task: 't_1', cwd: '/repo', classifierRisk: [], ...p,
  };
}
function grant(p: Partial<Grant> = {}): Grant {
  return {
    id: 'g_1', task: 't_1', source: '*', tool: '*', action: 'write', resource: '/repo/src/**', key: null, effect: 'allow',
    expiresAt: null, usesLeft: null, forwarded: false, note: null, createdAt: NOW - 1000, createdBy: 'human', revokedAt: null,
    lastUsedAt: null, ...p,
  };
}

const cases: { name: string; g: Partial<Grant>; r: Partial<CoreRequest>; miss: ReturnType<typeof grantMiss> }[] = [
  { name: 'matches its own task, tool, action and a path under the glob', g: {}, r: {}, miss: null },
  { name: 'another task does not match', g: {}, r: { task: 't_2' }, miss: 'task' },
  { name: 'a request without a task does not match a task grant', g: {}, r: { task: null }, miss: 'task' },
  { name: 'a grant with no task matches any task', g: { task: null }, r: { task: 't_9' }, miss: null },
  { name: 'other action', g: {}, r: { action: 'delete' }, miss: 'action' },
  { name: 'action * matches any action', g: { action: '*' }, r: { action: 'delete' }, miss: null },
  { name: 'path outside the glob', g: {}, r: { resources: ['/repo/scripts/x.sh'] }, miss: 'resource' },
  { name: '* in a path glob stays within one directory', g: { resource: '/repo/src/*' }, r: { resources: ['/repo/src/deep/a.ts'] }, miss: 'resource' },
  { name: '** crosses directories', g: { resource: '/repo/**' }, r: { resources: ['/repo/src/deep/a.ts'] }, miss: null },
  { name: 'dotfiles are matched by ** (no hidden exceptions)', g: { resource: '/repo/**' }, r: { resources: ['/repo/.eslintrc.json'] }, miss: null },
  { name: 'a wildcard never reaches secrets: /repo/** does not cover .env', g: { resource: '/repo/**' }, r: { resources: ['/repo/.env'] }, miss: 'resource' },
  { name: 'a wildcard never reaches git hooks', g: { resource: '/repo/**' }, r: { resources: ['/repo/.git/hooks/pre-commit'] }, miss: 'resource' },
  { name: 'red team, fifth wave: a wildcard never reaches .yarnrc.yml', g: { resource: '/repo/**' }, r: { resources: ['/repo/.yarnrc.yml'] }, miss: 'resource' },
  { name: 'red team, fifth wave: a wildcard never reaches .git/commondir', g: { resource: '/repo/**' }, r: { resources: ['/repo/.git/commondir'] }, miss: 'resource' },
  { name: 'red team, fifth wave: a wildcard never reaches .claude/settings.local.json', g: { resource: '/repo/**' }, r: { resources: ['/repo/.claude/settings.local.json'] }, miss: 'resource' },
  { name: 'a pattern that names the hooks dir covers it', g: { resource: '/repo/.git/hooks/*' }, r: { resources: ['/repo/.git/hooks/pre-commit'] }, miss: null },
  { name: 'an exact sensitive path covers itself', g: { resource: '/repo/.env' }, r: { resources: ['/repo/.env'] }, miss: null },
  { name: 'a deny wildcard does reach secrets', g: { resource: '/repo/**', effect: 'deny' }, r: { resources: ['/repo/.env'] }, miss: null },
  { name: '** (any) still does not reach package.json', g: { resource: '**' }, r: { resources: ['/repo/package.json'] }, miss: 'resource' },
  { name: 'every resource must be covered', g: {}, r: { resources: ['/repo/src/a.ts', '/etc/passwd'] }, miss: 'resource' },
  { name: 'a deny reaches a request through any one of its resources (a link and its real target)', g: { resource: '/repo/.git/**', effect: 'deny' }, r: { resources: ['/repo/src/h/pre-commit', '/repo/.git/hooks/pre-commit'] }, miss: null },
  { name: 'a deny that reaches none of the resources does not match', g: { resource: '/repo/.git/**', effect: 'deny' }, r: { resources: ['/repo/src/a.ts', '/repo/src/b.ts'] }, miss: 'resource' },
  { name: 'a request with no resource needs a ** grant', g: {}, r: { resources: [] }, miss: 'resource' },
  { name: '** matches a request with no resource', g: { resource: '**' }, r: { resources: [] }, miss: null },
  { name: 'command globs: * spans slashes', g: { tool: 'Bash', action: 'execute', resource: 'npm run test *' }, r: { tool: 'Bash', action: 'execute', resources: ['npm run test src/a.test.ts'] }, miss: null },
  { name: 'command globs do not match other commands', g: { tool: 'Bash', action: 'execute', resource: 'npm run test *' }, r: { tool: 'Bash', action: 'execute', resources: ['npm run build'] }, miss: 'resource' },
  { name: 'tool glob', g: { tool: 'fs/*' }, r: { tool: 'fs/write_file' }, miss: null },
  { name: 'tool glob mismatch', g: { tool: 'Edit' }, r: { tool: 'Write' }, miss: 'tool' },
  { name: 'source glob mismatch', g: { source: 'mcp' }, r: {}, miss: 'source' },
  { name: 'expired', g: { expiresAt: NOW - 1 }, r: {}, miss: 'expired' },
  { name: 'not yet expired', g: { expiresAt: NOW + 1 }, r: {}, miss: null },
  { name: 'used up', g: { usesLeft: 0 }, r: {}, miss: 'used-up' },
  { name: 'one use left still matches', g: { usesLeft: 1 }, r: {}, miss: null },
  { name: 'revoked', g: { revokedAt: NOW - 5 }, r: {}, miss: 'revoked' },
  { name: 'key must match', g: { key: 'SHA256:aaa', action: 'sign', resource: '**' }, r: { action: 'sign', ssh: { key: 'k', fingerprint: 'SHA256:bbb', purpose: 'login', forwarded: false } }, miss: 'key' },
  { name: 'key matches', g: { key: 'SHA256:aaa', action: 'sign', resource: '**' }, r: { action: 'sign', ssh: { key: 'k', fingerprint: 'SHA256:aaa', purpose: 'login', forwarded: false } }, miss: null },
  { name: 'forwarded requests need a forwarding grant', g: { action: 'sign', resource: '**' }, r: { action: 'sign', ssh: { key: 'k', fingerprint: 'SHA256:a', purpose: 'login', forwarded: true } }, miss: 'forwarded' },
  { name: 'forwarding grant matches forwarded', g: { action: 'sign', resource: '**', forwarded: true }, r: { action: 'sign', ssh: { key: 'k', fingerprint: 'SHA256:a', purpose: 'login', forwarded: true } }, miss: null },
  { name: 'user@host globs', g: { action: 'sign', resource: 'git@github.com' }, r: { action: 'sign', resources: ['git@github.com'] }, miss: null },
];

for (const c of cases) {
  test(`grant matching: ${c.name}`, () => {
    assert.equal(grantMiss(grant(c.g), req(c.r), NOW), c.miss);
  });
}

test('deny beats allow, whatever the order', () => {
  const allow = grant({ id: 'g_a' });
  const deny = grant({ id: 'g_d', effect: 'deny', resource: '/repo/**' });
  assert.equal(evaluateGrants([allow, deny], req(), NOW).deny?.id, 'g_d');
  assert.equal(evaluateGrants([deny, allow], req(), NOW).deny?.id, 'g_d');
  assert.equal(evaluateGrants([deny, allow], req(), NOW).allow, undefined);
});

test('the allow grant with the fewest uses left is spent first', () => {
  const unlimited = grant({ id: 'g_u' });
  const two = grant({ id: 'g_2', usesLeft: 2 });
  const one = grant({ id: 'g_1u', usesLeft: 1 });
  assert.equal(evaluateGrants([unlimited, two, one], req(), NOW).allow?.id, 'g_1u');
});

test('a near miss explains why no grant matched', () => {
  const v = evaluateGrants([grant()], req({ resources: ['/repo/scripts/x.sh'] }), NOW);
  assert.equal(v.allow, undefined);
  assert.ok(v.near);
  assert.equal(nearMissText(v.near!, req({ resources: ['/repo/scripts/x.sh'] })), 'the task may write `/repo/src/**`; this write is to `/repo/scripts/x.sh`');
});

test('exact patterns match only their resources, even with glob characters in them', () => {
  const weird = '/repo/a*[b]{c,d}?.ts';
  const pat = exactResourcePattern([weird]);
  assert.ok(globMatches(pat, weird));
  assert.ok(!globMatches(pat, '/repo/aXX[b]{c,d}?.ts'));
  assert.ok(!globMatches(pat, '/repo/ab.ts'));
  const two = exactResourcePattern(['/a/x', '/b/y,z']);
  assert.ok(globMatches(two, '/a/x') && globMatches(two, '/b/y,z'));
  assert.ok(!globMatches(two, '/b/y'));
  assert.equal(exactResourcePattern([]), '**');
});

test('exact patterns survive quotes, $(), backticks, braces and commas (single and several)', () => {
  const nasty = ['git commit -m "fix, x*"', "echo 'a b' $(id) `w` ; ls | x && y", 'a\\b', '/repo/a*[b]{c,d}?.ts', 'x ~/y #z %1 ^! +(a) @(b) !(c)', 'ünïcödé ✓', 'a,b', '{}'];
  for (const s of nasty) {
    const p = exactResourcePattern([s]);
    assert.ok(globMatches(p, s), `${s} via ${p}`);
    for (const other of [s + 'x', 'x' + s, s.slice(1)]) assert.ok(!globMatches(p, other), `${p} must not match ${other}`);
  }
  const all = exactResourcePattern(nasty);
  for (const s of nasty) assert.ok(globMatches(all, s), s);
  assert.ok(!globMatches(all, 'git commit -m "fix, y"'));
});

test('shell parts: a command pattern covers the command inside the task, never outside or sensitive', () => {
  const g = grant({ tool: 'Bash', action: 'execute', resource: '{echo,echo *}' });
  const part = (command: string, resources: string[]) => ({ command, action: 'write' as const, resources });
  const r = req({ tool: 'Bash', action: 'write' });
  assert.equal(partCovered(g, r, part('echo hi > out.txt', ['/repo/out.txt']), NOW, '/repo'), true);
  assert.equal(partCovered(g, r, part('echo hi > /etc/motd', ['/etc/motd']), NOW, '/repo'), false, 'outside the task');
  assert.equal(partCovered(g, r, part('echo hi >> .bashrc', ['/repo/.bashrc']), NOW, '/repo'), false, 'a shell rc file');
  assert.equal(partCovered(g, r, part('printf hi > out.txt', ['/repo/out.txt']), NOW, '/repo'), false, 'another command');
  assert.equal(partCovered(g, r, part('echo hi > out.txt', ['/repo/out.txt']), NOW, null), false, 'no task cwd: no file writes');
});

test('shell parts: every part must be covered; a denied part denies the command', () => {
  const allowTests = grant({ id: 'g_t', tool: 'Bash', action: 'execute', resource: '{npm test,npm test *}' });
  const denyPush = grant({ id: 'g_p', tool: 'Bash', action: 'transfer', resource: '{git push,git push *}', effect: 'deny' });
  const parts = [
    { command: 'npm test', action: 'execute' as const, resources: ['/repo'] },
    { command: 'git push origin main', action: 'transfer' as const, resources: ['remote:origin'] },
  ];
  const r = req({ tool: 'Bash', action: 'transfer', resources: ['/repo', 'remote:origin'], parts });
  const readsOnly = (a: string) => a === 'read';
  assert.equal(evaluateParts([allowTests, denyPush], r, NOW, readsOnly, '/repo').deny?.id, 'g_p');
  const v = evaluateParts([allowTests], r, NOW, readsOnly, '/repo');
  assert.equal(v.covered, undefined);
  assert.deepEqual(v.uncovered.map((p) => p.command), ['git push origin main']);
  const onlyTests = req({ tool: 'Bash', action: 'execute', resources: ['/repo'], parts: [parts[0]!, { command: 'tail -5', action: 'read', resources: [] }] });
  assert.deepEqual(evaluateParts([allowTests], onlyTests, NOW, readsOnly, '/repo').covered?.map((g) => g.id), ['g_t']);
});
