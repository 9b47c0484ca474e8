// Black-box, third wave, as a hostile agent: a prompt the human never saw (withdrawn, timed
// out, its task ended, or never made) cannot be answered and leaves no grant; a task's own
// socket cannot act for another task, nor can another task's token act for a task on the
// shared socket; what the agent claims about itself (process, decision) is never taken; and
// nothing it does goes unrecorded — each kind of request leaves its history row with the
// fields DESIGN.md names.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Wire, airlock, closeBlackboxSession, openBlackboxSession, pendingList, waitPending, type BlackboxSession } from '../helpers/blackbox';

let s: BlackboxSession;
let env: NodeJS.ProcessEnv;
let agent: Wire;

interface Event {
  id: number;
  task: string | null;
  source: string;
  tool: string;
  action: string;
  resource: string | null;
  summary: string;
  args: unknown;
  cwd: string | null;
  process: { pid: number; exe: string; argv: string[] } | null;
  risk: { level: string; reasons: string[] };
  decision: string;
  decidedBy: string;
  reason: string;
  grant: string | null;
}
interface Started {
  task: string;
  token: string;
  requestSock: string;
  sshAuthSock: string;
}

before(async () => {
  s = await openBlackboxSession('bb3x-');
  env = { ...process.env, AIRLOCK_HOME: s.d.home };
  agent = await Wire.open(s.d.requestSock);
});
after(async () => {
  agent?.close();
  await closeBlackboxSession(s);
});

async function events(limit = 50): Promise<Event[]> {
  return (await s.ui.ok<{ events: Event[] }>('history.query', { limit })).events;
}
async function grantCount(): Promise<number> {
  return (await s.ui.ok<{ grants: unknown[] }>('grants.list', {})).grants.length;
}
function req(resource: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { source: 'api', tool: 'fs.write', action: 'write', resource, summary: `write ${resource}`, ...extra };
}

test('a prompt that was never made, or is no longer there, cannot be answered: -32004 and no grant, whatever the scope', async () => {
  const n = await grantCount();
  for (const id of ['p_doesnotexist', '1', '', 'x'.repeat(300)]) {
    const r = await s.ui.call('pending.decide', { id, decision: 'allow', scope: 'always' });
    assert.ok(r.error && [-32004, -32602].includes(r.error.code), `${id.slice(0, 20)}: ${JSON.stringify(r)}`);
  }
  // Withdrawn by timeout: answering it afterwards allows nothing and grants nothing.
  await s.ui.ok('settings.set', { promptTimeoutSec: 1 });
  try {
    const pending = agent.call('request', req('/bb3/timeout'), 30_000);
    const p = await waitPending(s.ui, (x) => x.resource === '/bb3/timeout', 'the prompt that will time out', 10_000);
    const a = (await pending).result as { decision: string; event: number };
    assert.equal(a.decision, 'deny');
    const late = await s.ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'always' });
    assert.equal(late.error?.code, -32004, JSON.stringify(late));
    const e = (await events()).find((x) => x.id === a.event)!;
    assert.equal(e.decidedBy, 'timeout', 'recorded as a timeout');
  } finally {
    await s.ui.ok('settings.set', { promptTimeoutSec: 60 });
  }
  // Withdrawn because its task ended (the human's tasks.end): the same.
  const t = await agent.ok<Started>('task.start', { name: 'bb3 ends early' });
  const wt = await Wire.open(t.requestSock);
  try {
    const pending = wt.call('request', req('/bb3/ended'), 30_000);
    const p = await waitPending(s.ui, (x) => x.resource === '/bb3/ended', 'the prompt of the task about to end', 10_000);
    assert.deepEqual(await s.ui.ok('tasks.end', { task: t.task }), {});
    assert.equal(((await pending).result as { decision: string }).decision, 'deny');
    const late = await s.ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'task' });
    assert.equal(late.error?.code, -32004, JSON.stringify(late));
  } finally {
    wt.close();
  }
  assert.equal(await grantCount(), n, 'no grant was made by any of these answers');
});

