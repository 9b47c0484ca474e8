// The grant a prompt's decision makes is named as the decider only when it covers the request
// (prompt-decisions.ts grantShortfall, judged as request-policy.ts judges the next such
// request). The common cases must stay "decided by the grant": the suggested pattern of a
// shell command ("allow for this task"), its exact form, a file write's suggested directory.
// Driven through the broker and the prompt queue over a real store, with the real classifier.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentAnswer, AgentRequest } from '../../main/contract/agent';
import { classifyShell } from '../../main/core/classify/shell';
import { makeParts, tick } from './core-parts';

test('the suggested pattern of a shell command, its exact form and a write\'s suggested directory cover the request: the grant decided it, and answers the next one', async () => {
  const p = makeParts({ classifier: classifyShell });
  try {
    const t = await p.lifecycle.startTask({ name: 'coverage', cwd: '/repo' }, {});
    const cases: { req: AgentRequest; pattern: 'suggested' | 'exact' }[] = [
      { req: { source: 'exec', tool: 'exec', action: 'execute', summary: 'npm run test unit', args: { command: 'npm run test unit' }, cwd: '/repo' }, pattern: 'suggested' },
      { req: { source: 'exec', tool: 'exec', action: 'execute', summary: 'git commit -m x', args: { command: 'git commit -m x' }, cwd: '/repo' }, pattern: 'exact' },
      { req: { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/src/a.ts', summary: 'write a.ts' }, pattern: 'suggested' },
    ];
    for (const c of cases) {
      const ask = () => p.broker.ask({ ...c.req, task: t.token }, {});
      const first = ask();
      await tick();
      const [prompt] = p.queue.list();
      assert.ok(prompt, `asked: ${c.req.summary}`);
      const pattern = c.pattern === 'suggested' ? { tool: prompt.suggestion!.tool, resource: prompt.suggestion!.resource } : undefined;
      const { grant } = p.queue.decide({ id: prompt.id, decision: 'allow', scope: 'task', ...(pattern ? { pattern } : {}) });
      const a: AgentAnswer = await first;
      assert.equal(a.grant, grant!.id, `${c.req.summary}: the grant decided it`);
      assert.match(p.store.getEvent(a.event)!.reason, /^allowed for this task by the human \(grant g_/);
      const next = await ask();
      assert.deepEqual([next.decision, next.grant], ['allow', grant!.id], `${c.req.summary}: the next one is the grant's`);
    }
  } finally {
    p.close();
  }
});

test('a command pattern for a task started in /repo does not cover a file outside it: allowed once, the grant named as not covering', async () => {
  const p = makeParts({ classifier: classifyShell });
  try {
    const t = await p.lifecycle.startTask({ name: 'outside', cwd: '/repo' }, {});
    const first = p.broker.ask({ source: 'exec', tool: 'exec', action: 'execute', summary: 'echo x > /etc/motd', args: { command: 'echo x > /etc/motd' }, cwd: '/repo', task: t.token }, {});
    await tick();
    const [prompt] = p.queue.list();
    const { grant } = p.queue.decide({ id: prompt!.id, decision: 'allow', scope: 'task', pattern: { resource: 'echo *' } });
    const a = await first;
    assert.equal(a.grant, undefined);
    const ev = p.store.getEvent(a.event)!;
    assert.deepEqual([ev.scope, ev.grant], ['once', null]);
    assert.match(ev.reason, new RegExp(`^allowed once by the human; grant ${grant!.id} \\(allow for this task: exec \`echo \\*\`\\) was created but does not cover this request: it does not cover \`echo x > /etc/motd\`$`));
  } finally {
    p.close();
  }
});
