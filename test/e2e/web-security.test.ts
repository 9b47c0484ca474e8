// Web mode's doors: the token (401 without it or with a wrong one, on the API and the
// WebSocket), Host (DNS rebinding) and Origin (cross-site WebSocket hijacking), the CSP,
// and that a page on a foreign origin cannot reach the contract from a real browser.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
import { browserMissing, launchChromium, startWebDaemon, type WebDaemon } from '../helpers/web-ui';

type Reply = { status: number; headers: http.IncomingHttpHeaders; body: string };

function request(d: WebDaemon, opts: { path: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: d.port, path: opts.path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Opens a WebSocket and reports the HTTP status of a refused handshake (or 101). */
function wsStatus(d: WebDaemon, query: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${d.port}/ws${query}`, { headers: { Origin: d.origin, ...headers } });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', reject);
  });
}

const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'settings.get', params: {} });

test('web mode: token, Host, Origin and CSP', { timeout: 60_000 }, async (t) => {
  const d = await startWebDaemon();
  t.after(() => d.stop());
  assert.equal(d.output().match(/#token=/g)?.length, 1, 'the token is printed exactly once');

  await t.test('the API answers only with the right token', async () => {
    const none = await request(d, { path: '/api/rpc', method: 'POST', body: rpc });
    assert.equal(none.status, 401);
    const wrong = await request(d, { path: '/api/rpc', method: 'POST', body: rpc, headers: { Authorization: `Bearer ${d.token.slice(0, -2)}xx` } });
    assert.equal(wrong.status, 401);
    const right = await request(d, { path: '/api/rpc', method: 'POST', body: rpc, headers: { Authorization: `Bearer ${d.token}` } });
    assert.equal(right.status, 200);
    assert.ok((JSON.parse(right.body) as { result: { settings: object } }).result.settings);
  });

  await t.test('the WebSocket handshake needs the right token', async () => {
    assert.equal(await wsStatus(d, ''), 401);
    assert.equal(await wsStatus(d, '?token=wrong'), 401);
    assert.equal(await wsStatus(d, `?token=${d.token}x`), 401);
    assert.equal(await wsStatus(d, `?token=${encodeURIComponent(d.token)}`), 101);
  });

  await t.test('over the socket: the contract only, params validated by its schemas', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${d.port}/ws?token=${encodeURIComponent(d.token)}`, { headers: { Origin: d.origin } });
    const replies = new Map<number, { result?: unknown; error?: { code: number; message: string } }>();
    ws.on('message', (m) => {
      const msg = JSON.parse(String(m)) as { id?: number; result?: unknown; error?: { code: number; message: string } };
      if (typeof msg.id === 'number') replies.set(msg.id, msg);
    });
    await new Promise<void>((r, j) => {
      ws.once('open', () => r());
      ws.once('error', j);
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'request', params: { source: 'api', tool: 'x', action: 'write', summary: 'agent-side method on the human side' } }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'pending.decide', params: { id: 'p_x', decision: 'maybe', scope: 'once' } }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'grants.list', params: { bogus: 1 } }));
    ws.send('{not json');
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'settings.get', params: {} }));
    const deadline = Date.now() + 30_000; // all four come at once normally; room for a loaded machine
    while (replies.size < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    ws.close();
    assert.equal(replies.get(1)?.error?.code, -32601, 'unknown method');
    assert.equal(replies.get(2)?.error?.code, -32602);
    assert.match(replies.get(2)?.error?.message ?? '', /decision/, 'the message names the field');
    assert.equal(replies.get(3)?.error?.code, -32602, 'unknown keys are refused (strict schemas)');
    assert.ok(replies.get(4)?.result, 'the connection survives bad messages');
  });

  await t.test('a foreign Origin is refused even with the token', async () => {
    assert.equal(await wsStatus(d, `?token=${d.token}`, { Origin: 'http://evil.example' }), 403);
    assert.equal(await wsStatus(d, `?token=${d.token}`, { Origin: `http://127.0.0.1:${d.port + 1}` }), 403);
    const post = await request(d, { path: '/api/rpc', method: 'POST', body: rpc, headers: { Authorization: `Bearer ${d.token}`, Origin: 'http://evil.example' } });
    assert.equal(post.status, 403);
  });

  await t.test('a foreign Host (DNS rebinding) is refused, pages included', async () => {
    const page = await request(d, { path: '/', headers: { Host: `evil.example:${d.port}` } });
    assert.equal(page.status, 403);
    const api = await request(d, { path: '/api/rpc', method: 'POST', body: rpc, headers: { Host: `evil.example:${d.port}`, Authorization: `Bearer ${d.token}` } });
    assert.equal(api.status, 403);
    assert.equal(await wsStatus(d, `?token=${d.token}`, { Host: `evil.example:${d.port}`, Origin: `http://evil.example:${d.port}` }), 403);
    assert.equal((await request(d, { path: '/', headers: { Host: `localhost:${d.port}` } })).status, 200, 'localhost:PORT is fine');
  });

  await t.test('pages carry the strict CSP and hardening headers; no path escapes the app dir', async () => {
    const page = await request(d, { path: '/' });
    assert.equal(page.status, 200);
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.doesNotMatch(page.body, /token/i, 'the page itself holds no token');
    for (const p of ['/../package.json', '/%2e%2e/package.json', '/assets/../../main/cli/index.js']) {
      assert.equal((await request(d, { path: p })).status, 404, p);
    }
  });

  await t.test('the token is on disk only in web.json, mode 0600 (so open tabs reconnect after a restart), never in history', async () => {
    const { execFileSync } = await import('node:child_process');
    const found = (() => {
      try {
        return execFileSync('grep', ['-rl', '--', d.token, d.home], { encoding: 'utf8' });
      } catch {
        return ''; // grep exits 1 when nothing matches
      }
    })();
    assert.deepEqual(found.trim().split('\n').filter(Boolean), [path.join(d.home, 'web.json')]);
    assert.equal(fs.statSync(path.join(d.home, 'web.json')).mode & 0o777, 0o600);
  });

  await t.test('the page without the token, or with a wrong one, says what to do and shows no data', { skip: browserMissing() ?? false }, async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${d.origin}/`);
      await page.getByText('needs the token').waitFor();
      await page.goto(`${d.origin}/#token=not-the-token`);
      await page.reload();
      const banner = page.getByTestId('connection-banner');
      await banner.filter({ hasText: 'not valid' }).waitFor({ timeout: 15_000 });
      assert.equal(await page.getByTestId('prompt').count(), 0);
    } finally {
      await browser.close();
    }
  });

  await t.test('a page on a foreign origin in a real browser cannot open the socket', { skip: browserMissing() ?? false }, async () => {
    // The attacker page knows the port and even the token; only Origin gives it away.
    const evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(`<script>
        const ws = new WebSocket('ws://127.0.0.1:${d.port}/ws?token=${d.token}');
        ws.onopen = () => { ws.send(${JSON.stringify(rpc)}); };
        ws.onmessage = (e) => { document.title = 'GOT ' + e.data.slice(0, 40); };
        ws.onerror = () => { document.title = 'refused'; };
      </script>`);
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', () => r()));
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const port = (evil.address() as { port: number }).port;
      await page.goto(`http://localhost:${port}/`);
      await page.waitForFunction('document.title !== ""', undefined, { timeout: 10_000 });
      assert.equal(await page.title(), 'refused');
    } finally {
      await browser.close();
      evil.close();
    }
  });
});
