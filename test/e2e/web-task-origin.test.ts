// The Tasks view says where a task was started: a task started through a remote's socket
// (airlock remote) names the remote; one started here says nothing of the kind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RpcClient } from '../../main/client/rpc-client';
import type { Remote } from '../../main/contract/approver';
import { browserMissing, launchChromium, openUi, startWebDaemon } from '../helpers/web-ui';

test('web UI: a task started through a remote names the remote; a local one does not', { skip: browserMissing() ?? false, timeout: 120_000 }, async (t) => {
  const d = await startWebDaemon();
  const browser = await launchChromium();
  const ui = await d.ui();
  const agent = await d.agent();
  t.after(async () => {
    ui.close();
    agent.close();
    await browser.close();
    await d.stop();
  });
  const { remote } = await ui.call<{ remote: Remote }>('remotes.add', { name: 'build-box' });
  const far = await RpcClient.connect(remote.socket);
  t.after(() => far.close());
  await far.call('task.start', { name: 'deploy from the server' });
  await agent.call('task.start', { name: 'local refactor' });
  const { page, errors } = await openUi(browser, d);
  await page.getByTestId('nav-tasks').click();
  const item = (name: string) => page.getByTestId('task-item').filter({ hasText: name }).getByRole('button').first();
  await item('deploy from the server').click();
  const origin = page.getByTestId('task-remote');
  await origin.waitFor();
  assert.match((await origin.textContent()) ?? '', /Started through remote build-box: only that remote \(or this machine\) can end it/);
  await item('local refactor').click();
  await page.locator('.task-title', { hasText: 'local refactor' }).waitFor();
  assert.equal(await page.getByTestId('task-remote').count(), 0, 'a local task names no remote');
  assert.deepEqual(errors, []);
});