test("a task's own socket acts only as that task: another task's token is overridden (and said), its deny grants hold, task.end / task.network / task.start for others are refused", async () => {
  const a = await agent.ok<Started>('task.start', { name: 'bb3 task A' });
  const b = await agent.ok<Started>('task.start', { name: 'bb3 task B' });
  await s.ui.ok('grants.create', { task: a.task, action: 'write', resource: '/bb3/shared/**', effect: 'deny', note: 'A may not' });
  await s.ui.ok('grants.create', { task: b.task, action: 'write', resource: '/bb3/shared/**', effect: 'allow', note: 'B may' });
  const wa = await Wire.open(a.requestSock);
  try {
    for (const claim of [{ task: b.task, token: b.token }, { task: b.token }, { task: b.task }]) {
      const m = await wa.call('request', req('/bb3/shared/x', claim), 20_000);
      assert.equal(m.error, undefined, JSON.stringify(m));
      const r = m.result as { decision: string; event: number };
      assert.equal(r.decision, 'deny', `claiming ${JSON.stringify(claim).slice(0, 40)} on A's socket is still A, and A's deny holds`);
      const e = (await events()).find((x) => x.id === r.event)!;
      assert.equal(e.task, a.task, 'recorded under A');
      assert.ok(JSON.stringify(e.risk.reasons).includes(b.task), `the prompt/history says what it claimed: ${JSON.stringify(e.risk.reasons)}`);
      assert.ok(!JSON.stringify(e).includes(b.token.split('.')[1]!), 'the other task\'s token is not kept in history');
    }
    const endB = await wa.call('task.end', { task: b.task });
    assert.equal(endB.error?.code, -32602, JSON.stringify(endB));
    const endBTok = await wa.call('task.end', { task: b.token });
    assert.ok(endBTok.error, JSON.stringify(endBTok));
    const net = await wa.call('task.network', { task: b.task });
    assert.ok(net.error, JSON.stringify(net));
    const start = await wa.call('task.start', { name: 'escape' });
    assert.equal(start.error?.code, -32001, JSON.stringify(start));
    const tasks = (await s.ui.ok<{ tasks: { id: string; endedAt?: unknown }[] }>('tasks.list', {})).tasks;
    assert.ok(tasks.some((t) => t.id === b.task && !t.endedAt), 'B still runs');
    assert.ok(!tasks.some((t) => (t as { name?: string }).name === 'escape'), 'no task was started from inside A');
  } finally {
    wa.close();
  }
  // On the shared socket, A's id with B's token is neither A nor B.
  const mixed = await agent.call('request', req('/bb3/shared/y', { task: a.task, token: b.token }));
  assert.equal(mixed.error?.code, -32602, JSON.stringify(mixed));
  const forged = await agent.call('request', req('/bb3/shared/y', { task: `${b.token.slice(0, -2)}AA` }));
  assert.ok(forged.error, `a token with its last characters changed acts as nothing: ${JSON.stringify(forged)}`);
  const mixedEnd = await agent.call('task.end', { task: a.task, token: b.token });
  assert.ok(mixedEnd.error, JSON.stringify(mixedEnd));
  // B's token on the shared socket is B: B's allow answers.
  const asB = await agent.ok<{ decision: string; event: number }>('request', req('/bb3/shared/z', { task: b.task, token: b.token }));
  assert.equal(asB.decision, 'allow');
  // Ended, its token acts as nothing.
  await agent.ok('task.end', { task: b.task, token: b.token });
  const afterEnd = await agent.call('request', req('/bb3/shared/z', { task: b.task, token: b.token }));
  assert.ok(afterEnd.error || (afterEnd.result as { decision: string }).decision === 'deny', JSON.stringify(afterEnd));
  await agent.ok('task.end', { task: a.token });
});

