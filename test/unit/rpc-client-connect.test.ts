// RpcClient.connect's timeout is about the daemon, not about the caller: the Claude Code hook
// connects and then blocks its event loop reading stdin synchronously (issue 15). A connect
// the kernel completed meanwhile must win over a timer that expired in the same loop turn;
// before, a tool call whose input took longer than the timeout to arrive was answered "the
// Airlock daemon is not running".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { RpcClient } from '../../main/client/rpc-client';

test('a connect that completed while the event loop was blocked past the timeout still connects', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-rpcc-'));
  const sock = path.join(dir, 'request.sock');
  const server = net.createServer((s) => {
    s.setEncoding('utf8');
    s.on('data', (d: string) => {
      const m = JSON.parse(d.trim()) as { id: number };
      s.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { pong: true } }) + '\n');
    });
  });
  await new Promise<void>((r) => server.listen(sock, r));
  try {
    const pending = RpcClient.connect(sock, 50);
    // Block the loop well past the 50 ms timeout, as a synchronous stdin read does.
    const until = Date.now() + 300;
    while (Date.now() < until) {
      /* busy */
    }
    const c = await pending;
    assert.deepEqual(await c.call('ping'), { pong: true });
    c.close();
  } finally {
    server.close();
  }
});

test('no daemon at the path: the connect fails at once with what to do, whatever the timeout', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-rpcc-'));
  await assert.rejects(RpcClient.connect(path.join(dir, 'none.sock'), 10_000), /the Airlock daemon is not running at .*airlock serve/);
});
