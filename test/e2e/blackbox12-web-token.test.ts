// Black-box, twelfth wave: the web UI's token and whoever listens on its port. The README
// promises that the token and the port are kept so "an open tab reconnects by itself after
// the daemon restarts". While the daemon is away (a restart, a crash, stopped for the night)
// its port is free for any local process — another user's too — to listen on. The open tab
// keeps reconnecting to that port: it must never hand that listener the token (which stays
// valid when the daemon comes back, on another port if this one is taken), nor take the
// listener for Airlock (a fake prompt, or the Keys view's private key and passphrase sent to
// it). Real daemon, real Chromium, a real impostor server on the port.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import { test } from 'node:test';
import { WebSocketServer, WebSocket } from 'ws';
import type { AgentAnswer } from '../../main/contract/agent';
import { startDaemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { browserMissing, launchChromium, openUi, startWebDaemon, type WebDaemon } from '../helpers/web-ui';

const skip = browserMissing();

interface Heard {
  requests: string[];
  messages: string[];
}

/** A server on the daemon's port that records everything it is sent and answers like a friendly Airlock would. */
function impostor(port: number, relayTo?: number): Promise<{ heard: Heard; close(): Promise<void>; relayed: WebSocket[] }> {
  const heard: Heard = { requests: [], messages: [] };
  const relayed: WebSocket[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      heard.requests.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 0, result: { prompts: [] } }));
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    heard.requests.push(`UPGRADE ${req.url} ${JSON.stringify(req.headers)}`);
    wss.handleUpgrade(req, socket, head, (ws) => {
      // Relay: pass every frame to the real daemon on its new port and back (a man in the middle).
      const far = relayTo ? new WebSocket(`ws://127.0.0.1:${relayTo}${req.url}`, { headers: { Origin: `http://127.0.0.1:${relayTo}` } }) : null;
      if (far) {
        relayed.push(far);
        far.on('message', (m) => ws.readyState === ws.OPEN && ws.send(m.toString()));
        far.on('error', () => ws.close());
        far.on('close', () => ws.close());
      }
      const early: string[] = [];
      far?.on('open', () => early.splice(0).forEach((m) => far.send(m)));
      ws.on('message', (m) => {
        const text = m.toString();
        heard.messages.push(text);
        if (far) return far.readyState === far.OPEN ? far.send(text) : void early.push(text);
        // Alone: answer every call as if it were Airlock, and offer a prompt.
        try {
          const msg = JSON.parse(text) as { id?: number };
          if (typeof msg.id === 'number') ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { prompts: [], events: [], grants: [], tasks: [], keys: [] } }));
        } catch {
          /* not JSON */
        }
      });
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve({
        heard,
        relayed,
        close: () =>
          new Promise<void>((r) => {
            for (const c of wss.clients) c.terminate();
            for (const f of relayed) f.terminate();
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    );
  });
}

test('web UI: a listener on the port while the daemon is away never gets the token from the open tab, nor is taken for Airlock', { skip: skip ?? false, timeout: 180_000 }, async (t) => {
  const d = await startWebDaemon();
  const browser = await launchChromium();
  let current: WebDaemon = d;
  const closers: (() => Promise<void>)[] = [];
  t.after(async () => {
    for (const c of closers) await c().catch(() => undefined);
    await browser.close();
    await current.stop();
  });
  const { page } = await openUi(browser, d);

  await t.test('the daemon stops and another process listens on its port: the tab reconnects to it without ever sending the token', async () => {
    await d.stop();
    await page.getByTestId('connection-banner').waitFor();
    const fake = await impostor(d.port);
    closers.push(fake.close);
    // The tab retries with a growing backoff (250 ms … 8 s): give it several attempts.
    await new Promise((r) => setTimeout(r, 6000));
    const everything = [...fake.heard.requests, ...fake.heard.messages].join('\n');
    assert.ok(fake.heard.requests.length > 0, 'the tab did try the port again');
    assert.ok(!everything.includes(d.token), `the token went to the listener:\n${everything.slice(0, 2000)}`);
    assert.ok(!everything.includes(encodeURIComponent(d.token)));
    // Nor does the tab take the listener for Airlock: it still says it cannot reach it.
    await page.getByTestId('connection-banner').waitFor({ timeout: 5000 });
    await fake.close();
    closers.pop();
  });

  await t.test('the daemon comes back on another port while the listener relays the tab to it: the relayed session is never let in', async () => {
    const squat = await impostor(d.port);
    // The saved port is taken: the daemon takes any free one and keeps the token.
    const again = (await d.restart()) as WebDaemon;
    const m = /web UI (http:\/\/127\.0\.0\.1:(\d+)\/#token=([A-Za-z0-9_-]+))/.exec(again.output());
    current = Object.assign(again, { url: m![1]!, port: Number(m![2]), token: m![3]!, origin: `http://127.0.0.1:${m![2]}` });
    assert.notEqual(current.port, d.port);
    assert.equal(current.token, d.token, 'the same token, kept across the restart');
    await squat.close();
    const relay = await impostor(d.port, current.port);
    closers.push(relay.close);
    await new Promise((r) => setTimeout(r, 6000));
    const everything = [...relay.heard.requests, ...relay.heard.messages].join('\n');
    assert.ok(relay.heard.requests.length > 0, 'the tab did try the port again');
    assert.ok(!everything.includes(d.token), 'the token went to the relay');
    assert.ok(relay.relayed.length > 0, 'the tab was relayed to the daemon');
    // The relay's own connection to the daemon (made with what the tab sent) answers nothing.
    for (const far of relay.relayed.filter((f) => f.readyState === WebSocket.OPEN)) {
      const answer = await new Promise<string>((resolve) => {
        const to = setTimeout(() => resolve('(no answer)'), 3000);
        far.once('message', (msg) => (clearTimeout(to), resolve(msg.toString())));
        far.once('close', () => (clearTimeout(to), resolve('(closed)')));
        far.send(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'grants.list', params: {} }));
      });
      assert.ok(!/"result"/.test(answer), `the relayed session was let in: ${answer}`);
    }
    await page.getByTestId('connection-banner').waitFor({ timeout: 5000 });
    await relay.close();
    closers.pop();
  });

  await t.test('control: the daemon back on its own port: the same tab reconnects by itself and decides a prompt', async () => {
    await current.stop();
    // web.json now names the port of the last run; the human starts it on the old one again.
    const back = (await startDaemon({ home: d.home, args: ['--web', '--port', String(d.port)] })) as WebDaemon;
    const m = /web UI (http:\/\/127\.0\.0\.1:(\d+)\/#token=([A-Za-z0-9_-]+))/.exec(back.output());
    current = Object.assign(back, { url: m![1]!, port: Number(m![2]), token: m![3]!, origin: `http://127.0.0.1:${m![2]}` });
    assert.equal(current.port, d.port, 'the saved port is free again');
    // A tab that met a refusal (passed on by the relay) looks again every 30 s.
    await page.getByTestId('connection-banner').waitFor({ state: 'detached', timeout: 60_000 });
    const agent = await back.agent();
    const human = await Human.on(await back.ui());
    try {
      const answer = agent.call<AgentAnswer>('request', { source: 'api', action: 'write', tool: 'fs.write', resource: '/srv/bb12.txt', summary: 'write after the squatter left' });
      const p = await human.next();
      const card = page.locator(`[data-prompt-id="${p.id}"]`);
      await card.waitFor({ timeout: 30_000 });
      await card.getByTestId('choice-deny').click({ timeout: 20_000 });
      assert.equal((await answer).decision, 'deny');
    } finally {
      agent.close();
      human.ui.close();
    }
  });
});

