// Keys in the web UI: import an ssh-keygen key with its passphrase (a wrong one is
// refused), then a real `ssh-keygen -Y sign` through Airlock's agent shows an SSH prompt
// with the key name, fingerprint and namespace; allowing it produces the signature.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Prompt } from '../../main/contract/approver';
import { tempHome } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { makeKey, run } from '../helpers/ssh';
import { browserMissing, launchChromium, openUi, shot, startWebDaemon, waitArmed } from '../helpers/web-ui';

function sshKeygenMissing(): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) if (fs.existsSync(path.join(dir, 'ssh-keygen'))) return null;
  return 'ssh-keygen not found (apt-get install openssh-client)';
}

const skip = browserMissing() ?? sshKeygenMissing();

test('web UI: key import with passphrase, SSH signature prompt', { skip: skip ?? false, timeout: 120_000 }, async (t) => {
  const d = await startWebDaemon();
  const browser = await launchChromium();
  const human = await Human.on(await d.ui());
  t.after(async () => {
    human.ui.close();
    await browser.close();
    await d.stop();
  });
  const work = tempHome('alk-');
  const keyFile = await makeKey(work, 'e2e', ['-t', 'ed25519'], 'correct horse');
  const fp = (await run('ssh-keygen', ['-lf', `${keyFile}.pub`])).stdout.split(/\s+/)[1]!;
  assert.match(fp, /^SHA256:/);

  const { page, errors } = await openUi(browser, d);
  await page.getByTestId('nav-keys').click();

  await t.test('a wrong passphrase is refused and nothing is imported', async () => {
    await page.getByTestId('key-import').click();
    await page.getByTestId('key-pem').fill(fs.readFileSync(keyFile, 'utf8'));
    await page.getByTestId('key-passphrase').fill('wrong horse');
    await page.getByTestId('key-import-submit').click();
    await page.locator('[data-testid=toast]', { hasText: 'Import failed' }).waitFor();
    assert.equal(await page.getByTestId('key-row').count(), 0);
  });

  await t.test('import with the right passphrase lists the key with its fingerprint', async () => {
    await page.getByTestId('key-passphrase').fill('correct horse');
    await page.getByTestId('key-name').fill('e2e laptop key');
    await page.getByTestId('key-import-submit').click();
    const row = page.getByTestId('key-row');
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /e2e laptop key/);
    assert.match((await row.textContent()) ?? '', new RegExp(fp.replace(/[+/]/g, '\\$&')));
  });

  await t.test('ssh-keygen -Y sign through the agent shows an SSH prompt; allowing it signs', async () => {
    const data = path.join(work, 'message.txt');
    fs.writeFileSync(data, 'hello\n');
    await page.getByTestId('nav-pending').click();
    const env = { ...process.env, SSH_AUTH_SOCK: d.agentSock };
    const signing = run('ssh-keygen', ['-Y', 'sign', '-f', `${keyFile}.pub`, '-n', 'git', data], { env, timeoutMs: 60_000 });
    const p: Prompt = await human.next(20_000);
    assert.equal(p.source, 'ssh');
    const card = page.locator(`[data-prompt-id="${p.id}"]`);
    await card.waitFor();
    assert.equal(await card.getByTestId('ssh-key-name').textContent(), 'e2e laptop key');
    assert.equal(await card.getByTestId('ssh-fingerprint').textContent(), fp);
    assert.match((await card.getByTestId('ssh-namespace').textContent()) ?? '', /“git”/);
    assert.equal(await card.getByTestId('forwarded-badge').count(), 0, 'a local request is not marked forwarded');
    await waitArmed(page, p.id);
    // Dismiss the import toasts so the screenshot shows the prompt alone.
    // (A toast can go by itself between the count and the click: a short wait, then look again.)
    for (let i = 0; i < 20 && (await page.getByTestId('toast').count()) > 0; i++) await page.getByTestId('toast').first().click({ timeout: 1000 }).catch(() => undefined);
    await shot(page, 'prompt-ssh-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'prompt-ssh-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await card.getByTestId('choice-once').click();
    const r = await signing;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(fs.existsSync(`${data}.sig`), 'the signature was written');
  });

  await t.test('generate a key in the UI; its public key is what the agent lists', async () => {
    await page.getByTestId('nav-keys').click();
    await page.getByTestId('key-generate').click();
    await page.getByTestId('key-generate-name').fill('e2e generated');
    await page.getByTestId('key-generate-form').getByRole('button', { name: 'Generate' }).click();
    const row = page.getByTestId('key-row').filter({ hasText: 'e2e generated' });
    await row.waitFor();
    const listed = await run('ssh-add', ['-L'], { env: { ...process.env, SSH_AUTH_SOCK: d.agentSock } });
    assert.match(listed.stdout, /^ssh-ed25519 \S+/m);
    page.once('dialog', (dlg) => void dlg.accept());
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
  });

  await t.test('remove the key', async () => {
    await page.getByTestId('nav-keys').click();
    page.once('dialog', (dlg) => void dlg.accept());
    await page.getByTestId('key-row').getByRole('button', { name: 'Remove' }).click();
    await page.getByTestId('key-row').waitFor({ state: 'detached' });
  });

  assert.deepEqual(errors, []);
});
