// Red team of the egress proxy: headers a message's `Connection` names are hop-by-hop (RFC
// 9110 §7.6.1) and were forwarded. An agent holding GITHUB_TOKEN's placeholder (bound to
// api.example.test, header Authorization) tries to use the list to make the injected token
// vanish, be duplicated or go into a header it chose, and to drop the one checked Host or
// the body's framing. Real daemon, real TLS, the attacker's bytes straight to the task's
// egress.sock (what the sandbox's relay does); upstreams record exactly what reached them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { exchange, rawExchange, rawUpstream, responseBody, tlsInTunnel, type RawUpstream } from '../helpers/egress-client';
import { makeTestCa, testHttpsServer, type TestCa, type TestHttps } from '../helpers/tls-server';
import type { RpcClient } from '../../main/client/rpc-client';

const TOKEN = 'ghp_REAL_connection_token_0123456789abcdef';
const NAMES = ['api.example.test', 'paste.example.test'];

let d: Daemon;
let ui: RpcClient;
let ca: TestCa;
let tlsUp: RawUpstream;
let plainUp: RawUpstream;
let hopEcho: TestHttps;

before(async () => {
  ca = makeTestCa(tempHome('al-cca-'), NAMES);
  tlsUp = await rawUpstream(ca);
  plainUp = await rawUpstream(null);
  // The secret's host answering with a header it marks hop-by-hop (carrying the credential) and one it does not.
  hopEcho = await testHttpsServer(ca, (req, res) => {
    const a = req.headers.authorization ?? '';
    res.writeHead(200, { Connection: 'close, X-Hop-Echo', 'X-Hop-Echo': a, 'X-Kept': 'yes' });
    res.end('body\n');
    return true;
  });
  d = await startDaemon({
    env: {
      AIRLOCK_TEST: '1',
      AIRLOCK_EGRESS_TEST_CA: ca.caFile,
      AIRLOCK_EGRESS_TEST_HOSTS: NAMES.map((n) => `${n}=127.0.0.1`).join(','),
    },
  });
  ui = await d.ui();
  await ui.call('secrets.add', { name: 'GITHUB_TOKEN', value: TOKEN, hosts: ['api.example.test'], headers: ['Authorization'] });
});
after(async () => {
  ui?.close();
  await d?.stop();
  tlsUp?.close();
  plainUp?.close();
  await hopEcho?.close();
});

async function newTask(name: string): Promise<{ sock: string; caBundle: string; ph: string }> {
  const agent = await d.agent();
  try {
    const r = await agent.call<{ task: string; egress: { sock: string; caBundle: string; placeholders: Record<string, string> } }>('task.start', { name, secrets: ['GITHUB_TOKEN'] });
    await ui.call('grants.create', { task: r.task, source: 'egress', action: 'transfer', resource: `{${NAMES.join(',')}}:*`, effect: 'allow' });
    return { sock: r.egress.sock, caBundle: r.egress.caBundle, ph: r.egress.placeholders.GITHUB_TOKEN! };
  } finally {
    agent.close();
  }
}

const api = (port: number) => `api.example.test:${port}`;
const gotWith = (up: RawUpstream, marker: string) => up.got.find((g) => g.includes(marker)) ?? '';
const headerLines = (raw: string) => raw.split('\r\n\r\n')[0]!.split('\r\n').slice(1).map((l) => l.toLowerCase());

async function inTunnel(t: { sock: string; caBundle: string }, bytes: string, port = tlsUp.port): Promise<string> {
  const s = await tlsInTunnel(t.sock, api(port), 'api.example.test', t.caBundle);
  return exchange(s, bytes);
}

