// Black-box: the human side as a user meets it — `airlock watch` fed from a pipe (one key
// per line, README), and `airlock serve --web` (the printed URL with its token, 401
// without it, Host checked, the token kept in web.json 0600 across restarts, a real
// Chromium showing the prompt with its choices and answering it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startDaemon, waitFor } from '../helpers/daemon';
import { AIRLOCK_BIN, Wire, pendingList } from '../helpers/blackbox';
import { freePort } from '../helpers/sshd';

let root: string;

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bbh-'));
});
after(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

test('watch (stdin a pipe): shows the prompt — what, who, risk, countdown — and one key per line answers it', async () => {
  const d = await startDaemon({ home: path.join(root, 'w') });
  const env = { ...process.env, AIRLOCK_HOME: d.home };
  const watch = spawn(process.execPath, [AIRLOCK_BIN, 'watch'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  watch.stdout.on('data', (b) => (out += b.toString()));
  watch.stderr.on('data', (b) => (out += b.toString()));
  const agent = await Wire.open(d.requestSock);
  try {
    const ans = agent.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/srv/watched/file.txt', summary: 'bb watch write' }, 30_000);
    await waitFor(() => out.includes('bb watch write'), 'watch to show the prompt', 30_000);
    const plain = () => out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    await waitFor(() => plain().includes('/srv/watched/file.txt') && /write/.test(plain()), 'what: action and resource', 20_000);
    assert.ok(plain().includes(String(process.pid)), 'who: the requesting process');
    assert.match(plain(), /medium|high|low|critical/i, 'the risk level');
    assert.match(plain(), /\d+\s*s/, 'a countdown');
    // Past the half-second guard, one key on its own line.
    await new Promise((r) => setTimeout(r, 800));
    watch.stdin.write('o\n');
    const a = await ans;
    assert.equal(a.result?.decision, 'allow', JSON.stringify(a));
    // The next one: deny with d.
    const ans2 = agent.call('request', { source: 'api', tool: 'fs.write', action: 'delete', resource: '/srv/watched/other', summary: 'bb watch delete' }, 30_000);
    await waitFor(() => out.includes('bb watch delete'), 'the second prompt', 30_000);
    await new Promise((r) => setTimeout(r, 800));
    watch.stdin.write('d\n');
    assert.equal((await ans2).result?.decision, 'deny');
    // m: allow for 15 minutes — a grant that expires in about 15 minutes.
    const ui = await Wire.open(d.uiSock);
    try {
      const ans3 = agent.call('request', { source: 'api', tool: 'bb.watchm', action: 'write', resource: '/srv/watched/m', summary: 'bb watch minutes' }, 30_000);
      await waitFor(() => out.includes('bb watch minutes'), 'the third prompt', 30_000);
      await new Promise((r) => setTimeout(r, 800));
      watch.stdin.write('m\n');
      const a3 = await ans3;
      assert.equal(a3.result?.decision, 'allow');
      const grants = await ui.ok<{ grants: { id: string; tool: string; expiresAt: number | null }[] }>('grants.list', {});
      const g = grants.grants.find((x) => x.tool === 'bb.watchm');
      assert.ok(g && g.expiresAt !== null && g.expiresAt > Date.now() + 13 * 60_000 && g.expiresAt < Date.now() + 16 * 60_000, `a 15-minute grant: ${JSON.stringify(grants)}`);
      // a, then y: always (a grant without task or expiry).
      const ans4 = agent.call('request', { source: 'api', tool: 'bb.watcha', action: 'write', resource: '/srv/watched/a', summary: 'bb watch always' }, 30_000);
      await waitFor(() => out.includes('bb watch always'), 'the fourth prompt', 30_000);
      await new Promise((r) => setTimeout(r, 800));
      watch.stdin.write('a\n');
      await new Promise((r) => setTimeout(r, 800));
      assert.ok((await pendingList(ui)).some((x) => x.summary === 'bb watch always'), '`a` alone decides nothing');
      watch.stdin.write('y\n');
      assert.equal((await ans4).result?.decision, 'allow');
      const g2 = (await ui.ok<{ grants: { tool: string; expiresAt: number | null; task: string | null }[] }>('grants.list', {})).grants.find((x) => x.tool === 'bb.watcha');
      assert.ok(g2 && g2.expiresAt === null && g2.task === null, JSON.stringify(g2));
    } finally {
      ui.close();
    }
  } finally {
    agent.close();
    watch.kill('SIGTERM');
    await new Promise((r) => (watch.exitCode !== null ? r(null) : watch.once('exit', r)));
    await d.stop();
  }
});

function get(port: number, p: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: p, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (b) => (body += b.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

test('serve --web: prints http://127.0.0.1:PORT/#token=… ; the API needs the token; Host is checked; the token survives a restart (web.json 0600)', async () => {
  const port = await freePort();
  const home = path.join(root, 'web');
  let d = await startDaemon({ home, args: ['--web', '--port', String(port)] });
  try {
    await waitFor(() => /http:\/\/127\.0\.0\.1:\d+\/#token=/.test(d.output()), 'the URL', 10_000);
    const url = /http:\/\/127\.0\.0\.1:(\d+)\/#token=([A-Za-z0-9_-]+)/.exec(d.output())!;
    assert.equal(Number(url[1]), port);
    const token = url[2];
    assert.ok(token.length >= 32, 'a long random token');
    const page = await get(port, '/');
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'/);
    assert.equal((await get(port, '/api/rpc')).status, 401);
    assert.equal((await get(port, '/ws')).status, 401);
    const rebind = await get(port, '/', { Host: `evil.example:${port}` });
    assert.ok(rebind.status >= 400, `a foreign Host is refused: ${rebind.status}`);
    const webJson = path.join(home, 'web.json');
    assert.ok(fs.existsSync(webJson), 'the token is kept in web.json');
    assert.equal(fs.statSync(webJson).mode & 0o777, 0o600);
    await d.stop();
    d = await startDaemon({ home, args: ['--web', '--port', String(port)] });
    await waitFor(() => /#token=/.test(d.output()), 'the URL again', 10_000);
    assert.equal(/#token=([A-Za-z0-9_-]+)/.exec(d.output())![1], token, 'the same token after a restart (README: open tabs reconnect)');
    await d.stop();
    d = await startDaemon({ home, args: ['--web', '--port', String(port), '--new-web-token'] });
    await waitFor(() => /#token=/.test(d.output()), 'the URL with a new token', 10_000);
    assert.notEqual(/#token=([A-Za-z0-9_-]+)/.exec(d.output())![1], token, '--new-web-token makes a new one');
  } finally {
    await d.stop();
  }
});

test('web UI in Chromium: the prompt shows what and who, Deny and the allow choices with a countdown; "Allow once" answers it', async () => {
  const port = await freePort();
  const d = await startDaemon({ home: path.join(root, 'webui'), args: ['--web', '--port', String(port)] });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const agent = await Wire.open(d.requestSock);
  try {
    await waitFor(() => /#token=/.test(d.output()), 'the URL', 10_000);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)/.exec(d.output())![1];
    const page = await browser.newPage();
    await page.goto(url);
    const t = await agent.ok<{ task: string; token: string }>('task.start', { name: 'bb web task', cwd: '/srv/webproj' });
    const ans = agent.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/srv/webproj/src/app.ts', summary: 'bb web write', task: t.token, cwd: '/srv/webproj', args: { content: 'hello' } }, 60_000);
    ans.catch(() => undefined); // a failed assertion below must not leave an unhandled rejection
    await page.getByText('bb web write').first().waitFor({ timeout: 20_000 });
    const body = () => page.locator('body').innerText();
    assert.match(await body(), /\/srv\/webproj\/src\/app\.ts/, 'the resource');
    assert.match(await body(), /bb web task/, 'the task name');
    assert.match(await body(), /write/i, 'the action');
    const buttons = (await page.getByRole('button').allInnerTexts()).join(' | ');
    for (const name of [/^Deny/, /Allow once/, /Allow for this task/, /Allow for \d+ min/, /Always/]) assert.ok((await page.getByRole('button', { name }).count()) > 0, `a ${name} button among: ${buttons}`);
    assert.match(await body(), /\d+\s*s\b/, 'a countdown');
    await page.waitForTimeout(800);
    await page.getByRole('button', { name: /Allow once/ }).first().click();
    const a = await ans;
    assert.equal(a.result?.decision, 'allow', JSON.stringify(a));
    const ui = await Wire.open(d.uiSock);
    try {
      await waitFor(async () => (await pendingList(ui)).length === 0, 'the queue to empty');
    } finally {
      ui.close();
    }
  } finally {
    agent.close();
    await browser.close();
    await d.stop();
  }
});

test('web UI: keys hammered while a prompt appears decide nothing (the ~0.5 s guard, pushed back by each press); after a pause Esc denies', async () => {
  const port = await freePort();
  const d = await startDaemon({ home: path.join(root, 'webguard'), args: ['--web', '--port', String(port)] });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const agent = await Wire.open(d.requestSock);
  const ui = await Wire.open(d.uiSock);
  try {
    await waitFor(() => /#token=/.test(d.output()), 'the URL', 10_000);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)/.exec(d.output())![1];
    const page = await browser.newPage();
    await page.goto(url);
    await page.getByText('Pending').first().waitFor({ timeout: 20_000 });
    // Someone typing "o" (allow once) in another window, over and over, as the prompt arrives.
    let typing = true;
    const typist = (async () => {
      for (let i = 0; i < 200 && typing; i++) {
        await page.keyboard.press('o');
        await page.waitForTimeout(80);
      }
    })();
    const ans = agent.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/srv/guard/x', summary: 'bb guarded write' }, 60_000);
    ans.catch(() => undefined);
    await page.getByText('bb guarded write').first().waitFor({ timeout: 20_000 });
    await page.waitForTimeout(1500);
    typing = false;
    await typist;
    const still = (await pendingList(ui)).some((p) => p.summary === 'bb guarded write');
    assert.ok(still, 'no keystroke typed while the prompt appeared answered it');
    await page.waitForTimeout(900);
    await page.keyboard.press('Escape');
    const a = await ans;
    assert.equal(a.result?.decision, 'deny', JSON.stringify(a));
  } finally {
    agent.close();
    ui.close();
    await browser.close();
    await d.stop();
  }
});
