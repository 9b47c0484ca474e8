// A grant condition about a path, against an agent that spells the path another way:
// `/repo/../etc`, `/repo//x`, `~/.ssh` for `/home/me/.ssh` and back. An allow must hold for
// the path as written and as it resolves; a deny holds for any spelling.
// main/core/condition-paths.ts, grants.ts (conditionOutcome).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import type { Grant } from '../../main/contract/approver';
import { argsInPathForm, pathForm } from '../../main/core/condition-paths';
import { evaluateGrants, GrantIndex, grantMiss, resourcesCovered } from '../../main/core/grants';
import type { CoreRequest } from '../../main/core/request';

const HOME = os.homedir();

function grant(p: Partial<Grant>): Grant {
  return {
    id: 'g_1', task: null, source: '*', tool: '*', action: '*', resource: '**', key: null, effect: 'allow', expiresAt: null, usesLeft: null,
    forwarded: false, note: null, createdAt: 0, createdBy: 'test', revokedAt: null, lastUsedAt: null, when: null, ...p,
  };
}

function mcpReq(args: unknown): CoreRequest {
  return {
    source: 'mcp', tool: 'fs/write_file', action: 'write', resource: null, resources: [], summary: 's', argsText: null,
    args: { arguments: args, annotations: {} }, task: null, cwd: null, classifierRisk: [],
  };
}

describe('path forms', () => {
  const rows: [string, string | null, string | null, string | null][] = [
    // input, plain, absolute, tilde
    ['/repo/x', null, null, null],
    ['/repo/../etc/passwd', '/etc/passwd', '/etc/passwd', '/etc/passwd'],
    ['/repo/./x', '/repo/x', '/repo/x', '/repo/x'],
    ['/repo//x', '/repo/x', '/repo/x', '/repo/x'],
    ['~/notes.txt', null, `${HOME}/notes.txt`, null],
    ['~/a/../.ssh/id', '~/.ssh/id', `${HOME}/.ssh/id`, '~/.ssh/id'],
    ['~/../../etc/passwd', '/etc/passwd', '/etc/passwd', '/etc/passwd'],
    [`${HOME}/.ssh/id`, null, null, '~/.ssh/id'],
    ['src/../../etc', '../etc', '../etc', '../etc'],
    ['https://example.com//a/b', null, null, null],
    ['https://example.com/a?next=../b', null, null, null],
    ['https://example.com//a/../b', 'https://example.com//b', 'https://example.com//b', 'https://example.com//b'],
    ['https://api.x/repos/me/%2e%2E/other', 'https://api.x/repos/other', 'https://api.x/repos/other', 'https://api.x/repos/other'],
    ['https://api.x/repos/me\\..\\other', 'https://api.x/repos/other', 'https://api.x/repos/other', 'https://api.x/repos/other'],
    ['https://api.x/repos/me/.\t./other', 'https://api.x/repos/other', 'https://api.x/repos/other', 'https://api.x/repos/other'],
    ['file:///repo/x', null, null, null],
    ['file:///repo/../etc/passwd', 'file:///etc/passwd', 'file:///etc/passwd', 'file:///etc/passwd'],
    ['FILE://localhost/repo/%2e%2e/etc/passwd', 'file:///etc/passwd', 'file:///etc/passwd', 'file:///etc/passwd'],
    ['file:///repo/%2', null, null, null],
    ['two words ../x', null, null, null],
    ['/repo/../my docs/x', '/my docs/x', '/my docs/x', '/my docs/x'],
    ['../a b', null, null, null],
    ['./x/../a b', 'a b', 'a b', 'a b'],
    ['', null, null, null],
  ];
  for (const [s, plain, abs, tilde] of rows) {
    test(`${JSON.stringify(s)} → ${plain} / ${abs} / ${tilde}`, () => {
      assert.equal(pathForm(s, 'plain'), plain);
      assert.equal(pathForm(s, 'absolute'), abs);
      assert.equal(pathForm(s, 'tilde'), tilde);
    });
  }

  test('arguments: nested strings change, nothing else; unchanged arguments give null', () => {
    assert.deepEqual(argsInPathForm({ path: '/a/../b', n: 1, list: ['x', '/c/./d'], o: { p: 'y' } }, 'plain'), { path: '/b', n: 1, list: ['x', '/c/d'], o: { p: 'y' } });
    assert.equal(argsInPathForm({ path: '/a/b', n: 1 }, 'plain'), null);
    const proto = JSON.parse('{"__proto__": "/a/../b"}') as unknown;
    const out = argsInPathForm(proto, 'plain') as Record<string, unknown>;
    assert.equal(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, '/b', '__proto__ stays an own key');
  });
});

