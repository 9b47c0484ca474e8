// Grants a person can read and control (issue 11 item 6), in Chromium against the real
// daemon: the toast after "allow for this task" has Undo, and Undo revokes; grants read
// in words; revoke and "End task" ask first; a wildcard allow warns and needs an
// explicit "I understand"; a grant can be edited; Tasks shows a task's grants.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Grant, Task } from '../../main/contract/approver';
import { browserMissing, waitArmed } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';

const skip = browserMissing();

test('web UI: grants in words, Undo, confirmations, wildcard warning, edit, a task\'s grants', { skip: skip ?? false, timeout: 150_000 }, async (t) => {
  const { page, errors, agent, human } = await openWebSession(t);
  const ui = human.ui;
  const { task, token } = await agent.call<{ task: string; token: string }>('task.start', { name: 'grants e2e', cwd: '/srv/g' });
  const grantsOf = async (tk?: string) => (await ui.call<{ grants: Grant[] }>('grants.list', tk ? { task: tk } : {})).grants;

  await t.test('Undo on the toast revokes the grant just made: the next such request asks again', async () => {
    const a = agent.call<AgentAnswer>('request', { source: 'api', action: 'write', tool: 'fs.write', resource: '/srv/g/src/a.ts', summary: 'write src/a.ts', task, token });
    const p = await human.next();
    await waitArmed(page, p.id);
    await page.locator(`[data-prompt-id="${p.id}"] [data-testid=choice-task]`).click();
    const ans = await a;
    assert.equal(ans.decision, 'allow');
    assert.ok(ans.grant);
    const toast = page.getByTestId('toast').filter({ hasText: 'in task “grants e2e” only' });
    await toast.waitFor();
    assert.match((await toast.textContent()) ?? '', /Allows writes by fs\.write on /, 'the toast says what the grant does, in words');
    await toast.getByTestId('toast-action').click();
    await page.getByTestId('toast').filter({ hasText: `Grant ${ans.grant} revoked` }).waitFor();
    assert.ok(!(await grantsOf(task)).some((g) => g.id === ans.grant), 'no longer an active grant');
    const again = agent.call<AgentAnswer>('request', { source: 'api', action: 'write', tool: 'fs.write', resource: '/srv/g/src/a.ts', summary: 'write src/a.ts again', task, token });
    const p2 = await human.next();
    await human.decide(p2.id, 'deny');
    assert.equal((await again).decision, 'deny');
  });

  await t.test('the Grants view shows each grant in words; a wildcard allow warns and needs "I understand"', async () => {
    await page.getByTestId('nav-grants').click();
    await page.getByTestId('grant-new').click();
    await page.getByTestId('grant-action').selectOption('write');
    await page.getByTestId('grant-tool').fill('fs.write');
    await page.getByTestId('grant-resource').fill('**');
    await page.getByTestId('grant-wildcard-warning').waitFor();
    assert.equal(await page.getByTestId('grant-submit').isDisabled(), true, 'no wildcard allow in one click');
    assert.match((await page.getByTestId('grant-form-words').textContent()) ?? '', /Allows writes by fs\.write on anything — in every task, with no end/);
    await page.getByTestId('grant-resource').fill('/srv/g/out/**');
    assert.equal(await page.getByTestId('grant-wildcard-warning').count(), 0);
    await page.getByTestId('grant-submit').click();
    const row = page.locator('[data-testid=grant-row]', { hasText: '/srv/g/out/**' });
    await row.waitFor();
    assert.match((await row.getByTestId('grant-words').textContent()) ?? '', /Allows writes by fs\.write on anything under \/srv\/g\/out\//);
  });

  await t.test('a grant can be edited: the new one replaces the old', async () => {
    const old = (await grantsOf()).find((g) => g.resource === '/srv/g/out/**' && g.revokedAt === null)!;
    const row = page.locator(`[data-testid=grant-row][data-grant-id="${old.id}"]`);
    await row.getByTestId('grant-edit').click();
    await page.getByTestId('grant-resource').fill('/srv/g/out/reports/**');
    await page.getByTestId('grant-submit').click();
    await page.locator('[data-testid=grant-row]', { hasText: '/srv/g/out/reports/**' }).waitFor();
    const all = await ui.call<{ grants: Grant[] }>('grants.list', { includeInactive: true });
    assert.notEqual(all.grants.find((g) => g.id === old.id)?.revokedAt ?? null, null, 'the old grant is revoked');
    assert.ok(all.grants.some((g) => g.resource === '/srv/g/out/reports/**' && g.revokedAt === null && g.action === 'write'));
  });

  await t.test('revoking asks first', async () => {
    const g = (await grantsOf()).find((x) => x.resource === '/srv/g/out/reports/**')!;
    const row = page.locator(`[data-testid=grant-row][data-grant-id="${g.id}"]`);
    await row.getByTestId('grant-revoke').click();
    assert.equal((await grantsOf()).find((x) => x.id === g.id)?.revokedAt, null, 'one click revokes nothing');
    await row.getByTestId('grant-revoke-confirm').click();
    await row.getByTestId('grant-revoke-confirm').waitFor({ state: 'detached' });
    assert.ok(!(await grantsOf()).some((x) => x.id === g.id), 'revoked after the confirmation');
  });

  await t.test('Tasks shows the task\'s grants in words; "End task" asks first', async () => {
    await ui.call('grants.create', { task, action: 'delete', tool: 'rm *', resource: '/srv/g/tmp/**', effect: 'allow' });
    await page.getByTestId('nav-tasks').click();
    const item = page.getByTestId('task-item').filter({ hasText: 'grants e2e' });
    await item.locator('button').first().click();
    const g = page.getByTestId('task-grant').filter({ hasText: 'any `rm` command' });
    await g.waitFor();
    assert.match((await g.textContent()) ?? '', /Allows deletes by any `rm` command on anything under \/srv\/g\/tmp\/ — in task “grants e2e” only, until the task ends/);
    await item.getByTestId('task-end').click();
    const live = (await ui.call<{ tasks: Task[] }>('tasks.list', {})).tasks.find((x) => x.id === task);
    assert.equal(live?.endedAt ?? null, null, 'one click ends nothing');
    await item.getByTestId('task-end-confirm').click();
    await page.getByTestId('toast').filter({ hasText: 'ended' }).waitFor();
    const ended = (await ui.call<{ tasks: Task[] }>('tasks.list', { includeEnded: true })).tasks.find((x) => x.id === task);
    assert.notEqual(ended?.endedAt ?? null, null);
  });

  assert.deepEqual(errors, []);
});
