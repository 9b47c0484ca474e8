// The bwrap argv: what the sandbox shares, hides and opens, decided without running bwrap.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bwrapArgs, unsafeSandboxCwd, type PathKind, type SandboxSpec } from '../../main/integrations/exec/sandbox';
import { mcpActionFromAnnotations, mcpResources } from '../../main/core/classify/mcp';
import { LineSplitter } from '../../main/integrations/mcp/lines';
import { taskSshSocket } from '../../main/integrations/exec/exec';

const fsLayout: Record<string, PathKind> = {
  '/usr': { kind: 'dir' },
  '/bin': { kind: 'symlink', target: 'usr/bin' },
  '/lib': { kind: 'symlink', target: 'usr/lib' },
  '/etc': { kind: 'dir' },
  '/run/airlock/request.sock': { kind: 'file' },
  '/run/airlock/tasks/t1/agent.sock': { kind: 'file' },
  '/home/u/proj/.airlock': { kind: 'dir' },
};
const probe = (p: string): PathKind => fsLayout[p] ?? { kind: 'missing' };
const spec = (over: Partial<SandboxSpec> = {}): SandboxSpec => ({
  cwd: '/home/u/proj',
  home: '/home/u',
  network: false,
  requestSock: '/run/airlock/request.sock',
  sshAuthSock: '/run/airlock/tasks/t1/agent.sock',
  hide: ['/run/airlock'],
  readOnly: [],
  ...over,
});
const pairs = (a: string[], flag: string) => a.flatMap((x, i) => (x === flag ? [a.slice(i + 1, i + 3).join(' ')] : []));

describe('bwrap arguments', () => {
  test('hardening flags, no network by default', () => {
    const a = bwrapArgs(spec(), probe);
    for (const f of ['--die-with-parent', '--new-session', '--unshare-all']) assert.ok(a.includes(f), f);
    assert.ok(!a.includes('--share-net'));
    assert.ok(bwrapArgs(spec({ network: true }), probe).includes('--share-net'));
  });

  test('system read-only (symlinks kept), home empty, cwd read-write after it', () => {
    const a = bwrapArgs(spec(), probe);
    assert.deepEqual(pairs(a, '--ro-bind').slice(0, 2), ['/usr /usr', '/etc /etc']);
    assert.ok(pairs(a, '--symlink').includes('usr/bin /bin'));
    assert.ok(a.indexOf('/home/u') < a.lastIndexOf('/home/u/proj'));
    assert.deepEqual(pairs(a, '--bind')[0], '/home/u/proj /home/u/proj');
    assert.equal(a[a.indexOf('--chdir') + 1], '/home/u/proj');
  });

  test('only request.sock and the task SSH socket of Airlock are bound, with their env', () => {
    const a = bwrapArgs(spec(), probe);
    assert.ok(pairs(a, '--bind').includes('/run/airlock/request.sock /run/airlock/request.sock'));
    assert.ok(pairs(a, '--bind').includes('/run/airlock/tasks/t1/agent.sock /run/airlock/tasks/t1/agent.sock'));
    assert.ok(pairs(a, '--setenv').includes('AIRLOCK_REQUEST_SOCK /run/airlock/request.sock'));
    assert.ok(a.join(' ').includes('--unsetenv AIRLOCK_HOME'));
    const noSsh = bwrapArgs(spec({ sshAuthSock: null }), probe);
    assert.ok(noSsh.join(' ').includes('--unsetenv SSH_AUTH_SOCK'));
  });

  test("Airlock's own directory is hidden even inside the workspace", () => {
    const a = bwrapArgs(spec({ hide: ['/home/u/proj/.airlock'] }), probe);
    const i = a.indexOf('--tmpfs', a.indexOf('--chdir') - 10);
    assert.ok(a.join(' ').includes('--tmpfs /home/u/proj/.airlock'));
    assert.ok(i >= 0);
  });

  test('a cwd that holds the home directory is refused', () => {
    assert.match(unsafeSandboxCwd('/home/u', '/home/u') ?? '', /home directory/);
    assert.match(unsafeSandboxCwd('/home', '/home/u') ?? '', /home directory/);
    assert.match(unsafeSandboxCwd('/', '/home/u') ?? '', /everything/);
    assert.equal(unsafeSandboxCwd('/home/u/proj', '/home/u'), null);
  });
});

describe('MCP annotations and resources', () => {
  test('annotations → action', () => {
    assert.equal(mcpActionFromAnnotations({ readOnlyHint: true }, true), 'read');
    assert.equal(mcpActionFromAnnotations({ readOnlyHint: true, openWorldHint: true }, true), 'transfer');
    assert.equal(mcpActionFromAnnotations({ destructiveHint: true }, true), 'delete');
    assert.equal(mcpActionFromAnnotations({}, true), 'write');
    assert.equal(mcpActionFromAnnotations(null, true), 'write');
    assert.equal(mcpActionFromAnnotations({ readOnlyHint: 'yes' }, true), 'write', 'only a real true counts');
    assert.equal(mcpActionFromAnnotations({ readOnlyHint: true }, false), 'execute');
  });

  test('resources from common argument names', () => {
    assert.deepEqual(mcpResources({ path: 'a.txt', url: 'https://Api.Example.com/x', paths: ['/b', '/c'] }, '/w'), ['/w/a.txt', '/b', '/c', 'api.example.com']);
    assert.deepEqual(mcpResources('nope'), []);
    assert.deepEqual(mcpResources({ path: 5 }), []);
  });
});

describe('line framing', () => {
  test('splits across chunks, drops an oversize line, keeps going', () => {
    const lines: string[] = [];
    const over: number[] = [];
    const s = new LineSplitter(10, (l) => lines.push(l.toString()), (n) => over.push(n));
    s.push(Buffer.from('ab'));
    s.push(Buffer.from('c\nde'));
    s.push(Buffer.from('f\n0123456789ABCDEF'));
    s.push(Buffer.from('GHIJ\nok\nlast'));
    s.end();
    assert.deepEqual(lines, ['abc', 'def', 'ok', 'last']);
    assert.deepEqual(over, [20]);
  });
});

describe('which SSH socket the sandbox sees', () => {
  const env = { AIRLOCK_HOME: '/run/al' };
  const all = () => true;
  test("the task's own socket, or SSH_AUTH_SOCK only when it is a task socket", () => {
    assert.equal(taskSshSocket(env, 't_abc', all), '/run/al/tasks/t_abc/agent.sock');
    assert.equal(taskSshSocket({ ...env, SSH_AUTH_SOCK: '/run/al/tasks/t_x/agent.sock' }, undefined, all), '/run/al/tasks/t_x/agent.sock');
    assert.equal(taskSshSocket({ ...env, SSH_AUTH_SOCK: '/run/al/agent.sock' }, undefined, all), null, 'not the main agent socket');
    assert.equal(taskSshSocket({ ...env, SSH_AUTH_SOCK: '/tmp/ssh-XXXX/agent.123' }, undefined, all), null, 'not a foreign agent');
    assert.equal(taskSshSocket(env, '..', all), null, 'no path tricks through the task id');
    assert.equal(taskSshSocket({ ...env, SSH_AUTH_SOCK: '/run/al/tasks/../agent.sock' }, undefined, all), null);
    assert.equal(taskSshSocket(env, 't_gone', () => false), null);
  });
});
