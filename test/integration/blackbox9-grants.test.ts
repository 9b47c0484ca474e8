// Black-box, ninth wave: a grant in a hostile agent's hand, stretched. Deny beats allow for
// every part of a shell command and every spelling of the denied program; a command grant
// made from a prompt's own suggestion (`{npm test,npm test *}`) does not run another
// directory's package or write where nobody can tell; `grants add` with an empty option value
// (an unset shell variable) is refused rather than widened; and `task.start` cannot name a
// remote for its grants. Driven through `airlock …` and raw JSON-RPC on the documented sockets.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '../helpers/daemon';
import { Wire, airlock, closeBlackboxSession, openBlackboxSession, pendingList, type BlackboxSession, type RpcMsg } from '../helpers/blackbox';

let s: BlackboxSession;
let env: NodeJS.ProcessEnv;
let agent: Wire;
let proj: string;

before(async () => {
  s = await openBlackboxSession('bb9g-');
  env = { ...process.env, AIRLOCK_HOME: s.d.home };
  agent = await Wire.open(s.d.requestSock);
  proj = path.join(s.root, 'proj');
  fs.mkdirSync(proj);
});
after(async () => {
  agent?.close();
  await closeBlackboxSession(s);
});

interface Answer {
  decision: string;
  reason: string;
}

/** Sends a request; a prompt for it is denied and reported as 'asked'. */
async function outcome(params: Record<string, unknown>): Promise<'asked' | Answer> {
  const pending = agent.call('request', params, 60_000);
  const settled = await Promise.race([pending.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 2000))]);
  if (!settled) {
    await waitFor(async () => (await pendingList(s.ui)).length > 0, 'a prompt', 20_000);
    for (const p of await pendingList(s.ui)) await s.ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
  }
  const m: RpcMsg = await pending;
  assert.equal(m.error, undefined, JSON.stringify(m));
  return settled ? (m.result as unknown as Answer) : 'asked';
}

const shell = (command: string, extra: Record<string, unknown> = {}) => ({ source: 'exec', tool: 'exec', action: 'execute', summary: command, args: { command }, cwd: proj, ...extra });

async function grant(spec: Record<string, unknown>): Promise<string> {
  return (await s.ui.ok<{ grant: { id: string } }>('grants.create', spec)).grant.id;
}

describe('deny beats allow for every part of a command and every spelling of the program', () => {
  const made: string[] = [];
  before(async () => {
    made.push(await grant({ source: 'exec', action: '*', resource: '**', effect: 'allow', note: 'bb9 anything through exec' }));
    made.push(await grant({ source: 'exec', action: '*', resource: 'rm *', effect: 'deny', note: 'never rm' }));
    made.push(await grant({ source: 'exec', action: '*', resource: '{git push,git push *}', effect: 'deny', note: 'never push' }));
    made.push(await grant({ source: 'exec', action: 'read', resource: `${proj}/secret/**`, effect: 'deny', note: 'never read secret' }));
  });
  after(async () => {
    for (const id of made) await s.ui.ok('grants.revoke', { id });
  });

  test('airlock exec: rm under an allow of everything and a deny of `rm *` is denied (exit 126) and the file stays', async () => {
    const victim = path.join(proj, 'victim.txt');
    fs.writeFileSync(victim, 'keep');
    const ok = await airlock(['exec', '--shell', '--', 'echo fine > ok.txt'], { env, cwd: proj });
    assert.equal(ok.code, 0, `control: the allow answers: ${ok.stderr}`);
    const r = await airlock(['exec', '--', 'rm', '-f', 'victim.txt'], { env, cwd: proj });
    assert.equal(r.code, 126, `rm ran: exit ${r.code} ${r.stderr}`);
    assert.match(r.stderr, /never rm/);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'keep');
  });

  test('a command-pattern deny reaches /bin/rm, a backslashed or quoted rm, rm with two spaces, command/env/sudo/nice/xargs/find -exec rm, one part of a list, and git -C . push', async () => {
    const denied = [
      'echo hi; rm -rf x',
      '/bin/rm -rf x',
      '\\rm x',
      '"rm" x',
      'rm  -rf x',
      'command rm x',
      'env FOO=1 rm x',
      'sudo -u root rm x',
      'nice -n 5 rm x',
      'xargs -n1 rm < list',
      'find . -name "*.o" -exec rm {} +',
      'git push origin main',
      'git -C . push origin main',
      'git -c core.x=y push',
    ];
    for (const c of denied) {
      const a = await outcome(shell(c));
      assert.notEqual(a, 'asked', `${c}: asked instead of denied`);
      assert.equal((a as Answer).decision, 'deny', `${c}: ${JSON.stringify(a)}`);
      assert.match((a as Answer).reason, /never (rm|push)/, c);
    }
    const fine = await outcome(shell('ls -la'));
    assert.notEqual(fine, 'asked');
    assert.equal((fine as Answer).decision, 'allow', 'control: another command is still allowed');
  });

  test('a read deny on one part (cat secret/x) denies the command though an allow covers the whole of it', async () => {
    const a = await outcome(shell('cat secret/token; echo done'));
    assert.notEqual(a, 'asked');
    assert.equal((a as Answer).decision, 'deny', JSON.stringify(a));
    assert.match((a as Answer).reason, /never read secret/);
  });
});

