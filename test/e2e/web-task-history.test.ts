// In Chromium against `airlock serve --web`: a task's start and end are rows of the History
// view and of the task's timeline. The human ends the task with the Tasks view's button; the
// rows say task.start / task.end (not just "other"), who started it (the agent's process) and
// that the human ended it from the web UI.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../helpers/daemon';
import { browserMissing, waitArmed } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';
import type { HistoryEvent } from '../../main/contract/approver';

test('web: a task started by an agent and ended with "End task" shows as task.start and task.end rows, in History and in its timeline', { skip: browserMissing() ?? false, timeout: 120_000 }, async (t) => {
  const { page, agent, ui, errors } = await openWebSession(t);
  const started = await agent.call<{ task: string }>('task.start', { name: 'web lifecycle', cwd: '/tmp' });

  await page.getByTestId('nav-tasks').click();
  const item = page.getByTestId('task-item').filter({ hasText: 'web lifecycle' });
  await item.getByTestId('task-end').click();
  await item.getByTestId('task-end-confirm').click();
  await waitFor(async () => (await ui.call<{ events: HistoryEvent[] }>('history.query', { task: started.task, tool: 'task.end' })).events.length === 1, 'the task.end row');

  await page.getByTestId('nav-history').click();
  const rows = page.getByTestId('history-row').filter({ hasText: 'web lifecycle' });
  await waitFor(async () => (await rows.count()) === 2, 'two rows of the task', 20_000, 100);
  const [endRow, startRow] = await rows.allTextContents();
  assert.match(endRow!, /task\.end.*task "web lifecycle" ended: ended by the human \(web\).*human/);
  assert.match(startRow!, /task\.start.*task "web lifecycle" started through request\.sock by node \(pid \d+\).*policy/);
  assert.equal(await rows.first().getByTestId('history-action').getAttribute('title'), 'action other');

  await rows.first().click();
  const detail = page.getByTestId('event-detail');
  await detail.waitFor();
  assert.equal(await detail.getByTestId('detail-decided-by').textContent(), 'you');
  assert.match((await detail.getByTestId('detail-args').textContent()) ?? '', /"via": "web"/);

  // The task's timeline: begins with its start, ends with its end.
  await page.getByTestId('nav-tasks').click();
  await page.getByTestId('task-item').filter({ hasText: 'web lifecycle' }).locator('button').first().click();
  const timeline = page.getByTestId('task-timeline').locator('li');
  await waitFor(async () => (await timeline.count()) === 2, 'two timeline entries', 20_000, 100);
  const entries = await timeline.allTextContents();
  assert.match(entries[0]!, /task\.start/);
  assert.match(entries[1]!, /task\.end/);
  assert.deepEqual(errors, []);
});

test('web: "Always" with a pattern edited so that it leaves the request out says so in the toast, and history says allowed once', { skip: browserMissing() ?? false, timeout: 120_000 }, async (t) => {
  const { page, agent, ui, human, errors } = await openWebSession(t);
  const answer = agent.call<{ decision: string; event: number; grant?: string }>('request', { source: 'api', action: 'write', tool: 'fs.write', resource: '/srv/nc/a.txt', summary: 'write /srv/nc/a.txt' });
  const prompt = await human.next();
  await page.fill(`[data-prompt-id="${prompt.id}"] [data-testid=pattern-resource]`, '/srv/nc/src/**');
  for (const choice of ['always', 'always-confirm']) {
    await waitArmed(page, prompt.id);
    await page.click(`[data-prompt-id="${prompt.id}"] [data-testid=choice-${choice}]`);
  }
  const a = await answer;
  assert.deepEqual([a.decision, a.grant], ['allow', undefined]);
  const toast = page.getByTestId('toast').filter({ hasText: prompt.id });
  await toast.first().waitFor();
  assert.match((await toast.first().textContent()) ?? '', /once: the grant made does not cover it \(`\/srv\/nc\/a\.txt` is outside `\/srv\/nc\/src\/\*\*`\)/);
  const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { limit: 5 });
  const ev = events.find((e) => e.id === a.event)!;
  assert.deepEqual([ev.scope, ev.grant], ['once', null]);
  assert.match(ev.reason, /^allowed once by the human; grant g_\S+ \(allow always: fs\.write `\/srv\/nc\/src\/\*\*`\) was created but does not cover this request/);
  assert.deepEqual(errors, []);
});
