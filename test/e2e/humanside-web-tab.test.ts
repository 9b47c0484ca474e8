// Red team of the human side, the web tab: another local page (http://127.0.0.1:OTHER, any
// process of any user can serve one) and a rebinding DNS name try to drive or read the UI,
// and the token is looked for where URLs leak (the address bar, history, Referer). In
// Debian's Chromium against `airlock serve --web`; what must hold is checked by what the
// browser really did (the prompt still waiting, the frame not loaded, the header sent).
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import type { Prompt } from '../../main/contract/approver';
import { ask } from '../helpers/human';
import { browserMissing, CHROMIUM, CHROMIUM_ARGS, waitArmed } from '../helpers/web-ui';
import { startWebParts } from '../helpers/web-session';

const skip = browserMissing();

/** Another local web server: serves `pages[path]` as HTML and records each request's path and Referer. */
async function otherPage(pages: Record<string, string>): Promise<{ port: number; origin: string; heard: { path: string; referer?: string }[]; close(): Promise<void> }> {
  const heard: { path: string; referer?: string }[] = [];
  const server = http.createServer((req, res) => {
    heard.push({ path: req.url ?? '', ...(req.headers.referer ? { referer: req.headers.referer } : {}) });
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(pages[(req.url ?? '/').split('?')[0]!] ?? '<title>other</title>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    heard,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

test('red team of the human side: another local page, a rebinding name and leaky URLs against the web tab', { skip: skip ?? false, timeout: 240_000 }, async (t) => {
  const { d, browser, agent, ui, human } = await startWebParts(t);
  const pending = async (id: string) => (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.some((p) => p.id === id);

  await t.test('the token leaves the address bar and the history entry at once; a reload still works; a page it goes to gets no Referer', async () => {
    const other = await otherPage({});
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(d.url);
      await page.getByTestId('nav-pending').waitFor();
      assert.ok(!page.url().includes(d.token), `the address bar still shows the token: ${page.url()}`);
      assert.equal(page.url(), `${d.origin}/`);
      assert.ok(!String(await page.evaluate('location.href')).includes(d.token));
      // A reload keeps the tab working (the tab keeps the token, not the URL): a prompt comes and is answered.
      await page.reload();
      const a = await ask(agent, human, { resource: '/srv/hs/reload.txt', summary: 'after a reload' });
      await waitArmed(page, a.prompt.id);
      await page.keyboard.press('Escape');
      assert.equal((await a.answer).decision, 'deny', 'the reloaded tab decides (the test can fail)');
      // Leaving the tab for another page: no Referer, no token in what that page can see.
      await page.evaluate(`location.href = ${JSON.stringify(`${other.origin}/landing`)}`);
      await page.waitForURL(`${other.origin}/landing`);
      assert.equal(await page.evaluate('document.referrer'), '');
      const landing = other.heard.find((h) => h.path === '/landing');
      assert.ok(landing, 'the other page was reached');
      assert.equal(landing.referer, undefined, 'no Referer');
      // Back: the history entry holds no token either.
      await page.goBack();
      assert.ok(!page.url().includes(d.token), `the history entry holds the token: ${page.url()}`);
      await page.getByTestId('nav-pending').waitFor();
    } finally {
      await context.close();
      await other.close();
    }
  });

  await t.test('another local page cannot decide: a cross-origin POST (no-cors, CORS, a form) and a WebSocket asking for the proof are all refused', async () => {
    const a = await ask(agent, human, { resource: '/srv/hs/csrf.txt', summary: 'csrf target' });
    const decide = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'pending.decide', params: { id: a.prompt.id, decision: 'allow', scope: 'always' } });
    const api = `${d.origin}/api/rpc`;
    const other = await otherPage({
      '/attack': `<title>attack</title>
        <iframe name="sink"></iframe>
        <form id="f" method="POST" action="${api}" target="sink" enctype="text/plain"><input name='${decide.slice(0, -1)}' value='}'></form>
        <script>
          const results = {};
          const done = () => { if (Object.keys(results).length === 4) document.title = 'done ' + JSON.stringify(results); };
          fetch(${JSON.stringify(api)}, { method: 'POST', mode: 'no-cors', body: ${JSON.stringify(decide)} })
            .then((r) => { results.noCors = r.type; done(); }, () => { results.noCors = 'failed'; done(); });
          fetch(${JSON.stringify(api)}, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer guess' }, body: ${JSON.stringify(decide)} })
            .then((r) => { results.cors = 'read ' + r.status; done(); }, () => { results.cors = 'blocked'; done(); });
          const ws = new WebSocket(${JSON.stringify(`ws://127.0.0.1:${d.port}/ws?auth=proof`)});
          ws.onmessage = (e) => { results.ws = 'got ' + String(e.data).slice(0, 40); done(); ws.close(); };
          ws.onerror = () => { if (!results.ws) { results.ws = 'refused'; done(); } };
          document.getElementById('f').submit();
          results.form = 'sent'; done();
        </script>`,
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${other.origin}/attack`);
      for (const until = Date.now() + 15_000; Date.now() < until && !(await page.title()).startsWith('done'); ) await new Promise((r) => setTimeout(r, 50));
      const results = JSON.parse((await page.title()).slice('done '.length)) as Record<string, string>;
      // no-cors: the response is refused outright (Cross-Origin-Resource-Policy: same-origin), not even opaque.
      assert.deepEqual(results, { noCors: 'failed', cors: 'blocked', ws: 'refused', form: 'sent' });
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await pending(a.prompt.id), true, 'the prompt is still waiting: nothing the other page sent decided it');
      const { grants } = await ui.call<{ grants: unknown[] }>('grants.list', {});
      assert.deepEqual(grants, [], 'and no grant was made');
    } finally {
      await context.close();
      await other.close();
      await human.decide(a.prompt.id, 'deny');
    }
  });

  await t.test('clickjacking: the UI in a frame of another local page, even with the token, never loads', async () => {
    const other = await otherPage({ '/frame': `<title>frame</title><iframe id="ui" src="${d.url}" width="900" height="600"></iframe>` });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${other.origin}/frame`);
      await new Promise((r) => setTimeout(r, 1500));
      const child = page.frames().find((f) => f !== page.mainFrame());
      assert.ok(child, 'the frame exists');
      const loaded = await child.evaluate('document.querySelector("[data-testid=nav-pending]") !== null').catch(() => false);
      assert.equal(loaded, false, 'the UI did not load inside the other page');
      assert.ok(!child.url().startsWith(d.origin) || child.url() === 'about:blank', `the frame holds the UI: ${child.url()}`);
    } finally {
      await context.close();
      await other.close();
    }
  });

  await t.test('a page that opens the UI gets no handle on it (Cross-Origin-Opener-Policy)', async () => {
    const other = await otherPage({
      '/opener': `<title>opener</title><script>
        const w = window.open(${JSON.stringify(d.url)});
        setTimeout(() => { let r; try { r = w.closed ? 'closed' : 'open:' + w.document.title; } catch (e) { r = 'denied'; } document.title = 'done ' + r; }, 2500);
      </script>`,
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${other.origin}/opener`);
      for (const until = Date.now() + 15_000; Date.now() < until && !(await page.title()).startsWith('done'); ) await new Promise((r) => setTimeout(r, 50));
      assert.equal(await page.title(), 'done closed', 'COOP severs the opener: the handle is closed');
    } finally {
      await context.close();
      await other.close();
    }
  });

  await t.test('DNS rebinding in the browser: a name that resolves to 127.0.0.1 gets 403 for the page and the socket', async () => {
    const rebinding = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP rebind.test 127.0.0.1'] });
    try {
      const page = await rebinding.newPage();
      const res = await page.goto(`http://rebind.test:${d.port}/#token=${d.token}`);
      assert.equal(res?.status(), 403, 'the page is refused for a foreign Host');
      const ws = (await page.evaluate(`new Promise((resolve) => {
        const s = new WebSocket('ws://rebind.test:${d.port}/ws?token=${d.token}');
        s.onopen = () => resolve('open'); s.onerror = () => resolve('refused');
      })`)) as string;
      assert.equal(ws, 'refused');
      const api = (await page.evaluate(`fetch('/api/rpc', { method: 'POST', headers: { Authorization: 'Bearer ${d.token}' }, body: '{}' }).then((r) => r.status)`)) as number;
      assert.equal(api, 403, 'the API too, even with the token');
    } finally {
      await rebinding.close();
    }
  });

  await t.test('every response carries the CSP and X-Frame-Options, errors included; no inline script runs and eval is refused', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(d.url);
      await page.getByTestId('nav-pending').waitFor();
      const script = (await page.evaluate('document.querySelector("script[src]").getAttribute("src")')) as string;
      assert.equal(await page.evaluate('[...document.scripts].filter((s) => !s.src).length'), 0, 'no inline script in the page');
      for (const p of ['/', script, '/favicon.svg', '/no-such-file', '/api/rpc', '/ws', '/%']) {
        const probe = await context.newPage();
        const res = await probe.goto(`${d.origin}${p}`);
        assert.ok(res, p);
        const h = res.headers();
        assert.match(h['content-security-policy'] ?? '', /default-src 'none'; script-src 'self';.*frame-ancestors 'none'/, `${p} (${res.status()})`);
        assert.equal(h['x-frame-options'], 'DENY', p);
        assert.equal(h['referrer-policy'], 'no-referrer', p);
        await probe.close();
      }
      // Run from a timer, not inside DevTools' own evaluation (which may eval whatever the CSP says).
      await page.evaluate(`setTimeout(() => {
        const r = [];
        try { eval('1'); r.push('eval ran'); } catch (e) { r.push(e.name); }
        try { new Function('return 1')(); r.push('Function ran'); } catch (e) { r.push(e.name); }
        const s = document.createElement('script'); s.textContent = 'window.__inline = 1'; document.body.appendChild(s);
        setTimeout(() => { r.push(window.__inline === 1 ? 'inline ran' : 'inline blocked'); window.__evals = r; }, 100);
      }, 0)`);
      await new Promise((r) => setTimeout(r, 500));
      const evals = await page.evaluate('window.__evals');
      assert.deepEqual(evals, ['EvalError', 'EvalError', 'inline blocked']);
    } finally {
      await context.close();
    }
  });
});
