// Red team of the human side: a card that moves or changes under a pointer that is already
// there. The input guard counts from the card's first frame, so a card that has been on
// screen for a while is live; the attacks here change where its buttons are, or what
// covers them, or what one answer does, just before a click the human was making on
// something else — and that click must decide nothing. Chromium against the real daemon;
// each attack ends with a control (a click after a pause decides), so each could fail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Prompt } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import { ask, type Asked } from '../helpers/human';
import { browserMissing, waitArmed } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';

const skip = browserMissing();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function decided(ui: RpcClient, a: Asked): Promise<boolean> {
  await sleep(300);
  return !(await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.some((p) => p.id === a.prompt.id);
}
async function center(page: Page, id: string, testId: string): Promise<{ x: number; y: number }> {
  const b = await page.locator(`[data-prompt-id="${id}"]`).getByTestId(testId).boundingBox();
  assert.ok(b, `${testId} is on screen`);
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}
/**
 * Runs an attack up to three times while its click was late rather than wrong: on a loaded
 * machine the click meant to land right after the shift can come more than half a second
 * later, and then deciding is right. A defence that does not hold gives way every time.
 */
async function holds(what: string, attack: (attempt: number) => Promise<boolean>): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) if (await attack(attempt)) return;
  assert.fail(`${what}: decided in all 3 attempts; the guard does not hold`);
}
/** In-page: when the queue ("1 of N") last appeared, and when the last pointer press was made (performance.now()). */
const WATCH_SHIFT = `(() => {
  window.__queueAt = 0;
  new MutationObserver(() => { if (document.querySelector('[data-testid=queue]') && !window.__queueAt) window.__queueAt = performance.now(); })
    .observe(document.body, { childList: true, subtree: true });
  window.addEventListener('pointerdown', (e) => { window.__pressAt = e.timeStamp; }, true);
})()`;

