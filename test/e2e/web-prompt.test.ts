// The prompt in the web UI against the real daemon: a request shows its prompt (and how
// fast), every choice gives the right answer and the right grant, the input guard
// swallows an early key, and revoking a grant makes the next request prompt again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Grant, Prompt } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import { Human } from '../helpers/human';
import { browserMissing, promptSeenAt, waitArmed } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';

const skip = browserMissing();

type Ask = { answer: Promise<AgentAnswer>; prompt: Prompt; sentAt: number };

async function ask(agent: RpcClient, human: Human, req: Record<string, unknown>): Promise<Ask> {
  const sentAt = Date.now();
  const answer = agent.call<AgentAnswer>('request', { source: 'api', action: 'write', ...req });
  answer.catch(() => undefined);
  const prompt = await human.next();
  return { answer, prompt, sentAt };
}

async function pendingIds(ui: RpcClient): Promise<string[]> {
  const { prompts } = await ui.call<{ prompts: Prompt[] }>('pending.list', {});
  return prompts.map((p) => p.id);
}

/** Clicks a choice once the card is live; a click the card's guard swallowed fails the test (a human's click on a live, uncovered button must count). */
async function click(page: Page, promptId: string, choice: string): Promise<void> {
  await waitArmed(page, promptId);
  const card = page.locator(`[data-prompt-id="${promptId}"]`);
  const swallowed = async () => Number((await card.getAttribute('data-swallowed', { timeout: 1000 }).catch(() => null)) ?? 0);
  const before = await swallowed();
  await page.click(`[data-prompt-id="${promptId}"] [data-testid=choice-${choice}]`);
  assert.equal(await swallowed(), before, `the card's guard swallowed the click on ${choice}`);
}