test('web UI proof handshake on the wire: nothing is served before the proof, a wrong proof is refused and recorded, the right one is answered with the server\'s own', { timeout: 60_000 }, async (t) => {
  const d = await startWebDaemon();
  t.after(() => d.stop());
  const open = () =>
    new Promise<{ ws: WebSocket; next(): Promise<Record<string, unknown>> }>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${d.port}/ws?auth=proof`, { headers: { Origin: d.origin } });
      const inbox: Record<string, unknown>[] = [];
      const waiters: ((m: Record<string, unknown>) => void)[] = [];
      ws.on('message', (m) => {
        const msg = JSON.parse(m.toString()) as Record<string, unknown>;
        const w = waiters.shift();
        if (w) w(msg);
        else inbox.push(msg);
      });
      ws.on('close', () => waiters.splice(0).forEach((w) => w({ closed: true })));
      const next = () => new Promise<Record<string, unknown>>((r) => (inbox.length ? r(inbox.shift()!) : waiters.push(r)));
      ws.once('open', () => resolve({ ws, next }));
      ws.once('error', reject);
    });
  const hmac = (msg: string) => createHmac('sha256', d.token).update(msg).digest('base64url');

  // A call instead of the proof: no answer with data, the socket is closed.
  const a = await open();
  const challenge = (await a.next()) as { method: string; params: { nonce: string; port: number } };
  assert.equal(challenge.method, 'auth.challenge');
  a.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'grants.list', params: {} }));
  const refusedCall = await a.next();
  assert.equal((refusedCall.error as { code: number } | undefined)?.code, -32001, JSON.stringify(refusedCall));
  assert.deepEqual(await a.next(), { closed: true });

  // A proof made with another token: refused the same way.
  const b = await open();
  const cb = (await b.next()) as { params: { nonce: string } };
  const mine = 'x'.repeat(43);
  b.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'auth', method: 'auth.prove', params: { nonce: mine, proof: createHmac('sha256', 'not-the-token').update(`airlock-web-client\n${d.port}\n${cb.params.nonce}\n${mine}`).digest('base64url') } }));
  assert.equal(((await b.next()).error as { code: number } | undefined)?.code, -32001);

  // The right proof: the server answers with its own, then serves.
  const c = await open();
  const cc = (await c.next()) as { params: { nonce: string; port: number } };
  assert.equal(cc.params.port, d.port);
  c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'auth', method: 'auth.prove', params: { nonce: mine, proof: hmac(`airlock-web-client\n${d.port}\n${cc.params.nonce}\n${mine}`) } }));
  const ok = (await c.next()) as { result?: { proof?: string } };
  assert.equal(ok.result?.proof, hmac(`airlock-web-server\n${d.port}\n${mine}\n${cc.params.nonce}`));
  c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'grants.list', params: {} }));
  assert.ok(((await c.next()).result as { grants?: unknown[] } | undefined)?.grants, 'served after the proof');
  c.ws.close();

  // Both refusals are in history, as other refused web connections are.
  const ui = await d.ui();
  try {
    const h = await ui.call<{ events: { source: string; reason: string }[] }>('history.query', { source: 'web', limit: 50 });
    assert.ok(h.events.filter((e) => /proof of the token is wrong/.test(e.reason)).length >= 2, JSON.stringify(h.events.map((e) => e.reason)));
  } finally {
    ui.close();
  }
});