describe('a path deny and a write nobody can place', () => {
  test('under an allow of anything, a deny on a directory makes `cd DIR; cd -; echo x > y` and `cd "$X"; echo x > y` ask; a placed write is still allowed', async () => {
    const sec = path.join(s.root, 'sec');
    fs.mkdirSync(sec, { recursive: true });
    const ids = [
      await grant({ source: 'exec', action: '*', resource: '**', effect: 'allow', note: 'bb9 anything (blind)' }),
      await grant({ action: ['write', 'delete'], resource: `${sec}/**`, effect: 'deny', note: 'never sec' }),
    ];
    try {
      const placed = await outcome(shell('echo x > placed.txt'));
      assert.notEqual(placed, 'asked', 'control: a write the daemon can place is the allow\'s');
      assert.equal((placed as Answer).decision, 'allow');
      const direct = await outcome(shell(`echo x > ${sec}/y`));
      assert.notEqual(direct, 'asked');
      assert.equal((direct as Answer).decision, 'deny', 'control: the deny reaches the directory written plainly');
      for (const c of [`cd ${sec}; cd ${proj}; cd -; echo x > y`, 'cd "$X"; echo x > y']) {
        assert.equal(await outcome(shell(c)), 'asked', `${c}: the deny may reach it, so it must not be allowed by the allow of anything`);
      }
    } finally {
      for (const id of ids) await s.ui.ok('grants.revoke', { id });
    }
  });
});

describe("a command grant from the prompt's own suggestion stays in the task's directory", () => {
  test('{npm test,npm test *} for the task: npm test -- --grep x is covered; --prefix, -C, --workspace elsewhere and a write after cd - ask', async () => {
    const t = await agent.ok<{ task: string; token: string }>('task.start', { name: 'bb9 npm', cwd: proj });
    const first = agent.call('request', shell('npm test', { task: t.token }), 60_000);
    let p: Awaited<ReturnType<typeof pendingList>>[number] & { suggestion?: { tool: string; resource: string } } = undefined as never;
    await waitFor(async () => (p = (await pendingList(s.ui)).find((x) => x.summary === 'npm test')!) !== undefined, 'the npm test prompt', 20_000);
    assert.equal(p.suggestion?.resource, '{npm test,npm test *}', `the prompt suggests the pattern: ${JSON.stringify(p.suggestion)}`);
    await s.ui.ok('pending.decide', { id: p.id, decision: 'allow', scope: 'task', pattern: { tool: p.suggestion.tool, resource: p.suggestion.resource } });
    assert.equal(((await first).result as unknown as Answer).decision, 'allow');
    const covered = await outcome(shell('npm test -- --grep parser', { task: t.token }));
    assert.notEqual(covered, 'asked', 'control: the grant covers npm test with test arguments');
    const other = path.join(s.root, 'other');
    for (const c of [`npm test --prefix ${other}`, 'npm test -C ../other', 'npm test --workspace=../other']) {
      assert.equal(await outcome(shell(c, { task: t.token })), 'asked', `${c} runs another directory's package: must ask`);
    }
    const echo = await s.ui.ok<{ grant: { id: string } }>('grants.create', { task: t.task, source: 'exec', tool: 'exec', action: 'write', resource: '{echo,echo *}', effect: 'allow' });
    assert.ok(echo.grant.id);
    const inside = await outcome(shell('echo x > notes.txt', { task: t.token }));
    assert.notEqual(inside, 'asked', 'control: {echo,echo *} covers a write inside the task directory');
    for (const c of ['cd /etc; cd ' + proj + '; cd -; echo x > bb9-never', 'cd "$(mktemp -d)"; echo x > bb9-never', 'echo x > ~root/bb9-never']) {
      assert.equal(await outcome(shell(c, { task: t.token })), 'asked', `${c}: a write nobody can place must ask`);
    }
    await agent.ok('task.end', { task: t.token });
  });
});