test('red team of the human side: a card moved, uncovered or changed under the pointer decides nothing', { skip: skip ?? false, timeout: 240_000 }, async (t) => {
  const { page, errors, agent, ui, human } = await openWebSession(t);

  await t.test('layout shift: a second request makes the queue appear above a short card; a click where "Allow once" slid to decides nothing', async () => {
    await holds('a click on a button that just slid under the pointer', async (attempt) => {
      await page.getByTestId('pending-empty').waitFor();
      const a = await ask(agent, human, { resource: `/srv/hs/shift-${attempt}.txt`, summary: `shift ${attempt}` });
      await waitArmed(page, a.prompt.id);
      await sleep(600); // long live: the card's own guard is far behind
      await page.evaluate(WATCH_SHIFT);
      const before = await center(page, a.prompt.id, 'choice-once');
      // The human's pointer rests below the buttons, on nothing; the agent asks again.
      const b = await ask(agent, human, { resource: `/srv/hs/shift-${attempt}-b.txt`, summary: `shift ${attempt} b` });
      await page.getByTestId('queue').waitFor();
      const after = await center(page, a.prompt.id, 'choice-once');
      assert.ok(after.y - before.y > 20, `precondition: the card moved down (${before.y} → ${after.y})`);
      assert.equal(await page.locator('[data-testid=prompt]').getAttribute('data-prompt-id'), a.prompt.id, 'the same card is on screen');
      await page.mouse.click(after.x, after.y);
      const late = (await page.evaluate('window.__pressAt - window.__queueAt')) as number;
      if (await decided(ui, a)) {
        await human.decide(b.prompt.id, 'deny');
        if (late >= 500) return false; // the click came after the guard time: deciding is right
        assert.fail(`a click ${Math.round(late)} ms after the card moved under it decided the prompt`);
      }
      // Control: the same click, after a pause, decides.
      await waitArmed(page, a.prompt.id);
      await sleep(100);
      const again = await center(page, a.prompt.id, 'choice-once');
      await page.mouse.click(again.x, again.y);
      assert.equal((await a.answer).decision, 'allow', 'a click after the pause decides (the test can fail)');
      await human.decide(b.prompt.id, 'deny');
      return true;
    });
  });

  await t.test('toasts never cover a prompt: four toasts beside a waiting card, at the pop-up size and the full window, leave all of it uncovered', async () => {
    // A toast over a card's buttons hid them, and its going held the card's guard again, so
    // a click that waited for it was swallowed (CI saw it in e2e/web-prompt "Always").
    for (const size of [{ width: 480, height: 640 }, { width: 1280, height: 860 }]) {
      await page.setViewportSize(size);
      try {
        await page.getByTestId('pending-empty').waitFor();
        for (let i = 0; i < 4; i++) {
          const d = await ask(agent, human, { resource: `/srv/hs/toasts-${size.width}-${i}.txt`, summary: `toast ${size.width} ${i}` });
          await waitArmed(page, d.prompt.id);
          await page.keyboard.press('d'); // each deny leaves a toast
          assert.equal((await d.answer).decision, 'deny');
        }
        const long = Array.from({ length: 40 }, (_, i) => `/srv/hs/toasts-${size.width}/file-${i}.txt`);
        const a = await ask(agent, human, { resource: long[0], summary: `toasts ${size.width} card`, args: { paths: long }, action: 'delete', tool: 'fs.delete' });
        await waitArmed(page, a.prompt.id);
        const seen = (await page.evaluate(`(() => {
          const card = document.querySelector('[data-prompt-id="${a.prompt.id}"]');
          const c = card.getBoundingClientRect();
          const toasts = [...document.querySelectorAll('[data-testid=toast]')].map((t) => t.getBoundingClientRect());
          const overlapping = toasts.filter((r) => r.left < c.right && r.right > c.left && r.top < c.bottom && r.bottom > c.top).length;
          const covered = [];
          for (const el of card.querySelectorAll('button, input, textarea, select, summary')) {
            const r = el.getBoundingClientRect();
            if (r.width === 0 || r.bottom < 0 || r.top > innerHeight) continue;
            const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            if (!(top === el || el.contains(top))) covered.push(el.dataset.testid || el.tagName);
          }
          return { toasts: toasts.length, overlapping, covered };
        })()`)) as { toasts: number; overlapping: number; covered: string[] };
        assert.ok(seen.toasts >= 2, `precondition: toasts are showing (${seen.toasts})`);
        assert.equal(seen.overlapping, 0, `no toast overlaps the card at ${size.width}×${size.height}`);
        assert.deepEqual(seen.covered, [], `every control of the card is uncovered at ${size.width}×${size.height}`);
        await page.keyboard.press('Escape');
        assert.equal((await a.answer).decision, 'deny');
      } finally {
        await page.setViewportSize({ width: 1280, height: 860 });
      }
    }
  });

  await t.test('occlusion: a double click on something drawn over the buttons does not answer the card it uncovers', async () => {
    // Toasts no longer cover a card (above); anything else drawn over its buttons (a page
    // overlay, a menu) that goes away still holds the guard. A fixed layer stands for it.
    await page.setViewportSize({ width: 480, height: 640 }); // the pop-up's size
    try {
      await holds('a click on a button an overlay had covered', async (attempt) => {
        await page.getByTestId('pending-empty').waitFor();
        const long = Array.from({ length: 40 }, (_, i) => `/srv/hs/cover-${attempt}/file-${i}.txt`);
        const a2 = await ask(agent, human, { resource: long[0], summary: `cover ${attempt}`, args: { paths: long }, action: 'delete', tool: 'fs.delete' });
        await waitArmed(page, a2.prompt.id);
        const once = await center(page, a2.prompt.id, 'choice-once');
        await page.evaluate(`(() => { const d = document.createElement('div'); d.id = '__cover'; d.textContent = 'cover';
          d.style.cssText = 'position:fixed;z-index:20;background:#fff;border:1px solid #000;left:${Math.round(once.x - 60)}px;top:${Math.round(once.y - 25)}px;width:120px;height:50px';
          d.addEventListener('click', () => d.remove()); document.body.appendChild(d); })()`);
        await sleep(700); // the cover has been there a while: the card is live around it
        const target = (await page.evaluate(`(() => {
          const b = document.querySelector('[data-prompt-id="${a2.prompt.id}"] [data-testid="choice-once"]');
          const r = b.getBoundingClientRect(); const x = r.left + r.width / 2, y = r.top + r.height / 2;
          const top = document.elementFromPoint(x, y);
          return top && top.id === '__cover' ? { x, y } : null;
        })()`)) as { x: number; y: number } | null;
        assert.ok(target, 'precondition: the layer covers "Allow once"');
        await page.evaluate(WATCH_SHIFT);
        await page.evaluate(`(() => { window.__coverGoneAt = Infinity;
          new MutationObserver(() => { if (!document.getElementById('__cover') && window.__coverGoneAt === Infinity) window.__coverGoneAt = performance.now(); })
            .observe(document.body, { childList: true, subtree: true }); })()`);
        await page.mouse.click(target.x, target.y, { clickCount: 1 }); // removes the layer
        await page.mouse.click(target.x, target.y, { clickCount: 2 }); // the second click of a double click
        if (await decided(ui, a2)) {
          const late = (await page.evaluate('window.__pressAt - window.__coverGoneAt')) as number;
          if (late >= 500) return false; // the second click came after the guard time: deciding is right
          assert.fail(`a click ${Math.round(late)} ms after an overlay uncovered the button decided the prompt`);
        }
        await waitArmed(page, a2.prompt.id);
        await page.keyboard.press('Escape');
        assert.equal((await a2.answer).decision, 'deny', 'a fresh key decides (the test can fail)');
        return true;
      });
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  await t.test('scrolled out of view: a long card answered from its end says, beside the buttons, that more identical requests joined', async () => {
    await page.getByTestId('pending-empty').waitFor();
    await page.setViewportSize({ width: 900, height: 600 });
    try {
      const paths = Array.from({ length: 60 }, (_, i) => `/srv/hs/pay/${i}`);
      const req = { source: 'api', tool: 'payments/pay', action: 'transfer', resource: 'alice@example.com', summary: 'pay 50 to alice', args: { note: paths.join('\n') } };
      const first = await ask(agent, human, req);
      await waitArmed(page, first.prompt.id);
      // The human reads the long card down to its end, where the buttons are.
      await page.locator(`[data-prompt-id="${first.prompt.id}"]`).getByTestId('raw-args').locator('summary').click();
      await page.evaluate(`(() => { for (const el of document.querySelectorAll('*')) if (el.scrollHeight > el.clientHeight + 10) el.scrollTop = el.scrollHeight; window.scrollTo(0, document.body.scrollHeight); })()`);
      await sleep(300);
      const top = await page.locator(`[data-prompt-id="${first.prompt.id}"]`).getByTestId('prompt-summary').boundingBox();
      assert.ok(top && top.y + top.height < 0, 'precondition: the card is scrolled down past its headline');
      const second = agent.call<AgentAnswer>('request', req);
      second.catch(() => undefined);
      await page.getByTestId('prompt-waiting').waitFor({ state: 'attached', timeout: 20_000 });
      await waitArmed(page, first.prompt.id);
      // What the human sees where they are about to click: the count, beside the buttons.
      const inView = (await page.evaluate(`(() => {
        const els = [...document.querySelectorAll('[data-testid=prompt-waiting], [data-testid=choices-waiting]')];
        return els.some((el) => { const r = el.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight && /2 identical requests/.test(el.textContent); });
      })()`)) as boolean;
      assert.equal(inView, true, 'the "2 identical requests" line is on screen beside the buttons, not only at the scrolled-off top');
      await human.decide(first.prompt.id, 'deny');
      assert.equal((await first.answer).decision, 'deny');
      assert.equal((await second).decision, 'deny');
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  assert.deepEqual(errors, []);
});
