// PromptQueue on its own (with the recorder and grants over a scratch SQLite store): every
// prompt rule — coalescing, the three caps, timeouts, disconnects, each decision's scope —
// and what each leaves in history. Timers are fired by hand; no daemon, no socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentAnswer } from '../../main/contract/agent';
import { RPC, RpcError } from '../../main/contract/rpc';
import type { CoreRequest } from '../../main/core/request';
import type { Risk } from '../../main/contract/common';
import { makeParts, T0, tick, type Parts } from './core-parts';

const RISK: Risk = { level: 'medium', reasons: ['write is a high-impact action'] };

function req(p: Partial<CoreRequest> = {}): CoreRequest {
  return { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/a', resources: ['/repo/a'], summary: 'write /repo/a', argsText: null, args: undefined, task: null, cwd: null, classifierRisk: [], ...p };
}

function events(parts: Parts) {
  return parts.store.queryHistory({ limit: 100 }).events;
}

async function withParts(fn: (p: Parts) => Promise<void>, settings?: NonNullable<Parameters<typeof makeParts>[0]>['settings']) {
  const p = makeParts({ settings });
  try {
    await fn(p);
  } finally {
    p.close();
  }
}

test('queue: a prompt is shown, and the human\'s "once" answers it, recorded before the answer', () =>
  withParts(async (p) => {
    const answer = p.queue.ask(req(), RISK, { connection: 'c1' });
    const [prompt] = p.queue.list();
    assert.ok(prompt);
    assert.equal(prompt.summary, 'write /repo/a');
    assert.equal(prompt.expiresAt - prompt.createdAt, 60_000);
    assert.ok(p.notes.some((n) => n.method === 'pending.added'));
    assert.deepEqual(p.queue.decide({ id: prompt.id, decision: 'allow', scope: 'once' }), {});
    const a = await answer;
    assert.equal(a.decision, 'allow');
    assert.equal(a.reason, 'allowed once by the human');
    const [ev] = events(p);
    assert.equal(ev!.id, a.event);
    assert.equal(ev!.decidedBy, 'human');
    assert.equal(ev!.scope, 'once');
    assert.equal(p.queue.list().length, 0);
    assert.equal(p.timers.live(), 0, 'the timeout is cancelled');
    assert.equal(p.tasks.activeGrants().all.length, 0, 'once makes no grant');
  }));

test('queue: identical requests share one prompt; each waiter gets its own event', () =>
  withParts(async (p) => {
    const a1 = p.queue.ask(req(), RISK, { connection: 'c1' });
    const a2 = p.queue.ask(req(), RISK, { connection: 'c2' });
    const a3 = p.queue.ask(req({ resources: ['/repo/b'], resource: '/repo/b' }), RISK, { connection: 'c1' });
    assert.equal(p.queue.list().length, 2);
    p.queue.decide({ id: p.queue.list()[0]!.id, decision: 'deny', scope: 'once' });
    const [r1, r2] = await Promise.all([a1, a2]);
    assert.equal(r1.decision, 'deny');
    assert.equal(r2.decision, 'deny');
    assert.notEqual(r1.event, r2.event);
    assert.equal(p.queue.list().length, 1);
    p.queue.denyAll('stop');
    assert.equal((await a3).reason, 'stop');
  }));

test('queue: past maxPendingPerTask a distinct request is refused at once (-32001) and recorded; the shown prompts stay', () =>
  withParts(
    async (p) => {
      void p.queue.ask(req({ task: 't_1', resources: ['/a'] }), RISK, { connection: 'c1' });
      void p.queue.ask(req({ task: 't_1', resources: ['/b'] }), RISK, { connection: 'c2' });
      await assert.rejects(p.queue.ask(req({ task: 't_1', resources: ['/c'] }), RISK, { connection: 'c3' }), (e: unknown) => e instanceof RpcError && e.code === RPC.refused);
      // Another task is not held back by this one's cap; an identical request joins its prompt.
      void p.queue.ask(req({ task: 't_2', resources: ['/c'] }), RISK, { connection: 'c3' });
      void p.queue.ask(req({ task: 't_1', resources: ['/a'] }), RISK, { connection: 'c9' });
      assert.equal(p.queue.list().length, 3);
      const refused = events(p).filter((e) => e.decidedBy === 'system');
      assert.equal(refused.length, 1);
      assert.equal(refused[0]!.decision, 'deny');
      assert.match(refused[0]!.reason, /too many prompts waiting for task t_1 \(limit 2\)/);
      p.queue.denyAll('end');
    },
    { maxPendingPerTask: 2 },
  ));

test('queue: one connection meets maxPendingPerConnection across tasks; the daemon meets maxPendingTotal', () =>
  withParts(
    async (p) => {
      void p.queue.ask(req({ task: 't_1', resources: ['/a'] }), RISK, { connection: 'c1' });
      void p.queue.ask(req({ task: 't_2', resources: ['/b'] }), RISK, { connection: 'c1' });
      await assert.rejects(p.queue.ask(req({ task: 't_3', resources: ['/c'] }), RISK, { connection: 'c1' }), /waiting for this connection across its tasks \(limit 2\)/);
      void p.queue.ask(req({ task: 't_3', resources: ['/c'] }), RISK, { connection: 'c2' });
      await assert.rejects(p.queue.ask(req({ task: 't_4', resources: ['/d'] }), RISK, { connection: 'c3' }), /in Airlock as a whole \(limit 3\)/);
      assert.equal(p.queue.list().length, 3);
      assert.match(p.queue.overCap({ new: true }, 'c9') ?? '', /./, 'a task.start with grants meets the total cap too');
      p.queue.denyAll('end');
    },
    { maxPendingPerConnection: 2, maxPendingTotal: 3 },
  ));

test('queue: nobody answers in time → denied by default, with the timeout in force when it was shown', () =>
  withParts(
    async (p) => {
      const a = p.queue.ask(req(), RISK, {});
      assert.equal(p.timers.scheduled[0]!.ms, 5000);
      p.settings.update({ promptTimeoutSec: 999 });
      p.timers.fire();
      const r = await a;
      assert.equal(r.decision, 'deny');
      assert.equal(r.reason, 'no answer within 5 s: denied by default');
      assert.equal(events(p)[0]!.decidedBy, 'timeout');
      assert.ok(p.notes.some((n) => n.method === 'pending.resolved' && n.params.event === r.event));
    },
    { promptTimeoutSec: 5 },
  ));

test('queue: a requester that disconnects gets its own deny recorded; others keep waiting on the prompt', () =>
  withParts(async (p) => {
    const gone = p.queue.ask(req(), RISK, { connection: 'c1' });
    const stays = p.queue.ask(req(), RISK, { connection: 'c2' });
    p.queue.dropConnection('c1');
    const g = await gone;
    assert.equal(g.reason, 'the requester disconnected before the human answered');
    assert.equal(p.queue.list().length, 1, 'the prompt stays for c2');
    p.queue.dropConnection('c2');
    assert.equal((await stays).decision, 'deny');
    assert.equal(p.queue.list().length, 0);
    assert.equal(events(p).length, 2);
  }));

test('queue: "always" makes a grant in the same transaction as the event; it covers the exact resource only', () =>
  withParts(async (p) => {
    const a = p.queue.ask(req(), RISK, {});
    const { grant } = p.queue.decide({ id: p.queue.list()[0]!.id, decision: 'allow', scope: 'always' });
    const r = await a;
    assert.ok(grant);
    assert.equal(r.grant, grant.id);
    assert.equal(grant.resource, '/repo/a');
    assert.equal(grant.expiresAt, null);
    assert.equal(grant.task, null);
    assert.deepEqual(p.tasks.activeGrants().all.map((g) => g.id), [grant.id]);
    assert.ok(p.notes.some((n) => n.method === 'grants.changed'));
  }));

test('queue: "duration" expires; "task" is for the task only and refused without one; once takes no condition', () =>
  withParts(async (p) => {
    void p.queue.ask(req(), RISK, {});
    const id = p.queue.list()[0]!.id;
    assert.throws(() => p.queue.decide({ id, decision: 'allow', scope: 'task' }), /belongs to no task/);
    assert.throws(() => p.queue.decide({ id, decision: 'allow', scope: 'once', when: 'true' }), /when: needs a grant/);
    assert.throws(() => p.queue.decide({ id, decision: 'allow', scope: 'always', when: 'args.(' }), /invalid params: when/);
    assert.equal(p.queue.list().length, 1, 'a refused decision leaves the prompt open');
    const { grant } = p.queue.decide({ id, decision: 'allow', scope: 'duration', durationSec: 120 });
    assert.equal(grant!.expiresAt, T0 + 120_000);
    p.clock.now = T0 + 120_001;
    p.tasks.grantsChanged();
    assert.equal(p.tasks.activeGrants().all.length, 0, 'expired');

    p.tasks.insertTask({ id: 't_1', name: 'one', cwd: null, createdAt: T0, endedAt: null, sshAuthSock: null, remote: null }, 'h');
    const t = p.queue.ask(req({ task: 't_1' }), RISK, {});
    const { grant: tg } = p.queue.decide({ id: p.queue.list()[0]!.id, decision: 'deny', scope: 'task' });
    assert.equal(tg!.task, 't_1');
    assert.equal(tg!.effect, 'deny');
    assert.equal((await t).decision, 'deny');
  }));

test('queue: an unknown or answered prompt id is not found', () =>
  withParts(async (p) => {
    assert.throws(() => p.queue.decide({ id: 'p_nope', decision: 'allow', scope: 'once' }), (e: unknown) => e instanceof RpcError && e.code === RPC.notFound);
  }));

test('queue: "only reads from this server" makes an allow for reads and a deny for the rest; MCP only', () =>
  withParts(async (p) => {
    const w = p.queue.ask(req({ source: 'mcp', tool: 'gmail/send', action: 'transfer' }), RISK, {});
    const { grant } = p.queue.decide({ id: p.queue.list()[0]!.id, decision: 'allow', scope: 'always', serverReadOnly: true });
    const a: AgentAnswer = await w;
    assert.equal(a.decision, 'deny', 'this transfer is denied by the deny half');
    assert.equal(grant!.effect, 'deny');
    const all = p.tasks.activeGrants().all;
    assert.deepEqual(all.map((g) => [g.tool, g.effect]).sort(), [['gmail/*', 'allow'], ['gmail/*', 'deny']]);
    void p.queue.ask(req(), RISK, {});
    assert.throws(() => p.queue.decide({ id: p.queue.list()[0]!.id, decision: 'allow', scope: 'always', serverReadOnly: true }), /only for an MCP request/);
    p.queue.denyAll('end');
  }));

test('queue: a task\'s start grants are one prompt; a blank cheque is created only when confirmed by index', () =>
  withParts(async (p) => {
    const task = { id: 't_x', name: 'fix', cwd: '/repo', createdAt: T0, endedAt: null, sshAuthSock: null, remote: null };
    p.tasks.insertTask(task, 'h');
    const asked = p.queue.askTaskGrants(task, [{ action: 'write', effect: 'allow', resource: '/repo/**' }, { action: 'delete', effect: 'allow' }], { connection: 'c' });
    const prompt = p.queue.list()[0]!;
    assert.equal(prompt.grants?.length, 2);
    assert.equal(prompt.risk.level, 'high');
    assert.throws(() => p.queue.decide({ id: prompt.id, decision: 'allow', scope: 'once', confirmGrants: [0] }), /0 is not a grant of this prompt that needs confirming/);
    p.queue.decide({ id: prompt.id, decision: 'allow', scope: 'once' });
    const r = await asked;
    assert.equal(r.ids.length, 1);
    assert.deepEqual(r.declined, [1]);
    assert.deepEqual(p.tasks.activeGrants().all.map((g) => [g.task, g.resource]), [['t_x', '/repo/**']]);

    const again = p.queue.askTaskGrants(task, [{ action: 'delete', effect: 'allow' }], {});
    const id = p.queue.list()[0]!.id;
    assert.throws(() => p.queue.decide({ id, decision: 'allow', scope: 'once' }), /confirm each one you accept by index/);
    p.queue.decide({ id, decision: 'allow', scope: 'once', confirmGrants: [0] });
    assert.equal((await again).ids.length, 1);
    assert.equal(p.tasks.activeGrants().all.find((g) => g.action === 'delete')?.createdBy, 'human (task.start, confirmed)');

    const timedOut = p.queue.askTaskGrants(task, [{ action: 'write', effect: 'allow', resource: '/x' }], {});
    p.timers.fire();
    assert.deepEqual(await timedOut, { ids: [], declined: [0] });
  }));

test('queue: nothing waits forever: denyAll answers every waiter and clears every timer', () =>
  withParts(async (p) => {
    const all = [p.queue.ask(req(), RISK, {}), p.queue.ask(req({ resources: ['/b'] }), RISK, {})];
    p.queue.denyAll('Airlock stopped before the human answered');
    for (const a of await Promise.all(all)) assert.equal(a.decision, 'deny');
    assert.equal(p.timers.live(), 0);
    await tick();
  }));

// Red team (shared prompts, 269597c): everything a prompt shows is part of what makes two
// requests "identical". These two facts were shown but not compared, so the second request
// rode on a prompt that said something else about it.
test('queue: requests that differ only in what the prompt says about them get prompts of their own (action origin, remote connection)', () =>
  withParts(async (p) => {
    const mcp = (actionOrigin: CoreRequest['actionOrigin']) => req({ source: 'mcp', tool: 'files.read_file', action: 'read', resource: '/repo/a', summary: 'files.read_file /repo/a', actionOrigin });
    const a1 = p.queue.ask(mcp('annotation'), RISK, { connection: 'c1' });
    const a2 = p.queue.ask(mcp('pin'), RISK, { connection: 'c2' });
    assert.equal(p.queue.list().length, 2, '"read, as the server says" and "read, as you pinned" are two prompts');
    assert.deepEqual(p.queue.list().map((x) => x.actionOrigin).sort(), ['annotation', 'pin']);
    const viaA = { name: 'devbox', via: 'ssh devbox (pid 100)' };
    const viaB = { name: 'devbox', via: 'ssh devbox (pid 200)' };
    const r1 = p.queue.ask(req({ remote: viaA }), RISK, { connection: 'c3' });
    const r1again = p.queue.ask(req({ remote: viaA }), RISK, { connection: 'c4' });
    const r2 = p.queue.ask(req({ remote: viaB }), RISK, { connection: 'c5' });
    assert.equal(p.queue.list().length, 4, 'a retry over the same ssh connection joins; another connection gets its own prompt');
    const first = p.queue.list().find((x) => x.remote?.via === viaA.via)!;
    p.queue.decide({ id: first.id, decision: 'allow', scope: 'once' });
    assert.deepEqual([(await r1).decision, (await r1again).decision], ['allow', 'allow']);
    assert.equal(p.queue.list().filter((x) => x.remote?.via === viaB.via).length, 1, 'the one over the other connection still waits for its own answer');
    for (const x of p.queue.list()) p.queue.decide({ id: x.id, decision: 'deny', scope: 'once' });
    assert.deepEqual([(await a1).decision, (await a2).decision, (await r2).decision], ['deny', 'deny', 'deny']);
  }));

test('queue: a prompt shown again because its task read a secret keeps its deadline and its place; a retry joins the new one; the timeout answers every waiter once', () =>
  withParts(async (p) => {
    const t = await p.lifecycle.startTask({ name: 'bb11', cwd: '/repo' }, {});
    const send = { source: 'api', tool: 'http.post', action: 'transfer', resource: 'https://upload.example.com/x', summary: 'post hello', task: t.task, token: t.token } as const;
    const first = p.broker.ask(send, { connection: 'c1' });
    const [shown] = p.queue.list();
    assert.equal(shown!.risk.level, 'medium');
    p.clock.now += 20_000;
    // A silent read of a secret (the default policy allows reads) raises the waiting transfer.
    assert.equal((await p.broker.ask({ source: 'api', tool: 'fs.read', action: 'read', resource: '/repo/.env', summary: 'read .env', task: t.task, token: t.token }, { connection: 'c1' })).decision, 'allow');
    const [again] = p.queue.list();
    assert.notEqual(again!.id, shown!.id);
    assert.equal(again!.risk.level, 'critical');
    assert.deepEqual([again!.createdAt, again!.expiresAt], [shown!.createdAt, shown!.expiresAt]);
    assert.equal(p.timers.live(), 1, 'the old timer is cancelled, one new one runs');
    assert.equal(p.timers.scheduled.find((x) => !x.cancelled)!.ms, 40_000, 'what was left of the deadline, not a new minute');
    assert.throws(() => p.queue.decide({ id: shown!.id, decision: 'allow', scope: 'once' }), (e: unknown) => e instanceof RpcError && e.code === RPC.notFound && /risk changed from medium to critical/.test(e.message));
    const retry = p.broker.ask(send, { connection: 'c2' });
    assert.equal(p.queue.list().length, 1, 'an identical request now joins the prompt as it is shown');
    p.clock.now += 40_000;
    p.timers.fire();
    const answers = await Promise.all([first, retry]);
    assert.deepEqual(answers.map((a) => a.decision), ['deny', 'deny']);
    assert.equal(new Set(answers.map((a) => a.event)).size, 2);
    assert.match(answers[0]!.reason, /no answer within 60 s/);
    assert.equal(p.queue.list().length, 0);
    p.broker.shutdown();
  }));
