// Flood control: one task cannot bury the human in prompts. Identical pending requests
// share one prompt (each requester still gets its own recorded answer); distinct ones
// beyond the per-task cap (maxPendingPerTask, default 20) are refused with -32001 and a
// message that says why, and each refusal is in history. Other tasks are not affected.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AirlockRpcError, type RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import type { HistoryEvent, Prompt } from '../../main/contract/approver';
import { RPC } from '../../main/contract/rpc';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';

let d: Daemon;
let ui: RpcClient;
before(async () => {
  d = await startDaemon();
  ui = await d.ui();
});
after(async () => {
  ui?.close();
  await d?.stop();
});

/** Task id → its token (the shared request.sock needs it to act as the task). */
const tokens = new Map<string, string>();
const remember = (r: { task: string; token: string }) => {
  tokens.set(r.task, r.token);
  return r.task;
};
const ask = (task: string, resource: string) => ({ source: 'api', tool: 'flood.upload', action: 'transfer', resource, summary: `upload ${resource}`, task, token: tokens.get(task) });
const pendingOf = async (task: string) => (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.filter((p) => p.task === task);

test('identical requests of a task share one prompt; distinct ones past the cap get -32001 and are recorded', async () => {
  const settings = await ui.call<{ settings: { maxPendingPerTask: number } }>('settings.get', {});
  const cap = settings.settings.maxPendingPerTask;
  assert.equal(cap, 20, 'the default cap');
  const a = await d.agent();
  const b = await d.agent();
  const { task, token } = await a.call<{ task: string; token: string }>('task.start', { name: 'flood' });
  tokens.set(task, token);

  // 60 identical requests from two connections: one prompt.
  const same = Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).call<AgentAnswer>('request', ask(task, '/data/same.tar')));
  await waitFor(async () => (await pendingOf(task)).length === 1, 'the coalesced prompt');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await pendingOf(task)).length, 1, 'still one prompt for 60 identical requests');

  // Distinct requests: cap − 1 more prompts fit, the rest are refused at once.
  const distinct = Array.from({ length: cap + 10 }, (_, i) => a.call<AgentAnswer>('request', ask(task, `/data/f${i}.tar`)).then(
    (v) => ({ ok: v }),
    (e: unknown) => ({ err: e }),
  ));
  const refused = await Promise.all(distinct.slice(cap - 1));
  for (const r of refused) {
    assert.ok('err' in r && r.err instanceof AirlockRpcError, `expected a refusal, got ${JSON.stringify(r)}`);
    assert.equal(r.err.code, RPC.refused);
    assert.match(r.err.message, new RegExp(`too many prompts waiting for task ${task} \\(limit ${cap}\\)`));
  }
  assert.equal((await pendingOf(task)).length, cap, 'the human sees exactly the cap');

  // Another task is not affected by this one's flood.
  const calmTask = await a.call<{ task: string; token: string }>('task.start', { name: 'calm' });
  const other = calmTask.task;
  tokens.set(other, calmTask.token);
  const calm = a.call<AgentAnswer>('request', ask(other, '/data/calm.tar'));
  await waitFor(async () => (await pendingOf(other)).length === 1, "the other task's prompt");

  // Every refusal is in history, as a system deny with the reason.
  const h = await ui.call<{ events: HistoryEvent[] }>('history.query', { task, decision: 'deny', limit: 1000 });
  const refusals = h.events.filter((e) => e.decidedBy === 'system' && /too many prompts waiting/.test(e.reason));
  assert.equal(refusals.length, refused.length, 'one recorded refusal per refused request');
  assert.deepEqual(new Set(refusals.map((e) => e.resource)), new Set(refused.map((_, i) => `/data/f${cap - 1 + i}.tar`)));

  // One answer for the coalesced prompt answers all 60, each with its own event.
  const p = (await pendingOf(task)).find((x) => x.resource === '/data/same.tar')!;
  await ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
  const answers = await Promise.all(same);
  assert.ok(answers.every((x) => x.decision === 'allow'));
  assert.equal(new Set(answers.map((x) => x.event)).size, 60, 'each requester has its own event');

  // With a slot free again, a new distinct request prompts instead of being refused.
  const next = a.call<AgentAnswer>('request', ask(task, '/data/next.tar'));
  await waitFor(async () => (await pendingOf(task)).some((x) => x.resource === '/data/next.tar'), 'a prompt once a slot is free');

  // Clean up: deny what is left; every waiter is answered.
  for (const q of await ui.call<{ prompts: Prompt[] }>('pending.list', {}).then((r) => r.prompts)) {
    await ui.call('pending.decide', { id: q.id, decision: 'deny', scope: 'once' });
  }
  assert.equal((await next).decision, 'deny');
  assert.equal((await calm).decision, 'deny');
  const rest = await Promise.all(distinct.slice(0, cap - 1));
  assert.ok(rest.every((r) => 'ok' in r && r.ok.decision === 'deny'));
  a.close();
  b.close();
});