describe('egress: headers a Connection header names are hop-by-hop', () => {
  test('a request header named in Connection is not forwarded: the token is not injected into it nor sent at all, and another header keeps it (control)', async () => {
    const t = await newTask('connection options');
    // Control: without a Connection option the token reaches its own host.
    await inTunnel(t, `GET /control HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nAuthorization: Bearer ${t.ph}\r\nX-Foo: 1\r\nConnection: close\r\n\r\n`);
    const control = gotWith(tlsUp, 'GET /control');
    assert.ok(control.includes(`Bearer ${TOKEN}`), control);
    assert.ok(headerLines(control).includes('x-foo: 1'), control);
    // `Connection: Authorization`, in any case and spacing, on a second Connection line or Proxy-Connection.
    for (const [marker, conn] of [
      ['auth1', 'Connection: keep-alive, Authorization'],
      ['auth2', 'Connection: close\r\nConnection:  ,AUTHORIZATION ,'],
      ['auth3', 'Proxy-Connection: authorization\r\nConnection: close'],
    ] as const) {
      const back = await inTunnel(t, `GET /${marker} HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nAuthorization: Bearer ${t.ph}\r\nAuthorization: Bearer ${t.ph}\r\nX-Keep: kept\r\n${conn}\r\n\r\n`);
      assert.match(back, /^HTTP\/1\.1 200/, `${marker}: ${back}`);
      const got = gotWith(tlsUp, `GET /${marker}`);
      assert.ok(got, `${marker} reached the server`);
      assert.ok(!got.includes(TOKEN) && !got.includes(t.ph), `${marker}: the token (or its placeholder) went out in a header meant for the proxy: ${got}`);
      // Only the proxy's own `Connection: close` (Node writes it for a one-shot upstream request) goes.
      assert.ok(!headerLines(got).some((l) => l.startsWith('authorization:') || l.startsWith('proxy-connection:') || (l.startsWith('connection:') && l !== 'connection: close')), got);
      assert.ok(headerLines(got).includes('x-keep: kept'), `${marker}: other headers still go: ${got}`);
    }
    // A header of the agent's choosing named as an option, holding the placeholder: dropped, and the Authorization beside it still carries the token.
    await inTunnel(t, `GET /xfoo HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nX-Foo: Bearer ${t.ph}\r\nAuthorization: Bearer ${t.ph}\r\nConnection: X-Foo, close\r\n\r\n`);
    const xfoo = gotWith(tlsUp, 'GET /xfoo');
    assert.ok(!headerLines(xfoo).some((l) => l.startsWith('x-foo')), xfoo);
    assert.equal(xfoo.split(TOKEN).length - 1, 1, `the token goes exactly once, in Authorization: ${xfoo}`);
    assert.ok(headerLines(xfoo).includes(`authorization: bearer ${TOKEN.toLowerCase()}`), xfoo);
  });

  test('Connection naming Host or Content-Length is refused before anything is sent, in the tunnel and over plain HTTP; the one checked Host always goes', async () => {
    const t = await newTask('connection host');
    const tlsBefore = tlsUp.got.length;
    const plainBefore = plainUp.got.length;
    for (const [what, bytes] of [
      ['host', `GET /h1 HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nAuthorization: Bearer ${t.ph}\r\nConnection: Host\r\n\r\n`],
      ['host on a second line', `GET /h2 HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nAuthorization: Bearer ${t.ph}\r\nConnection: close\r\nconnection: x-a, HOST\r\n\r\n`],
      ['content-length', `POST /h3 HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nAuthorization: Bearer ${t.ph}\r\nContent-Length: 5\r\nConnection: content-length\r\n\r\nhello`],
      ['too many options', `GET /h4 HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nConnection: ${Array.from({ length: 70 }, (_, i) => `x-${i}`).join(', ')}\r\n\r\n`],
    ] as const) {
      const back = await inTunnel(t, bytes);
      assert.match(back, /^HTTP\/1\.1 400/, `${what}: ${back}`);
      assert.match(back, /Connection|options/, what);
    }
    assert.equal(tlsUp.got.length, tlsBefore, 'nothing reached the secret\'s host');
    const plain = await rawExchange(t.sock, `GET http://paste.example.test:${plainUp.port}/p1 HTTP/1.1\r\nHost: paste.example.test:${plainUp.port}\r\nConnection: host\r\n\r\n`);
    assert.match(plain, /^HTTP\/1\.1 400/, plain);
    assert.equal(plainUp.got.length, plainBefore, 'nothing reached the plain server');
    // Plain HTTP with an ordinary option: the option goes nowhere, the Host is the URL's, exactly once.
    await rawExchange(t.sock, `GET http://paste.example.test:${plainUp.port}/p2 HTTP/1.1\r\nHost: other.example.test\r\nX-Foo: 1\r\nX-Keep: 2\r\nConnection: x-foo, close\r\n\r\n`);
    const got = gotWith(plainUp, 'GET /p2');
    assert.deepEqual(headerLines(got).filter((l) => l.startsWith('host:')), [`host: paste.example.test:${plainUp.port}`]);
    assert.ok(!headerLines(got).some((l) => l.startsWith('x-foo')), got);
    assert.ok(headerLines(got).includes('x-keep: 2'), got);
  });

  test("a response header the server names in Connection does not reach the sandbox; the others do, the credential swapped back (Node's HTTP client over TLS too)", async () => {
    const t = await newTask('response options');
    const back = await inTunnel(t, `GET /resp HTTP/1.1\r\nHost: ${api(hopEcho.port)}\r\nAuthorization: Bearer ${t.ph}\r\nConnection: close\r\n\r\n`, hopEcho.port);
    assert.equal(hopEcho.seen.at(-1)?.authorization, `Bearer ${TOKEN}`, 'injected on its host (control)');
    assert.match(back, /^HTTP\/1\.1 200/);
    assert.doesNotMatch(back, /x-hop-echo/i, back);
    assert.match(back, /\r\nx-kept: yes\r\n/i, back);
    assert.ok(!back.includes(TOKEN), back);
    assert.equal(responseBody(back), 'body\n');
    // Node's HTTP client over the same TLS tunnel sees the same.
    const sock = await tlsInTunnel(t.sock, api(hopEcho.port), 'api.example.test', t.caBundle);
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const r = http.request({ createConnection: () => sock, path: '/resp2', headers: { Host: api(hopEcho.port), Authorization: `Bearer ${t.ph}`, Connection: 'close, authorization' } }, resolve);
      r.on('error', reject);
      r.end();
    });
    res.resume();
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-hop-echo'], undefined);
    assert.equal(res.headers['x-kept'], 'yes');
    assert.equal(hopEcho.seen.at(-1)?.url, '/resp2');
    assert.equal(hopEcho.seen.at(-1)?.authorization, null, 'Authorization named as a connection option is not forwarded, so no token is sent');
  });
});