test('what the agent says about itself is not taken: extra fields (process, decision, decidedBy, risk) are refused, and the recorded process is the real peer', async () => {
  for (const extra of [{ process: { pid: 1, exe: '/usr/bin/sudo', argv: ['sudo'] } }, { decision: 'allow' }, { decidedBy: 'human' }, { risk: { level: 'low', reasons: [] } }, { grant: 'g_x' }]) {
    const m = await agent.call('request', req('/bb3/claims', extra));
    assert.equal(m.error?.code, -32602, `${Object.keys(extra)[0]}: ${JSON.stringify(m)}`);
    assert.match(m.error!.message, new RegExp(Object.keys(extra)[0]!));
  }
  assert.equal((await pendingList(s.ui)).length, 0, 'nothing reached a prompt');
  const rejected = (await events()).filter((e) => e.decision === 'reject' && e.source === 'request.sock');
  assert.ok(rejected.length >= 5, `every refused attempt is recorded: ${rejected.length}`);
  const r = await agent.ok<{ event: number }>('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb3/who', summary: 'who am i', cwd: '/' });
  const e = (await events()).find((x) => x.id === r.event)!;
  assert.equal(e.process?.pid, process.pid, 'the peer from the kernel: this test process');
  assert.equal(e.cwd, '/', 'cwd recorded as sent');
});

test('nothing goes unrecorded: a read, a human allow and deny, exec, check, exec --shell, a malformed line, a refused method — each has its row with the documented fields', async () => {
  const mark = (await events(1))[0]?.id ?? 0;
  const read = await agent.ok<{ event: number; decision: string }>('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb3/rec/r', summary: 'bb3 rec read', args: { n: 1 }, cwd: '/tmp' });
  assert.equal(read.decision, 'allow');
  const allowP = agent.call('request', { source: 'mcp', tool: 'fs/write_file', action: 'write', resource: '/bb3/rec/w', summary: 'bb3 rec write', args: { path: '/bb3/rec/w', content: 'x' } }, 30_000);
  await s.ui.ok('pending.decide', { id: (await waitPending(s.ui, (x) => x.resource === '/bb3/rec/w', 'the write prompt')).id, decision: 'allow', scope: 'once' });
  const allowed = (await allowP).result as { event: number };
  const denyP = agent.call('request', { source: 'claude-code', tool: 'Bash', action: 'delete', resource: 'rm -rf /bb3/rec', summary: 'bb3 rec delete' }, 30_000);
  await s.ui.ok('pending.decide', { id: (await waitPending(s.ui, (x) => x.summary === 'bb3 rec delete', 'the delete prompt')).id, decision: 'deny', scope: 'once' });
  const denied = (await denyP).result as { event: number };
  const dir = fs.mkdtempSync(path.join(s.root, 'exec-'));
  const exec = airlock(['exec', '--', 'touch', 'made-by-exec'], { env, cwd: dir });
  await s.ui.ok('pending.decide', { id: (await waitPending(s.ui, (x) => x.source === 'exec' && String(x.resource).includes('made-by-exec'), 'the exec prompt')).id, decision: 'deny', scope: 'once' });
  const ex = await exec;
  assert.equal(ex.code, 126, ex.stderr);
  assert.equal(fs.existsSync(path.join(dir, 'made-by-exec')), false);
  const shell = airlock(['exec', '--shell', '--', 'echo hi > bb3-shell.txt'], { env, cwd: dir });
  await s.ui.ok('pending.decide', { id: (await waitPending(s.ui, (x) => x.source === 'exec' && String(x.summary + JSON.stringify(x.resource)).includes('bb3-shell.txt'), 'the shell prompt')).id, decision: 'allow', scope: 'once' });
  assert.equal((await shell).code, 0);
  assert.equal(fs.readFileSync(path.join(dir, 'bb3-shell.txt'), 'utf8'), 'hi\n');
  const check = await airlock(['check', '-a', 'read', '-t', 'bb3-check', '-r', '/bb3/rec/c', '-s', 'bb3 rec check'], { env });
  assert.equal(check.code, 0, check.stderr);
  agent.raw('{"jsonrpc":"2.0","id":77,"method":"request","params":{"source":"api"\n');
  await agent.expectOther((m) => m.id === null && m.error?.code === -32700, 'the parse error');
  const refused = await agent.call('pending.decide', { id: 'x', decision: 'allow', scope: 'always' });
  assert.equal(refused.error?.code, -32601);

  const all = (await events(200)).filter((e) => e.id > mark);
  const byId = (id: number) => all.find((e) => e.id === id)!;
  const r = byId(read.event);
  assert.deepEqual([r.source, r.tool, r.action, r.resource, r.summary, r.decision, r.decidedBy, r.cwd], ['api', 'cat', 'read', '/bb3/rec/r', 'bb3 rec read', 'allow', 'policy', '/tmp']);
  assert.deepEqual(r.args, { n: 1 });
  const w = byId(allowed.event);
  assert.deepEqual([w.source, w.action, w.decision, w.decidedBy], ['mcp', 'write', 'allow', 'human']);
  assert.deepEqual(w.args, { path: '/bb3/rec/w', content: 'x' }, 'args as sent');
  const d = byId(denied.event);
  assert.deepEqual([d.source, d.tool, d.decision, d.decidedBy], ['claude-code', 'Bash', 'deny', 'human']);
  const e = all.find((x) => x.source === 'exec' && JSON.stringify(x).includes('made-by-exec'));
  assert.ok(e && e.decision === 'deny' && e.decidedBy === 'human', `the denied exec is recorded: ${JSON.stringify(e)}`);
  assert.ok(e.process && e.process.argv.join(' ').includes('made-by-exec'), 'who: the airlock exec process');
  const sh = all.find((x) => x.source === 'exec' && JSON.stringify(x).includes('bb3-shell.txt'));
  assert.ok(sh && sh.decision === 'allow' && sh.action === 'write', `the shell write is recorded as a write: ${JSON.stringify(sh)}`);
  const c = all.find((x) => x.summary === 'bb3 rec check');
  assert.ok(c && c.tool === 'bb3-check' && c.decision === 'allow', JSON.stringify(c));
  const parse = all.find((x) => x.decision === 'reject' && JSON.stringify(x).includes('"source'));
  assert.ok(parse, `the malformed line is a reject row holding what was sent: ${JSON.stringify(all.filter((x) => x.decision === 'reject'))}`);
  const method = all.find((x) => x.decision === 'reject' && JSON.stringify(x).includes('pending.decide'));
  assert.ok(method, 'the human-side method called on request.sock is recorded');
  // And it is all on the chain.
  const v = await s.ui.ok<{ ok: boolean; count: number }>('audit.verify');
  assert.equal(v.ok, true);
  assert.ok(v.count >= all.length);
});

