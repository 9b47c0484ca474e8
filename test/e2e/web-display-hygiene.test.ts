// Display hygiene in the web UI (issue 10 item 6): a U+202E and an ESC sequence in what
// the agent sends arrive on screen escaped and marked, in the prompt, in History and in
// Tasks; history keeps them raw.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentAnswer } from '../../main/contract/agent';
import type { HistoryEvent } from '../../main/contract/approver';
import { browserMissing, waitArmed } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';

const skip = browserMissing();
const RAW = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;
/** Raw args are pretty JSON in a <pre>: its own line feeds and indentation stay. */
const RAW_MULTILINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

test('web UI: a U+202E and an ESC sequence from the agent arrive escaped', { skip: skip ?? false, timeout: 120_000 }, async (t) => {
  const { page, errors, agent, human } = await openWebSession(t);
  const { task, token } = await agent.call<{ task: string; token: string }>('task.start', { name: 'task \u202eevil\u202c name', cwd: '/srv' });
  const summary = 'write \x1b[2J\x1b[31mred\x1b[0m invoice\u202efdp.exe';
  const answer = agent.call<AgentAnswer>('request', {
    source: 'api',
    tool: 'fs.write',
    action: 'write',
    resource: '/srv/invoice\u202efdp.exe',
    summary,
    args: { path: '/srv/invoice\u202efdp.exe', text: '\x1b]52;c;ZWNobyBoaQ==\x07' },
    task,
    token,
  });
  const p = await human.next();
  const card = page.locator(`[data-prompt-id="${p.id}"]`);
  await card.waitFor();

  const shownSummary = (await card.getByTestId('prompt-summary').textContent()) ?? '';
  assert.ok(shownSummary.includes('\\x1b[2J\\x1b[31mred\\x1b[0m invoice\\u202efdp.exe'), shownSummary);
  assert.doesNotMatch(shownSummary, RAW);
  const resource = (await card.getByTestId('prompt-resource').textContent()) ?? '';
  assert.ok(resource.includes('/srv/invoice\\u202efdp.exe'), resource);
  assert.ok((await card.getByTestId('prompt-task').textContent())?.includes('task \\u202eevil\\u202c name'));
  // The escapes are marked, so they stand out from text that merely looks like one.
  assert.ok((await card.getByTestId('hidden-char').count()) >= 6);
  await card.getByTestId('raw-args').locator('summary').click();
  const args = (await card.getByTestId('raw-args').locator('pre').textContent()) ?? '';
  assert.doesNotMatch(args, RAW_MULTILINE);
  assert.ok(args.includes('\\u202e'), args);
  // Nothing of the card contains a raw control, bidi or zero-width character.
  assert.doesNotMatch((await card.textContent()) ?? '', RAW_MULTILINE);
  await waitArmed(page, p.id);
  await card.getByTestId('choice-deny').click();
  assert.equal((await answer).decision, 'deny');

  // History: the row and the detail show it escaped; the record itself is raw.
  await page.getByTestId('nav-history').click();
  const row = page.locator('[data-testid=history-row]', { hasText: 'invoice' }).first();
  await row.waitFor();
  assert.doesNotMatch((await row.textContent()) ?? '', RAW);
  await row.click();
  const detail = page.getByTestId('event-detail');
  await detail.waitFor();
  assert.doesNotMatch((await detail.textContent()) ?? '', RAW_MULTILINE);
  assert.ok(((await detail.textContent()) ?? '').includes('invoice\\u202efdp.exe'));
  const { events } = await human.ui.call<{ events: HistoryEvent[] }>('history.query', { task });
  assert.equal(events[0]?.summary, summary, 'recorded raw');

  // Tasks: the task name is escaped in the list.
  await page.getByTestId('nav-tasks').click();
  const item = page.getByTestId('task-item').first();
  await item.waitFor();
  assert.ok(((await item.textContent()) ?? '').includes('\\u202eevil\\u202c'));
  assert.doesNotMatch((await item.textContent()) ?? '', RAW);
  assert.deepEqual(errors, []);
});
