// Black-box, eighth wave: the human scrolls down a long prompt card (a delete of 250 paths) to
// read it, and answers it with the sticky buttons. The next card came on screen at the same
// scroll position: only its lower half (a list of paths, the buttons) was in view, its risk
// badge, headline and literal above the viewport — a card the human could answer after half
// a second without having seen what it is. A card that comes on screen starts at its top.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentAnswer } from '../../main/contract/agent';
import { browserMissing, waitArmed } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';

const skip = browserMissing();

/** Whether the element's top edge is inside the viewport. */
async function topInView(page: import('playwright-core').Page, selector: string): Promise<boolean> {
  return (await page.evaluate(`(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return false; const r = el.getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; })()`)) as boolean;
}

test('after answering a long card scrolled to its end, the next card comes on screen from its top (risk, headline, literal)', { skip: skip ?? false, timeout: 120_000 }, async (t) => {
  const { page, errors, agent, human } = await openWebSession(t);
  const many = (prefix: string) => Array.from({ length: 250 }, (_, i) => `/srv/${prefix}/file-${i}.txt`);
  const first = agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.delete', action: 'delete', resource: '/srv/build', resources: many('build'), summary: 'clean the build' });
  const p1 = await human.next();
  const second = agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.delete', action: 'delete', resource: '/srv/thesis', resources: many('thesis'), summary: 'delete the thesis' });
  const p2 = await human.next();
  first.catch(() => undefined);
  second.catch(() => undefined);
  await page.locator(`[data-prompt-id="${p1.id}"]`).waitFor();
  await waitArmed(page, p1.id);
  // The human reads the card to its end.
  await page.mouse.move(700, 400);
  await page.mouse.wheel(0, 20_000);
  await page.waitForTimeout(300);
  assert.equal(await topInView(page, `[data-prompt-id="${p1.id}"] [data-testid="prompt-summary"]`), false, 'precondition: the first card is scrolled past its top');
  await page.locator(`[data-prompt-id="${p1.id}"] [data-testid="choice-deny"]`).click();
  assert.equal((await first).decision, 'deny');
  await page.locator(`[data-prompt-id="${p2.id}"]`).waitFor();
  await waitArmed(page, p2.id);
  assert.ok(await topInView(page, `[data-prompt-id="${p2.id}"] [data-testid="prompt-summary"]`), 'the next card\'s headline is in view');
  assert.ok(await topInView(page, `[data-prompt-id="${p2.id}"] [data-testid="prompt-literal"]`), 'the next card\'s literal is in view');
  await page.locator(`[data-prompt-id="${p2.id}"] [data-testid="choice-deny"]`).click();
  assert.equal((await second).decision, 'deny');
  assert.deepEqual(errors, []);
});
