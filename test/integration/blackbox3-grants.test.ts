// Black-box, third wave: grants as DESIGN.md's GrantSpec and the README's "Tasks and grants"
// promise them, driven over the raw sockets and the CLI exactly as documented — expiry, use
// limits, the scopes a prompt can answer with (once / task / duration / always), revocation,
// `when` conditions (the README's own example line), and that each answer a grant gives is
// recorded with that grant's id.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { waitFor } from '../helpers/daemon';
import { Wire, airlock, closeBlackboxSession, openBlackboxSession, pendingList, waitPending, type BlackboxSession, type RpcMsg } from '../helpers/blackbox';

let s: BlackboxSession;
let env: NodeJS.ProcessEnv;
let agent: Wire;

interface Grant {
  id: string;
  task: string | null;
  action: string;
  resource: string;
  effect: string;
  expiresAt: number | null;
  usesLeft: number | null;
  revokedAt: number | null;
}
interface Answer {
  decision: string;
  reason: string;
  event: number;
  grant?: string | { id: string };
}
interface Event {
  id: number;
  task: string | null;
  resource: string | null;
  decision: string;
  decidedBy: string;
  grant: string | null;
  scope: string | null;
  args: unknown;
}

before(async () => {
  s = await openBlackboxSession('bb3g-');
  env = { ...process.env, AIRLOCK_HOME: s.d.home };
  agent = await Wire.open(s.d.requestSock);
});
after(async () => {
  agent?.close();
  await closeBlackboxSession(s);
});

function write(resource: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { source: 'api', tool: 'fs.write', action: 'write', resource, summary: `write ${resource}`, ...extra };
}

/** Sends a request and, when `promptAnswer` is given, expects a prompt for it and answers it. */
async function ask(w: Wire, params: Record<string, unknown>, promptAnswer?: Record<string, unknown>): Promise<Answer> {
  const pending = w.call('request', params, 60_000);
  if (promptAnswer) {
    const p = await waitPending(s.ui, (x) => x.resource === params.resource && x.tool === params.tool, `the prompt for ${String(params.resource)}`, 20_000);
    const r = await s.ui.call('pending.decide', { id: p.id, ...promptAnswer });
    assert.equal(r.error, undefined, JSON.stringify(r));
  }
  const m: RpcMsg = await pending;
  assert.equal(m.error, undefined, JSON.stringify(m));
  return m.result as unknown as Answer;
}

/** Sends a request that must be answered without anyone deciding (a grant or the policy). */
async function silent(w: Wire, params: Record<string, unknown>): Promise<Answer> {
  const m = await w.call('request', params, 20_000);
  assert.equal(m.error, undefined, JSON.stringify(m));
  return m.result as unknown as Answer;
}

/** Sends a request that must reach a prompt; denies it and returns the prompt's id. */
async function mustAsk(w: Wire, params: Record<string, unknown>, what: string): Promise<void> {
  const pending = w.call('request', params, 60_000);
  const p = await waitPending(s.ui, (x) => x.resource === params.resource && x.tool === params.tool, what, 20_000);
  await s.ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
  assert.equal(((await pending).result as unknown as Answer).decision, 'deny');
}

async function event(id: number): Promise<Event> {
  const r = await s.ui.ok<{ events: Event[] }>('history.query', { limit: 50 });
  const e = r.events.find((x) => x.id === id);
  assert.ok(e, `event ${id} is in history`);
  return e;
}

function grantId(a: Answer): string | undefined {
  return typeof a.grant === 'string' ? a.grant : a.grant?.id;
}

