// Hostile input on both sockets: each bad line gets its error, is recorded as a rejected
// attempt, and neither the connection nor the daemon stops working.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { execFileSync } from 'node:child_process';
import { startDaemon, CLI, type Daemon } from '../helpers/daemon';
import type { HistoryEvent } from '../../main/contract/approver';

let d: Daemon;
before(async () => {
  d = await startDaemon();
});
after(async () => {
  await d?.stop();
});

/** A raw line client: send bytes, read reply lines (bounded). */
class Raw {
  private buf = '';
  private lines: string[] = [];
  private wake: (() => void) | null = null;
  closed = false;
  constructor(readonly s: net.Socket) {
    s.setEncoding('utf8');
    s.on('data', (x: string) => {
      this.buf += x;
      let i: number;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        this.lines.push(this.buf.slice(0, i));
        this.buf = this.buf.slice(i + 1);
      }
      this.wake?.();
    });
    s.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
  }
  static open(path: string): Promise<Raw> {
    return new Promise((res, rej) => {
      const s = net.createConnection(path, () => res(new Raw(s)));
      s.once('error', rej);
    });
  }
  send(x: string | Buffer) {
    this.s.write(x);
  }
  async reply(timeoutMs = 30_000): Promise<{ id?: unknown; result?: unknown; error?: { code: number; message: string } }> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length === 0) {
      if (this.closed) throw new Error('connection closed');
      if (Date.now() > deadline) throw new Error('no reply in time');
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 50);
      });
    }
    return JSON.parse(this.lines.shift()!);
  }
}

const good = JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'request', params: { source: 'api', tool: 't', action: 'read', summary: 'still works' } }) + '\n';

async function stillWorks(c: Raw) {
  c.send(good);
  const r = await c.reply();
  assert.equal(r.id, 99);
  assert.equal((r.result as { decision: string }).decision, 'allow');
}

const cases: { name: string; send: string | Buffer; code: number; message: RegExp }[] = [
  { name: 'malformed JSON', send: '{"jsonrpc": "2.0", "id": 1, "method": \n', code: -32700, message: /parse error/ },
  { name: 'not an object', send: '42\n', code: -32600, message: /invalid request/ },
  { name: 'a batch', send: '[{"jsonrpc":"2.0","id":1,"method":"request"}]\n', code: -32600, message: /batches/ },
  { name: 'missing jsonrpc', send: '{"id":1,"method":"request"}\n', code: -32600, message: /jsonrpc/ },
  { name: 'unknown method', send: '{"jsonrpc":"2.0","id":1,"method":"pending.decide","params":{}}\n', code: -32601, message: /no such method/ },
  { name: 'wrong types', send: '{"jsonrpc":"2.0","id":1,"method":"request","params":{"source":"api","tool":5,"action":"write","summary":"x"}}\n', code: -32602, message: /tool: / },
  { name: 'unknown action', send: '{"jsonrpc":"2.0","id":1,"method":"request","params":{"source":"api","tool":"t","action":"nuke","summary":"x"}}\n', code: -32602, message: /action: / },
  { name: 'unknown extra field', send: '{"jsonrpc":"2.0","id":1,"method":"request","params":{"source":"api","tool":"t","action":"read","summary":"x","decision":"allow"}}\n', code: -32602, message: /decision/ },
  { name: 'a task that does not exist', send: '{"jsonrpc":"2.0","id":1,"method":"request","params":{"source":"api","tool":"t","action":"read","summary":"x","task":"t_nope"}}\n', code: -32602, message: /no task t_nope/ },
  { name: 'invalid UTF-8 bytes', send: Buffer.concat([Buffer.from([0xff, 0xfe, 0xfd]), Buffer.from('\n')]), code: -32700, message: /parse error/ },
];

for (const c of cases) {
  test(`request.sock: ${c.name} → ${c.code}, connection keeps working`, async () => {
    const r = await Raw.open(d.requestSock);
    r.send(c.send);
    const reply = await r.reply();
    assert.equal(reply.error?.code, c.code, JSON.stringify(reply));
    assert.match(reply.error!.message, c.message);
    await stillWorks(r);
    r.s.destroy();
  });
}

test('a line over 1 MiB is refused, and the same connection goes on', async () => {
  const r = await Raw.open(d.requestSock);
  const huge = '{"jsonrpc":"2.0","id":1,"method":"request","params":{"summary":"' + 'A'.repeat(1024 * 1024 + 10) + '"}}\n';
  r.send(huge);
  const reply = await r.reply();
  assert.equal(reply.error?.code, -32600);
  assert.match(reply.error!.message, /longer than 1048576 bytes/);
  await stillWorks(r);
  r.s.destroy();
});

