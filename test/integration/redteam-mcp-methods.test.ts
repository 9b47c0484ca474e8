// Red team: a hostile MCP client speaking raw JSON-RPC lines to the real `airlock mcp`, in
// front of a real SDK server that serves files as resources (test/fixtures/mcp-files-server.mjs),
// with the real daemon deciding. It hides a resources/read in a batch, spells methods oddly,
// sends a URI too long to judge, reuses the id of a request that waits for the human, calls
// methods nobody knows, and floods the proxy with cancellations.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLI, REPO, startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import type { RpcClient } from '../../main/client/rpc-client';

const FILES_SERVER = path.join(REPO, 'test', 'fixtures', 'mcp-files-server.mjs');

let d: Daemon;
let ui: RpcClient;
let human: Human;
let root: string;
let log: string;
let denyGrant: string;

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  human = await Human.on(ui);
  root = fs.realpathSync(fs.mkdtempSync(path.join(d.home, 'rm-')));
  fs.writeFileSync(path.join(root, 'notes.md'), 'plain notes\n');
  fs.mkdirSync(path.join(root, 'private'));
  fs.writeFileSync(path.join(root, 'private', 'plan.txt'), 'the private plan\n');
  fs.mkdirSync(path.join(root, '.ssh'));
  fs.writeFileSync(path.join(root, '.ssh', 'id_ed25519'), 'not a real key\n');
  log = path.join(d.home, 'served.log');
  denyGrant = (await ui.call<{ grant: { id: string } }>('grants.create', { source: 'mcp', tool: 'files/*', action: '*', resource: `${root}/private/**`, effect: 'deny', note: 'never the private dir' })).grant.id;
});
after(async () => {
  await ui?.call('grants.revoke', { id: denyGrant }).catch(() => undefined);
  ui?.close();
  await d?.stop();
});