describe('conditions on paths spelled another way', () => {
  test('allow args.path.startsWith("/repo/"): /repo/../ leaves it, so it does not hold; /repo/./x and /repo//x do', () => {
    const g = grant({ tool: 'fs/write_file', action: 'write', when: 'args.path.startsWith("/repo/")' });
    assert.equal(grantMiss(g, mcpReq({ path: '/repo/src/a.ts' }), 0), null);
    assert.equal(grantMiss(g, mcpReq({ path: `/repo/../${HOME}/.ssh/authorized_keys` }), 0), 'condition');
    assert.equal(grantMiss(g, mcpReq({ path: '/repo/src/../../etc/cron.d/x' }), 0), 'condition');
    assert.equal(grantMiss(g, mcpReq({ path: '/repo/../etc/cron.d/a b' }), 0), 'condition', 'a space in the path changes nothing');
    assert.equal(grantMiss(g, mcpReq({ path: '/repo/./src/a.ts' }), 0), null);
    assert.equal(grantMiss(g, mcpReq({ path: '/repo//src/a.ts' }), 0), null);
  });

  test('allow args.uri.startsWith("file:///repo/"): file:///repo/%2e%2e/… and /../ leave it, so it does not hold', () => {
    const g = grant({ tool: 'fs/*', action: 'write', when: 'args.uri.startsWith("file:///repo/")' });
    assert.equal(grantMiss(g, mcpReq({ uri: 'file:///repo/a.txt' }), 0), null);
    assert.equal(grantMiss(g, mcpReq({ uri: 'file:///repo/%2e%2e/etc/shadow' }), 0), 'condition');
    assert.equal(grantMiss(g, mcpReq({ uri: 'file:///repo/../etc/shadow' }), 0), 'condition');
  });

  test('allow args.url.startsWith("https://api.x/repos/me/"): /../, %2e%2e, backslashes or a tab between the dots leave it as a client sends it, so it does not hold', () => {
    const g = grant({ tool: 'fetch/*', action: 'write', when: 'args.url.startsWith("https://api.x/repos/me/")' });
    const fetchReq = (url: string): CoreRequest => ({ ...mcpReq({ url }), tool: 'fetch/fetch' });
    assert.equal(grantMiss(g, fetchReq('https://api.x/repos/me/issues'), 0), null);
    assert.equal(grantMiss(g, fetchReq('https://api.x/repos/me//issues?x=../y'), 0), null);
    for (const url of ['https://api.x/repos/me/../other/settings', 'https://api.x/repos/me/%2e%2e/other/settings', 'https://api.x/repos/me/.%2E/other', 'https://api.x/repos/me\\..\\other', 'https://api.x/repos/me/.\t./other']) {
      assert.equal(new URL(url).href.startsWith('https://api.x/repos/me/'), false, `a client asks for ${new URL(url).href}`);
      assert.equal(grantMiss(g, fetchReq(url), 0), 'condition', url);
    }
    // A deny on another repository's settings is not missed by a spelling that reaches them.
    const deny = grant({ tool: 'fetch/*', action: 'write', effect: 'deny', when: 'args.url.startsWith("https://api.x/repos/other/")' });
    assert.equal(grantMiss(deny, fetchReq('https://api.x/repos/me/%2e%2e/other/settings'), 0), null);
  });

  test('deny args.path.startsWith("/etc/") or contains("/.ssh/"): a relative path that reaches them from the cwd the server runs in is denied; an allow on a relative path still does not hold', () => {
    const inCwd = (cwd: string, args: unknown): CoreRequest => ({ ...mcpReq(args), cwd });
    const etc = grant({ tool: 'fs/*', action: 'write', effect: 'deny', when: 'args.path.startsWith("/etc/")' });
    assert.equal(grantMiss(etc, inCwd('/srv/app', { path: '../../etc/cron.d/x' }), 0), null);
    assert.equal(grantMiss(etc, inCwd('/', { path: 'etc/cron.d/x' }), 0), null);
    assert.equal(grantMiss(etc, inCwd('/srv/app', { path: 'src/a.ts' }), 0), 'condition');
    const ssh = grant({ tool: 'fs/*', action: 'write', effect: 'deny', when: 'args.path.contains("/.ssh/")' });
    assert.equal(grantMiss(ssh, inCwd(HOME, { path: '.ssh/authorized_keys' }), 0), null);
    assert.equal(grantMiss(ssh, inCwd(HOME, { path: 'notes .ssh/x' }), 0), 'condition');
    // Under allow ** and that deny, the write is denied (it was allowed).
    const verdict = evaluateGrants([grant({ tool: 'fs/*', action: 'write' }), { ...ssh, id: 'g_2' }], inCwd(HOME, { path: '.ssh/authorized_keys' }), 0);
    assert.equal(verdict.deny?.id, 'g_2', JSON.stringify(verdict));
    const allow = grant({ tool: 'fs/*', action: 'write', when: 'args.path.startsWith("/srv/app/")' });
    assert.equal(grantMiss(allow, inCwd('/srv/app', { path: 'src/a.ts' }), 0), 'condition');
  });

  test('allow args.path.startsWith("~/work/"): a ~ path that resolves out of it does not hold', () => {
    const g = grant({ tool: 'fs/write_file', action: 'write', when: 'args.path.startsWith("~/work/")' });
    assert.equal(grantMiss(g, mcpReq({ path: '~/work/a.txt' }), 0), null, 'an honest ~ path still matches a ~ condition');
    assert.equal(grantMiss(g, mcpReq({ path: '~/work/../.ssh/authorized_keys' }), 0), 'condition');
  });

  test('deny on the home directory spelled out stops ~ and .. spellings, and the other way round', () => {
    const allowAll = grant({ id: 'g_all', tool: 'fs/*', action: 'write' });
    const denyAbs = grant({ id: 'g_deny', tool: 'fs/*', action: 'write', effect: 'deny', when: `args.path.startsWith("${HOME}/.ssh/")` });
    const denyTilde = grant({ id: 'g_deny_t', tool: 'fs/*', action: 'write', effect: 'deny', when: 'args.path.startsWith("~/.ssh/")' });
    for (const p of ['~/.ssh/authorized_keys', `/tmp/..${HOME}/.ssh/authorized_keys`, `${HOME}//.ssh/authorized_keys`, `${HOME}/x/../.ssh/authorized_keys`, '~/x/../.ssh/authorized_keys']) {
      assert.equal(evaluateGrants([allowAll, denyAbs], mcpReq({ path: p }), 0).deny?.id, 'g_deny', p);
      assert.equal(evaluateGrants([allowAll, denyTilde], mcpReq({ path: p }), 0).deny?.id, 'g_deny_t', p);
    }
    assert.equal(evaluateGrants([allowAll, denyTilde], mcpReq({ path: `${HOME}/.ssh/config` }), 0).deny?.id, 'g_deny_t');
    assert.equal(evaluateGrants([allowAll, denyAbs, denyTilde], mcpReq({ path: '~/notes/a.txt' }), 0).allow?.id, 'g_all', 'other paths are still allowed');
  });

  test('the condition index (many grants) does not skip a deny whose literal matches only the resolved path', () => {
    const fill = Array.from({ length: 20 }, (_, i) => grant({ id: `g_f${i}`, tool: 'fs/*', action: 'write', when: `args.path == "/srv/p${i}"` }));
    const deny = grant({ id: 'g_deny', tool: 'fs/*', action: 'write', effect: 'deny', when: 'args.path == "/etc/shadow"' });
    const allowAll = grant({ id: 'g_all', tool: 'fs/*', action: 'write' });
    const index = new GrantIndex([...fill, deny, allowAll]);
    assert.equal(index.evaluate(mcpReq({ path: '/etc/shadow' }), 0).deny?.id, 'g_deny');
    assert.equal(index.evaluate(mcpReq({ path: '/etc/./shadow' }), 0).deny?.id, 'g_deny');
    assert.equal(index.evaluate(mcpReq({ path: '/srv/p3/../../etc/shadow' }), 0).deny?.id, 'g_deny');
    assert.equal(index.evaluate(mcpReq({ path: '/srv/p3/../p4' }), 0).allow?.id !== undefined, true);
    assert.equal(index.evaluate(mcpReq({ path: '/srv/p3/../p4' }), 0).deny, undefined);
  });
});