test('web UI: prompts, choices, grants, input guard, revoke', { skip: skip ?? false, timeout: 120_000 }, async (t) => {
  const { page, errors, agent, ui, human } = await openWebSession(t, { watchArrivals: true });

  await t.test('a request shows its prompt with who/what/why; request→visible is measured', async () => {
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const a = await ask(agent, human, { tool: 'fs.write', resource: `/srv/app/file-${i}.txt`, summary: `write /srv/app/file-${i}.txt`, args: { path: `/srv/app/file-${i}.txt`, bytes: 12 } });
      times.push((await promptSeenAt(page, a.prompt.id)) - a.sentAt);
      const card = page.locator(`[data-prompt-id="${a.prompt.id}"]`);
      assert.equal(await card.getByTestId('prompt-tool').textContent(), 'fs.write');
      assert.equal(await card.getByTestId('prompt-resource').textContent(), `/srv/app/file-${i}.txt`);
      assert.match((await card.getByTestId('process-chain').textContent()) ?? '', /node/, 'the process chain names the asking process');
      assert.match((await card.getByTestId('risk-reasons').textContent()) ?? '', /\S/);
      assert.match((await card.getByTestId('countdown-seconds').textContent()) ?? '', /^\d+$/);
      // Raw args are one click away.
      await card.getByTestId('raw-args').locator('summary').click();
      assert.match((await card.getByTestId('raw-args').locator('pre').textContent()) ?? '', /"bytes": 12/);
      await waitArmed(page, a.prompt.id);
      await page.keyboard.press('Escape'); // Esc denies
      const ans = await a.answer;
      assert.equal(ans.decision, 'deny');
      assert.equal(ans.grant, undefined);
      await card.waitFor({ state: 'detached' });
    }
    const sorted = [...times].sort((x, y) => x - y);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    console.log(`# prompt latency request→visible: median ${median} ms, max ${sorted[sorted.length - 1]} ms (${times.join(', ')})`);
    // The aim is 300 ms; the bound leaves room for a loaded shared CI machine.
    assert.ok(median < 300, `median request→visible ${median} ms is over 300 ms`);
  });

  await t.test('Deny button: denied, no grant', async () => {
    const a = await ask(agent, human, { tool: 'fs.delete', action: 'delete', resource: '/srv/app/db', summary: 'delete /srv/app/db' });
    await click(page, a.prompt.id, 'deny');
    const ans = await a.answer;
    assert.equal(ans.decision, 'deny');
    assert.equal(ans.grant, undefined);
  });

  await t.test('Allow once: allowed, no grant left behind', async () => {
    const before = await ui.call<{ grants: Grant[] }>('grants.list', {});
    const a = await ask(agent, human, { tool: 'fs.write', resource: '/srv/app/once.txt', summary: 'write once.txt' });
    await click(page, a.prompt.id, 'once');
    const ans = await a.answer;
    assert.equal(ans.decision, 'allow');
    assert.equal(ans.grant, undefined);
    const after = await ui.call<{ grants: Grant[] }>('grants.list', {});
    assert.equal(after.grants.length, before.grants.length);
  });

  await t.test('Allow for this task: a grant bound to the task covers the next request', async () => {
    const { task, token } = await agent.call<{ task: string; token: string }>('task.start', { name: 'e2e: fix the build' });
    const a = await ask(agent, human, { tool: 'fs.write', resource: '/srv/app/build.log', summary: 'write build.log', task, token });
    assert.equal(await page.locator(`[data-prompt-id="${a.prompt.id}"] [data-testid=prompt-task]`).textContent(), 'e2e: fix the build');
    await click(page, a.prompt.id, 'task');
    const ans = await a.answer;
    assert.equal(ans.decision, 'allow');
    assert.ok(ans.grant, 'the answer names the grant');
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { task });
    const g = grants.find((x) => x.id === ans.grant);
    assert.ok(g, 'the grant is listed for the task');
    assert.equal(g.task, task);
    assert.equal(g.expiresAt, null);
    const again = await agent.call<AgentAnswer>('request', { source: 'api', action: 'write', tool: 'fs.write', resource: '/srv/app/build.log', summary: 'write build.log again', task, token });
    assert.equal(again.decision, 'allow');
    assert.equal(again.grant, g.id);
  });

  await t.test('Allow for N minutes: a grant that expires after N minutes', async () => {
    const a = await ask(agent, human, { tool: 'net.upload', action: 'transfer', resource: 'https://example.com/upload', summary: 'upload report' });
    await page.fill(`[data-prompt-id="${a.prompt.id}"] [data-testid=duration-minutes]`, '5');
    const t0 = Date.now();
    await click(page, a.prompt.id, 'duration');
    const ans = await a.answer;
    assert.equal(ans.decision, 'allow');
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', {});
    const g = grants.find((x) => x.id === ans.grant);
    assert.ok(g && g.expiresAt !== null);
    assert.ok(Math.abs(g.expiresAt - (t0 + 5 * 60_000)) < 15_000, `expires at ${g.expiresAt}, expected about ${t0 + 5 * 60_000}`);
    assert.equal(g.task, null);
  });

  let alwaysGrant = '';
  await t.test('Always, with an edited pattern: the pattern is the grant and covers other files', async () => {
    const a = await ask(agent, human, { tool: 'fs.write', resource: '/srv/e2e/a.txt', summary: 'write /srv/e2e/a.txt' });
    const sel = `[data-prompt-id="${a.prompt.id}"] [data-testid=pattern-resource]`;
    assert.equal(await page.inputValue(sel), a.prompt.suggestion?.resource ?? '', 'prefilled from the suggestion, else empty (exactly this request)');
    await page.fill(sel, '/srv/e2e/**');
    // One click each, as a human makes them. A toast over "Always" (from the tests before)
    // used to hide it until it went, and its going held the card's guard, swallowing the
    // click that had waited for it (CI, twice); toasts are never drawn over a card now.
    await click(page, a.prompt.id, 'always');
    // "Always" is two steps (issue 11): the confirmation has its own guard.
    await click(page, a.prompt.id, 'always-confirm');
    const ans = await a.answer;
    assert.equal(ans.decision, 'allow');
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', {});
    const g = grants.find((x) => x.id === ans.grant);
    assert.ok(g);
    assert.equal(g.resource, '/srv/e2e/**');
    assert.equal(g.tool, 'fs.write');
    assert.equal(g.expiresAt, null);
    alwaysGrant = g.id;
    const other = await agent.call<AgentAnswer>('request', { source: 'api', action: 'write', tool: 'fs.write', resource: '/srv/e2e/b/c.txt', summary: 'write c.txt' });
    assert.equal(other.decision, 'allow');
    assert.equal(other.grant, g.id);
  });

  await t.test('revoking the grant in the Grants view makes the next request prompt again', async () => {
    await page.getByTestId('nav-grants').click();
    const row = page.locator(`[data-testid=grant-row][data-grant-id="${alwaysGrant}"]`);
    await row.waitFor();
    assert.equal(await row.getByTestId('grant-resource-cell').textContent(), '/srv/e2e/**');
    await row.getByTestId('grant-revoke').click();
    // Revoking asks first (issue 11): Keep leaves it, "Revoke it" revokes.
    await row.getByTestId('grant-revoke-cancel').click();
    assert.equal((await ui.call<{ grants: Grant[] }>('grants.list', {})).grants.find((g) => g.id === alwaysGrant)?.revokedAt, null, 'Keep revoked nothing');
    await row.getByTestId('grant-revoke').click();
    await row.getByTestId('grant-revoke-confirm').click();
    await row.getByTestId('grant-revoke-confirm').waitFor({ state: 'detached' });
    const a = await ask(agent, human, { tool: 'fs.write', resource: '/srv/e2e/b/c.txt', summary: 'write c.txt after revoke' });
    assert.ok((await pendingIds(ui)).includes(a.prompt.id), 'prompts again');
    await page.getByTestId('nav-pending').click();
    await click(page, a.prompt.id, 'deny');
    assert.equal((await a.answer).decision, 'deny');
  });

  await t.test('a grant created in the Grants view decides the next request without asking', async () => {
    await page.getByTestId('nav-grants').click();
    await page.getByTestId('grant-new').click();
    await page.getByTestId('grant-action').selectOption('delete');
    await page.getByTestId('grant-tool').fill('fs.*');
    await page.getByTestId('grant-resource').fill('/srv/tmp/**');
    await page.getByTestId('grant-submit').click();
    await page.locator('[data-testid=grant-row]', { hasText: '/srv/tmp/**' }).waitFor();
    const ans = await agent.call<AgentAnswer>('request', { source: 'api', action: 'delete', tool: 'fs.delete', resource: '/srv/tmp/x/y', summary: 'delete y' });
    assert.equal(ans.decision, 'allow');
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', {});
    const g = grants.find((x) => x.resource === '/srv/tmp/**');
    assert.ok(g);
    assert.equal(ans.grant, g.id);
    assert.equal(g.action, 'delete');
    assert.equal(human.unanswered().length, 0, 'no prompt was shown');
    await page.getByTestId('nav-pending').click();
  });

  await t.test('a task that starts with grants asks for them in one prompt: refuse, then accept', async () => {
    const grants = [{ action: 'read', resource: '/srv/data/**', effect: 'allow' }, { action: 'write', tool: 'fs.write', resource: '/srv/data/out/**', effect: 'allow', uses: 10 }];
    const refused = agent.call<{ task: string; grants: string[] }>('task.start', { name: 'e2e: import data', grants });
    const p1 = await human.next();
    const card1 = page.locator(`[data-prompt-id="${p1.id}"]`);
    await card1.getByTestId('task-grants').waitFor();
    assert.equal(await card1.getByTestId('task-grants').locator('tbody tr').count(), 2);
    assert.equal(await card1.getByTestId('choice-once').count(), 0, 'only refuse or accept');
    await click(page, p1.id, 'deny');
    assert.deepEqual((await refused).grants, []);

    const accepted = agent.call<{ task: string; grants: string[] }>('task.start', { name: 'e2e: import data', grants });
    const p2 = await human.next();
    await click(page, p2.id, 'accept-grants');
    const r = await accepted;
    assert.equal(r.grants.length, 2);
    const { grants: listed } = await ui.call<{ grants: Grant[] }>('grants.list', { task: r.task });
    assert.deepEqual(listed.map((g) => g.id).sort(), [...r.grants].sort());
  });

  await t.test('the input guard swallows a key pressed right after the prompt appears', async () => {
    // The key must come within half a second of the card appearing. On a loaded machine this
    // test can be slower than that: then the check did not happen, and a fresh prompt is
    // tried (up to 3 times). The guard counts from the card's first painted frame, which is
    // after it appeared in the DOM (seen), so a key pressed before seen + 500 ms is early.
    let a: Ask | null = null;
    let seen = 0;
    for (let attempt = 1; attempt <= 3 && !a; attempt++) {
      const tried = await ask(agent, human, { tool: 'fs.write', resource: `/srv/app/guard-${attempt}.txt`, summary: `write guard.txt (${attempt})` });
      seen = await promptSeenAt(page, tried.prompt.id);
      await page.keyboard.press('o'); // "Allow once", far too early
      if (Date.now() - seen < 450) a = tried;
      else if ((await pendingIds(ui)).includes(tried.prompt.id)) await human.decide(tried.prompt.id, 'deny');
    }
    assert.ok(a, 'in 3 attempts, the early key never came within half a second of the prompt (test too slow to check the guard)');
    const card = page.locator(`[data-prompt-id="${a.prompt.id}"]`);
    assert.equal(await card.getAttribute('data-swallowed'), '1', 'the early key was swallowed');
    await page.click(`[data-prompt-id="${a.prompt.id}"] [data-testid=choice-once]`, { force: true }); // an early click too
    // Only a click that surely came within the guard must have been swallowed; on a loaded
    // machine it can land after the guard, and then it answers (it failed here once that way).
    if (Date.now() - seen < 450) {
      assert.equal(await card.getAttribute('data-swallowed'), '2', 'the early click was swallowed');
      assert.ok((await pendingIds(ui)).includes(a.prompt.id), 'still pending after the early input');
    }
    if ((await pendingIds(ui)).includes(a.prompt.id)) {
      await waitArmed(page, a.prompt.id);
      await page.keyboard.press('o');
    }
    const ans = await a.answer;
    assert.equal(ans.decision, 'allow', 'the same key works once the guard has passed');
  });

  assert.deepEqual(errors, [], 'no errors in the page');
});
