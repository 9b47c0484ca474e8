// Every failure the fuzzers found, as a test that replays it (see scripts/fuzz.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { approverMethods } from '../../main/contract/approver';
import { RPC, RpcError, parseParams } from '../../main/contract/rpc';
import { agentKeyFromWire } from '../../main/ssh/key-material';
import { MSG, parseMessage } from '../../main/ssh/protocol';
import { Writer } from '../../main/ssh/wire';
import { classifyShell } from '../../main/core/classify/shell';
import { McpProxy } from '../../main/integrations/mcp/proxy';
import { PassThrough } from 'node:stream';
import type { AgentAnswer } from '../../main/contract/agent';
import type { HistoryEvent } from '../../main/contract/approver';
import { startDaemon } from '../helpers/daemon';

// json-rpc.fuzz (seed 18545804): `history.query {cursor: "12\""}` reached the Store, which
// threw a plain Error, so the caller got -32603 "internal error" instead of invalid params.
test('history.query with a cursor that is not one → -32602 naming the cursor', () => {
  for (const cursor of ['12"', '軩12', '-1', '1.5', 'abc']) {
    assert.throws(
      () => parseParams(approverMethods['history.query'].params, { cursor }),
      (e: unknown) => e instanceof RpcError && e.code === RPC.invalidParams && /cursor/.test(e.message),
      `cursor ${JSON.stringify(cursor)}`,
    );
  }
  assert.deepEqual(parseParams(approverMethods['history.query'].params, { cursor: '12' }), { cursor: '12' });
});

// json-rpc.fuzz (seed 18585581): a request whose summary held a lone surrogate ("\ud800")
// was hashed as sent and stored as other text, so audit.verify reported tampering.
test('a request with lone surrogates in its text is recorded and the chain still verifies', async () => {
  const d = await startDaemon();
  try {
    const ui = await d.ui();
    await ui.call('grants.create', { action: 'write', tool: 'uni.tool', effect: 'allow' });
    const a = await d.agent();
    // Escapes of lone surrogates as JSON text: the daemon parses them into lone surrogates.
    const line = '{"jsonrpc":"2.0","id":"raw","method":"request","params":{"source":"api","tool":"uni.tool","action":"write","resource":"/u/\\udc00","summary":"half \\ud83d of an emoji","args":{"x":"\\ud800"}}}\n';
    a.writeRaw(line);
    // Answered in order on one connection: once this one is answered, the raw one was decided.
    const after = await a.call<AgentAnswer>('request', { source: 'api', tool: 'uni.tool', action: 'write', resource: '/u/after', summary: 'after' });
    assert.equal(after.decision, 'allow');
    const h = await ui.call<{ events: HistoryEvent[] }>('history.query', { source: 'api', limit: 5 });
    const ev = h.events.find((e) => e.summary.startsWith('half'));
    assert.ok(ev, 'the request with lone surrogates is in history');
    assert.equal(ev.summary, 'half \ufffd of an emoji');
    const v = await ui.call<{ ok: boolean }>('audit.verify', {});
    assert.equal(v.ok, true, JSON.stringify(v));
    a.close();
    ui.close();
  } finally {
    await d.stop();
  }
});

// ssh-codec: an "RSA key" with a consistent but huge modulus (n = p·q, p and q not even
// prime) makes agentKeyFromWire run RSA arithmetic and a self-test signature at that size:
// ~4 s at 16k bits, minutes at 64k, and a 256 KiB agent message allows ~2M bits — the
// daemon's event loop (every approval) stalls meanwhile. OpenSSH refuses moduli over
// 16384 bits (SSH_RSA_MAXIMUM_MODULUS_SIZE) before any arithmetic. Reported to main/ssh.
test('an RSA key over 16384 bits is refused before any arithmetic', () => {
  const half = 16416 / 16;
  const p = crypto.randomBytes(half);
  const q = crypto.randomBytes(half);
  p[0]! |= 0x80;
  q[0]! |= 0x80;
  p[half - 1]! |= 1;
  q[half - 1]! |= 1;
  const n = BigInt(`0x${p.toString('hex')}`) * BigInt(`0x${q.toString('hex')}`);
  const nb = Buffer.from(n.toString(16).padStart(half * 4, '0'), 'hex');
  const msg = new Writer().byte(MSG.ADD_IDENTITY).string('ssh-rsa').mpint(nb).mpint(Buffer.from([1, 0, 1])).mpint(crypto.randomBytes(half * 2 - 1))
    .mpint(crypto.randomBytes(half - 1)).mpint(p).mpint(q).string('huge').toBuffer();
  const m = parseMessage(msg);
  if (m.type !== 'add') return; // refused while parsing: fixed
  const t0 = Date.now();
  assert.throws(() => agentKeyFromWire(m.key));
  assert.ok(Date.now() - t0 < 250, `refusing it took ${Date.now() - t0} ms`);
});