interface Msg {
  id?: number | string | null;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** `airlock mcp --name files -- mcp-files-server.mjs` with a raw line client on its stdio. */
class RawClient {
  readonly lines: Msg[] = [];
  err = '';
  readonly p: ChildProcess;
  private buf = '';
  constructor(env: NodeJS.ProcessEnv = {}) {
    this.p = spawn(process.execPath, [CLI, 'mcp', '--name', 'files', '--', process.execPath, FILES_SERVER, root, log], { env: { ...d.env, ...env }, cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    this.p.stdout!.on('data', (x: Buffer) => {
      this.buf += x.toString();
      for (let i = this.buf.indexOf('\n'); i >= 0; i = this.buf.indexOf('\n')) {
        const l = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        if (l.trim()) this.lines.push(JSON.parse(l) as Msg);
      }
    });
    this.p.stderr!.on('data', (x: Buffer) => (this.err += x.toString()));
    this.p.stdin!.on('error', () => undefined);
  }
  send(m: unknown): void {
    this.p.stdin!.write((typeof m === 'string' ? m : JSON.stringify(m)) + '\n');
  }
  async reply(id: number | string, timeoutMs = 20_000): Promise<Msg> {
    await waitFor(() => this.lines.some((l) => l.id === id), `the answer to ${String(id)}; stderr: ${this.err}`, timeoutMs);
    return this.lines.find((l) => l.id === id)!;
  }
  async call(id: number | string, method: string, params?: object, timeoutMs?: number): Promise<Msg> {
    this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return this.reply(id, timeoutMs);
  }
  async init(): Promise<void> {
    const r = await this.call('init', 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rm', version: '1' } });
    assert.ok(r.result, JSON.stringify(r));
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  async close(): Promise<void> {
    if (this.p.exitCode !== null || this.p.signalCode !== null) return;
    const gone = new Promise((r) => this.p.once('exit', r));
    this.p.stdin!.end();
    await gone;
  }
}

/** The URIs of the resources/read requests that reached the server. */
function servedUris(): string[] {
  if (!fs.existsSync(log)) return [];
  return fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { method: string; params: { uri?: string } }).filter((l) => l.method === 'resources/read').map((l) => String(l.params.uri));
}
const privateUri = () => `file://${root}/private/plan.txt`;

describe('red team: MCP methods beyond tools/call, raw lines through the real proxy', () => {
  test('a batch (a JSON array) hiding a resources/read: the read is asked on its own and denied; it never reaches the server', async () => {
    const c = new RawClient();
    try {
      await c.init();
      c.send([{ jsonrpc: '2.0', id: 'b1', method: 'ping' }, { jsonrpc: '2.0', id: 'b2', method: 'resources/read', params: { uri: privateUri() } }]);
      const r = await c.reply('b2');
      assert.equal(r.error?.code, -32003, JSON.stringify(r));
      assert.match(r.error!.message, /Denied by Airlock: denied by grant .*never the private dir/);
      assert.ok(!servedUris().some((u) => u.includes('private')), servedUris().join(', '));
    } finally {
      await c.close();
    }
  });

  test('methods spelled like resources/read or tools/call but not exactly (case, trailing space, fullwidth, zero-width) are refused and never forwarded', async () => {
    const c = new RawClient();
    try {
      await c.init();
      const before = servedUris().length;
      const odd = ['Resources/Read', 'resources/read ', 'RESOURCES/READ', 'ｒｅｓｏｕｒｃｅｓ/read', 'resources/read\u200b', 'Tools/Call', ' prompts/get'];
      for (const [i, method] of odd.entries()) {
        const r = await c.call(`odd${i}`, method, { uri: privateUri(), name: 'summarize_file', arguments: { path: 'private/plan.txt' } });
        assert.equal(r.error?.code, -32601, `${JSON.stringify(method)}: ${JSON.stringify(r)}`);
        assert.match(r.error!.message, /refused by Airlock, not forwarded/);
      }
      assert.equal(servedUris().length, before);
      assert.equal(human.unanswered().length, 0, 'refused without a prompt');
      assert.match(c.err, /refused "Resources\/Read"/);
    } finally {
      await c.close();
    }
  });

  test('a URI too long to judge whole is refused; the same path under the limit is denied by the grant', async () => {
    const c = new RawClient();
    try {
      await c.init();
      const long = `file://${root}/${'a/'.repeat(1600)}${'../'.repeat(1600)}private/plan.txt`;
      const r = await c.call('long', 'resources/read', { uri: long });
      assert.equal(r.error?.code, -32602, JSON.stringify(r));
      assert.match(r.error!.message, /longer than 3072 characters/);
      const short = await c.call('short', 'resources/read', { uri: `file://${root}/${'a/'.repeat(10)}${'../'.repeat(10)}private/plan.txt` });
      assert.equal(short.error?.code, -32003, JSON.stringify(short));
      assert.ok(!servedUris().some((u) => u.includes('private')));
    } finally {
      await c.close();
    }
  });

  test('an id already waiting for the human cannot be reused: a second resources/read or tools/call with it is refused at once; the first is answered as decided', async () => {
    await ui.call('settings.set', { policy: { read: 'ask' } });
    const c = new RawClient();
    try {
      await c.init();
      c.send({ jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: `file://${root}/notes.md` } });
      const p = await human.next(15_000);
      assert.equal(p.tool, 'files/resources/read');
      c.send({ jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: `file://${root}/.ssh/id_ed25519` } });
      c.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask_model', arguments: {} } });
      await waitFor(() => c.lines.filter((l) => l.id === 7).length >= 2, 'both reuses refused', 15_000);
      for (const r of c.lines.filter((l) => l.id === 7)) assert.match(r.error?.message ?? '', /already waiting for Airlock/, JSON.stringify(r));
      await human.decide(p.id, 'allow');
      await waitFor(() => c.lines.some((l) => l.id === 7 && l.result), 'the allowed read', 15_000);
      assert.match(JSON.stringify(c.lines.find((l) => l.id === 7 && l.result)), /plain notes/);
      assert.ok(!servedUris().some((u) => u.includes('.ssh')), 'the key read with the reused id never reached the server');
      assert.equal(human.unanswered().length, 0);
    } finally {
      await ui.call('settings.set', { policy: { read: 'allow' } });
      await c.close();
    }
  });

  test('a method nobody knows is asked (action other, its paths judged) and, denied, never reaches the server; so is an unknown notification', async () => {
    const c = new RawClient();
    try {
      await c.init();
      c.send({ jsonrpc: '2.0', id: 'u1', method: 'files/exfiltrate', params: { path: `${root}/.ssh/id_ed25519`, to: 'paste.example' } });
      const p = await human.next(15_000);
      assert.equal(p.tool, 'files/files/exfiltrate');
      assert.equal(p.action, 'other');
      assert.ok(p.resources.includes(`${root}/.ssh/id_ed25519`), JSON.stringify(p.resources));
      assert.ok(p.risk.reasons.some((r) => /does not know/.test(r)), p.risk.reasons.join('; '));
      await human.decide(p.id, 'deny');
      const r = await c.reply('u1');
      assert.equal(r.error?.code, -32003);
      assert.match(r.error!.message, /Denied by Airlock/);
      c.send({ jsonrpc: '2.0', method: 'notifications/exfiltrate', params: { path: `${root}/.ssh/id_ed25519` } });
      const n = await human.next(15_000);
      assert.equal(n.tool, 'files/notifications/exfiltrate');
      await human.decide(n.id, 'deny');
      await waitFor(() => /dropped a notifications\/exfiltrate notification/.test(c.err), 'the denied notification dropped', 15_000);
    } finally {
      await c.close();
    }
  });

  test('a flood of notifications/cancelled for ids that are not waiting does not grow the proxy (it lives in a 64 MB heap, and waits for the slower server); a real cancellation still withdraws its prompt', async () => {
    // The proxy's heap is capped: had it kept every cancellation, it would run out of memory.
    const c = new RawClient({ NODE_OPTIONS: '--max-old-space-size=64' });
    try {
      await c.init();
      // 25,000 cancellations with 4 KB ids: 100 MB if the proxy kept them, or buffered them for the server.
      const pad = 'x'.repeat(4096);
      for (let batch = 0; batch < 25; batch++) {
        let chunk = '';
        for (let i = 0; i < 1000; i++) chunk += JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: `${pad}${batch}-${i}` } }) + '\n';
        if (!c.p.stdin!.write(chunk)) await Promise.race([new Promise((r) => c.p.stdin!.once('drain', r)), new Promise((r) => c.p.once('exit', r))]);
        assert.equal(c.p.exitCode, null, `the proxy died: ${c.err.slice(-500)}`);
      }
      const pong = await c.call('after-flood', 'ping', undefined, 120_000);
      assert.ok(pong.result, JSON.stringify(pong));
      assert.equal(c.p.exitCode, null, `the proxy died: ${c.err.slice(-500)}`);
      await ui.call('settings.set', { policy: { read: 'ask' } });
      try {
        c.send({ jsonrpc: '2.0', id: 'real', method: 'resources/read', params: { uri: `file://${root}/notes.md` } });
        const p = await human.next(15_000);
        c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'real' } });
        await waitFor(async () => !(await ui.call<{ prompts: { id: string }[] }>('pending.list')).prompts.some((q) => q.id === p.id), 'the prompt to be withdrawn', 15_000);
      } finally {
        await ui.call('settings.set', { policy: { read: 'allow' } });
      }
    } finally {
      await c.close();
    }
  });
});
