// Black-box, third wave: `airlock exec --sandbox` as README and docs/agents.md describe it.
// The network: the sandbox never has it itself (an approved transfer included); with a task
// the only way out is the task's egress proxy, which asks for each destination. Refusals
// before anything runs: a working directory holding the home directory, or `/`, is the
// user's choice to correct — a usage error (64), not "the daemon is not running" (69).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Wire, airlock, closeBlackboxSession, openBlackboxSession, pendingList, waitPending, type BlackboxSession } from '../helpers/blackbox';

let s: BlackboxSession;
let env: NodeJS.ProcessEnv;
let work: string;
let fakeHome: string;
let server: http.Server;
let port: number;
let hits = 0;

before(async () => {
  s = await openBlackboxSession('bb3b-');
  fakeHome = path.join(s.root, 'home');
  work = path.join(fakeHome, 'project');
  fs.mkdirSync(work, { recursive: true });
  env = { ...process.env, AIRLOCK_HOME: s.d.home, HOME: fakeHome };
  server = http.createServer((_req, res) => {
    hits++;
    res.end('hello from 127.0.0.1\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as { port: number }).port;
});
after(async () => {
  server?.close();
  await closeBlackboxSession(s);
});

const bwrapMissing = (): string | false => (fs.existsSync('/usr/bin/bwrap') ? false : 'bubblewrap is not installed');

test('--sandbox refuses a working directory that holds the home directory, or /: exit 64 (a usage error, not 69), nothing asked, nothing run', { skip: bwrapMissing() }, async () => {
  for (const cwd of [fakeHome, s.root, '/']) {
    const marker = path.join(work, 'should-not-exist');
    const r = await airlock(['exec', '--sandbox', '--', 'touch', marker], { env, cwd });
    assert.equal(r.code, 64, `exec --sandbox in ${cwd}: ${r.stderr}`);
    assert.match(r.stderr, /home directory|everything would be writable/);
    assert.match(r.stderr, /nothing was run/);
    assert.equal(fs.existsSync(marker), false);
    const t = await airlock(['task', 'start', 'bb3 unsafe', '--sandbox', '--', 'touch', marker], { env, cwd });
    assert.equal(t.code, 64, `task start --sandbox in ${cwd}: ${t.stderr}`);
    assert.equal(fs.existsSync(marker), false);
  }
  assert.equal((await pendingList(s.ui)).length, 0, 'nobody was asked about a command that cannot run');
  // 69 keeps its one meaning for these commands: the daemon is not running.
  const down = await airlock(['exec', '--sandbox', '--', 'true'], { env: { ...env, AIRLOCK_HOME: path.join(s.root, 'nothing-here') }, cwd: work });
  assert.equal(down.code, 69, down.stderr);
});

test('--sandbox without a task: even an approved transfer has no network (the prompt says so); with a task the egress proxy asks for the destination', { skip: bwrapMissing() }, async () => {
  const url = `http://127.0.0.1:${port}/`;
  const before = hits;
  const noTask = airlock(['exec', '--sandbox', '--', 'curl', '-sS', '-m', '5', url], { env, cwd: work, timeoutMs: 60_000 });
  const p = await waitPending(s.ui, (x) => x.source === 'exec' && x.summary.includes(url), 'the curl prompt', 20_000);
  assert.equal(p.action, 'transfer');
  assert.match(p.summary, /no network/, `the prompt says the sandbox has no network: ${p.summary}`);
  await s.ui.ok('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
  const r = await noTask;
  assert.notEqual(r.code, 0, 'curl could not connect');
  assert.match(r.stderr, /Couldn't connect|Failed to connect|resolve/);
  assert.equal(hits, before, 'nothing reached the server');

  const agent = await Wire.open(s.d.requestSock);
  try {
    const t = await agent.ok<{ task: string; token: string }>('task.start', { name: 'bb3 egress', cwd: work });
    const taskEnv = { ...env, AIRLOCK_TASK: t.task, AIRLOCK_TASK_TOKEN: t.token };
    const withTask = airlock(['exec', '--sandbox', '--', 'curl', '-sS', '-m', '20', url], { env: taskEnv, cwd: work, timeoutMs: 60_000 });
    const cp = await waitPending(s.ui, (x) => x.source === 'exec' && x.summary.includes(url), 'the curl prompt inside the task', 20_000);
    assert.match(cp.summary, /egress proxy/, cp.summary);
    await s.ui.ok('pending.decide', { id: cp.id, decision: 'allow', scope: 'once' });
    const ep = await waitPending(s.ui, (x) => x.source === 'egress', 'the egress prompt for the destination', 20_000);
    assert.equal(ep.resource, `127.0.0.1:${port}`);
    assert.equal(ep.action, 'transfer');
    assert.equal(ep.task, t.task);
    await s.ui.ok('pending.decide', { id: ep.id, decision: 'allow', scope: 'once' });
    const w = await withTask;
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /hello from 127\.0\.0\.1/);
    assert.equal(hits, before + 1);
    await agent.ok('task.end', { task: t.token });
  } finally {
    agent.close();
  }
});
