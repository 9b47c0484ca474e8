// Red team of keystroke binding in the web UI (the brief's "a keystroke answering a prompt
// the human never saw"), in Chromium against the real daemon. The agent times its
// requests to the human's input: a prompt arrives while a key is held or while the human
// types, a card is replaced under a pressed mouse button or a held Enter, the tab is hidden.
// A decision must come from a fresh gesture (a key pressed, a button pressed) that began
// after the card on screen had been visible for the guard time; auto-repeat, a gesture
// begun on another card, or input while the page is hidden never decides. Each attack
// ends with a control: a fresh key or click on the same card does decide it, so every
// "still pending" here could have failed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Prompt } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import { ask, type Asked } from '../helpers/human';
import { browserMissing, openUi, waitArmed } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';

const skip = browserMissing();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pendingIds(ui: RpcClient): Promise<string[]> {
  return (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.map((p) => p.id);
}
async function stillPending(ui: RpcClient, a: Asked, why: string): Promise<void> {
  await sleep(250);
  assert.ok((await pendingIds(ui)).includes(a.prompt.id), `${why}: the prompt was decided`);
}
/** The control: after a pause, a fresh press of `key` decides the card on screen. */
async function freshKeyDecides(page: Page, a: Asked, key: string, decision: 'allow' | 'deny'): Promise<void> {
  await waitArmed(page, a.prompt.id);
  await page.keyboard.press(key);
  assert.equal((await a.answer).decision, decision, 'a fresh key press after the guard decides (the test can fail)');
}
/**
 * Runs an attack up to three times while its key was late rather than wrong. On a loaded
 * machine a key meant to land inside the half-second guard (right after a card appeared,
 * or the next of a stream of keys) can come later than that, and then deciding is right;
 * the attack returns false then and runs afresh. A defence that does not hold gives way
 * every time, and the test fails.
 */
async function holds(what: string, attack: (attempt: number) => Promise<boolean>): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) if (await attack(attempt)) return;
  assert.fail(`${what}: decided in all 3 attempts; the guard does not hold`);
}
async function decided(ui: RpcClient, a: Asked): Promise<boolean> {
  await sleep(250);
  return !(await pendingIds(ui)).includes(a.prompt.id);
}
async function center(page: Page, id: string, testId: string): Promise<{ x: number; y: number }> {
  const b = await page.locator(`[data-prompt-id="${id}"]`).getByTestId(testId).boundingBox();
  assert.ok(b, `${testId} is on screen`);
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

test('red team: keystrokes and clicks bind only to the prompt seen, by a fresh gesture', { skip: skip ?? false, timeout: 240_000 }, async (t) => {
  const { d, browser, page, errors, agent, ui, human } = await openWebSession(t);

  await t.test('a held key: its auto-repeat after the guard never decides (keydown with repeat=true)', async () => {
    await holds('auto-repeat of a key pressed inside the guard', async (attempt) => {
      const a = await ask(agent, human, { resource: `/srv/rk/held-${attempt}.txt`, summary: `held key ${attempt}` });
      await page.locator(`[data-prompt-id="${a.prompt.id}"]`).waitFor();
      await page.keyboard.down('o'); // pressed as the card appears: the guard swallows it
      await sleep(800);
      // Held: the keyboard repeats (30/s), well past the half second.
      for (let i = 0; i < 12; i++) {
        await page.keyboard.down('o');
        await sleep(30);
      }
      await page.keyboard.up('o');
      if (await decided(ui, a)) return false; // or the press itself came after the guard
      await freshKeyDecides(page, a, 'o', 'allow');
      return true;
    });
  });

  await t.test('a key held down before the prompt arrived: its repeats never decide it', async () => {
    await page.getByTestId('pending-empty').waitFor();
    await page.keyboard.down('o');
    const a = await ask(agent, human, { resource: '/srv/rk/held-before.txt', summary: 'held before' });
    await page.locator(`[data-prompt-id="${a.prompt.id}"]`).waitFor();
    await sleep(700);
    for (let i = 0; i < 12; i++) {
      await page.keyboard.down('o');
      await sleep(30);
    }
    await page.keyboard.up('o');
    await stillPending(ui, a, 'auto-repeat of a key pressed before the prompt existed');
    await freshKeyDecides(page, a, 'd', 'deny');
  });

  await t.test('typing that goes on while the prompt arrives (keys meant for another window) decides nothing', async () => {
    // No space, j, k or D: letters only, rich in o (allow once), m (minutes) and a (always).
    const text = 'thequickbrownfoxjumpsoveralazydogtomatopotatomonsoonmoonroom';
    // A key every 60 ms; a gap of more than half a second (a stall of this test or of
    // Chromium on a loaded machine) would rightly let the next key decide.
    await holds('continuous typing', async (attempt) => {
      const typing = (async () => {
        for (const ch of text) {
          await page.keyboard.press(ch);
          await sleep(60);
        }
      })();
      await sleep(200);
      const a = await ask(agent, human, { resource: `/srv/rk/typing-${attempt}.txt`, summary: `while typing ${attempt}` });
      await typing; // about 3.5 s of typing after the card came up
      if (await decided(ui, a)) return false;
      const card = page.locator(`[data-prompt-id="${a.prompt.id}"]`);
      assert.ok(Number(await card.getAttribute('data-swallowed')) > 0, 'the guard swallowed keys while they kept coming');
      await freshKeyDecides(page, a, 'd', 'deny');
      return true;
    });
  });

  await t.test('mouse pressed on prompt 1, prompt 1 answered elsewhere, released on prompt 2: no decision', async () => {
    const a1 = await ask(agent, human, { resource: '/srv/rk/m1.txt', summary: 'mouse one' });
    const a2 = await ask(agent, human, { resource: '/srv/rk/m2.txt', summary: 'mouse two' });
    await waitArmed(page, a1.prompt.id);
    const p1 = await center(page, a1.prompt.id, 'choice-once');
    await page.mouse.move(p1.x, p1.y);
    await page.mouse.down();
    // Prompt 1 is answered in another UI (watch, another tab) while the button is held;
    // a third request keeps the queue as long, so card 2 takes card 1's place exactly.
    await human.decide(a1.prompt.id, 'deny');
    const a3 = await ask(agent, human, { resource: '/srv/rk/m3.txt', summary: 'mouse six' });
    await page.locator(`[data-prompt-id="${a2.prompt.id}"]`).waitFor();
    await waitArmed(page, a2.prompt.id);
    await sleep(200);
    const p2 = await center(page, a2.prompt.id, 'choice-once');
    if (Math.abs(p2.x - p1.x) > 1 || Math.abs(p2.y - p1.y) > 1) await page.mouse.move(p2.x, p2.y);
    await page.mouse.up();
    await stillPending(ui, a2, 'a click whose press began on another card');
    await page.locator(`[data-prompt-id="${a2.prompt.id}"]`).getByTestId('choice-once').click();
    assert.equal((await a2.answer).decision, 'allow', 'a fresh click decides (the test can fail)');
    await human.decide(a3.prompt.id, 'deny');
  });

  await t.test('Enter held on a focused "Allow once": the next card is not answered by its repeats', async () => {
    const a1 = await ask(agent, human, { resource: '/srv/rk/e1.txt', summary: 'enter one' });
    const a2 = await ask(agent, human, { resource: '/srv/rk/e2.txt', summary: 'enter two' });
    await waitArmed(page, a1.prompt.id);
    await page.locator(`[data-prompt-id="${a1.prompt.id}"]`).getByTestId('choice-once').focus();
    await page.keyboard.down('Enter');
    assert.equal((await a1.answer).decision, 'allow', 'the first press decides the card it was pressed on');
    await page.locator(`[data-prompt-id="${a2.prompt.id}"]`).waitFor();
    await waitArmed(page, a2.prompt.id);
    await sleep(200);
    for (let i = 0; i < 12; i++) {
      await page.keyboard.down('Enter');
      await sleep(30);
    }
    await page.keyboard.up('Enter');
    await stillPending(ui, a2, 'repeats of an Enter pressed on the previous card');
    await freshKeyDecides(page, a2, 'Escape', 'deny');
  });

  await t.test('"Always" opened on prompt 1 does not carry to prompt 2 when prompt 1 is answered elsewhere', async () => {
    const a1 = await ask(agent, human, { resource: '/srv/rk/al1.txt', summary: 'always one' });
    const a2 = await ask(agent, human, { resource: '/srv/rk/al2.txt', summary: 'always two' });
    await waitArmed(page, a1.prompt.id);
    await page.keyboard.press('a');
    await page.locator(`[data-prompt-id="${a1.prompt.id}"]`).getByTestId('always-confirm').waitFor();
    await human.decide(a1.prompt.id, 'deny');
    const card2 = page.locator(`[data-prompt-id="${a2.prompt.id}"]`);
    await card2.waitFor();
    await waitArmed(page, a2.prompt.id);
    assert.equal(await card2.getByTestId('always-confirm').count(), 0, 'no confirmation is open on the new card');
    await page.keyboard.press('y');
    await page.keyboard.press('Enter'); // on the focused Deny: a deny at most
    assert.equal((await a2.answer).decision, 'deny', 'Enter answered the card with its default, never Always');
    const { grants } = await ui.call<{ grants: { task: string | null; expiresAt: number | null }[] }>('grants.list', {});
    assert.equal(grants.filter((g) => g.task === null && g.expiresAt === null).length, 0, 'no standing grant was made');
  });

  await t.test('a card whose first frame is held back (main thread busy for 1 s): a key pressed meanwhile does not decide it', async () => {
    // In the page: when the next card is put in the DOM, keep the main thread busy for a
    // second before anything is painted (a slow machine, a huge history render), and note
    // when each key was pressed (timeStamp) and delivered.
    await page.evaluate(`(() => {
      window.__block = { ms: 1000, mountedAt: 0, unblockedAt: 0, keys: [] };
      window.addEventListener('keydown', (e) => window.__block.keys.push({ pressed: e.timeStamp, delivered: performance.now() }), true);
      const mo = new MutationObserver(() => {
        const b = window.__block;
        if (b.mountedAt || !document.querySelector('[data-prompt-id]')) return;
        b.mountedAt = performance.now();
        while (performance.now() - b.mountedAt < b.ms) {}
        b.unblockedAt = performance.now();
        mo.disconnect();
      });
      mo.observe(document.body, { childList: true, subtree: true });
    })()`);
    await page.getByTestId('pending-empty').waitFor();
    type Block = { mountedAt: number; unblockedAt: number; keys: { pressed: number; delivered: number }[] };
    let b: Block | null = null;
    // The key must be pressed while the main thread is held (after the card was mounted,
    // before it could be painted). On a loaded machine the page may mount the card later
    // than 350 ms after the daemon sent it, or the key may come after the block: then the
    // scenario did not happen, and it is set up afresh (up to 3 times).
    for (let attempt = 1; attempt <= 3; attempt++) {
      if (attempt > 1) {
        await page.evaluate(`(() => {
          Object.assign(window.__block, { mountedAt: 0, unblockedAt: 0, keys: [] });
          const mo = new MutationObserver(() => {
            const b = window.__block;
            if (b.mountedAt || !document.querySelector('[data-prompt-id]')) return;
            b.mountedAt = performance.now();
            while (performance.now() - b.mountedAt < b.ms) {}
            b.unblockedAt = performance.now();
            mo.disconnect();
          });
          mo.observe(document.body, { childList: true, subtree: true });
        })()`);
      }
      const a = await ask(agent, human, { resource: `/srv/rk/busy-${attempt}.txt`, summary: `busy paint ${attempt}` });
      await sleep(350);
      await page.keyboard.press('o'); // delivered once the thread is free: 1 s after the card was mounted
      const got = (await page.evaluate('window.__block')) as Block;
      const happened = got.mountedAt > 0 && got.keys.length === 1 && got.keys[0]!.delivered - got.mountedAt >= 600 && got.keys[0]!.pressed < got.unblockedAt;
      if (!happened) {
        if (!(await decided(ui, a))) await human.decide(a.prompt.id, 'deny');
        await page.getByTestId('pending-empty').waitFor();
        continue;
      }
      b = got;
      await stillPending(ui, a, 'a key pressed before the card was painted');
      await freshKeyDecides(page, a, 'd', 'deny');
      break;
    }
    assert.ok(b, 'precondition: in 3 attempts, a key pressed while the busy main thread held the card back, delivered past half a second after mount');
  });

  await t.test('a prompt that arrives while the tab is hidden is not decided by input until it was visible for the guard time', async () => {
    // Headless Chromium shows every page; the page is told it is hidden the way a
    // browser tells it (visibilityState + visibilitychange), and the UI must believe it.
    const setVisible = (v: boolean) =>
      page.evaluate(`(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => ${JSON.stringify(v ? 'visible' : 'hidden')} });
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${!v} });
        document.dispatchEvent(new Event('visibilitychange'));
      })()`);
    await setVisible(false);
    try {
      const a = await ask(agent, human, { resource: '/srv/rk/hidden.txt', summary: 'while hidden' });
      await page.locator(`[data-prompt-id="${a.prompt.id}"]`).waitFor();
      await sleep(800);
      await page.keyboard.press('o');
      const once = await center(page, a.prompt.id, 'choice-once');
      await page.mouse.click(once.x, once.y);
      await stillPending(ui, a, 'input while the page is hidden');
      // The moment it shows, a key is still guarded; one that comes more than half a second
      // later on a loaded machine rightly decides: then hidden again, a fresh prompt.
      await holds('a key right after the page became visible', async (attempt) => {
        const b = attempt === 1 ? a : await ask(agent, human, { resource: `/srv/rk/hidden-${attempt}.txt`, summary: `while hidden ${attempt}` });
        if (attempt > 1) {
          await page.locator(`[data-prompt-id="${b.prompt.id}"]`).waitFor();
          await sleep(800);
        }
        await setVisible(true);
        await page.keyboard.press('o');
        if (await decided(ui, b)) {
          await setVisible(false);
          return false;
        }
        await freshKeyDecides(page, b, 'o', 'allow');
        return true;
      });
    } finally {
      await setVisible(true);
    }
  });

  await t.test('a prompt that arrives while the window is blurred (another window in front): the key or click that brings it back decides nothing', async () => {
    // A UI of its own, blurred for real: Chromium's focus emulation off, another page
    // brought to the front. Playwright's input focuses the page first, as a click on (or a
    // switch to) a background window does.
    const blurredUi = async () => {
      const own = await openUi(browser, d);
      for (const p of [own.page, await own.context.newPage()]) await (await own.context.newCDPSession(p)).send('Emulation.setFocusEmulationEnabled', { enabled: false });
      const front = own.context.pages()[1]!;
      await front.bringToFront();
      await sleep(200);
      assert.equal(await own.page.evaluate('document.hasFocus()'), false, 'precondition: the window is blurred');
      return own;
    };
    const a = await ask(agent, human, { resource: '/srv/rk/blurred.txt', summary: 'while blurred' });
    const byKey = await blurredUi();
    try {
      await byKey.page.locator(`[data-prompt-id="${a.prompt.id}"][data-armed="true"]`).waitFor();
      await sleep(300);
      await byKey.page.keyboard.press('o'); // the window comes back with this key
      await stillPending(ui, a, 'the key that focused the window');
    } finally {
      await byKey.context.close();
    }
    const byClick = await blurredUi();
    try {
      await byClick.page.locator(`[data-prompt-id="${a.prompt.id}"][data-armed="true"]`).waitFor();
      await sleep(300);
      const once = await center(byClick.page, a.prompt.id, 'choice-once');
      await byClick.page.mouse.click(once.x, once.y); // the click that focuses the window
      await stillPending(ui, a, 'the click that focused the window');
      await waitArmed(byClick.page, a.prompt.id);
      await byClick.page.locator(`[data-prompt-id="${a.prompt.id}"]`).getByTestId('choice-once').click();
      assert.equal((await a.answer).decision, 'allow', 'a fresh click on the focused window decides (the test can fail)');
    } finally {
      await byClick.context.close();
    }
  });

  assert.deepEqual(errors, []);
});