test('text from the agent cannot forge a row in `airlock history`: a newline and escapes in the summary stay in one visible row', async () => {
  const forged = 'bb3 innocent\n999  2026-01-01 00:00:00Z  allow  human  api  read  low  \x1b[2Kforged row\u202e';
  const r = await agent.ok<{ event: number }>('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb3/forge', summary: forged });
  const h = await airlock(['history', '-n', '3'], { env });
  assert.equal(h.code, 0, h.stderr);
  assert.ok(!h.stdout.includes('\x1b'), 'no raw escape reaches the terminal');
  assert.ok(!h.stdout.includes('\u202e'), 'no raw bidi override');
  const lines = h.stdout.split('\n').filter((l) => l && !l.startsWith('more: '));
  assert.equal(lines.length, 4, `a header and three rows, the forged newline shown, not obeyed:\n${h.stdout}`);
  assert.ok(lines.some((l) => l.startsWith(String(r.event)) && l.includes('forged row')), h.stdout);
  assert.ok(!lines.some((l) => /^999\s/.test(l)), 'no row 999 appears');
  const json = spawnSync(process.execPath, [path.join(__dirname, '..', '..', '..', 'bin', 'airlock'), 'history', '--json', '-n', '1'], { env, encoding: 'utf8' });
  assert.equal((JSON.parse(json.stdout.trim()) as Event).summary, forged, '--json keeps the exact text for scripts');
});

