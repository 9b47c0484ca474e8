// Black-box, fifth wave: the History view's filters that earlier waves did not drive — the
// time range (Since / Until) and the task — each showing exactly what `history.query` finds
// for the same filter, and the detail pane showing who decided (the grant, by id) and the
// event's hash as `airlock history --json` has it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { waitFor } from '../helpers/daemon';
import { airlock } from '../helpers/blackbox';
import { browserMissing } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';

const skip = browserMissing();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Ev {
  id: number;
  ts: number;
  grant: string | null;
  hash: string;
  summary: string;
}

/** A datetime-local value (local time, to the second) for `ms`. */
function localInput(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

async function rowCount(page: Page): Promise<number> {
  return page.getByTestId('history-row').count();
}

test('web History: Since/Until and the task filter show what history.query finds; the detail names the grant and the hash', { skip: skip ?? false, timeout: 120_000 }, async (t) => {
  const { d, page, errors, agent, ui } = await openWebSession(t);
  const read = (summary: string, extra: Record<string, unknown> = {}) => agent.call<{ decision: string; event: number }>('request', { source: 'api', tool: 'bb5.hist', action: 'read', resource: `/srv/h/${summary}`, summary, ...extra });

  for (const s of ['early-1', 'early-2', 'early-3']) await read(s);
  await sleep(2100);
  const cut = Date.now();
  await sleep(1100);
  const tk = await agent.call<{ task: string; token: string }>('task.start', { name: 'bb5 history task', cwd: '/srv/h' });
  for (const s of ['late-1', 'late-2']) await read(s, { task: tk.token });
  const g = await ui.call<{ grant: { id: string } }>('grants.create', { tool: 'bb5.hist', action: 'write', effect: 'allow', note: 'bb5 history' });
  const granted = await agent.call<{ decision: string; event: number; grant?: string }>('request', { source: 'api', tool: 'bb5.hist', action: 'write', resource: '/srv/h/granted', summary: 'granted-write' });
  assert.equal(granted.decision, 'allow');
  assert.equal(granted.grant, g.grant.id);

  await page.getByTestId('nav-history').click();
  await page.getByTestId('history-search').fill('');
  const since = cut;
  const { events: afterCut } = await ui.call<{ events: Ev[] }>('history.query', { since, limit: 1000 });
  await page.getByLabel('Since').fill(localInput(since));
  await waitFor(async () => (await rowCount(page)) === afterCut.length, `Since: ${afterCut.length} rows as history.query finds`, 20_000).catch(async (e: Error) => {
    throw new Error(`${e.message}; shown ${await rowCount(page)}`);
  });
  const shownAfter = (await page.getByTestId('history-row').allTextContents()).join('\n');
  assert.doesNotMatch(shownAfter, /early-/, 'nothing from before Since');
  assert.match(shownAfter, /late-1/);

  await page.getByTestId('filter-clear').click();
  const { events: beforeCut } = await ui.call<{ events: Ev[] }>('history.query', { until: cut, limit: 1000 });
  assert.ok(beforeCut.some((e) => e.summary === 'early-1'));
  await page.getByLabel('Until').fill(localInput(cut));
  await waitFor(async () => (await rowCount(page)) === beforeCut.length, `Until: ${beforeCut.length} rows`, 20_000).catch(async (e: Error) => {
    throw new Error(`${e.message}; shown ${await rowCount(page)}`);
  });
  const shownBefore = (await page.getByTestId('history-row').allTextContents()).join('\n');
  assert.doesNotMatch(shownBefore, /late-|granted-write/, 'nothing from after Until');

  await page.getByTestId('filter-clear').click();
  await page.getByTestId('filter-task').selectOption(tk.task);
  const { events: ofTask } = await ui.call<{ events: Ev[] }>('history.query', { task: tk.task, limit: 1000 });
  await waitFor(async () => (await rowCount(page)) === ofTask.length, `task: ${ofTask.length} rows`, 20_000);
  const shownTask = (await page.getByTestId('history-row').allTextContents()).join('\n');
  assert.match(shownTask, /late-1/);
  assert.doesNotMatch(shownTask, /early-|granted-write/);

  await page.getByTestId('filter-clear').click();
  await page.getByTestId('history-search').fill('granted');
  await page.getByTestId('history-row').filter({ hasText: 'granted-write' }).first().click();
  const detail = page.getByTestId('event-detail');
  await detail.waitFor();
  assert.match((await detail.getByTestId('detail-decided-by').textContent()) ?? '', new RegExp(g.grant.id), 'the grant that decided, by id');
  const h = await airlock(['history', '--json', '--text', 'granted'], { env: d.env });
  const row = h.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Ev).find((e) => e.id === granted.event);
  assert.ok(row, h.stdout);
  assert.ok((await detail.textContent())?.includes(row.hash), 'the event hash, as the CLI has it');
  assert.deepEqual(errors, []);
});
