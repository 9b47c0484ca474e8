// Grants asked for in task.start, answered in the web UI (issue 10, item 3) against the
// real daemon in Chromium: every grant on its own row (40 narrow ones and the wildcard
// after them, nothing cut), the wildcard and high-impact actions marked; clicking
// "Accept" does not create the wildcard grant; ticking its "confirm" box does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Grant } from '../../main/contract/approver';
import { browserMissing, waitArmed } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';

const skip = browserMissing();

type Started = { task: string; grants: string[]; declined?: number[] };
const narrow = Array.from({ length: 40 }, (_, i) => ({ action: 'write', tool: 'fs.write', resource: `/srv/data/part-${i}/out-${i}.csv`, effect: 'allow' }));
const wildcard = { action: '*', resource: '**', effect: 'allow' };

test('web UI: task.start grants in full, the wildcard marked and never accepted by one click', { skip: skip ?? false, timeout: 120_000 }, async (t) => {
  const { page, errors, agent, ui, human } = await openWebSession(t, { watchArrivals: true });

  await t.test('40 narrow grants + "allow * on **": every one visible, the wildcard marked; Accept does not create it', async () => {
    const pending = agent.call<Started>('task.start', { name: 'e2e: greedy import', grants: [...narrow, wildcard] });
    const p = await human.next();
    assert.equal(p.grants?.length, 41, 'the prompt carries every grant as data');
    const card = page.locator(`[data-prompt-id="${p.id}"]`);
    await card.getByTestId('task-grants').waitFor();
    const rows = card.getByTestId('task-grant');
    assert.equal(await rows.count(), 41);
    for (let i = 0; i < 40; i++) {
      const row = rows.nth(i);
      assert.match((await row.textContent()) ?? '', new RegExp(`/srv/data/part-${i}/out-${i}\\.csv`), `row ${i}`);
      assert.equal(await row.getAttribute('data-needs-confirmation'), 'false');
      assert.ok(await row.isVisible(), `row ${i} is visible (scrolled to)`);
    }
    const last = rows.nth(40);
    await last.scrollIntoViewIfNeeded();
    assert.ok(await last.isVisible());
    assert.equal(await last.getAttribute('data-wildcard'), 'true');
    assert.equal(await last.getAttribute('data-high-impact'), 'true');
    assert.equal(await last.getAttribute('data-needs-confirmation'), 'true');
    assert.equal(await last.getByTestId('mark-wildcard').count(), 1);
    assert.equal(await last.getByTestId('mark-high-impact').count(), 1);
    assert.match((await last.textContent()) ?? '', /every action/);
    await card.getByTestId('task-grants-warning').waitFor();
    assert.equal(await card.getByTestId('confirm-grant-40').isChecked(), false, 'unconfirmed by default');
    await waitArmed(page, p.id);
    await card.getByTestId('choice-accept-grants').click();
    const r = await pending;
    assert.equal(r.grants.length, 40);
    assert.deepEqual(r.declined, [40]);
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { task: r.task });
    assert.equal(grants.length, 40);
    assert.ok(!grants.some((g) => g.action === '*' || g.resource === '**'), 'no blank cheque was created');
  });

  await t.test('ticking "confirm" on the wildcard row is what creates it', async () => {
    const pending = agent.call<Started>('task.start', { name: 'e2e: confirmed', grants: [narrow[0], wildcard] });
    const p = await human.next();
    const card = page.locator(`[data-prompt-id="${p.id}"]`);
    await waitArmed(page, p.id);
    await card.getByTestId('confirm-grant-1').check();
    await card.getByTestId('choice-accept-grants').click();
    const r = await pending;
    assert.equal(r.grants.length, 2);
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { task: r.task });
    assert.ok(grants.some((g) => g.action === '*' && g.resource === '**' && g.createdBy === 'human (task.start, confirmed)'));
  });

  assert.deepEqual(errors, [], 'no console errors');
});
