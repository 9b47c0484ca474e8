// One JSON-RPC path: the line sockets (ui.sock, request.sock), the web UI's messages and
// Electron IPC record the same rejected calls. The same hostile calls go through a real
// Unix socket served by json-rpc-lines and through handleRpcMessage (what the WebSocket
// and POST /api/rpc call); the rejections each records must be the same list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { createDispatch } from '../../main/api/dispatch';
import { serveJsonRpcLines } from '../../main/api/json-rpc-lines';
import { handleRpcMessage, type RpcRejection } from '../../main/api/rpc-message';
import { RPC, RpcError } from '../../main/contract/rpc';

const table = {
  echo: { params: z.strictObject({ say: z.string() }), result: z.unknown() },
  busy: { params: z.strictObject({}), result: z.unknown() },
  gone: { params: z.strictObject({}), result: z.unknown() },
  token: { params: z.strictObject({}), result: z.unknown() },
};
const dispatch = createDispatch(table, {
  echo: async (p) => p.say,
  busy: async () => Promise.reject(new RpcError(RPC.refused, 'too many prompts waiting')),
  gone: async () => Promise.reject(new RpcError(RPC.notFound, 'no such thing')),
  token: async () => Promise.reject(new RpcError(RPC.invalidParams, 'invalid params: token: not the token of task t_1')),
});

const CALLS = [
  'not json',
  '[{"jsonrpc":"2.0","id":1,"method":"echo"}]',
  '{"jsonrpc":"1.0","id":2,"method":"echo"}',
  '{"jsonrpc":"2.0","id":3,"method":"nope"}',
  '{"jsonrpc":"2.0","id":4,"method":"echo","params":{"say":5}}',
  '{"jsonrpc":"2.0","id":5,"method":"echo","params":{"say":"hi"}}',
  '{"jsonrpc":"2.0","id":6,"method":"busy","params":{}}',
  '{"jsonrpc":"2.0","id":7,"method":"gone","params":{}}',
  '{"jsonrpc":"2.0","id":8,"method":"token","params":{}}',
];
// Recorded: what never reached a decision; not recorded: echo (answered), busy and gone (a handler's answer).
const EXPECTED: [number, string | undefined][] = [
  [RPC.parseError, undefined],
  [RPC.invalidRequest, undefined],
  [RPC.invalidRequest, undefined],
  [RPC.methodNotFound, 'nope'],
  [RPC.invalidParams, 'echo'],
  [RPC.invalidParams, 'token'],
];

test('one path: a WebSocket/POST message records exactly the rejections the rule names', async () => {
  const rows: RpcRejection[] = [];
  const replies = [];
  for (const c of CALLS) replies.push(await handleRpcMessage(c, dispatch, { onReject: (r) => rows.push(r) }));
  assert.deepEqual(rows.map((r) => [r.code, r.method]), EXPECTED);
  assert.deepEqual(replies[5], { jsonrpc: '2.0', id: 5, result: 'hi' });
  assert.equal(replies[6]?.error?.code, RPC.refused);
});

test('one path: a line socket records the same rejections, and its own in-flight cap as one more', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-rpc-'));
  const sock = path.join(dir, 's.sock');
  const rows: RpcRejection[] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  const server = net.createServer((s) =>
    serveJsonRpcLines(s, {
      dispatch: (m, p) => (m === 'hold' ? held.then(() => 'held') : dispatch(m, p)),
      onReject: (r) => rows.push(r),
      maxInFlight: 1,
    }),
  );
  await new Promise<void>((r) => server.listen(sock, r));
  try {
    const client = net.connect(sock);
    const lines: string[] = [];
    let buf = '';
    client.on('data', (d) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    });
    const waitFor = async (n: number) => {
      for (let i = 0; i < 3000 && lines.length < n; i++) await new Promise((r) => setTimeout(r, 10)); // 30 s at least: room for a loaded machine
      assert.ok(lines.length >= n, `got ${lines.length} of ${n} replies`);
    };
    for (const c of CALLS) {
      client.write(c + '\n');
      await waitFor(lines.length + 1);
    }
    assert.deepEqual(rows.map((r) => [r.code, r.method]), EXPECTED);
    const n = lines.length;
    client.write('{"jsonrpc":"2.0","id":9,"method":"hold"}\n{"jsonrpc":"2.0","id":10,"method":"echo","params":{"say":"x"}}\n');
    await waitFor(n + 1);
    assert.deepEqual(rows.at(-1)?.code, RPC.refused);
    assert.match(rows.at(-1)!.reason, /too many requests in flight on this connection \(limit 1\)/);
    release();
    await waitFor(n + 2);
    assert.deepEqual(JSON.parse(lines.at(-1)!), { jsonrpc: '2.0', id: 9, result: 'held' });
    client.destroy();
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
