// History at scale: 1,000,000 seeded events. The first page answers in under 50 ms and a
// full-text search in under 200 ms (measured on ui.sock: the daemon's time plus a local
// socket hop), and the virtualized table keeps only the visible rows in the DOM however
// far it scrolls.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import type { HistoryEvent } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import { tempHome } from '../helpers/daemon';
import { RARE_EVERY, RARE_WORD, seedHistory } from '../helpers/seed-history';
import { browserMissing, launchChromium, openUi, shot, startWebDaemon, waitForPage } from '../helpers/web-ui';

const COUNT = Number(process.env.AIRLOCK_HISTORY_EVENTS || 1_000_000);

type Page = { events: HistoryEvent[]; cursor: string | null };

/** Median of several runs (the first warms SQLite's page cache, as the UI's would be). */
async function timed(ui: RpcClient, params: object, runs = 7): Promise<{ ms: number; best: number; page: Page }> {
  const times: number[] = [];
  let page: Page = { events: [], cursor: null };
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    page = await ui.call<Page>('history.query', params);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return { ms: round(times[Math.floor(times.length / 2)]!), best: round(times[0]!), page };
}

test(`history over ${COUNT.toLocaleString('en')} events`, { skip: browserMissing() ?? false, timeout: 600_000 }, async (t) => {
  const home = tempHome();
  const seeded = seedHistory(path.join(home, 'airlock.db'), COUNT);
  console.log(`# seeded ${COUNT} events in ${seeded.ms} ms`);
  const d = await startWebDaemon({ home });
  const browser = await launchChromium();
  const ui = await d.ui();
  t.after(async () => {
    ui.close();
    await browser.close();
    await d.stop();
  });

  await t.test('first page < 50 ms, next page by cursor, search < 200 ms', async () => {
    const first = await timed(ui, { limit: 200 });
    assert.equal(first.page.events.length, 200);
    assert.equal(first.page.events[0]!.id, COUNT, 'newest first');
    assert.ok(first.page.cursor);
    const next = await timed(ui, { limit: 200, cursor: first.page.cursor });
    assert.equal(next.page.events[0]!.id, COUNT - 200, 'the cursor continues where the page ended');
    const rare = await timed(ui, { text: RARE_WORD, limit: 200 });
    assert.equal(rare.page.events.length, Math.min(200, Math.ceil(COUNT / RARE_EVERY)));
    assert.ok(rare.page.events.every((e) => e.summary.includes(RARE_WORD)));
    const common = await timed(ui, { text: 'deploy', limit: 200 });
    assert.equal(common.page.events.length, 200);
    const filtered = await timed(ui, { source: 'ssh', decision: 'deny', limit: 200 });
    assert.ok(filtered.page.events.every((e) => e.source === 'ssh' && e.decision === 'deny'));
    const combined = await timed(ui, { text: 'backup', action: 'delete', limit: 200 });
    assert.ok(combined.page.events.every((e) => e.action === 'delete' && e.summary.includes('backup')));
    console.log(
      `# history.query over ${COUNT} events (ui.sock round trip, median of 7): first page ${first.ms} ms, next page ${next.ms} ms, ` +
        `search rare "${RARE_WORD}" ${rare.ms} ms, search common "deploy" ${common.ms} ms, filter source+decision ${filtered.ms} ms, search+filter ${combined.ms} ms`,
    );
    // The aim is on the best of 7 (what the query costs); the median gets 3x room because
    // CI shares 2 cores with Chromium and the daemon, and a scheduler stall is not the query.
    // `npm run bench` reports the medians on a quiet machine.
    assert.ok(first.best < 50 && first.ms < 150, `first page took ${first.best} ms best, ${first.ms} ms median`);
    assert.ok(next.best < 50 && next.ms < 150, `next page took ${next.best} ms best, ${next.ms} ms median`);
    assert.ok(rare.best < 200 && rare.ms < 600, `rare search took ${rare.best} ms best, ${rare.ms} ms median`);
    assert.ok(common.best < 200 && common.ms < 600, `common search took ${common.best} ms best, ${common.ms} ms median`);
  });

  await t.test('the table renders only the visible rows while scrolling through pages', async () => {
    const { page, errors } = await openUi(browser, d);
    await page.getByTestId('nav-history').click();
    await page.locator(`[data-testid=history-row][data-event-id="${COUNT}"]`).waitFor();
    const rowsAtTop = await page.getByTestId('history-row').count();
    const shownMs = /· (\d+) ms/.exec((await page.getByTestId('history-count').textContent()) ?? '')?.[1];
    console.log(`# first page as the browser saw it (WebSocket round trip, 200 events): ${shownMs} ms`);
    assert.ok(rowsAtTop > 5 && rowsAtTop < 60, `${rowsAtTop} rows in the DOM at the top`);
    // Scroll down page after page: more history loads (cursor paging), the DOM stays small.
    const scroller = page.getByTestId('history-scroller');
    let maxRows = 0;
    for (let i = 0; i < 12; i++) {
      await scroller.evaluate((el) => el.scrollBy(0, 4000));
      await page.waitForTimeout(60);
      maxRows = Math.max(maxRows, await page.getByTestId('history-row').count());
    }
    await waitForPage(page, 'document.querySelectorAll("[data-testid=history-row]").length > 0');
    const loadedText = (await page.getByTestId('history-count').textContent()) ?? '';
    const loaded = Number(/^(\d+)/.exec(loadedText)?.[1] ?? 0);
    assert.ok(loaded >= 1000, `scrolling loaded more pages (${loadedText})`);
    assert.ok(maxRows < 60, `at most ${maxRows} rows were ever in the DOM (of ${loaded} loaded)`);
    const ids = await page.getByTestId('history-row').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-event-id'))));
    assert.ok(Math.min(...ids) < COUNT - 500, 'the rows on screen are deep in the history');
    console.log(`# virtualized table: ${rowsAtTop} rows in the DOM at the top, at most ${maxRows} while scrolling through ${loaded} loaded events`);

    // Search and detail pane.
    await page.getByTestId('history-search').fill(RARE_WORD);
    await waitForPage(page, `[...document.querySelectorAll('[data-testid=history-row]')].every(r => r.textContent.includes('${RARE_WORD}'))`);
    const hit = page.getByTestId('history-row').first();
    const hitId = await hit.getAttribute('data-event-id');
    await hit.click();
    const detail = page.getByTestId('event-detail');
    await detail.waitFor();
    assert.match((await detail.getByTestId('detail-args').textContent()) ?? '', new RegExp(`"n": ${Number(hitId) - 1}\\b`));
    assert.match((await detail.getByTestId('detail-decided-by').textContent()) ?? '', /grant|you/);
    await shot(page, 'history-1m-light');
    assert.deepEqual(errors, []);
  });
});