test('half a line then an abrupt disconnect breaks nothing', async () => {
  for (let i = 0; i < 20; i++) {
    const r = await Raw.open(d.requestSock);
    r.send('{"jsonrpc":"2.0","id":1,"method":"requ');
    r.s.destroy();
  }
  const r = await Raw.open(d.requestSock);
  await stillWorks(r);
  r.s.destroy();
});

test('a disconnect while a prompt waits is recorded as a deny', async () => {
  const r = await Raw.open(d.requestSock);
  r.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'request', params: { source: 'api', tool: 'gone.tool', action: 'write', resource: '/g', summary: 'will disconnect' } }) + '\n');
  const ui = await d.ui();
  for (let i = 0; i < 1500; i++) { // 30 s at least: room for a loaded machine
    const { prompts } = await ui.call<{ prompts: { tool: string }[] }>('pending.list', {});
    if (prompts.some((p) => p.tool === 'gone.tool')) break;
    await new Promise((x) => setTimeout(x, 20));
  }
  r.s.destroy();
  let last: HistoryEvent | undefined;
  for (let i = 0; i < 1500; i++) { // 30 s at least: room for a loaded machine
    last = (await ui.call<{ events: HistoryEvent[] }>('history.query', { text: 'disconnect', limit: 1 })).events[0];
    if (last?.tool === 'gone.tool') break;
    await new Promise((x) => setTimeout(x, 20));
  }
  assert.equal(last?.tool, 'gone.tool');
  assert.equal(last?.decision, 'deny');
  assert.match(last!.reason, /disconnected/);
  ui.close();
});

test('ui.sock: bad lines get errors and the connection keeps working', async () => {
  const r = await Raw.open(d.uiSock);
  r.send('nonsense\n');
  assert.equal((await r.reply()).error?.code, -32700);
  r.send('{"jsonrpc":"2.0","id":2,"method":"pending.decide","params":{"id":"p_x","decision":"maybe","scope":"once"}}\n');
  const e = await r.reply();
  assert.equal(e.error?.code, -32602);
  assert.match(e.error!.message, /decision/);
  r.send('{"jsonrpc":"2.0","id":3,"method":"pending.decide","params":{"id":"p_x","decision":"allow","scope":"once"}}\n');
  const nf = await r.reply();
  assert.equal(nf.error?.code, -32004);
  assert.match(nf.error!.message, /no pending prompt/);
  r.send('{"jsonrpc":"2.0","id":4,"method":"audit.verify"}\n');
  assert.equal(((await r.reply()).result as { ok: boolean }).ok, true);
  r.s.destroy();
});

test('every rejected line is in history as a rejected attempt, as sent (capped)', async () => {
  const ui = await d.ui();
  const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { decision: 'reject', limit: 100 });
  assert.ok(events.length >= cases.length + 1, `only ${events.length} rejects recorded`);
  const parse = events.find((e) => /parse error/.test(e.reason) && typeof (e.args as string) === 'string' && (e.args as string).includes('"jsonrpc": "2.0"'));
  assert.ok(parse, 'the malformed line is kept as sent');
  const huge = events.find((e) => /longer than/.test(e.reason));
  assert.ok(huge && (huge.args as string).length <= 4096, 'the huge line is capped');
  assert.ok(events.every((e) => e.decidedBy === 'invalid'));
  ui.close();
});

test('the daemon survived all of it and the chain verifies from the CLI', () => {
  const out = execFileSync(process.execPath, [CLI, 'audit', 'verify'], { env: d.env }).toString();
  assert.match(out, /^ok: \d+ events, chain intact/);
});

test('tampering with a row makes `airlock audit verify` fail and name the row', async () => {
  const ui = await d.ui();
  const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { limit: 200 });
  ui.close();
  const victim = events[Math.floor(events.length / 2)]!;
  execFileSync('sqlite3', [`${d.home}/airlock.db`, `UPDATE events SET decision = 'allow', reason = 'nothing to see' WHERE id = ${victim.id}`]);
  let code = 0;
  let err = '';
  try {
    execFileSync(process.execPath, [CLI, 'audit', 'verify'], { env: d.env, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    code = (e as { status: number }).status;
    err = (e as { stderr: Buffer }).stderr.toString();
  }
  assert.equal(code, 1);
  assert.match(err, new RegExp(`event ${victim.id} was altered`));
});