const denyAll = async () => {
  for (let i = 0; i < 20; i++) {
    const left = (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts;
    if (left.length === 0) return;
    for (const q of left) await ui.call('pending.decide', { id: q.id, decision: 'deny', scope: 'once' }).catch(() => undefined);
  }
};
const settle = <T>(p: Promise<T>) => p.then((ok) => ({ ok }), (err: unknown) => ({ err }));
const refusedWith = (r: { ok?: unknown; err?: unknown }, re: RegExp) =>
  'err' in r && r.err instanceof AirlockRpcError && r.err.code === RPC.refused && re.test(r.err.message);

test('the whole daemon has a cap too: 50 connections without a task cannot make more than maxPendingTotal prompts', async () => {
  const s = (await ui.call<{ settings: { maxPendingTotal: number; maxPendingPerConnection: number } }>('settings.get', {})).settings;
  assert.equal(s.maxPendingTotal, 100, 'the default total cap');
  assert.equal(s.maxPendingPerConnection, 50, 'the default per-connection cap');
  const conns = await Promise.all(Array.from({ length: 50 }, () => d.agent()));
  const t0 = Date.now();
  // 50 connections × 20 distinct requests, no task: 1,000 prompts before the global cap.
  const all = conns.flatMap((c, ci) =>
    Array.from({ length: 20 }, (_, i) => settle(c.call<AgentAnswer>('request', { source: 'api', tool: 'flood.upload', action: 'transfer', resource: `/g/c${ci}-${i}`, summary: `upload /g/c${ci}-${i}` }))),
  );
  await waitFor(async () => (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.length >= 100, '100 prompts', 45_000);
  // Wait for the refusals to come back (every answer is bounded by the refusal path).
  const refusals: { ok?: unknown; err?: unknown }[] = [];
  await waitFor(async () => {
    refusals.length = 0;
    for (const p of all) {
      const r = await Promise.race([p, new Promise<null>((res) => setImmediate(() => res(null)))]);
      if (r) refusals.push(r);
    }
    return refusals.length >= 900;
  }, '900 refusals', 45_000);
  assert.equal((await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.length, 100, 'exactly the cap is shown');
  assert.equal(refusals.length, 900);
  assert.ok(refusals.every((r) => refusedWith(r, /too many prompts waiting in Airlock as a whole \(limit 100\)/)), 'each refusal says which cap');
  // Refused at once, not left to the prompt timeout (60 s): a few seconds normally, with a
  // loaded machine's slack for 1,000 requests.
  assert.ok(Date.now() - t0 < 45_000, `1,000 requests answered or shown in ${Date.now() - t0} ms`);

  // A task's request is refused as well while the daemon is full, and says why.
  const task = remember(await conns[0]!.call<{ task: string; token: string }>('task.start', { name: 'late' }));
  const late = await settle(conns[0]!.call<AgentAnswer>('request', ask(task, '/g/late')));
  assert.ok(refusedWith(late, /as a whole/), String((late as { err?: Error }).err?.message));
  // So is a task.start that asks for grants (that would be one more prompt), before any task exists.
  const tasksBefore = (await ui.call<{ tasks: unknown[] }>('tasks.list', {})).tasks.length;
  const ts = await settle(conns[1]!.call('task.start', { name: 'grants flood', grants: [{ action: 'write', resource: '/g/**', effect: 'allow' }] }));
  assert.ok(refusedWith(ts, /as a whole/), JSON.stringify(ts));
  assert.equal((await ui.call<{ tasks: unknown[] }>('tasks.list', {})).tasks.length, tasksBefore, 'no task was created');

  // Every refusal is in history: a system deny with the reason.
  const h = await ui.call<{ events: HistoryEvent[] }>('history.query', { decision: 'deny', text: 'whole', limit: 1000 });
  const recorded = h.events.filter((e) => e.decidedBy === 'system' && /as a whole/.test(e.reason));
  assert.equal(recorded.length, 902, 'one recorded refusal per refused request (900 + the task request + the task.start)');
  assert.ok(recorded.some((e) => e.tool === 'task.start'));

  // Answering one prompt frees one slot.
  const one = (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts[0]!;
  await ui.call('pending.decide', { id: one.id, decision: 'deny', scope: 'once' });
  const next = conns[0]!.call<AgentAnswer>('request', ask(task, '/g/next'));
  await waitFor(async () => (await pendingOf(task)).length === 1, 'a prompt once a slot is free');
  await denyAll();
  assert.equal((await next).decision, 'deny');
  await Promise.all(all);
  for (const c of conns) c.close();
});

test('many tasks cannot pass the total cap; one connection across tasks meets its own cap', async () => {
  const a = await d.agent();
  // 10 tasks × 15 distinct requests on one connection each: 150 asked, 100 shown.
  const conns = await Promise.all(Array.from({ length: 10 }, () => d.agent()));
  const tasks = await Promise.all(conns.map((c, i) => c.call<{ task: string; token: string }>('task.start', { name: `many ${i}` }).then(remember)));
  const asked = conns.flatMap((c, ti) => Array.from({ length: 15 }, (_, i) => settle(c.call<AgentAnswer>('request', ask(tasks[ti]!, `/m/t${ti}-${i}`)))));
  await waitFor(async () => (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.length >= 100, '100 prompts', 20_000);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.length, 100);
  await denyAll();
  const results = await Promise.all(asked);
  assert.equal(results.filter((r) => refusedWith(r, /as a whole \(limit 100\)/)).length, 50, '50 refused by the total cap, none by a task cap');

  // One connection, three tasks × 20 each: the per-connection cap (50) stops it first.
  const three = await Promise.all([0, 1, 2].map((i) => a.call<{ task: string; token: string }>('task.start', { name: `conn ${i}` }).then(remember)));
  const mine = three.flatMap((t, ti) => Array.from({ length: 20 }, (_, i) => settle(a.call<AgentAnswer>('request', ask(t, `/c/t${ti}-${i}`)))));
  await waitFor(async () => (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.length >= 50, '50 prompts', 20_000);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.length, 50);
  // Another connection still gets its prompt: the cap is this connection's.
  const b = await d.agent();
  const other = b.call<AgentAnswer>('request', ask(three[2]!, '/c/other'));
  await waitFor(async () => (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.length === 51, "another connection's prompt");
  await denyAll();
  const res = await Promise.all(mine);
  assert.equal(res.filter((r) => refusedWith(r, /for this connection across its tasks \(limit 50\)/)).length, 10);
  assert.equal((await other).decision, 'deny');

  // The caps are settings: a lower total applies at once.
  await ui.call('settings.set', { maxPendingTotal: 3 });
  const few = Array.from({ length: 5 }, (_, i) => settle(b.call<AgentAnswer>('request', ask(three[1]!, `/s/${i}`))));
  await waitFor(async () => (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.length >= 3, '3 prompts');
  await denyAll();
  assert.equal((await Promise.all(few)).filter((r) => refusedWith(r, /as a whole \(limit 3\)/)).length, 2);
  await ui.call('settings.set', { maxPendingTotal: 100 });
  for (const c of [a, b, ...conns]) c.close();
});