test('an agent cannot start tasks without end (each holds sockets): the one over 1,000 running is refused with -32001, recorded; ending one makes room', async () => {
  const tasksRunning = async () => (await s.ui.ok<{ tasks: { id: string; endedAt: number | null }[] }>('tasks.list', {})).tasks.filter((t) => !t.endedAt).length;
  const started: Started[] = [];
  let refused: { code: number; message: string } | undefined;
  for (let i = 0; i < 1100 && !refused; i++) {
    const r = await agent.call('task.start', { name: `bb3 flood ${i}` });
    if (r.error) refused = r.error;
    else started.push(r.result as unknown as Started);
  }
  assert.ok(refused, `task.start was refused at some point (${started.length} started)`);
  assert.equal(refused.code, -32001);
  assert.match(refused.message, /too many running tasks \(1000/);
  assert.match(refused.message, /airlock task end/, 'the message says what to do');
  assert.equal(await tasksRunning(), 1000);
  const row = (await events(5)).find((e) => e.tool === 'task.start' && e.decision === 'deny');
  assert.ok(row && row.decidedBy === 'system', `the refusal is recorded: ${JSON.stringify(row)}`);
  // The human side still answers, and the agent still can ask.
  assert.equal((await agent.ok<{ decision: string }>('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb3/after-flood', summary: 'after the flood' })).decision, 'allow');
  await agent.ok('task.end', { task: started[0]!.token });
  const again = await agent.ok<Started>('task.start', { name: 'bb3 after one ended' });
  assert.ok(again.task);
  for (const t of [...started.slice(1), again]) await agent.ok('task.end', { task: t.token });
  assert.ok((await tasksRunning()) < 10);
});

test('a task started with cwd "/" or a directory holding the home gets no wide "allow for this task" suggestion (it would be /usr/** or ~/.local/**); a project directory still does', async () => {
  const home = process.env.HOME ?? '/root';
  const project = fs.mkdtempSync(path.join(s.root, 'proj-'));
  const cases: { cwd: string; write: string; suggested: boolean }[] = [
    { cwd: '/', write: '/usr/local/bin/bb3-tool', suggested: false },
    { cwd: '/', write: `${project}/src/a.ts`, suggested: false },
    { cwd: home, write: path.join(home, '.local', 'bin', 'bb3-tool'), suggested: false },
    { cwd: path.dirname(home), write: path.join(home, 'bb3-notes', 'x.txt'), suggested: false },
    { cwd: project, write: `${project}/src/a.ts`, suggested: true },
  ];
  for (const c of cases) {
    const t = await agent.ok<Started>('task.start', { name: `bb3 cwd ${c.cwd}`, cwd: c.cwd });
    const w = await Wire.open(t.requestSock);
    try {
      const pending = w.call('request', req(c.write), 30_000);
      const p = await waitPending(s.ui, (x) => x.resource === c.write && x.task === t.task, `the prompt for ${c.write}`, 10_000);
      const suggestion = (p as unknown as { suggestion?: { resource: string } }).suggestion;
      if (c.suggested) assert.equal(suggestion?.resource, `${project}/src/**`, JSON.stringify(suggestion));
      else assert.equal(suggestion, undefined, `task cwd ${c.cwd}, write ${c.write}: no suggestion, got ${JSON.stringify(suggestion)}`);
      await s.ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
      await pending;
    } finally {
      w.close();
      await agent.ok('task.end', { task: t.token });
    }
  }
});

test('a command-pattern grant of a task started in "/" covers no file: echo * does not let echo x > FILE write anywhere; in a project directory it covers files inside it', async () => {
  const project = fs.mkdtempSync(path.join(s.root, 'cmdproj-'));
  const outside = fs.mkdtempSync(path.join(s.root, 'elsewhere-'));
  for (const c of [{ cwd: '/', target: path.join(outside, 'out.txt'), silent: false }, { cwd: project, target: path.join(project, 'out.txt'), silent: true }]) {
    const t = await agent.ok<Started>('task.start', { name: `bb3 cmd ${c.cwd}`, cwd: c.cwd });
    await s.ui.ok('grants.create', { task: t.task, source: 'exec', tool: 'exec', action: 'write', resource: 'echo *', effect: 'allow' });
    const run = airlock(['exec', '--task', t.token, '--shell', '--', `echo bb3 > ${c.target}`], { env, cwd: project, timeoutMs: 30_000 });
    if (c.silent) {
      const r = await run;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(fs.readFileSync(c.target, 'utf8'), 'bb3\n', 'covered inside the project: ran without a prompt');
    } else {
      const p = await waitPending(s.ui, (x) => x.task === t.task && x.source === 'exec', `a prompt for the write from the task in ${c.cwd}`, 15_000);
      await s.ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
      assert.equal((await run).code, 126);
      assert.equal(fs.existsSync(c.target), false);
    }
    await agent.ok('task.end', { task: t.token });
  }
});