test('expiresAt: a grant answers until its time, then the same request asks again', async () => {
  const g = await s.ui.ok<{ grant: Grant }>('grants.create', { action: 'write', resource: '/bb3/exp/**', effect: 'allow', expiresAt: Date.now() + 1500 });
  const a = await silent(agent, write('/bb3/exp/a.txt'));
  assert.equal(a.decision, 'allow');
  assert.equal(grantId(a), g.grant.id, `the answer names the grant: ${JSON.stringify(a)}`);
  const e = await event(a.event);
  assert.equal(e.grant, g.grant.id, 'history says which grant answered');
  assert.equal(e.decidedBy, 'grant');
  await new Promise((r) => setTimeout(r, 1700));
  await mustAsk(agent, write('/bb3/exp/a.txt'), 'a prompt once the grant expired');
  // An expiry already past is refused (a grant that could never answer is a mistake), or at least never answers.
  const past = await s.ui.call('grants.create', { action: 'write', resource: '/bb3/past/**', effect: 'allow', expiresAt: Date.now() - 1000 });
  if (!past.error) await mustAsk(agent, write('/bb3/past/x'), 'a prompt despite a grant created already expired');
});

test('uses: 2 answers twice, each use recorded with the grant; the third asks; grants.list counts down', async () => {
  const g = await s.ui.ok<{ grant: Grant }>('grants.create', { action: 'write', resource: '/bb3/uses/**', effect: 'allow', uses: 2 });
  assert.equal(g.grant.usesLeft, 2);
  const first = await silent(agent, write('/bb3/uses/1'));
  const listed = (await s.ui.ok<{ grants: Grant[] }>('grants.list', {})).grants.find((x) => x.id === g.grant.id);
  assert.equal(listed?.usesLeft, 1, 'one use left after the first');
  const second = await silent(agent, write('/bb3/uses/2'));
  assert.deepEqual([first.decision, second.decision], ['allow', 'allow']);
  for (const a of [first, second]) assert.equal((await event(a.event)).grant, g.grant.id);
  await mustAsk(agent, write('/bb3/uses/3'), 'a prompt once the uses ran out');
  // Parallel requests cannot spend one use twice.
  const one = await s.ui.ok<{ grant: Grant }>('grants.create', { action: 'write', resource: '/bb3/race/**', effect: 'allow', uses: 1 });
  const wires = await Promise.all([0, 1, 2, 3].map(() => Wire.open(s.d.requestSock)));
  try {
    const answers = wires.map((w, i) => w.call('request', write(`/bb3/race/${i}`), 60_000));
    await waitFor(async () => (await pendingList(s.ui)).filter((p) => String(p.resource).startsWith('/bb3/race/')).length === 3, 'three of four racing requests to ask', 20_000, 50);
    for (const p of (await pendingList(s.ui)).filter((x) => String(x.resource).startsWith('/bb3/race/'))) await s.ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    const decided = (await Promise.all(answers)).map((m) => (m.result as unknown as Answer).decision);
    assert.equal(decided.filter((x) => x === 'allow').length, 1, `one use, one allow: ${decided.join()}`);
    assert.equal((await s.ui.ok<{ grants: Grant[] }>('grants.list', {})).grants.find((x) => x.id === one.grant.id)?.usesLeft ?? 0, 0);
  } finally {
    for (const w of wires) w.close();
  }
});

