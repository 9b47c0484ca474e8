// In Chromium against `airlock serve --web`: History filters by the exact tool, as
// `airlock history --tool` does. The filter is a chip that can be removed, it is sent to the
// daemon (older rows of other tools never show), and live rows of other tools stay out while
// the filter holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../helpers/daemon';
import { browserMissing } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';

test('web: the History tool filter shows only rows of that exact tool, live rows included, and its chip removes it', { skip: browserMissing() ?? false, timeout: 120_000 }, async (t) => {
  const { page, agent, errors } = await openWebSession(t);
  const a = await agent.call<{ task: string; token: string }>('task.start', { name: 'tool filter A', cwd: '/tmp' });
  await agent.call('task.end', { task: a.token });
  await agent.call('request', { source: 'api', action: 'read', tool: 'fs.read', resource: '/tmp/r.txt', summary: 'read /tmp/r.txt' });

  await page.getByTestId('nav-history').click();
  const rows = page.getByTestId('history-row');
  await waitFor(async () => (await rows.count()) === 3, 'start, end and read rows', 20_000, 100);

  await page.getByTestId('filter-tool').fill('task.end');
  await waitFor(async () => (await rows.count()) === 1, 'only the task.end row', 20_000, 100);
  assert.match((await rows.first().textContent()) ?? '', /task\.end.*tool filter A/);
  assert.match((await page.getByTestId('filter-chips').textContent()) ?? '', /tool task\.end/);

  // A prefix is not the tool: exact names only, like the CLI.
  await page.getByTestId('filter-tool').fill('task.');
  await waitFor(async () => (await rows.count()) === 0, 'no rows for a partial tool name', 20_000, 100);
  await page.getByTestId('filter-tool').fill('task.end');
  await waitFor(async () => (await rows.count()) === 1, 'the task.end row again', 20_000, 100);

  // Live: another task's start and a read stay out; its end comes in.
  const b = await agent.call<{ task: string; token: string }>('task.start', { name: 'tool filter B', cwd: '/tmp' });
  await agent.call('request', { source: 'api', action: 'read', tool: 'fs.read', resource: '/tmp/s.txt', summary: 'read /tmp/s.txt' });
  await agent.call('task.end', { task: b.token });
  await waitFor(async () => (await rows.count()) === 2, 'the live task.end row', 20_000, 100);
  const texts = await rows.allTextContents();
  assert.ok(texts.every((x) => /task\.end/.test(x)), texts.join('\n'));

  await page.getByTestId('filter-chip').filter({ hasText: 'tool task.end' }).click();
  await waitFor(async () => (await rows.count()) === 6, 'every row back', 20_000, 100);
  assert.equal(await page.getByTestId('filter-tool').inputValue(), '');
  assert.deepEqual(errors, []);
});
