// Red team, second wave: the web UI's doors, walked around without a browser. The token
// counts only as a Bearer header (HTTP) or the /ws query (WebSocket); an Origin of "null"
// (sandboxed iframe, file://) or a look-alike host is refused; a malformed path is a 400.
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { test } from 'node:test';
import { startWebDaemon, type WebDaemon } from '../helpers/web-ui';

type Reply = { status: number; body: string };

function request(d: WebDaemon, opts: { path: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: d.port, path: opts.path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'settings.get', params: {} });

test('web mode walked around: token placement, null and look-alike origins, malformed paths', { timeout: 60_000 }, async (t) => {
  const d = await startWebDaemon();
  t.after(() => d.stop());
  const post = (headers: Record<string, string>, path = '/api/rpc') => request(d, { path, method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: rpc });

  await t.test('the token in the query string, a cookie or Basic auth does not open the HTTP API', async () => {
    assert.equal((await post({}, `/api/rpc?token=${d.token}`)).status, 401);
    assert.equal((await post({ Cookie: `token=${d.token}` })).status, 401);
    assert.equal((await post({ Authorization: `Basic ${Buffer.from(`x:${d.token}`).toString('base64')}` })).status, 401);
    assert.equal((await post({ Authorization: `Bearer ${d.token}x` })).status, 401);
    assert.equal((await request(d, { path: `/ws?token=${d.token}` })).status, 401, 'a plain GET of /ws is the API without a Bearer token');
    assert.equal((await post({ Authorization: `Bearer ${d.token}` })).status, 200, 'the right Bearer token works (the test can fail)');
  });

  await t.test('with the token, an Origin of "null" or a look-alike host is still refused', async () => {
    for (const origin of ['null', `${d.origin}.evil.example`, `http://127.0.0.1:${d.port}@evil.example`, `https://127.0.0.1:${d.port}`, `http://127.0.0.1:${d.port + 1}`]) {
      assert.equal((await post({ Authorization: `Bearer ${d.token}`, Origin: origin })).status, 403, origin);
    }
    for (const host of [`127.0.0.1:${d.port}.evil.example`, `localhost.:${d.port}`, `127.0.0.1:${d.port}@evil`, `127.1:${d.port}`, `[::1]:${d.port}`]) {
      assert.equal((await post({ Authorization: `Bearer ${d.token}`, Host: host })).status, 403, host);
    }
  });

  await t.test('a malformed %-escape in a path is a 400, never an internal error', async () => {
    for (const p of ['/%', '/%E0%A4%A', '/assets/%ZZ']) {
      const r = await request(d, { path: p });
      assert.equal(r.status, 400, `${p}: ${r.body}`);
      assert.doesNotMatch(r.body, /internal error/);
    }
    assert.equal((await request(d, { path: '/' })).status, 200, 'the server still serves pages');
  });
});