describe('path denies against resources spelled another way', () => {
  test('a deny on /etc/** or $HOME/Mail/** reaches /tmp/../etc/x, ~/Mail/x, $HOME/x/../Mail/x; an allow still never matches a .. segment', () => {
    assert.equal(resourcesCovered('/etc/**', ['/tmp/../etc/cron.d/x'], 'deny'), true);
    assert.equal(resourcesCovered('/etc/**', ['/etc/./cron.d/x'], 'deny'), true);
    assert.equal(resourcesCovered(`${HOME}/Mail/**`, ['~/Mail/inbox'], 'deny'), true);
    assert.equal(resourcesCovered(`${HOME}/Mail/**`, [`${HOME}/x/../Mail/inbox`], 'deny'), true);
    assert.equal(resourcesCovered('~/Mail/**', [`${HOME}/Mail/inbox`], 'deny'), true);
    assert.equal(resourcesCovered(`${HOME}/Mail/**`, ['~/Notes/a'], 'deny'), false, 'another directory');
    assert.equal(resourcesCovered('/repo/**', ['/repo/../etc/x'], 'allow'), false);
    assert.equal(resourcesCovered('/repo/**', ['/repo/./x'], 'allow'), false);
  });

  test('an API request writing /tmp/../etc/x under allow ** and deny /etc/** is denied', () => {
    const allowAll = grant({ id: 'g_all', source: 'api', action: 'write' });
    const deny = grant({ id: 'g_etc', action: 'write', resource: '/etc/**', effect: 'deny' });
    const req = (res: string): CoreRequest => ({ source: 'api', tool: 'fs.write', action: 'write', resource: res, resources: [res], summary: 's', argsText: null, args: {}, task: null, cwd: null, classifierRisk: [] });
    assert.equal(evaluateGrants([allowAll, deny], req('/tmp/../etc/cron.d/x'), 0).deny?.id, 'g_etc');
    assert.equal(evaluateGrants([allowAll, deny], req('/srv/x'), 0).allow?.id, 'g_all');
  });
});
