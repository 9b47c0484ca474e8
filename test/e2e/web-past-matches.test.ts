// Issue 11 item 6 in Chromium against the real daemon: the suggested grant on a prompt
// card says how many of this task's past events it would have matched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Prompt } from '../../main/contract/approver';
import { browserMissing } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';

const skip = browserMissing();

test('web UI: the suggestion says how many of the task\'s past events it would have matched', { skip: skip ?? false, timeout: 120_000 }, async (t) => {
  const { page, errors, agent, human } = await openWebSession(t);
  const { task, token } = await agent.call<{ task: string; token: string }>('task.start', { name: 'past web', cwd: '/repo' });
  const ask = (resource: string) => agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource, summary: `write ${resource}`, task, token });
  for (const [res, decision] of [['/repo/src/a.ts', 'allow'], ['/repo/src/b.ts', 'deny'], ['/repo/lib/x.ts', 'allow']] as const) {
    const answer = ask(res);
    const p: Prompt = await human.next();
    await human.decide(p.id, decision);
    assert.equal((await answer).decision, decision);
  }
  const answer = ask('/repo/src/c.ts');
  const p: Prompt = await human.next();
  assert.deepEqual(p.suggestion?.pastMatches, { matched: 2, of: 3 }, 'src/** covers a.ts and b.ts, whatever was decided, not lib/x.ts');
  const card = page.locator(`[data-prompt-id="${p.id}"]`);
  await card.waitFor();
  assert.equal((await card.getByTestId('suggestion-past-matches').textContent())?.trim(), '— would have matched 2 of this task’s last 3 events');
  await human.decide(p.id, 'deny');
  await answer;
  assert.deepEqual(errors, []);
});
