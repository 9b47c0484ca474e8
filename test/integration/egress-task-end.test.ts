// Ending a task closes every tunnel of its egress proxy at once (issue: loose ends; the
// promise of main/api/egress-sockets.ts). Real daemon, real sockets: a CONNECT tunnel through
// the task's egress.sock to a 127.0.0.1 echo server carries bytes both ways; `task.end` must
// close it on both sides within seconds (not at some idle timeout), close a connection that
// sent nothing yet, remove egress.sock, and refuse any new connection.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import type { RpcClient } from '../../main/client/rpc-client';
import type { HistoryEvent } from '../../main/contract/approver';

let d: Daemon;
let ui: RpcClient;
let human: Human;
let echo: net.Server;
const upstream = new Set<net.Socket>();
const clients: net.Socket[] = [];

before(async () => {
  echo = net.createServer((s) => {
    upstream.add(s);
    s.on('close', () => upstream.delete(s));
    s.on('error', () => undefined);
    s.pipe(s);
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  d = await startDaemon({ env: { AIRLOCK_TEST: '1', AIRLOCK_EGRESS_TEST_HOSTS: 'tun.example.test=127.0.0.1' } });
  ui = await d.ui();
  human = await Human.on(ui);
});
after(async () => {
  for (const c of clients) c.destroy();
  for (const s of upstream) s.destroy();
  ui?.close();
  await d?.stop();
  echo?.close();
});

interface Conn {
  sock: net.Socket;
  text(): string;
  closed(): boolean;
}

async function connect(path: string): Promise<Conn> {
  const sock = net.connect(path);
  clients.push(sock);
  let text = '';
  let closed = false;
  sock.on('data', (b: Buffer) => (text += b.toString('latin1')));
  sock.on('close', () => (closed = true));
  sock.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    sock.once('connect', () => resolve());
    sock.once('error', reject);
  });
  return { sock, text: () => text, closed: () => closed };
}

test('task.end closes its open tunnels on both sides at once, and its egress.sock with them', async () => {
  const port = (echo.address() as net.AddressInfo).port;
  const agent = await d.agent();
  try {
    const started = await agent.call<{ task: string; token: string; egress: { sock: string } | null }>('task.start', { name: 'tunnels end with me' });
    assert.ok(started.egress, 'the task has an egress proxy');
    const sockPath = started.egress.sock;
    await ui.call('grants.create', { task: started.task, source: 'egress', action: 'transfer', resource: `tun.example.test:${port}`, effect: 'allow' });

    const tunnels: Conn[] = [];
    for (let i = 0; i < 2; i++) {
      const c = await connect(sockPath);
      c.sock.write(`CONNECT tun.example.test:${port} HTTP/1.1\r\nHost: tun.example.test:${port}\r\n\r\n`);
      await waitFor(() => /^HTTP\/1\.1 200/.test(c.text()) && c.text().includes('\r\n\r\n'), `tunnel ${i} to be established (got ${JSON.stringify(c.text())})`, 30_000);
      const mark = c.text().length;
      c.sock.write(`ping ${i}\n`);
      await waitFor(() => c.text().slice(mark) === `ping ${i}\n`, `tunnel ${i} to carry bytes both ways`, 30_000);
      tunnels.push(c);
    }
    const idle = await connect(sockPath);
    await waitFor(() => upstream.size === 2, 'both tunnels to reach the echo server', 30_000);
    assert.equal(human.unanswered().length, 0, 'the grant covered the tunnels: no prompt');

    const t0 = Date.now();
    await agent.call('task.end', { task: started.task, token: started.token });
    await waitFor(() => tunnels.every((c) => c.closed()) && idle.closed(), 'the task\'s connections to close', 20_000);
    await waitFor(() => upstream.size === 0, 'the upstream side of each tunnel to close', 20_000);
    // "Within seconds, not at some idle timeout": milliseconds normally; 15 s is the slack a
    // loaded 2-core CI machine needs, still far below any timeout that could close a tunnel.
    assert.ok(Date.now() - t0 < 15_000, `closed in ${Date.now() - t0} ms`);
    assert.equal(fs.existsSync(sockPath), false, 'egress.sock is removed');
    await assert.rejects(connect(sockPath), /ENOENT|ECONNREFUSED/, 'no new tunnel after the end');

    // What each tunnel carried is still in history (recorded when it closed).
    await waitFor(async () => (await ui.call<{ events: HistoryEvent[] }>('history.query', { task: started.task, source: 'egress', limit: 100 })).events.filter((e) => e.tool === 'net.tunnel').length === 2, 'both tunnels recorded', 30_000);
  } finally {
    agent.close();
  }
});