describe('grants add with an empty option value is refused, not widened', () => {
  test('--task "" (an unset $AIRLOCK_TASK), --key "", --expires "" exit 64 and create nothing', async () => {
    const before = (await s.ui.ok<{ grants: unknown[] }>('grants.list', {})).grants.length;
    for (const opt of [['--task', ''], ['--key', ''], ['--expires', ''], ['--task', ' ']]) {
      const r = await airlock(['grants', 'add', '-a', 'write', '-r', '/bb9/empty/**', ...opt], { env });
      assert.equal(r.code, 64, `${opt.join(' ')}: exit ${r.code} ${r.stdout} ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`${opt[0]} is empty`));
    }
    const after = (await s.ui.ok<{ grants: unknown[] }>('grants.list', {})).grants.length;
    assert.equal(after, before, 'no grant was created');
    const t = await agent.ok<{ task: string; token: string }>('task.start', { name: 'bb9 cli', cwd: proj });
    const ok = await airlock(['grants', 'add', '-a', 'write', '-r', '/bb9/empty/**', '--task', t.task, '--json'], { env });
    assert.equal(ok.code, 0, `control: a real task id works: ${ok.stderr}`);
    assert.equal((JSON.parse(ok.stdout) as { task: string }).task, t.task);
    await agent.ok('task.end', { task: t.token });
  });
});

describe('task.start cannot choose the remote of its grants', () => {
  test('a grant naming a remote is refused with -32602 naming grants.N.remote; no prompt, no task; without it the grant is asked as shown', async () => {
    const tasksBefore = (await s.ui.ok<{ tasks: unknown[] }>('tasks.list', {})).tasks.length;
    const r = await agent.call('task.start', { name: 'bb9 remote', cwd: proj, grants: [{ action: 'write', resource: '/bb9/r/**', effect: 'allow' }, { action: 'write', resource: '/bb9/r2/**', effect: 'allow', remote: 'build' }] });
    assert.equal(r.error?.code, -32602, JSON.stringify(r));
    assert.match(r.error!.message, /grants\.1\.remote/);
    assert.equal((await pendingList(s.ui)).length, 0, 'nothing was asked');
    assert.equal((await s.ui.ok<{ tasks: unknown[] }>('tasks.list', {})).tasks.length, tasksBefore, 'no task was started');
    // control: the same grant without a remote is one prompt, and the grant made is the one shown (this machine only)
    const started = agent.call('task.start', { name: 'bb9 remote ok', cwd: proj, grants: [{ action: 'write', resource: '/bb9/r2/**', effect: 'allow' }] }, 60_000);
    let p: (Awaited<ReturnType<typeof pendingList>>[number] & { grants?: { resource: string }[] }) | undefined;
    await waitFor(async () => (p = (await pendingList(s.ui)).find((x) => x.tool === 'task.start')) !== undefined, 'the task grants prompt', 20_000);
    assert.deepEqual(p!.grants?.map((g) => g.resource), ['/bb9/r2/**']);
    await s.ui.ok('pending.decide', { id: p!.id, decision: 'allow', scope: 'once' });
    const res = (await started).result as unknown as { task: string; token: string; grants: string[] };
    assert.equal(res.grants.length, 1);
    const made = (await s.ui.ok<{ grants: { id: string; remote: string | null; task: string | null }[] }>('grants.list', {})).grants.find((g) => g.id === res.grants[0]);
    assert.equal(made?.remote, null);
    assert.equal(made?.task, res.task);
    await agent.ok('task.end', { task: res.token });
  });
});

describe('grants list shows what a grant covers', () => {
  test('a grant for one SSH key, one source or forwarded requests reads differently from one for any: the key, the source and "forwarded ok" are listed', async () => {
    const key = 'SHA256:' + 'A'.repeat(42) + 'E';
    const one = await airlock(['grants', 'add', '-a', 'sign', '-t', 'ssh-sign', '-r', 'git@github.com', '--source', 'ssh', '--key', key, '--forwarded', '--json'], { env });
    assert.equal(one.code, 0, one.stderr);
    const any = await airlock(['grants', 'add', '-a', 'sign', '-t', 'ssh-sign', '-r', 'git@gitlab.com', '--json'], { env });
    assert.equal(any.code, 0, any.stderr);
    const ids = [one, any].map((r) => (JSON.parse(r.stdout) as { id: string }).id);
    const list = await airlock(['grants', 'list'], { env });
    assert.equal(list.code, 0, list.stderr);
    const line = (id: string) => list.stdout.split('\n').find((l) => l.startsWith(id)) ?? '';
    assert.match(line(ids[0]!), new RegExp(`ssh · ssh-sign .*git@github\\.com key ${key.replace(/[+/]/g, '\\$&')} forwarded ok`), list.stdout);
    assert.doesNotMatch(line(ids[1]!), /key |forwarded|ssh · /, 'a grant for any key and source says neither');
    for (const id of ids) assert.equal((await airlock(['grants', 'revoke', id], { env })).code, 0);
  });
});

describe('a blank cheque asked for at task start is marked and needs its own confirmation', () => {
  test('*:443 (every HTTPS destination), git@* (a login anywhere) and sshsig:* need confirmGrants; api.github.com:443 does not; a plain allow creates only the narrow one', async () => {
    const started = agent.call(
      'task.start',
      {
        name: 'bb9 cheques',
        cwd: proj,
        grants: [
          { action: 'transfer', resource: '*:443', effect: 'allow' },
          { action: 'sign', resource: 'git@*', effect: 'allow' },
          { action: 'sign', resource: 'sshsig:*', effect: 'allow' },
          { action: 'transfer', resource: 'api.github.com:443', effect: 'allow' },
        ],
      },
      60_000,
    );
    let p: (Awaited<ReturnType<typeof pendingList>>[number] & { grants?: { index: number; resource: string; needsConfirmation: boolean }[] }) | undefined;
    await waitFor(async () => (p = (await pendingList(s.ui)).find((x) => x.tool === 'task.start')) !== undefined, 'the task grants prompt', 20_000);
    assert.deepEqual(
      p!.grants?.map((g) => [g.resource, g.needsConfirmation]),
      [['*:443', true], ['git@*', true], ['sshsig:*', true], ['api.github.com:443', false]],
    );
    await s.ui.ok('pending.decide', { id: p!.id, decision: 'allow', scope: 'once' });
    const res = (await started).result as unknown as { task: string; token: string; grants: string[]; declined?: number[] };
    assert.deepEqual(res.declined, [0, 1, 2]);
    const made = (await s.ui.ok<{ grants: { id: string; resource: string }[] }>('grants.list', { task: res.task })).grants.map((g) => g.resource);
    assert.deepEqual(made, ['api.github.com:443']);
    await agent.ok('task.end', { task: res.token });
  });
});
