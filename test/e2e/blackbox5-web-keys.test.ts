// Black-box, fifth wave: the web UI's keystrokes as docs/desktop-app.md lists them, in
// Chromium against `airlock serve --web`, checked on the human side (ui.sock) and the agent
// side (the answers): `T` makes a grant bound to the task, `M` one that ends after the N
// minutes shown beside the button, `Shift+D` denies every waiting request of the prompt's
// task and nothing else, and a prompt that goes away just as the human presses a key hands
// that key to nobody (the next card comes up guarded), while history says why it went.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Grant, Prompt } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import { browserMissing, waitArmed } from '../helpers/web-ui';
import { openWebSession } from '../helpers/web-session';
import { airlock } from '../helpers/blackbox';

const skip = browserMissing();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Asked = { answer: Promise<AgentAnswer>; prompt: Prompt };

async function pendingIds(ui: RpcClient): Promise<string[]> {
  return (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.map((p) => p.id);
}

async function onScreen(page: Page): Promise<string | null> {
  return page.locator('[data-testid=prompt]').getAttribute('data-prompt-id');
}

/** Is `a` answered within `ms`? (its decision, or null). */
async function settledWithin(a: Asked, ms: number): Promise<string | null> {
  return Promise.race([a.answer.then((x) => x.decision), sleep(ms).then(() => null)]);
}

test('web UI keystrokes: T, M, Shift+D, and a prompt that leaves under the human\'s finger', { skip: skip ?? false, timeout: 180_000 }, async (t) => {
  const { d, page, errors, agent, ui, human } = await openWebSession(t);
  const askAs = async (conn: RpcClient, req: Record<string, unknown>): Promise<Asked> => {
    const answer = conn.call<AgentAnswer>('request', { source: 'api', action: 'write', tool: 'fs.write', ...req });
    answer.catch(() => undefined);
    return { answer, prompt: await human.next() };
  };
  const startTask = (name: string) => agent.call<{ task: string; token: string }>('task.start', { name, cwd: '/srv/bb5' });

  await t.test('T: allow for this task — a grant bound to the task; the same request then needs no prompt', async () => {
    const tk = await startTask('bb5 T');
    const a = await askAs(agent, { task: tk.token, resource: '/srv/bb5/src/a.ts', summary: 'write src/a.ts' });
    // The previous card leaves when its answer arrives: wait for this one in front.
    await page.locator(`[data-testid=prompt][data-prompt-id="${a.prompt.id}"]`).waitFor({ timeout: 20_000 });
    assert.equal(await onScreen(page), a.prompt.id);
    await waitArmed(page, a.prompt.id);
    await page.keyboard.press('t');
    const ans = await a.answer;
    assert.equal(ans.decision, 'allow');
    assert.ok(ans.grant, 'T made a grant');
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { task: tk.task });
    const g = grants.find((x) => x.id === ans.grant);
    assert.ok(g, `the grant is listed for the task: ${JSON.stringify(grants)}`);
    assert.equal(g.task, tk.task, 'bound to the task');
    const again = await agent.call<AgentAnswer>('request', { source: 'api', action: 'write', tool: 'fs.write', task: tk.token, resource: '/srv/bb5/src/a.ts', summary: 'write src/a.ts again' });
    assert.equal(again.decision, 'allow');
    assert.equal(again.grant, ans.grant, 'answered by that grant, no prompt');
    // Another task is not covered by it.
    const other = await startTask('bb5 T other');
    const o = await askAs(agent, { task: other.token, resource: '/srv/bb5/src/a.ts', summary: 'write src/a.ts from another task' });
    assert.deepEqual(await pendingIds(ui), [o.prompt.id]);
    await human.decide(o.prompt.id, 'deny');
    await o.answer;
  });

  await t.test('M: allow for N minutes — the grant ends N minutes from now, N as shown beside the button', async () => {
    const a = await askAs(agent, { resource: '/srv/bb5/m.txt', summary: 'write m.txt' });
    await waitArmed(page, a.prompt.id);
    const n = Number(await page.locator(`[data-prompt-id="${a.prompt.id}"] [data-testid=duration-minutes]`).inputValue());
    assert.ok(Number.isInteger(n) && n > 0, `N is shown: ${n}`);
    // The input may have taken focus; keys go to the card, not to a text field.
    await page.locator(`[data-prompt-id="${a.prompt.id}"] [data-testid=prompt-resource]`).click().catch(() => undefined);
    await sleep(700); // a click pushes the guard back: let it pass
    const before = Date.now();
    await page.keyboard.press('m');
    const ans = await a.answer;
    assert.equal(ans.decision, 'allow');
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', {});
    const g = grants.find((x) => x.id === ans.grant) as (Grant & { expiresAt?: string | number | null }) | undefined;
    assert.ok(g?.expiresAt, `a grant with an end: ${JSON.stringify(g)}`);
    const ends = typeof g.expiresAt === 'number' ? g.expiresAt : Date.parse(g.expiresAt);
    assert.ok(Math.abs(ends - (before + n * 60_000)) < 30_000, `ends ${new Date(ends).toISOString()}, expected about ${n} min after ${new Date(before).toISOString()}`);
    await ui.call('grants.revoke', { id: g.id });
  });

  await t.test('Shift+D: every waiting request of this task is denied; another task\'s and a task-less one stay', async () => {
    const a = await startTask('bb5 deny all');
    const b = await startTask('bb5 bystander');
    const mine: Asked[] = [];
    for (let i = 0; i < 3; i++) mine.push(await askAs(agent, { task: a.token, resource: `/srv/bb5/x${i}.txt`, summary: `write x${i}` }));
    const theirs = await askAs(agent, { task: b.token, resource: '/srv/bb5/y.txt', summary: 'write y' });
    const loose = await askAs(agent, { resource: '/srv/bb5/z.txt', summary: 'write z' });
    // The previous card leaves when its answer arrives: wait for this one in front.
    await page.locator(`[data-testid=prompt][data-prompt-id="${mine[0]!.prompt.id}"]`).waitFor({ timeout: 20_000 });
    assert.equal(await onScreen(page), mine[0]!.prompt.id);
    await waitArmed(page, mine[0]!.prompt.id);
    await page.keyboard.press('Shift+D');
    for (const m of mine) assert.equal((await m.answer).decision, 'deny');
    assert.equal(await settledWithin(theirs, 500), null, 'another task\'s request still waits');
    assert.equal(await settledWithin(loose, 50), null, 'a request of no task still waits');
    assert.deepEqual((await pendingIds(ui)).sort(), [theirs.prompt.id, loose.prompt.id].sort());
    // History: one deny row per request, decided by the human.
    const h = await airlock(['history', '--json', '--decision', 'deny', '--task', a.task], { env: d.env });
    assert.equal(h.code, 0, h.stderr);
    const rows = h.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { resource: string; decidedBy: string });
    assert.deepEqual(rows.map((r) => r.resource).sort(), ['/srv/bb5/x0.txt', '/srv/bb5/x1.txt', '/srv/bb5/x2.txt']);
    for (const r of rows) assert.match(r.decidedBy, /human|user/, `decided by the human: ${JSON.stringify(r)}`);
    await human.decide(theirs.prompt.id, 'deny');
    await human.decide(loose.prompt.id, 'deny');
    await Promise.all([theirs.answer, loose.answer]);
  });

  await t.test('the prompt on screen leaves (its requester disconnects) as a key is pressed: the next card takes no key; history says why', async () => {
    const leaving = await d.agent();
    const gone = await askAs(leaving, { resource: '/srv/bb5/gone.txt', summary: 'write gone.txt (will disconnect)' });
    const next = await askAs(agent, { resource: '/srv/bb5/next.txt', summary: 'write next.txt' });
    // The previous card leaves when its answer arrives: wait for this one in front.
    await page.locator(`[data-testid=prompt][data-prompt-id="${gone.prompt.id}"]`).waitFor({ timeout: 20_000 });
    assert.equal(await onScreen(page), gone.prompt.id);
    await waitArmed(page, gone.prompt.id);
    leaving.close();
    await page.locator(`[data-testid=prompt][data-prompt-id="${next.prompt.id}"]`).waitFor({ timeout: 20_000 });
    // The human, about to approve the first card, presses "o" now: it lands on the new card.
    await page.keyboard.press('o');
    assert.equal(await settledWithin(next, 700), null, 'a key pressed as the card changed decided nothing');
    assert.deepEqual(await pendingIds(ui), [next.prompt.id]);
    await waitArmed(page, next.prompt.id);
    await page.keyboard.press('Escape');
    assert.equal((await next.answer).decision, 'deny');
    const h = await airlock(['history', '--json', '--text', 'gone.txt'], { env: d.env });
    const row = h.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { decision: string; reason: string; resource: string })[0];
    assert.ok(row, h.stdout + h.stderr);
    assert.equal(row.decision, 'deny');
    assert.match(row.reason, /disconnect|went away|left|gone/i, `the reason says the requester left: ${row.reason}`);
  });

  assert.deepEqual(errors, []);
});
