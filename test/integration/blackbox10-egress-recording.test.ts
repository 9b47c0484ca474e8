// Black-box, tenth wave: what a hostile agent tries through its egress proxy is in history,
// also what the proxy refuses before anything is sent or asked (docs/egress.md "History":
// a net.request "per HTTP request the proxy saw"; SECURITY.md: malformed and hostile input
// "gets an error, is recorded"). A domain-fronting attempt inside a secret's tunnel, a
// smuggling attempt, a protocol that is not HTTP: the human looking at the task's history
// must see that they were tried. Raw bytes on the task's egress.sock (what any program in the
// sandbox can send through its relay, see test/helpers/egress-client.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { exchange, rawExchange, rawUpstream, tlsInTunnel, type RawUpstream } from '../helpers/egress-client';
import { makeTestCa, type TestCa } from '../helpers/tls-server';
import type { RpcClient } from '../../main/client/rpc-client';
import type { HistoryEvent } from '../../main/contract/approver';

const NAMES = ['api.example.test', 'paste.example.test'];

let d: Daemon;
let ui: RpcClient;
let ca: TestCa;
let tlsUp: RawUpstream;
let plainUp: RawUpstream;

before(async () => {
  ca = makeTestCa(tempHome('bb10r-ca-'), NAMES);
  tlsUp = await rawUpstream(ca);
  plainUp = await rawUpstream(null);
  d = await startDaemon({
    env: { AIRLOCK_TEST: '1', AIRLOCK_EGRESS_TEST_CA: ca.caFile, AIRLOCK_EGRESS_TEST_HOSTS: NAMES.map((n) => `${n}=127.0.0.1`).join(',') },
  });
  ui = await d.ui();
  await ui.call('secrets.add', { name: 'GITHUB_TOKEN', value: 'ghp_REAL_bb10r_0123456789abcdef', hosts: ['api.example.test'], headers: ['Authorization'] });
});
after(async () => {
  ui?.close();
  await d?.stop();
  tlsUp?.close();
  plainUp?.close();
});

async function newTask(name: string): Promise<{ task: string; sock: string; caBundle: string }> {
  const agent = await d.agent();
  try {
    const r = await agent.call<{ task: string; egress: { sock: string; caBundle: string } }>('task.start', { name, secrets: ['GITHUB_TOKEN'] });
    await ui.call('grants.create', { task: r.task, source: 'egress', action: 'transfer', resource: `{${NAMES.join(',')}}:*`, effect: 'allow' });
    return { task: r.task, sock: r.egress.sock, caBundle: r.egress.caBundle };
  } finally {
    agent.close();
  }
}

async function events(task: string): Promise<HistoryEvent[]> {
  return (await ui.call<{ events: HistoryEvent[] }>('history.query', { task, limit: 1000 })).events;
}

/** The task's history rows that mention `marker` anywhere (summary, args, reason). */
async function rowsWith(task: string, marker: string): Promise<HistoryEvent[]> {
  return (await events(task)).filter((e) => JSON.stringify(e).includes(marker));
}

describe('blackbox10: every attempt through the egress proxy is in history, refused ones too', () => {
  test('what the proxy refuses before anything is sent (not HTTP, origin-form, no port, smuggling, another Host in a secret\'s tunnel, bare LF, Connection: Host) is recorded with what it was (it left no trace)', async () => {
    const t = await newTask('refused attempts');
    const tlsBefore = tlsUp.got.length;
    const plainBefore = plainUp.got.length;
    const tries: { marker: string; status: RegExp; send: () => Promise<string> }[] = [
      { marker: 'SSH-2.0-bb10-probe', status: /^HTTP\/1\.1 400/, send: () => rawExchange(t.sock, 'SSH-2.0-bb10-probe\r\n\r\n', 5000) },
      { marker: '/origin-form-bb10', status: /^HTTP\/1\.1 400/, send: () => rawExchange(t.sock, `GET /origin-form-bb10 HTTP/1.1\r\nHost: paste.example.test:${plainUp.port}\r\nConnection: close\r\n\r\n`, 5000) },
      { marker: 'noport-bb10.example.test', status: /^HTTP\/1\.1 400/, send: () => rawExchange(t.sock, 'CONNECT noport-bb10.example.test HTTP/1.1\r\nHost: x\r\n\r\n', 5000) },
      {
        marker: '/smuggle-bb10',
        status: /^HTTP\/1\.1 400/,
        send: () => rawExchange(t.sock, `POST http://paste.example.test:${plainUp.port}/smuggle-bb10 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 5000),
      },
      {
        marker: 'fronted-bb10.example.test',
        status: /^HTTP\/1\.1 421/,
        send: async () => exchange(await tlsInTunnel(t.sock, `api.example.test:${tlsUp.port}`, 'api.example.test', t.caBundle), 'GET /front HTTP/1.1\r\nHost: fronted-bb10.example.test\r\nConnection: close\r\n\r\n'),
      },
      {
        marker: '/bare-lf-bb10',
        status: /^HTTP\/1\.1 400/,
        send: async () => exchange(await tlsInTunnel(t.sock, `api.example.test:${tlsUp.port}`, 'api.example.test', t.caBundle), `GET /bare-lf-bb10 HTTP/1.1\nHost: api.example.test:${tlsUp.port}\n\n`),
      },
      {
        marker: '/connection-host-bb10',
        status: /^HTTP\/1\.1 400/,
        send: async () =>
          exchange(await tlsInTunnel(t.sock, `api.example.test:${tlsUp.port}`, 'api.example.test', t.caBundle), `GET /connection-host-bb10 HTTP/1.1\r\nHost: api.example.test:${tlsUp.port}\r\nConnection: Host\r\n\r\n`),
      },
    ];
    for (const x of tries) {
      const answer = await x.send();
      assert.match(answer, x.status, `${x.marker}: ${answer}`);
      await waitFor(async () => (await rowsWith(t.task, x.marker)).length > 0, `a history row of the task naming ${x.marker}`, 10_000);
      const row = (await rowsWith(t.task, x.marker))[0]!;
      assert.equal(row.source, 'egress', JSON.stringify(row));
      assert.notEqual(row.decision, 'allow', JSON.stringify(row));
      assert.match(row.summary, /refused before anything was sent/, JSON.stringify(row));
      if (process.env.BB10_SHOW) console.log(row.summary, JSON.stringify(row.args));
    }
    assert.equal(tlsUp.got.length, tlsBefore, 'nothing reached the secret\'s host');
    assert.equal(plainUp.got.length, plainBefore, 'nothing reached the plain host');
    const audit = await ui.call<{ ok: boolean }>('audit.verify', {});
    assert.equal(audit.ok, true);
  });
});