// Shell classifier: hostile shapes that are fine today stay fine.
test('shell classifier: deep nesting, unbalanced quotes, heredoc floods answer quickly', () => {
  const nasty = ['$('.repeat(5000), '"'.repeat(10001), `sh -c "${'sh -c '.repeat(50)}rm -rf /"`, '\u202e\u0000$((1/0))', 'cat <<EOF\n'.repeat(2000), 'x'.repeat(128_000)];
  for (const cmd of nasty) {
    const t0 = Date.now();
    const c = classifyShell(cmd, '/tmp');
    assert.ok(Date.now() - t0 < 2000, `${JSON.stringify(cmd.slice(0, 40))} took ${Date.now() - t0} ms`);
    assert.ok(typeof c.action === 'string');
  }
});

// shell.fuzz (seed 18823855): `cd /etc &constructor& cat passwd` — a command named like an
// Object.prototype member (constructor, toString, valueOf, hasOwnProperty, __proto__) is
// looked up in a plain-object table in main/core/classify/sh-commands.ts (READ_VALUE,
// PATTERN_FIRST, DELETE_CMDS, MODE_FIRST, WRITE_CMDS, INTERPRETERS) and the walker throws.
// It fails safe (answered as execute, high risk) but prompts for a harmless command.
test('shell classifier: commands named like Object.prototype members are classified, not crashed', () => {
  for (const name of ['constructor', 'toString x', 'valueOf', 'hasOwnProperty', '__proto__ a']) {
    const c = classifyShell(name, '/repo');
    assert.ok(!c.riskReasons.some((r) => /classifier failed/.test(r.reason)), `${name}: ${JSON.stringify(c.riskReasons)}`);
  }
});

// shell.fuzz: classification cost ~0.1 ms per word (mvdan-sh's GopherJS objects are
// converted on every field access), so a 128 KiB command of short words stalled the
// daemon's event loop — every approval — for ~8 s on 2 cores. Fixed in acf1cbe (word cap).
test('shell classifier: a long command of many short words answers within 500 ms', () => {
  const cmd = `echo ${'a '.repeat(8000)}; ${'b;'.repeat(4000)}`;
  const t0 = Date.now();
  classifyShell(cmd, '/tmp');
  assert.ok(Date.now() - t0 < 500, `${cmd.length} chars took ${Date.now() - t0} ms`);
});

// JSON.parse accepts any depth; JSON.stringify overflows the stack at ~5,000 levels. A
// request whose args were nested 6,000 deep waited as a prompt holding the raw value, and
// the next pending.list (every UI's first call) threw inside the line server's reply: the
// daemon exited. Prompts now carry the recorded (capped) args, and a reply that cannot be
// serialized becomes an error reply.
test('a request with args nested 20,000 deep cannot take the daemon down', async () => {
  const d = await startDaemon();
  try {
    const ui = await d.ui();
    const a = await d.agent();
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    a.writeRaw(`{"jsonrpc":"2.0","id":"deep","method":"request","params":{"source":"api","tool":"deep.tool","action":"write","resource":"/deep","summary":"deep args","args":${deep}}}\n`);
    let prompts: { summary: string; args: unknown }[] = [];
    for (let i = 0; i < 1500 && !prompts.some((p) => p.summary === 'deep args'); i++) { // 30 s at least: room for a loaded machine
      prompts = (await ui.call<{ prompts: { summary: string; args: unknown }[] }>('pending.list', {})).prompts;
      await new Promise((r) => setTimeout(r, 20));
    }
    const p = prompts.find((x) => x.summary === 'deep args');
    assert.ok(p, 'the prompt is listed');
    assert.deepEqual(p.args, { unserializable: true });
    assert.equal(d.proc.exitCode, null, 'the daemon is still running');
    const v = await ui.call<{ ok: boolean }>('audit.verify', {});
    assert.equal(v.ok, true);
    a.close();
    ui.close();
  } finally {
    await d.stop();
  }
});

// mcp-proxy.fuzz (seed 19376691): the same depth problem in `airlock mcp`: a client line
// nested ~5,000 deep parses, and re-serializing it for the server (proxy.ts onClientLine /
// onToolsCall: JSON.stringify(msg)) threw RangeError out of the stdin data handler — the
// proxy process died and the MCP session with it. Fixed in 3d65b5c.
test('MCP proxy: a message nested too deep to re-serialize is answered, and the proxy goes on', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let out = '';
  output.on('data', (d: Buffer) => (out += d.toString()));
  const proxy = new McpProxy({
    serverArgv: [process.execPath, '-e', "process.stdin.on('data', (d) => process.stdout.write(d)); process.stdin.on('end', () => process.exit(0))"],
    name: 'deep', cwd: '/tmp', env: process.env, input, output, log: () => undefined,
    ask: async () => ({ decision: 'allow', reason: 'test', event: 1 }),
  });
  const exited = proxy.run();
  try {
    let threw: unknown = null;
    try {
      input.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":${'['.repeat(20_000)}${']'.repeat(20_000)}}\n`);
    } catch (e) {
      threw = e;
    }
    assert.equal(threw, null, `the proxy threw ${String(threw)}`);
    input.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    for (let i = 0; i < 1500 && !out.includes('"id":2'); i++) await new Promise((r) => setTimeout(r, 20)); // 30 s at least
    assert.match(out, /"id":2/, 'the next message still passes');
  } finally {
    input.end();
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    proxy.signal('SIGKILL');
  }
});
