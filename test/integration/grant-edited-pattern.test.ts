// "Always" / "for this task" with a pattern the human edited so that it leaves out the very
// request it was made from: the human said allow (or deny), so this request is answered that
// way — once. History must not say the grant decided it: the event is `once`, names no grant,
// and its reason names the grant that was created and why it does not cover this request.
// A pattern that does cover it is recorded as before (the grant decided, scope kept).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ask, Human } from '../helpers/human';
import { closeDaemonSession, openDaemonSession } from '../helpers/daemon-session';
import type { RpcClient } from '../../main/client/rpc-client';
import type { Daemon } from '../helpers/daemon';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Grant, HistoryEvent } from '../../main/contract/approver';

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;

before(async () => {
  ({ d, ui, agent, human } = await openDaemonSession());
});
after(() => closeDaemonSession({ d, ui, agent }));

const eventOf = async (a: AgentAnswer): Promise<HistoryEvent> => {
  const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { limit: 50 });
  return events.find((e) => e.id === a.event)!;
};
const grantsNow = async () => (await ui.call<{ grants: Grant[] }>('grants.list', {})).grants;

describe('a grant made from a prompt that does not cover the request', () => {
  test('"always" edited to /edit/src/** on a write to /edit/a.txt: allowed once by the human, the grant named as created and not covering; it answers /edit/src/ later, the same write asks again', async () => {
    const first = await ask(agent, human, { resource: '/edit/a.txt', summary: 'write a.txt' });
    const { grant, notCovered } = await ui.call<{ grant?: Grant; notCovered?: string }>('pending.decide', { id: first.prompt.id, decision: 'allow', scope: 'always', pattern: { resource: '/edit/src/**' } });
    assert.equal(notCovered, '`/edit/a.txt` is outside `/edit/src/**`', 'the human is told at once');
    const a = await first.answer;
    assert.equal(a.decision, 'allow');
    assert.equal(a.grant, undefined, 'the agent is not told a grant answered');
    const ev = await eventOf(a);
    assert.deepEqual([ev.decision, ev.decidedBy, ev.scope, ev.grant], ['allow', 'human', 'once', null]);
    assert.equal(ev.reason, `allowed once by the human; grant ${grant!.id} (allow always: fs.write \`/edit/src/**\`) was created but does not cover this request: \`/edit/a.txt\` is outside \`/edit/src/**\``);
    assert.ok((await grantsNow()).some((g) => g.id === grant!.id && g.resource === '/edit/src/**'), 'the grant was created all the same');

    const later = await agent.call<AgentAnswer>('request', { source: 'api', action: 'write', tool: 'fs.write', resource: '/edit/src/b.ts', summary: 'write b.ts' });
    assert.deepEqual([later.decision, later.grant], ['allow', grant!.id]);
    const again = await ask(agent, human, { resource: '/edit/a.txt', summary: 'write a.txt' });
    assert.equal(again.prompt.resource, '/edit/a.txt', 'the same write asks again: the grant never covered it');
    await human.decide(again.prompt.id, 'deny', 'once');
    assert.equal((await again.answer).decision, 'deny');
  });

  test('the tool edited, a condition that does not hold, a deny "for this task": each says why, once', async () => {
    const tool = await ask(agent, human, { resource: '/edit/t.txt', summary: 'write t.txt' });
    const { grant: g1 } = await human.decide(tool.prompt.id, 'allow', 'always', { pattern: { tool: 'other.tool' } });
    const e1 = await eventOf(await tool.answer);
    assert.deepEqual([e1.scope, e1.grant], ['once', null]);
    assert.match(e1.reason, new RegExp(`^allowed once by the human; grant ${g1!.id} .* does not cover this request: its tool \`other\\.tool\` does not match fs\\.write$`));

    const cond = await ask(agent, human, { resource: '/edit/pay', summary: 'pay 10', args: { amount: 10 } });
    const { grant: g2 } = await human.decide(cond.prompt.id, 'allow', 'always', { when: 'args.amount <= 5' });
    const e2 = await eventOf(await cond.answer);
    assert.match(e2.reason, new RegExp(`^allowed once by the human; grant ${g2!.id} \\(allow always: fs\\.write \`/edit/pay\` when args\\.amount <= 5\\) was created but does not cover this request: its condition does not hold for it$`));

    const { task, token } = await agent.call<{ task: string; token: string }>('task.start', { name: 'edited deny', cwd: '/edit' });
    const den = await ask(agent, human, { resource: '/edit/d.txt', summary: 'write d.txt', task, token });
    const { grant: g3 } = await human.decide(den.prompt.id, 'deny', 'task', { pattern: { resource: '/edit/other/**' } });
    const a3 = await den.answer;
    assert.equal(a3.decision, 'deny');
    const e3 = await eventOf(a3);
    assert.deepEqual([e3.decision, e3.scope, e3.grant], ['deny', 'once', null]);
    assert.match(e3.reason, new RegExp(`^denied once by the human; grant ${g3!.id} \\(deny for this task: fs\\.write \`/edit/other/\\*\\*\`\\) was created but does not cover this request`));
  });

  test('an edited pattern that covers the request is recorded as before: the grant decided it, scope always', async () => {
    const x = await ask(agent, human, { resource: '/edit/ok/x.txt', summary: 'write x.txt' });
    const { grant, notCovered } = await ui.call<{ grant?: Grant; notCovered?: string }>('pending.decide', { id: x.prompt.id, decision: 'allow', scope: 'always', pattern: { resource: '/edit/ok/**' } });
    assert.equal(notCovered, undefined);
    const a = await x.answer;
    assert.equal(a.grant, grant!.id);
    const ev = await eventOf(a);
    assert.deepEqual([ev.scope, ev.grant], ['always', grant!.id]);
    assert.equal(ev.reason, `allowed always by the human (grant ${grant!.id})`);
  });
});
