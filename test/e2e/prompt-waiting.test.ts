// One prompt for identical requests (flood control) says how many it answers: an agent that
// sends the same payment again while the first waits gets no second prompt, so the card must
// say "2 identical requests are waiting" and guard itself afresh when that changes — the
// click the human was about to make now answers two. Chromium against the real daemon.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Prompt } from '../../main/contract/approver';
import { ask } from '../helpers/human';
import { browserMissing, waitArmed } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';

const skip = browserMissing();

test('web UI: a prompt answering several identical requests says how many, and its guard starts again when more join', { skip: skip ?? false, timeout: 120_000 }, async (t) => {
  const { page, agent, ui, human } = await openWebSession(t);
  const req = { source: 'api', tool: 'payments/pay', action: 'transfer', resource: 'alice@example.com', summary: 'pay 50 to alice' };
  const first = await ask(agent, human, req);
  await waitArmed(page, first.prompt.id);
  assert.equal(await page.getByTestId('prompt-waiting').count(), 0, 'one request: no count');
  // Watch the card's guard from inside the page: armed now; any change to unarmed is a re-arm.
  await page.evaluate(`(() => {
    window.__rearmed = false;
    const card = document.querySelector('[data-testid=prompt]');
    new MutationObserver(() => { if (card.getAttribute('data-armed') === 'false') window.__rearmed = true; })
      .observe(card, { attributes: true, attributeFilter: ['data-armed'] });
  })()`);
  const second = agent.call<AgentAnswer>('request', req);
  second.catch(() => undefined);
  await page.getByTestId('prompt-waiting').filter({ hasText: '2 identical requests are waiting' }).waitFor({ timeout: 20_000 });
  assert.equal(await page.locator('[data-testid=prompt]').getAttribute('data-prompt-id'), first.prompt.id, 'the same prompt, not a second one');
  const rearmed = () => page.evaluate('window.__rearmed === true');
  for (const until = Date.now() + 5_000; Date.now() < until && !(await rearmed()); ) await new Promise((r) => setTimeout(r, 20));
  assert.equal(await rearmed(), true, 'the guard started again when the count changed');
  const listed = (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.find((p) => p.id === first.prompt.id);
  assert.equal(listed?.waiting, 2, 'pending.list says so too');
  // The answer answers each, as the card said (identical prompts coalesced).
  await waitArmed(page, first.prompt.id);
  await human.decide(first.prompt.id, 'allow', 'once');
  assert.equal((await first.answer).decision, 'allow');
  assert.equal((await second).decision, 'allow');
});