test('scope "task" from a prompt: the grant is the task\'s — it answers that task, not another task nor a request without a task, and dies with the task', async () => {
  const a = await agent.ok<{ task: string; token: string; requestSock: string }>('task.start', { name: 'bb3 scoped A' });
  const b = await agent.ok<{ task: string; token: string; requestSock: string }>('task.start', { name: 'bb3 scoped B' });
  const wa = await Wire.open(a.requestSock);
  const wb = await Wire.open(b.requestSock);
  try {
    const first = await ask(wa, write('/bb3/task/x.txt'), { decision: 'allow', scope: 'task' });
    assert.equal(first.decision, 'allow');
    const gid = grantId(first);
    const g = (await s.ui.ok<{ grants: Grant[] }>('grants.list', { task: a.task })).grants;
    assert.equal(g.length, 1, `grants.list {task} shows the task's grant: ${JSON.stringify(g)}`);
    assert.equal(g[0]!.task, a.task);
    if (gid) assert.equal(g[0]!.id, gid);
    assert.equal((await s.ui.ok<{ grants: Grant[] }>('grants.list', { task: b.task })).grants.length, 0, "B's list does not hold A's grant");
    const again = await silent(wa, write('/bb3/task/x.txt'));
    assert.equal(again.decision, 'allow', 'the same task: answered by the grant');
    assert.equal((await event(again.event)).task, a.task);
    await mustAsk(wb, write('/bb3/task/x.txt'), 'another task asks');
    await mustAsk(agent, write('/bb3/task/x.txt'), 'a request without a task asks');
    // The token on the shared socket acts as A: still A's grant.
    assert.equal((await silent(agent, write('/bb3/task/x.txt', { task: a.task, token: a.token }))).decision, 'allow');
    assert.deepEqual(await wa.ok('task.end', {}), {}, 'task.end → {} as DESIGN.md says');
    // Ended: its grants no longer match, and it can no longer ask as itself.
    const late = await agent.call('request', write('/bb3/task/x.txt', { task: a.task, token: a.token }), 20_000);
    assert.ok(late.error || (late.result as unknown as Answer).decision === 'deny', `an ended task is not answered by its grant: ${JSON.stringify(late)}`);
    const tasks = (await s.ui.ok<{ tasks: { id: string; endedAt?: unknown; ended?: unknown; status?: string }[] }>('tasks.list', {})).tasks;
    const listedA = tasks.find((t) => t.id === a.task);
    assert.ok(!listedA || listedA.endedAt || listedA.ended || listedA.status === 'ended', `tasks.list no longer shows A as running: ${JSON.stringify(listedA)}`);
  } finally {
    wa.close();
    wb.close();
  }
});

test('scope "once" makes no grant; scope "always" with an edited pattern makes a grant for every task; deny from a prompt with scope "task" denies the next one without asking', async () => {
  const before = (await s.ui.ok<{ grants: Grant[] }>('grants.list', {})).grants.length;
  const once = await ask(agent, write('/bb3/once/a'), { decision: 'allow', scope: 'once' });
  assert.equal(once.decision, 'allow');
  assert.equal(grantId(once), undefined, 'once: no grant');
  assert.equal((await s.ui.ok<{ grants: Grant[] }>('grants.list', {})).grants.length, before, 'once: grants.list unchanged');
  await mustAsk(agent, write('/bb3/once/a'), 'the same request asks again after "once"');

  const always = await ask(agent, write('/bb3/always/a'), { decision: 'allow', scope: 'always', pattern: { tool: 'fs.write', resource: '/bb3/always/**' } });
  const gid = grantId(always);
  assert.ok(gid, JSON.stringify(always));
  const t = await agent.ok<{ task: string; requestSock: string }>('task.start', { name: 'bb3 always' });
  const wt = await Wire.open(t.requestSock);
  try {
    assert.equal((await silent(wt, write('/bb3/always/deep/b'))).decision, 'allow', '"always" covers every task');
    assert.equal((await event((await silent(agent, write('/bb3/always/c'))).event)).grant, gid);
    // Revoked with the CLI as the README shows: the next one asks.
    const r = await airlock(['grants', 'revoke', gid], { env });
    assert.equal(r.code, 0, r.stderr);
    await mustAsk(agent, write('/bb3/always/c'), 'a prompt after the revoke');
    const unknown = await s.ui.call('grants.revoke', { id: 'g_doesnotexist' });
    assert.equal(unknown.error?.code, -32004, JSON.stringify(unknown));

    const denied = await ask(wt, write('/bb3/deny/x'), { decision: 'deny', scope: 'task' });
    assert.equal(denied.decision, 'deny');
    const next = await silent(wt, write('/bb3/deny/x'));
    assert.equal(next.decision, 'deny', 'a deny "for this task" answers the next identical request');
    assert.equal((await event(next.event)).decidedBy, 'grant');
  } finally {
    wt.close();
  }
});

