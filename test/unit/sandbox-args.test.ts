// The bwrap argv: what the sandbox shares, hides and opens, decided without running bwrap.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bwrapArgs, unsafeSandboxCwd, type PathKind, type SandboxSpec } from '../../main/integrations/exec/sandbox';
import { mcpResources } from '../../main/core/classify/mcp';
import { LineSplitter } from '../../main/integrations/mcp/lines';
import { taskSocketDir } from '../../main/integrations/exec/exec';
import { sandboxSocketPlan, SCAN_BUDGET, socketHolders } from '../../main/integrations/exec/sandbox-sockets';
import { withheldEnv } from '../../main/integrations/exec/sandbox-env';

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
    assert.ok(a.join(' ').includes('--cap-drop ALL'), 'no capability, even when bwrap runs as root');
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

  test("of systemd-resolved's directory only the resolv.conf files, never its varlink socket (it looks names up on the real network)", () => {
    const layout: Record<string, PathKind> = { ...fsLayout, '/run/systemd/resolve/stub-resolv.conf': { kind: 'file' }, '/run/systemd/resolve/io.systemd.Resolve': { kind: 'file' } };
    const a = bwrapArgs(spec(), (p) => layout[p] ?? { kind: 'missing' });
    assert.ok(pairs(a, '--ro-bind').includes('/run/systemd/resolve/stub-resolv.conf /run/systemd/resolve/stub-resolv.conf'));
    assert.ok(!a.some((x) => x === '/run/systemd/resolve' || x.includes('io.systemd.Resolve')), a.join(' '));
  });

  test("the Nix daemon's socket directory is covered when /nix is shared: a build through it runs outside (a fixed-output one has the network)", () => {
    const layout: Record<string, PathKind> = { ...fsLayout, '/nix': { kind: 'dir' }, '/nix/var/nix/daemon-socket': { kind: 'dir' } };
    const a = bwrapArgs(spec(), (p) => layout[p] ?? { kind: 'missing' });
    assert.ok(a.indexOf('/nix') < a.indexOf('/nix/var/nix/daemon-socket'));
    assert.ok(a.join(' ').includes('--tmpfs /nix/var/nix/daemon-socket'));
  });

  test('binds and hides go parents first: a workspace inside a hidden directory is bound after it, a hidden directory inside the workspace after the workspace', () => {
    const layout: Record<string, PathKind> = { ...fsLayout, '/tmp/x': { kind: 'dir' }, '/tmp/x/proj': { kind: 'dir' }, '/tmp/x/proj/.airlock': { kind: 'dir' }, '/tmp': { kind: 'dir' } };
    const a = bwrapArgs(spec({ cwd: '/tmp/x/proj', readOnly: ['/tmp'], hide: ['/tmp/x', '/tmp/x/proj/.airlock'] }), (p) => layout[p] ?? { kind: 'missing' });
    const at = (flag: string, p: string) => a.findIndex((x, i) => x === flag && a[i + 1] === p);
    assert.ok(at('--ro-bind', '/tmp') < at('--tmpfs', '/tmp/x'));
    assert.ok(at('--tmpfs', '/tmp/x') < at('--bind', '/tmp/x/proj'));
    assert.ok(at('--bind', '/tmp/x/proj') < at('--tmpfs', '/tmp/x/proj/.airlock'));
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

describe("other programs' sockets (sandbox-sockets.ts)", () => {
  test('a shared temp directory as the workspace, or a workspace or --ro path inside the runtime or tmux directory, is refused; reached from above, they are hidden', () => {
    const env = { XDG_RUNTIME_DIR: '/nonexistent-bb12/run', TMUX_TMPDIR: '/nonexistent-bb12/tt' };
    assert.match(sandboxSocketPlan('/tmp', [], env, 1000).refuse ?? '', /temp directory every program shares/);
    assert.match(sandboxSocketPlan('/nonexistent-bb12/tt', [], env, 1000).refuse ?? '', /temp directory/);
    assert.match(sandboxSocketPlan('/nonexistent-bb12/run/x', [], env, 1000).refuse ?? '', /keeps its sockets/);
    assert.match(sandboxSocketPlan('/home/u/proj', ['/nonexistent-bb12/tt/tmux-1000'], env, 1000).refuse ?? '', /--ro .* keeps its sockets/);
    const up = sandboxSocketPlan('/home/u/proj', ['/nonexistent-bb12'], env, 1000);
    assert.equal(up.refuse, null);
    assert.deepEqual(up.hide.sort(), ['/nonexistent-bb12/run', '/nonexistent-bb12/tt/tmux-1000']);
    assert.deepEqual(sandboxSocketPlan('/home/u/proj', [], env, 1000), { refuse: null, hide: [] });
  });

  test('in a shared temp directory every entry that is or holds a socket is listed; a spent budget is null (the sandbox is refused)', async () => {
    const os = await import('node:os');
    const fs = await import('node:fs');
    const net = await import('node:net');
    const path = await import('node:path');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb12u-'));
    try {
      fs.mkdirSync(path.join(root, 'deep', 'a', 'b'), { recursive: true });
      fs.mkdirSync(path.join(root, 'plain'));
      fs.writeFileSync(path.join(root, 'plain', 'f'), 'x');
      const srvs = await Promise.all(['top.sock', 'deep/a/b/s'].map((n) => new Promise<import('node:net').Server>((r) => { const v = net.createServer(); v.listen(path.join(root, n), () => r(v)); })));
      try {
        assert.deepEqual(socketHolders(root)?.sort(), [path.join(root, 'deep'), path.join(root, 'top.sock')]);
        assert.equal(socketHolders(root, { ...SCAN_BUDGET, entries: 1, started: Date.now(), seen: 0 }), null);
      } finally {
        for (const v of srvs) v.close();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the caller's credentials (sandbox-env.ts)", () => {
  test('names that say they hold a credential are withheld; --keep-env and Airlock\'s own names are not', () => {
    const env = { OPENAI_API_KEY: '1', AWS_SECRET_ACCESS_KEY: '2', GITHUB_TOKEN: '3', PGPASSWORD: '4', DB_PASSWD: '5', NPM_AUTH: '6', GOOGLE_APPLICATION_CREDENTIALS: '7', PATH: '/bin', HOME: '/h', TERM: 'xterm', SSH_AUTH_SOCK: '/s', AIRLOCK_TASK_TOKEN: 't', LANG: 'C', UNSET_TOKEN: undefined };
    assert.deepEqual(withheldEnv(env), ['AWS_SECRET_ACCESS_KEY', 'DB_PASSWD', 'GITHUB_TOKEN', 'GOOGLE_APPLICATION_CREDENTIALS', 'NPM_AUTH', 'OPENAI_API_KEY', 'PGPASSWORD']);
    assert.deepEqual(withheldEnv(env, ['OPENAI_API_KEY', 'GITHUB_TOKEN']), ['AWS_SECRET_ACCESS_KEY', 'DB_PASSWD', 'GOOGLE_APPLICATION_CREDENTIALS', 'NPM_AUTH', 'PGPASSWORD']);
    assert.deepEqual(withheldEnv({ github_token: 'x' }), ['github_token'], 'any case');
  });

  test('each withheld name is unset before the placeholders are set (a secret of the same name gets its placeholder)', () => {
    const a = bwrapArgs(spec({ withhold: ['GITHUB_TOKEN', 'OPENAI_API_KEY'], egress: { sock: '/run/airlock/tasks/t1/egress.sock', caBundle: null, nodePreload: null, placeholders: { GITHUB_TOKEN: 'airlock-placeholder-GITHUB_TOKEN-0' } } }), (p) => (p === '/run/airlock/tasks/t1/egress.sock' ? { kind: 'file' } : probe(p)));
    assert.deepEqual(pairs(a, '--unsetenv').filter((x) => /TOKEN|KEY/.test(x)).map((x) => x.split(' ')[0]), ['GITHUB_TOKEN', 'OPENAI_API_KEY', 'AIRLOCK_TASK_TOKEN']);
    assert.ok(a.indexOf('GITHUB_TOKEN') < a.lastIndexOf('GITHUB_TOKEN'), 'unset first, then set');
    assert.equal(a[a.lastIndexOf('GITHUB_TOKEN') - 1], '--setenv');
  });
});
