// The bwrap argv: what the sandbox shares, hides and opens, decided without running bwrap.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bwrapArgs, unsafeSandboxCwd, type PathKind, type SandboxSpec } from '../../main/integrations/exec/sandbox';
import { mcpResources } from '../../main/core/classify/mcp';
import { LineSplitter } from '../../main/integrations/mcp/lines';
import { taskSocketDir } from '../../main/integrations/exec/exec';

const fsLayout: Record<string, PathKind> = {
  '/usr': { kind: 'dir' },
  '/bin': { kind: 'symlink', target: 'usr/bin' },
  '/lib': { kind: 'symlink', target: 'usr/lib' },
  '/etc': { kind: 'dir' },
  '/run/airlock/request.sock': { kind: 'file' },
  '/run/airlock/tasks/t1': { kind: 'dir' },
  '/run/airlock/tasks/t1/agent.sock': { kind: 'file' },
  '/run/airlock/tasks/t1/request.sock': { kind: 'file' },
  '/home/u/proj/.airlock': { kind: 'dir' },
};
const probe = (p: string): PathKind => fsLayout[p] ?? { kind: 'missing' };
const spec = (over: Partial<SandboxSpec> = {}): SandboxSpec => ({
  cwd: '/home/u/proj',
  home: '/home/u',
  network: false,
  task: { id: 't1', dir: '/run/airlock/tasks/t1' },
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
    // Even a caller that still asks for the network does not get it: the egress proxy is the way out.
    assert.ok(!bwrapArgs(spec({ network: true }), probe).includes('--share-net'));
  });

  test('system read-only (symlinks kept), home empty, cwd read-write after it', () => {
    const a = bwrapArgs(spec(), probe);
    assert.deepEqual(pairs(a, '--ro-bind').slice(0, 2), ['/usr /usr', '/etc /etc']);
    assert.ok(pairs(a, '--symlink').includes('usr/bin /bin'));
    assert.ok(a.indexOf('/home/u') < a.lastIndexOf('/home/u/proj'));
    assert.deepEqual(pairs(a, '--bind')[0], '/home/u/proj /home/u/proj');
    assert.equal(a[a.indexOf('--chdir') + 1], '/home/u/proj');
  });

  test("only the task's own socket directory of Airlock is bound (read-only), with its env; never the shared request.sock", () => {
    const a = bwrapArgs(spec(), probe);
    assert.deepEqual(pairs(a, '--ro-bind').filter((x) => x.includes('airlock')), ['/run/airlock/tasks/t1 /run/airlock/tasks/t1']);
    assert.ok(!a.some((x) => x === '/run/airlock/request.sock'), 'the shared request.sock is never bound');
    assert.deepEqual(pairs(a, '--bind'), ['/home/u/proj /home/u/proj'], 'nothing of Airlock is bound writable');
    assert.ok(pairs(a, '--setenv').includes('AIRLOCK_REQUEST_SOCK /run/airlock/tasks/t1/request.sock'));
    assert.ok(pairs(a, '--setenv').includes('SSH_AUTH_SOCK /run/airlock/tasks/t1/agent.sock'));
    assert.ok(pairs(a, '--setenv').includes('AIRLOCK_TASK t1'));
    for (const v of ['AIRLOCK_HOME', 'AIRLOCK_TASK_TOKEN']) assert.ok(a.join(' ').includes(`--unsetenv ${v}`), v);
    // No task: nothing of Airlock at all, and no variable pointing at it.
    const none = bwrapArgs(spec({ task: null }), probe);
    assert.ok(!none.join(' ').includes('/run/airlock/tasks'));
    for (const v of ['AIRLOCK_REQUEST_SOCK', 'SSH_AUTH_SOCK', 'AIRLOCK_TASK']) assert.ok(none.join(' ').includes(`--unsetenv ${v}`), v);
    // A task directory that is not there (the task ended): nothing bound.
    const gone = bwrapArgs(spec({ task: { id: 't2', dir: '/run/airlock/tasks/t2' } }), probe);
    assert.ok(!gone.join(' ').includes('/run/airlock/tasks/t2 '));
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

describe('MCP resources', () => {
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

describe('which task directory the sandbox sees', () => {
  const env = { AIRLOCK_HOME: '/run/al' };
  test("the task's directory under the runtime dir, or the one AIRLOCK_REQUEST_SOCK names for that task", () => {
    assert.equal(taskSocketDir(env, 't_abc'), '/run/al/tasks/t_abc');
    assert.equal(taskSocketDir({ AIRLOCK_REQUEST_SOCK: '/x/tasks/t_abc/request.sock' }, 't_abc'), '/x/tasks/t_abc', 'nested: the path the env names');
    assert.equal(taskSocketDir({ ...env, AIRLOCK_REQUEST_SOCK: '/x/tasks/t_other/request.sock' }, 't_abc'), '/run/al/tasks/t_abc', 'another task\'s socket is not taken');
    assert.equal(taskSocketDir(env, '..'), null, 'no path tricks through the task id');
    assert.equal(taskSocketDir(env, 't_a/../../x'), null);
  });
});