test('the README\'s `when` example line: amount ≤ 50 to alice is allowed; more, another payee, a string amount or no args ask', async () => {
  const add = await airlock(['grants', 'add', '-a', 'transfer', '-t', 'payments/pay', '--when', 'args.amount <= 50 && args.to in ["alice@example.com"]'], { env });
  assert.equal(add.code, 0, add.stderr);
  const gid = /g_[A-Za-z0-9_-]+/.exec(add.stdout)![0];
  const pay = (args: unknown, resource = 'alice@example.com'): Record<string, unknown> => ({ source: 'api', tool: 'payments/pay', action: 'transfer', resource, summary: 'pay', args });
  try {
    const ok = await silent(agent, pay({ amount: 40, to: 'alice@example.com' }));
    assert.equal(ok.decision, 'allow');
    assert.deepEqual((await event(ok.event)).args, { amount: 40, to: 'alice@example.com' }, 'args recorded as sent');
    assert.equal((await silent(agent, pay({ amount: 50, to: 'alice@example.com' }))).decision, 'allow', '50 ≤ 50');
    await mustAsk(agent, pay({ amount: 51, to: 'alice@example.com' }, 'r51'), '51 asks');
    await mustAsk(agent, pay({ amount: 10, to: 'mallory@example.com' }, 'rmallory'), 'another payee asks');
    await mustAsk(agent, pay({ amount: '10', to: 'alice@example.com' }, 'rstring'), 'a string amount asks');
    await mustAsk(agent, pay(undefined, 'rnone'), 'no args asks');
    await mustAsk(agent, pay({ amount: 10, to: ['alice@example.com'] }, 'rlist'), 'a list for a payee asks');
    // A condition that does not compile is refused when the grant is made (exit 64 or an error), and no grant exists.
    const n = (await s.ui.ok<{ grants: Grant[] }>('grants.list', {})).grants.length;
    const bad = await airlock(['grants', 'add', '-a', 'transfer', '-t', 'payments/pay', '--when', 'args.amount <= '], { env });
    assert.notEqual(bad.code, 0);
    const badRpc = await s.ui.call('grants.create', { action: 'transfer', tool: 'payments/pay', effect: 'allow', when: 'args.amount <<= 3' });
    assert.equal(badRpc.error?.code, -32602, JSON.stringify(badRpc));
    assert.equal((await s.ui.ok<{ grants: Grant[] }>('grants.list', {})).grants.length, n);
  } finally {
    await airlock(['grants', 'revoke', gid], { env });
  }
});

test('the README\'s other grant lines work as written: a deny of everything but reads on gmail/*, a Bash grant with --expires 2h, grants list / task list --all', async () => {
  const deny = await airlock(['grants', 'add', '-a', 'write,delete,transfer,execute', '--deny', '-t', 'gmail/*', '--note', 'gmail: read only'], { env });
  assert.equal(deny.code, 0, deny.stderr);
  const mail = (action: string): Record<string, unknown> => ({ source: 'api', tool: 'gmail/messages', action, resource: 'msg-1', summary: `${action} a mail` });
  for (const action of ['write', 'delete', 'transfer', 'execute']) {
    const a = await silent(agent, mail(action));
    assert.equal(a.decision, 'deny', `${action} on gmail/* is denied by the grant`);
  }
  assert.equal((await silent(agent, mail('read'))).decision, 'allow', 'reads stay allowed');
  const bash = await airlock(['grants', 'add', '-a', 'execute', '-t', 'Bash', '-r', 'npm run test *', '--expires', '2h'], { env });
  assert.equal(bash.code, 0, bash.stderr);
  const g = (await s.ui.ok<{ grants: Grant[] }>('grants.list', {})).grants.find((x) => x.resource === 'npm run test *');
  assert.ok(g?.expiresAt, JSON.stringify(g));
  const inTwoHours = Date.now() + 2 * 3600_000;
  assert.ok(Math.abs(g.expiresAt - inTwoHours) < 60_000, `--expires 2h is two hours from now: ${new Date(g.expiresAt).toISOString()}`);
  const list = await airlock(['grants', 'list'], { env });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /gmail\/\*/);
  assert.match(list.stdout, /npm run test \*/);
  const tl = await airlock(['task', 'list', '--all'], { env });
  assert.equal(tl.code, 0, tl.stderr);
  assert.match(tl.stdout, /bb3 scoped A/, 'an ended task is listed with --all');
  const running = await airlock(['task', 'list'], { env });
  assert.doesNotMatch(running.stdout, /bb3 scoped A/, 'without --all only running tasks');
  assert.match(running.stdout, /bb3 scoped B/);
});
