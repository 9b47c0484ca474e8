// Black-box, fourth wave: docs/egress.md's "Every new destination is a request", driven byte
// for byte on a task's `tasks/<id>/egress.sock` (what the relay inside a sandbox pipes to, so
// what any program in the sandbox can send). The promise checked: the destination the human
// is asked about (resource `host:port`, IPv4 dotted whatever the spelling, IPv6 in brackets,
// lower case, no trailing dot) is the one the proxy connects to; a destination on this
// machine or the local network is covered only by a grant that names it, never a wildcard;
// a DNS name that turns out to reach this machine, the cloud metadata address or the LAN is
// asked again as that address; each decision is a `net.connect` row in history.
import assert from 'node:assert/strict';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Wire, waitPending, pendingList, type Pending } from '../helpers/blackbox';
import { startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { rawExchange } from '../helpers/egress-client';

let d: Daemon;
let ui: Wire;
let agent: Wire;
/** A loopback server standing for "something on this machine": counts connections, answers one HTTP 200. */
let target: net.Server;
let port = 0;
let hits = 0;

before(async () => {
  target = net.createServer((s) => {
    hits++;
    s.on('error', () => undefined);
    s.once('data', () => s.end('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n'));
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
  port = (target.address() as net.AddressInfo).port;
  d = await startDaemon({
    home: path.join(tempHome('bb4e-'), 'h'),
    env: {
      AIRLOCK_TEST: '1',
      // Known before the decision, as /etc/hosts would be.
      AIRLOCK_EGRESS_TEST_HOSTS: 'named.example.test=127.0.0.1',
      // Stand-ins for DNS: known only after the decision (the rebinding rule).
      AIRLOCK_EGRESS_TEST_DNS: 'loop.example.test=127.0.0.1,meta.example.test=169.254.169.254,lan.example.test=10.20.30.40,six.example.test=::1,mapped.example.test=::ffff:127.0.0.1',
    },
  });
  ui = await Wire.open(d.uiSock);
  agent = await Wire.open(d.requestSock);
});
after(async () => {
  agent?.close();
  ui?.close();
  await d?.stop();
  target?.close();
});

interface Task {
  task: string;
  token: string;
  egress: string;
}

/** A task and its egress.sock (docs/egress.md: `tasks/<id>/egress.sock`, beside its agent.sock). */
async function newTask(name: string, grants: { resource: string; effect: 'allow' | 'deny' }[]): Promise<Task> {
  const t = await agent.ok<{ task: string; token: string }>('task.start', { name });
  for (const g of grants) await ui.ok('grants.create', { task: t.task, source: 'egress', action: 'transfer', ...g });
  return { task: t.task, token: t.token, egress: path.join(d.home, 'tasks', t.task, 'egress.sock') };
}

const connectLine = (authority: string) => `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`;

/** Sends `bytes` on the task's egress.sock; expects a prompt; denies it; returns the prompt and what the proxy answered. */
async function askedThenDenied(t: Task, bytes: string, what: string): Promise<{ p: Pending; answer: string }> {
  const answer = rawExchange(t.egress, bytes);
  const p = await waitPending(ui, (x) => x.task === t.task && x.source === 'egress', `the egress prompt for ${what}`, 20_000);
  await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
  return { p, answer: await answer };
}

const riskText = (p: Pending) => JSON.stringify(p.risk.reasons);

describe('egress: the destination asked about is the one connected to, however it is spelled', () => {
  test('odd spellings of 127.0.0.1 (CONNECT and plain HTTP) are asked as 127.0.0.1:PORT, high risk, and a wildcard allow of the task does not answer them', async () => {
    const t = await newTask('bb4 odd v4 spellings', [{ resource: '*', effect: 'allow' }]);
    const base = hits;
    const spellings = ['127.1', '2130706433', '0x7f000001', '0x7f.0.0.1', '0177.0.0.1', '127.0.1', '127.000.000.001'];
    for (const host of spellings) {
      for (const bytes of [connectLine(`${host}:${port}`), `GET http://${host}:${port}/x HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: close\r\n\r\n`]) {
        const { p, answer } = await askedThenDenied(t, bytes, host);
        assert.equal(p.resource, `127.0.0.1:${port}`, `${host}: ${bytes.split('\r\n')[0]}`);
        assert.equal(p.tool, 'net.connect');
        assert.equal(p.action, 'transfer');
        assert.ok(['high', 'critical'].includes(p.risk.level), `${host}: ${p.risk.level} ${riskText(p)}`);
        assert.match(answer, /^HTTP\/1\.1 403/, `${host}: ${answer}`);
      }
    }
    assert.equal(hits, base, 'nothing reached the loopback server');
  });

  test('a deny grant on 127.0.0.1:* refuses every other spelling of it without a prompt; an allow naming 127.0.0.1:PORT answers them', async () => {
    const denied = await newTask('bb4 deny loopback', [{ resource: '127.0.0.1:*', effect: 'deny' }, { resource: '*', effect: 'allow' }]);
    const allowed = await newTask('bb4 allow loopback port', [{ resource: `127.0.0.1:${port}`, effect: 'allow' }]);
    for (const host of ['127.1', '2130706433', '0x7f.1', '127.0.0.1.', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
      const before = hits;
      const answer = await rawExchange(denied.egress, `GET http://${host}:${port}/d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 (403|400)/, `${host}: ${answer}`);
      assert.equal(hits, before, `${host} reached the server through a deny grant`);
      assert.equal((await pendingList(ui)).filter((p) => p.task === denied.task).length, 0, `${host} was asked: the deny grant should answer`);
    }
    // A name whose DNS answer is 127.0.0.1 in IPv4-mapped form: the deny grant on the address covers it too.
    {
      const before = hits;
      const answer = await rawExchange(denied.egress, connectLine('mapped.example.test:80'));
      assert.match(answer, /^HTTP\/1\.1 403/, `mapped DNS answer: ${answer}`);
      assert.equal(hits, before);
      assert.equal((await pendingList(ui)).filter((p) => p.task === denied.task).length, 0, 'the mapped DNS answer was asked: the deny grant should answer');
    }
    for (const host of ['127.1', '2130706433', '127.000.000.001']) {
      const before = hits;
      const answer = await rawExchange(allowed.egress, `GET http://${host}:${port}/a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 200/, `${host}: ${answer}`);
      assert.equal(hits, before + 1);
    }
  });

  test('IPv6 loopback in any spelling is [::1]:PORT; LOCALHOST. is localhost:PORT; both asked despite a wildcard, saying this machine', async () => {
    const t = await newTask('bb4 v6 and names', [{ resource: '*', effect: 'allow' }, { resource: '*:*', effect: 'allow' }]);
    const base = hits;
    for (const [authority, resource] of [
      [`[::1]:${port}`, `[::1]:${port}`],
      [`[0:0:0:0:0:0:0:1]:${port}`, `[::1]:${port}`],
      [`[0000::0001]:${port}`, `[::1]:${port}`],
      [`LOCALHOST:${port}`, `localhost:${port}`],
      [`localhost.:${port}`, `localhost:${port}`],
    ] as const) {
      const { p, answer } = await askedThenDenied(t, connectLine(authority), authority);
      assert.equal(p.resource, resource, authority);
      assert.ok(['high', 'critical'].includes(p.risk.level), `${authority}: ${p.risk.level}`);
      assert.match(riskText(p), /this machine|loopback/i, authority);
      assert.match(answer, /^HTTP\/1\.1 403/);
    }
    assert.equal(hits, base);
  });

  test('a name resolving to loopback, the metadata address, the LAN or ::1 is asked again as that address; a wildcard grant never covers it', async () => {
    const t = await newTask('bb4 rebinding', [{ resource: '*', effect: 'allow' }]);
    const base = hits;
    for (const [name, addr] of [
      ['loop.example.test', `127.0.0.1:${port}`],
      ['meta.example.test', '169.254.169.254:80'],
      ['lan.example.test', '10.20.30.40:80'],
      ['six.example.test', '[::1]:80'],
      ['mapped.example.test', '127.0.0.1:80'],
    ] as const) {
      const authority = name === 'loop.example.test' ? `${name}:${port}` : `${name}:80`;
      const { p, answer } = await askedThenDenied(t, connectLine(authority), name);
      assert.equal(p.resource, addr, `${name}: asked as ${p.resource}`);
      assert.match(p.summary, new RegExp(name.replace(/\./g, '\\.')), `${name}: the summary names the name: ${p.summary}`);
      assert.ok(['high', 'critical'].includes(p.risk.level), `${name}: ${p.risk.level}`);
      assert.match(answer, /^HTTP\/1\.1 403/);
    }
    assert.equal(hits, base);
  });

  test('plain HTTP: userinfo, a lying Host header or an origin-form request never moves the destination past the question', async () => {
    const t = await newTask('bb4 http tricks', [{ resource: 'named.example.test:*', effect: 'allow' }]);
    // The grant names named.example.test (which is 127.0.0.1): a request to it is allowed.
    const ok = await rawExchange(t.egress, `GET http://named.example.test:${port}/ok HTTP/1.1\r\nHost: named.example.test:${port}\r\nConnection: close\r\n\r\n`);
    assert.match(ok, /^HTTP\/1\.1 200/, ok);
    const base = hits;
    // userinfo that looks like the allowed host, a backslash, an encoded '@': refused or asked
    // as where it really goes (127.0.0.1), never allowed by the grant for the name.
    for (const url of [
      `http://named.example.test:${port}@127.0.0.1:${port}/u`,
      `http://named.example.test%40127.0.0.1:${port}/e`,
      `http://127.0.0.1:${port}\\@named.example.test:${port}/b`,
    ]) {
      const answer = rawExchange(t.egress, `GET ${url} HTTP/1.1\r\nHost: named.example.test:${port}\r\nConnection: close\r\n\r\n`);
      const asked = await Promise.race([answer.then(() => null), waitPending(ui, (x) => x.task === t.task, url, 8000).catch(() => null)]);
      if (asked) {
        assert.equal(asked.resource, `127.0.0.1:${port}`, url);
        await ui.ok('pending.decide', { id: asked.id, decision: 'deny', scope: 'once' });
      }
      assert.match(await answer, /^HTTP\/1\.1 (400|403)/, url);
    }
    // An origin-form request (a transparent proxy's): Host alone must not pick a destination silently.
    const origin = rawExchange(t.egress, `GET /o HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    const asked = await Promise.race([
      origin.then(() => null),
      waitPending(ui, (x) => x.task === t.task, 'an origin-form prompt', 8000).catch(() => null),
    ]);
    if (asked) {
      assert.equal(asked.resource, `127.0.0.1:${port}`);
      await ui.ok('pending.decide', { id: asked.id, decision: 'deny', scope: 'once' });
    }
    assert.match(await origin, /^HTTP\/1\.1 (400|403)/);
    assert.equal(hits, base, 'nothing reached 127.0.0.1 unasked');
  });
});

describe('egress: every decision is recorded', () => {
  test('a denied CONNECT and an allowed plain GET each leave a net.connect row with the documented fields; the GET also a net.request row', async () => {
    const t = await newTask('bb4 egress history', [{ resource: `named.example.test:${port}`, effect: 'allow' }]);
    const ok = await rawExchange(t.egress, `GET http://Named.Example.Test.:${port}/rec?q=1 HTTP/1.1\r\nHost: named.example.test\r\nConnection: close\r\n\r\n`);
    assert.match(ok, /^HTTP\/1\.1 200/, 'upper case and a trailing dot are the same host as the grant');
    await askedThenDenied(t, connectLine(`named.example.test:${port + 1}`), 'another port');
    interface Ev { task: string | null; source: string; tool: string; action: string; resource: string | null; decision: string; decidedBy: string; args: unknown }
    let events: Ev[] = [];
    await waitFor(
      async () => {
        events = (await ui.ok<{ events: Ev[] }>('history.query', { task: t.task, limit: 50 })).events;
        return events.some((e) => e.tool === 'net.request');
      },
      'the net.request row',
      20_000,
      100,
    );
    const connects = events.filter((e) => e.tool === 'net.connect');
    const allowedRow = connects.find((e) => e.resource === `named.example.test:${port}`);
    const deniedRow = connects.find((e) => e.resource === `named.example.test:${port + 1}`);
    assert.ok(allowedRow && deniedRow, JSON.stringify(connects));
    assert.equal(allowedRow.source, 'egress');
    assert.equal(allowedRow.action, 'transfer');
    assert.equal(allowedRow.decision, 'allow');
    assert.equal(deniedRow.decision, 'deny');
    assert.equal(deniedRow.decidedBy, 'human');
    const req = events.find((e) => e.tool === 'net.request');
    assert.match(JSON.stringify(req), /GET/);
    assert.match(JSON.stringify(req), /\/rec/);
    assert.match(JSON.stringify(req), /200/);
  });
});
