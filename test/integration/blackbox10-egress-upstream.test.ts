// Black-box, tenth wave: the other end of an allowed connection is hostile too. A sandboxed
// agent that may reach a server it controls (a task's --network grant covers the whole
// internet) chooses what that server answers; the egress proxy lives in the daemon, which
// also holds every prompt, grant and key. Whatever an upstream answers must cost at most
// that one request (SECURITY.md: hostile input "never kills the daemon").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { exchange, rawExchange, tlsInTunnel } from '../helpers/egress-client';
import { makeTestCa, type TestCa } from '../helpers/tls-server';
import type { RpcClient } from '../../main/client/rpc-client';

let d: Daemon;
let ui: RpcClient;
let ca: TestCa;
let plain: net.Server;
let secure: tls.Server;
let plainPort = 0;
let securePort = 0;

/** Every request the servers got, as bytes (latin1). */
const got: string[] = [];
/** Names of Object.prototype members, as header names. */
const PROTO_NAMES = ['__proto__', 'constructor', 'hasOwnProperty', 'toString'];

/** Answers by the request path: `/status-099` gets `HTTP/1.1 099 …`, `/proto-names` headers named like Object.prototype members, `/ok` a 200. */
function answer(s: net.Socket): void {
  s.on('error', () => undefined);
  s.once('data', (b: Buffer) => {
    const text = b.toString('latin1');
    got.push(text);
    const m = /^[A-Z]+ \/status-(\d+)/.exec(text);
    if (m) return void s.end(`HTTP/1.1 ${m[1]} Odd\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    if (/^[A-Z]+ \/proto-names/.test(text)) return void s.end(`HTTP/1.1 200 OK\r\n${PROTO_NAMES.map((n) => `${n}: up-${n}\r\n`).join('')}Content-Length: 3\r\nConnection: close\r\n\r\nok\n`);
    s.end('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n');
  });
}

/** The header lines of a raw message named `name` (case-insensitive). */
const linesNamed = (raw: string, name: string) => raw.split('\r\n\r\n')[0]!.split('\r\n').filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));

before(async () => {
  ca = makeTestCa(tempHome('bb10u-ca-'), ['api.example.test']);
  plain = net.createServer(answer);
  secure = tls.createServer({ key: ca.key, cert: ca.cert }, answer);
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', () => r()));
  await new Promise<void>((r) => secure.listen(0, '127.0.0.1', () => r()));
  plainPort = (plain.address() as net.AddressInfo).port;
  securePort = (secure.address() as net.AddressInfo).port;
  d = await startDaemon({ env: { AIRLOCK_TEST: '1', AIRLOCK_EGRESS_TEST_CA: ca.caFile, AIRLOCK_EGRESS_TEST_HOSTS: 'api.example.test=127.0.0.1' } });
  ui = await d.ui();
  await ui.call('secrets.add', { name: 'API_TOKEN', value: 'api_REAL_bb10u_0123456789', hosts: ['api.example.test'], headers: ['authorization'] });
});
after(async () => {
  ui?.close();
  await d?.stop();
  plain?.close();
  secure?.close();
});

const alive = () => d.proc.exitCode === null && d.proc.signalCode === null;

describe('blackbox10: what an allowed upstream answers cannot take the daemon down', () => {
  test('an upstream answering a status under 100 (099, 000) gets the sandbox a 502, over plain HTTP and in a secret\'s tunnel, and the daemon keeps running (it crashed the daemon: every task lost its way out)', async () => {
    const agent = await d.agent();
    const r = await agent.call<{ task: string; egress: { sock: string; caBundle: string; placeholders: Record<string, string> } }>('task.start', { name: 'hostile upstream', secrets: ['API_TOKEN'] });
    agent.close();
    await ui.call('grants.create', { task: r.task, source: 'egress', action: 'transfer', resource: `127.0.0.1:${plainPort}`, effect: 'allow' });
    await ui.call('grants.create', { task: r.task, source: 'egress', action: 'transfer', resource: `api.example.test:${securePort}`, effect: 'allow' });
    const get = (p: string) => rawExchange(r.egress.sock, `GET http://127.0.0.1:${plainPort}${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 5000);
    assert.match(await get('/ok'), /^HTTP\/1\.1 200/, 'control');
    for (const status of ['099', '000', '042']) {
      const back = await get(`/status-${status}`);
      assert.ok(alive(), `the daemon died on an upstream status ${status}: ${d.output().slice(-800)}`);
      assert.match(back, /^HTTP\/1\.1 502/, `status ${status}: ${back}`);
    }
    // The same from the secret's own host, inside its intercepted tunnel.
    const s = await tlsInTunnel(r.egress.sock, `api.example.test:${securePort}`, 'api.example.test', r.egress.caBundle);
    const back = await exchange(s, `GET /status-099 HTTP/1.1\r\nHost: api.example.test:${securePort}\r\nAuthorization: ${r.egress.placeholders.API_TOKEN}\r\nConnection: close\r\n\r\n`, 5000);
    assert.ok(alive(), `the daemon died on a status from the secret's host: ${d.output().slice(-800)}`);
    assert.match(back, /^HTTP\/1\.1 502/, back);
    // Still answering: its human, and the task's next request.
    assert.ok((await ui.call<{ grants: unknown[] }>('grants.list', { task: r.task })).grants.length >= 2);
    assert.match(await get('/ok'), /^HTTP\/1\.1 200/);
    // Each is recorded with what went wrong.
    const { events } = await ui.call<{ events: { tool: string; summary: string }[] }>('history.query', { task: r.task, source: 'egress', limit: 100 });
    assert.ok(events.filter((e) => e.tool === 'net.request' && /invalid status/i.test(e.summary)).length >= 4, JSON.stringify(events.map((e) => e.summary)));
  });

  test('headers named like Object.prototype members (__proto__, constructor, hasOwnProperty) go through as sent, each way (the proxy sent the source of its own functions instead)', async () => {
    const agent = await d.agent();
    const r = await agent.call<{ task: string; egress: { sock: string; caBundle: string; placeholders: Record<string, string> } }>('task.start', { name: 'proto names', secrets: ['API_TOKEN'] });
    agent.close();
    await ui.call('grants.create', { task: r.task, source: 'egress', action: 'transfer', resource: `127.0.0.1:${plainPort}`, effect: 'allow' });
    await ui.call('grants.create', { task: r.task, source: 'egress', action: 'transfer', resource: `api.example.test:${securePort}`, effect: 'allow' });
    const sent = PROTO_NAMES.map((n) => `${n}: agent-${n}\r\n`).join('');
    const backs = [
      await rawExchange(r.egress.sock, `GET http://127.0.0.1:${plainPort}/proto-names-plain HTTP/1.1\r\nHost: x\r\n${sent}Connection: close\r\n\r\n`, 5000),
      await exchange(
        await tlsInTunnel(r.egress.sock, `api.example.test:${securePort}`, 'api.example.test', r.egress.caBundle),
        `GET /proto-names-tls HTTP/1.1\r\nHost: api.example.test:${securePort}\r\n${sent}Connection: close\r\n\r\n`,
        5000,
      ),
    ];
    for (const [i, path] of ['/proto-names-plain', '/proto-names-tls'].entries()) {
      const upstream = got.find((g) => g.includes(`GET ${path} `)) ?? '';
      const back = backs[i]!;
      assert.match(back, /^HTTP\/1\.1 200/, back);
      for (const n of PROTO_NAMES) {
        assert.deepEqual(linesNamed(upstream, n), [`${n}: agent-${n}`], `${path}: upstream got ${JSON.stringify(upstream)}`);
        assert.deepEqual(linesNamed(back, n), [`${n}: up-${n}`], `${path}: the sandbox got ${JSON.stringify(back)}`);
      }
      assert.ok(!/native code/.test(upstream + back), 'nothing of the daemon\'s own code went anywhere');
    }
  });
});
