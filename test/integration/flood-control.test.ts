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

const ask = (task: string, resource: string) => ({ source: 'api', tool: 'flood.upload', action: 'transfer', resource, summary: `upload ${resource}`, task });
const pendingOf = async (task: string) => (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.filter((p) => p.task === task);

test('identical requests of a task share one prompt; distinct ones past the cap get -32001 and are recorded', async () => {
  const settings = await ui.call<{ settings: { maxPendingPerTask: number } }>('settings.get', {});
  const cap = settings.settings.maxPendingPerTask;
  assert.equal(cap, 20, 'the default cap');
  const a = await d.agent();
  const b = await d.agent();
  const { task } = await a.call<{ task: string }>('task.start', { name: 'flood' });

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
  const other = (await a.call<{ task: string }>('task.start', { name: 'calm' })).task;
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
