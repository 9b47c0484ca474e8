// Black-box, third wave, in Chromium against `airlock serve --web`: the History view as
// docs/desktop-app.md describes it — the Action filter shows exactly the events of that
// action (what history.query answers for it), the search box finds by words, and *Verify
// chain* reports the event an attacker edited directly in the SQLite file.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { Wire } from '../helpers/blackbox';
import { waitFor } from '../helpers/daemon';
import { browserMissing, launchChromium, openUi, startWebDaemon } from '../helpers/web-ui';

interface Ev {
  id: number;
  action: string;
  summary: string;
}

test('web History: the Action filter and the search box show exactly what history.query finds; Verify chain names an event edited in the file', { skip: browserMissing() ?? false, timeout: 180_000 }, async (t) => {
  const d = await startWebDaemon();
  const browser = await launchChromium();
  const agent = await Wire.open(d.requestSock);
  const ui = await Wire.open(d.uiSock);
  t.after(async () => {
    agent.close();
    ui.close();
    await browser.close();
    await d.stop();
  });
  await ui.ok('grants.create', { action: 'write', resource: '/bb3web/**', effect: 'allow' });
  for (let i = 0; i < 6; i++) await agent.ok('request', { source: 'api', tool: 'cat', action: 'read', resource: `/bb3web/r${i}`, summary: `bb3web read number ${i}` });
  for (let i = 0; i < 3; i++) await agent.ok('request', { source: 'api', tool: 'fs.write', action: 'write', resource: `/bb3web/w${i}`, summary: `bb3web write number ${i}` });
  await agent.ok('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb3web/special', summary: 'bb3web zanzibar lookup' });

  const { page, context, errors } = await openUi(browser, d);
  await page.getByTestId('nav-history').click();
  await page.getByTestId('history-row').first().waitFor();
  const rowsShown = async (expected: number): Promise<string[]> => {
    // Polled from Node: the UI's CSP forbids evaluating strings in the page.
    await waitFor(async () => (await page.getByTestId('history-row').count()) === expected, `${expected} history rows`, 10_000, 100).catch(() => undefined);
    return page.getByTestId('history-row').allTextContents();
  };

  await page.getByTestId('filter-action').selectOption('write');
  const writes = (await ui.ok<{ events: Ev[] }>('history.query', { action: 'write' })).events;
  assert.equal(writes.length, 3);
  const shown = await rowsShown(writes.length);
  assert.equal(shown.length, 3, `three write rows: ${shown.join(' | ')}`);
  for (const e of writes) assert.ok(shown.some((r) => r.includes(e.summary)), `${e.summary} is shown`);
  assert.ok(!shown.some((r) => r.includes('read number')), 'no read is shown under the write filter');

  await page.getByTestId('filter-action').selectOption('');
  await page.getByTestId('history-search').fill('zanzibar');
  const found = await rowsShown(1);
  assert.equal(found.length, 1, found.join(' | '));
  assert.match(found[0]!, /bb3web zanzibar lookup/);
  await page.getByTestId('history-search').fill('');

  // Edit one event in the file, as a process with the user's rights could.
  const victim = writes[1]!;
  const db = new Database(path.join(d.home, 'airlock.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare("UPDATE events SET summary = 'nothing happened here' WHERE id = ?").run(victim.id);
  } finally {
    db.close();
  }
  await page.getByTestId('verify-chain').click();
  const audit = page.getByTestId('audit-result');
  await audit.waitFor();
  await waitFor(async () => /Chain/.test((await audit.textContent()) ?? ''), 'the audit result', 10_000, 100);
  const text = (await audit.textContent()) ?? '';
  assert.match(text, new RegExp(`Chain broken at event ${victim.id}\\b`), text);
  assert.deepEqual(errors, []);
  await context.close();
});
