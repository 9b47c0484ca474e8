// Issue 11 items 3 and 7 in Chromium against the real daemon: the prompt card shows what
// will happen (the daemon's consequence line for a delete, the diff of a Claude Code
// Edit against the file on disk), and an open tab reconnects by itself after the daemon
// restarts (its token and port are kept, main/os/web-state.ts) — no new URL needed.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Prompt } from '../../main/contract/approver';
import { startDaemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { browserMissing, launchChromium, openUi, shot, startWebDaemon } from '../helpers/web-ui';

const skip = browserMissing();

test('web UI: the consequence line and the diff; reconnecting after a daemon restart', { skip: skip ?? false, timeout: 180_000 }, async (t) => {
  const d = await startWebDaemon();
  const browser = await launchChromium();
  let current = d;
  t.after(async () => {
    await browser.close();
    await current.stop();
  });
  const { page, errors } = await openUi(browser, d);
  const work = fs.mkdtempSync(path.join(d.home, 'proj-'));

  await t.test('a delete says what and how much; an Edit shows its diff, escaped', async () => {
    const agent = await d.agent();
    const human = await Human.on(await d.ui());
    try {
      fs.mkdirSync(path.join(work, 'build'));
      for (let i = 0; i < 12; i++) fs.writeFileSync(path.join(work, 'build', `f${i}`), 'x'.repeat(500));
      const del = agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.delete', action: 'delete', resource: path.join(work, 'build'), summary: 'clean the build', cwd: work });
      const p1: Prompt = await human.next();
      const card = page.locator(`[data-prompt-id="${p1.id}"]`);
      await card.waitFor();
      assert.equal(await card.getByTestId('consequence-line').first().textContent(), 'deletes build/: 12 files, 6.0 kB');
      await human.decide(p1.id, 'deny');
      assert.equal((await del).decision, 'deny');

      const file = path.join(work, 'page.html');
      fs.writeFileSync(file, '<p>old</p>\n<p>keep</p>\n');
      const edit = agent.call<AgentAnswer>('request', {
        source: 'claude-code', tool: 'Edit', action: 'write', resource: file, summary: `Edit ${file}`, cwd: work,
        args: { file_path: file, old_string: '<p>old</p>', new_string: '<script>alert(1)</script>\u202e' },
      });
      const p2: Prompt = await human.next();
      const card2 = page.locator(`[data-prompt-id="${p2.id}"]`);
      await card2.waitFor();
      const diff = (await card2.getByTestId('prompt-diff').textContent()) ?? '';
      assert.match(diff, /-<p>old<\/p>/);
      assert.match(diff, /\+<script>alert\(1\)<\/script>/, 'markup is shown as text');
      assert.ok(!diff.includes('\u202e'), 'a bidi override is shown visibly, not applied');
      assert.equal(await page.locator('script:text("alert(1)")').count(), 0);
      assert.match((await card2.getByTestId('prompt-consequence').textContent()) ?? '', /changes page\.html: \+1 −1 lines/);
      await shot(page, 'prompt-diff-light');
      await human.decide(p2.id, 'deny');
      await edit;
    } finally {
      agent.close();
      human.ui.close();
    }
  });

  await t.test('after a restart the same tab reconnects on its own and shows the next prompt', async () => {
    await d.stop();
    await page.getByTestId('connection-banner').waitFor();
    const again = await d.restart();
    const m = /web UI (http:\/\/127\.0\.0\.1:(\d+)\/#token=([A-Za-z0-9_-]+))/.exec(again.output());
    current = Object.assign(again, { url: m![1]!, port: Number(m![2]), token: m![3]!, origin: `http://127.0.0.1:${m![2]}` });
    assert.equal(current.url, d.url, 'same port and token after the restart');
    const mode = fs.statSync(path.join(d.home, 'web.json')).mode & 0o777;
    assert.equal(mode, 0o600);
    await page.getByTestId('connection-banner').waitFor({ state: 'detached', timeout: 30_000 });
    const agent = await again.agent();
    const human = await Human.on(await again.ui());
    try {
      const answer = agent.call<AgentAnswer>('request', { source: 'api', action: 'write', tool: 'fs.write', resource: '/srv/after-restart.txt', summary: 'write after the restart' });
      const p = await human.next();
      const card = page.locator(`[data-prompt-id="${p.id}"]`);
      await card.waitFor({ timeout: 30_000 });
      // Decided from the reconnected tab itself.
      await card.getByTestId('choice-deny').click({ timeout: 20_000 });
      assert.equal((await answer).decision, 'deny');
    } finally {
      agent.close();
      human.ui.close();
    }
  });

  await t.test('a rotated token stops the retries and says why', async () => {
    await current.stop();
    const rotated = await startDaemon({ home: d.home, args: ['--web', '--port', '0', '--new-web-token'] });
    current = Object.assign(rotated, { url: '', port: 0, token: '', origin: '' });
    assert.ok(!rotated.output().includes(d.token), 'a new token');
    await page.locator('[data-testid=connection-banner].unauthorized').waitFor({ timeout: 20_000 });
    assert.match((await page.getByTestId('connection-banner').textContent()) ?? '', /not valid — Airlock refuses it/);
  });

  assert.deepEqual(errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource|401/.test(e)), []);
});
