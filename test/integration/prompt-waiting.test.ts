// Identical requests share one prompt (flood control), and the prompt says how many one
// answer answers: `waiting` on the prompt, pushed as `pending.updated` when it changes, up
// as copies join and down as their requesters go away. prompt-coalesce.ts (withWaiting).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import type { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Prompt } from '../../main/contract/approver';

let d: Daemon;
let ui: RpcClient;
const updates: Prompt[] = [];
const added: Prompt[] = [];

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  ui.onNotification = (method, params) => {
    if (method === 'pending.updated') updates.push(params as Prompt);
    if (method === 'pending.added') added.push(params as Prompt);
  };
  await ui.call('subscribe');
});
after(async () => {
  ui?.close();
  await d?.stop();
});

test('the same payment sent three times: one prompt saying 3; one requester gone: 2; the answer answers each', async () => {
  const req = { source: 'api', tool: 'payments/pay', action: 'transfer', resource: 'bob@example.com', summary: 'pay 40 to bob' };
  const agents = [await d.agent(), await d.agent(), await d.agent()];
  const answers: Promise<AgentAnswer>[] = [];
  answers.push(agents[0]!.call<AgentAnswer>('request', req));
  await waitFor(() => added.some((p) => p.summary === 'pay 40 to bob'), 'the prompt');
  const p = added.find((x) => x.summary === 'pay 40 to bob')!;
  assert.equal(p.waiting, undefined, 'one request: no count');
  for (const a of agents.slice(1)) answers.push(a.call<AgentAnswer>('request', req));
  await waitFor(() => updates.some((u) => u.id === p.id && u.waiting === 3), 'pending.updated saying 3');
  assert.equal(added.filter((x) => x.summary === 'pay 40 to bob').length, 1, 'still one prompt');
  const listed = (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.find((x) => x.id === p.id);
  assert.equal(listed?.waiting, 3);
  // One requester goes away: its request is answered (deny) and the count goes down.
  answers[2]!.catch(() => undefined);
  agents[2]!.close();
  await waitFor(() => updates.some((u) => u.id === p.id && u.waiting === 2), 'pending.updated saying 2');
  await ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
  const [a0, a1] = await Promise.all(answers.slice(0, 2));
  assert.equal(a0!.decision, 'allow');
  assert.equal(a1!.decision, 'allow');
  assert.notEqual(a0!.event, a1!.event, 'each its own event');
  for (const a of agents.slice(0, 2)) a.close();
});
