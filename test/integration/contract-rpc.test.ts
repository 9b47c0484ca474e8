// DESIGN.md "Contracts", driven black-box over raw Unix sockets with one JSON object per
// line, as a client in any language would: ui.sock's `subscribe` notifications, each
// `pending.decide` field, `history.query` filters and cursor, the key methods, and every
// human-side method refused on request.sock. Only `airlock serve` and the sockets are used.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';

interface Msg {
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A line-based JSON-RPC connection: calls by id, and every notification kept in order. */
class Line {
  private buf = '';
  private next = 1;
  private waiting = new Map<number, (m: Msg) => void>();
  readonly notes: Msg[] = [];
  private constructor(private s: net.Socket) {
    s.on('data', (b) => {
      this.buf += b.toString();
      for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
        const m = JSON.parse(this.buf.slice(0, nl)) as Msg;
        this.buf = this.buf.slice(nl + 1);
        if (m.method !== undefined && m.id === undefined) this.notes.push(m);
        else this.waiting.get(m.id as number)?.(m);
      }
    });
  }
  static open(sock: string): Promise<Line> {
    return new Promise((resolve, reject) => {
      const s = net.createConnection(sock, () => resolve(new Line(s)));
      s.once('error', reject);
    });
  }
  call(method: string, params?: unknown, timeoutMs = 20_000): Promise<Msg> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`${method}: no answer in ${timeoutMs} ms`)), timeoutMs);
      this.waiting.set(id, (m) => (clearTimeout(t), this.waiting.delete(id), resolve(m)));
      this.s.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }) + '\n');
    });
  }
  async ok(method: string, params?: unknown): Promise<Record<string, unknown>> {
    const m = await this.call(method, params);
    assert.equal(m.error, undefined, `${method}: ${JSON.stringify(m.error)}`);
    return m.result!;
  }
  close(): void {
    this.s.destroy();
  }
}

let d: Daemon;
let ui: Line;
let watcher: Line;
let dir: string;
before(async () => {
  d = await startDaemon();
  ui = await Line.open(d.uiSock);
  watcher = await Line.open(d.uiSock);
  assert.deepEqual(await watcher.ok('subscribe'), { subscribed: true });
  dir = fs.mkdtempSync(path.join(d.home, 'work-'));
});
after(async () => {
  ui?.close();
  watcher?.close();
  await d?.stop();
  fs.rmSync(d.home, { recursive: true, force: true });
});

async function pendingFor(summary: string): Promise<Record<string, unknown>> {
  let p: Record<string, unknown> | undefined;
  await waitFor(async () => {
    const r = (await ui.ok('pending.list')) as { prompts: Record<string, unknown>[] };
    p = r.prompts.find((x) => x.summary === summary);
    return p !== undefined;
  }, `a prompt "${summary}"`);
  return p!;
}

test('subscribe: pending.added, pending.resolved, event.recorded and grants.changed arrive as JSON-RPC notifications', async () => {
  const agent = await Line.open(d.requestSock);
  const asked = agent.call('request', {
    source: 'api',
    tool: 'fs.write',
    action: 'write',
    resource: path.join(dir, 'src', 'a.ts'),
    summary: 'contract: write a.ts',
    args: { content: 'x' },
    cwd: dir,
  });
  const p = await pendingFor('contract: write a.ts');
  // The prompt's documented fields.
  for (const k of ['id', 'task', 'source', 'tool', 'action', 'resource', 'summary', 'args', 'risk', 'createdAt', 'expiresAt']) assert.ok(k in p, `prompt has ${k}`);
  assert.deepEqual(p.args, { content: 'x' });
  const risk = p.risk as { level: string; reasons: unknown[] };
  assert.ok(['low', 'medium', 'high', 'critical'].includes(risk.level) && Array.isArray(risk.reasons));
  const proc = p.process as { pid: number; uid: number; exe: unknown; argv: unknown[]; tree: unknown[] };
  assert.equal(proc.pid, process.pid, 'who asked: this test process, from the socket peer');
  assert.equal(proc.uid, process.getuid!());
  assert.ok(Array.isArray(proc.argv) && Array.isArray(proc.tree));
  assert.ok((p.expiresAt as number) > (p.createdAt as number));

  // scope duration with durationSec and an edited pattern → a grant that expires then and covers the pattern.
  const before = Date.now();
  const decided = await ui.ok('pending.decide', {
    id: p.id,
    decision: 'allow',
    scope: 'duration',
    durationSec: 120,
    pattern: { resource: `${dir}/src/**` },
  });
  const grant = decided.grant as { id: string; expiresAt: number; resource: string; effect: string };
  assert.equal(grant.effect, 'allow');
  assert.equal(grant.resource, `${dir}/src/**`);
  assert.ok(grant.expiresAt >= before + 119_000 && grant.expiresAt <= Date.now() + 121_000, `expiresAt ${grant.expiresAt} is about now + 120 s`);
  const answer = (await asked).result!;
  assert.equal(answer.decision, 'allow');
  assert.equal(typeof answer.reason, 'string');
  assert.equal(typeof answer.event, 'number');

  await waitFor(
    () => ['pending.added', 'pending.resolved', 'event.recorded', 'grants.changed'].every((m) => watcher.notes.some((n) => n.method === m)),
    `all four notifications, got ${watcher.notes.map((n) => n.method).join(', ')}`,
  );
  const added = watcher.notes.find((n) => n.method === 'pending.added')!;
  assert.equal(added.params!.id, p.id);
  const resolved = watcher.notes.find((n) => n.method === 'pending.resolved')!;
  assert.deepEqual({ id: resolved.params!.id, decision: resolved.params!.decision, event: resolved.params!.event }, { id: p.id, decision: 'allow', event: answer.event });
  const recorded = watcher.notes.find((n) => n.method === 'event.recorded' && n.params!.id === answer.event);
  assert.ok(recorded, 'event.recorded carries the event the agent was told');
  assert.equal(recorded.params!.summary, 'contract: write a.ts');

  // The new grant answers another write under the pattern, without a prompt.
  const again = await agent.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: path.join(dir, 'src', 'deep', 'b.ts'), summary: 'contract: write b.ts' });
  assert.equal(again.result!.decision, 'allow');
  assert.equal(again.result!.grant, grant.id);
  agent.close();
});

test('history.query: filters by decision, source, action and text; limit and cursor page without overlap', async () => {
  const agent = await Line.open(d.requestSock);
  for (let i = 0; i < 5; i++) {
    const r = await agent.call('request', { source: 'exec', tool: 'cat', action: 'read', resource: `/etc/hostname`, summary: `contract-page ${i}` });
    assert.equal(r.result!.decision, 'allow');
  }
  agent.close();
  const seen: number[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10; page++) {
    const r = (await ui.ok('history.query', { text: 'contract-page', source: 'exec', action: 'read', decision: 'allow', limit: 2, ...(cursor ? { cursor } : {}) })) as {
      events: { id: number; summary: string; source: string }[];
      cursor: string | null;
    };
    assert.ok(r.events.length <= 2);
    for (const e of r.events) {
      assert.match(e.summary, /^contract-page \d$/);
      assert.equal(e.source, 'exec');
      assert.ok(!seen.includes(e.id), `event ${e.id} seen twice`);
      seen.push(e.id);
    }
    cursor = r.cursor;
    if (cursor === null) break;
  }
  assert.equal(seen.length, 5);
  assert.deepEqual([...seen].sort((a, b) => b - a), seen, 'newest first');
  const none = (await ui.ok('history.query', { text: 'contract-page', decision: 'deny' })) as { events: unknown[] };
  assert.equal(none.events.length, 0);
});

test('keys: generate (ssh-keygen names too), import a PEM with its passphrase, list, remove; ssh-add -L sees each change', async () => {
  const ssh = (args: string[]) => spawnSync('ssh-add', args, { env: { ...process.env, SSH_AUTH_SOCK: d.agentSock }, encoding: 'utf8', timeout: 15_000 });
  const gen = (await ui.ok('keys.generate', { type: 'ed25519', name: 'contract-ed' })).key as { fingerprint: string; publicKey: string };
  assert.match(gen.fingerprint, /^SHA256:/);
  const rsa = (await ui.ok('keys.generate', { type: 'rsa', name: 'contract-rsa' })).key as { type: string; publicKey: string };
  assert.match(rsa.publicKey, /^ssh-rsa /, 'type "rsa" is ssh-keygen -t rsa');
  const ec = (await ui.ok('keys.generate', { type: 'ecdsa', name: 'contract-ec' })).key as { publicKey: string };
  assert.match(ec.publicKey, /^ecdsa-sha2-nistp256 /, 'type "ecdsa" is ssh-keygen -t ecdsa (P-256)');

  const file = path.join(dir, 'id_import');
  const kg = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'pw123', '-C', 'imported', '-f', file], { encoding: 'utf8' });
  assert.equal(kg.status, 0, kg.stderr);
  const wrong = await ui.call('keys.import', { pem: fs.readFileSync(file, 'utf8'), passphrase: 'nope', name: 'contract-imp' });
  assert.ok(wrong.error, 'a wrong passphrase is an error');
  assert.match(wrong.error.message, /passphrase/i);
  const imp = (await ui.ok('keys.import', { pem: fs.readFileSync(file, 'utf8'), passphrase: 'pw123', name: 'contract-imp' })).key as { fingerprint: string; name: string };
  const want = spawnSync('ssh-keygen', ['-l', '-f', `${file}.pub`], { encoding: 'utf8' }).stdout.split(' ')[1];
  assert.equal(imp.fingerprint, want, 'the fingerprint is the one ssh-keygen -l prints');
  const listed = ((await ui.ok('keys.list')).keys as { fingerprint: string; name: string }[]).map((k) => k.name);
  for (const n of ['contract-ed', 'contract-rsa', 'contract-ec', 'contract-imp']) assert.ok(listed.includes(n), n);
  assert.match(ssh(['-l']).stdout, new RegExp(imp.fingerprint.replace(/[+/]/g, '\\$&')));

  assert.deepEqual(await ui.ok('keys.remove', { fingerprint: imp.fingerprint }), {});
  assert.ok(!((await ui.ok('keys.list')).keys as { fingerprint: string }[]).some((k) => k.fingerprint === imp.fingerprint));
  assert.doesNotMatch(ssh(['-l']).stdout, new RegExp(imp.fingerprint.replace(/[+/]/g, '\\$&')));
  const again = await ui.call('keys.remove', { fingerprint: imp.fingerprint });
  assert.ok(again.error && /no key/.test(again.error.message), 'removing it twice says there is no such key');
});

/** Each human-side method with params of the wrong shape: -32602 naming the field. */
const BAD: [string, unknown, RegExp][] = [
  ['pending.decide', { id: 'p_x', decision: 'maybe', scope: 'once' }, /decision/],
  ['pending.decide', { id: 'p_x', decision: 'allow', scope: 'forever' }, /scope/],
  ['pending.decide', { id: 'p_x', decision: 'allow', scope: 'duration', durationSec: -5 }, /durationSec/],
  ['grants.create', { action: 'write' }, /effect/],
  ['grants.create', { action: 'fly', effect: 'allow' }, /action: must be one of read, write, .*"\*"/],
  ['grants.create', { action: ['write', 'fly'], effect: 'allow' }, /action: must be one of read, write/],
  ['grants.create', { action: 'write', effect: 'allow', uses: 0 }, /uses/],
  ['grants.create', { action: 'write', effect: 'allow', expiresAt: 'tomorrow-ish' }, /expiresAt/],
  ['grants.create', { action: 'write', effect: 'allow', expiresAt: '2020-01-01T00:00:00Z' }, /expiresAt: 2020-01-01T00:00:00\.000Z is in the past/],
  ['grants.create', { action: 'write', effect: 'allow', expiresAt: 1000 }, /expiresAt: .* is in the past/],
  ['grants.revoke', { id: 42 }, /id/],
  ['grants.list', { task: 'not a task id!' }, /task/],
  ['tasks.end', {}, /task/],
  ['history.query', { limit: 0 }, /limit/],
  ['history.query', { since: 'yesterday-ish' }, /since/],
  ['history.query', { cursor: 'DROP TABLE' }, /cursor/],
  ['keys.import', { passphrase: 'x' }, /path or pem/],
  ['keys.generate', { type: 'dsa', name: 'x' }, /type: must be one of ed25519, .*rsa-4096/],
  ['keys.generate', { type: 'ed25519' }, /name/],
  ['keys.remove', {}, /fingerprint/],
  ['settings.set', { promptTimeoutSec: 0 }, /promptTimeoutSec/],
  ['settings.set', { policy: { write: 'sure' } }, /policy/],
  ['settings.set', { noSuchSetting: true }, /noSuchSetting/],
];

test('ui.sock: bad params on every method get -32602 naming the field, and the same connection goes on', async () => {
  for (const [method, params, field] of BAD) {
    const r = await ui.call(method, params);
    assert.equal(r.error?.code, -32602, `${method} ${JSON.stringify(params)} → ${JSON.stringify(r)}`);
    assert.match(r.error.message, field, `${method}: the message names the field`);
  }
  assert.equal((await ui.ok('audit.verify')).ok, true);
  const s = (await ui.ok('settings.get')).settings as { promptTimeoutSec: number; policy: Record<string, string> };
  assert.equal(s.promptTimeoutSec, 60, 'no bad settings.set changed anything');
  assert.equal(s.policy.write, 'ask');
});

test('request.sock: every human-side method is "no such method" (-32601), and nothing was decided or granted', async () => {
  const agent = await Line.open(d.requestSock);
  const grantsBefore = ((await ui.ok('grants.list')).grants as unknown[]).length;
  for (const m of ['pending.list', 'pending.decide', 'subscribe', 'grants.list', 'grants.create', 'grants.revoke', 'tasks.list', 'tasks.end', 'history.query', 'keys.list', 'keys.import', 'keys.generate', 'keys.remove', 'audit.verify', 'settings.get', 'settings.set']) {
    const r = await agent.call(m, m === 'grants.create' ? { action: '*', effect: 'allow' } : {});
    assert.equal(r.error?.code, -32601, `${m} on request.sock → ${JSON.stringify(r)}`);
    assert.equal(r.result, undefined);
  }
  assert.equal(((await ui.ok('grants.list')).grants as unknown[]).length, grantsBefore);
  // And the agent-side methods still work on that connection.
  const t = await agent.call('task.start', { name: 'contract after refusals' });
  assert.match(t.result!.task as string, /\S/);
  assert.deepEqual((await agent.call('task.end', { task: t.result!.token })).result, {});
  agent.close();
});

/** Writes raw lines on one connection and reads `count` answer lines. */
function rawLines(sock: string, lines: string[], count: number): Promise<Msg[]> {
  return new Promise((resolve, reject) => {
    const s = net.createConnection(sock, () => s.write(lines.map((l) => l + '\n').join('')));
    let buf = '';
    const got: Msg[] = [];
    const t = setTimeout(() => (s.destroy(), reject(new Error(`only ${got.length} of ${count} answers: ${JSON.stringify(got)}`))), 15_000);
    s.on('data', (b) => {
      buf += b.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        got.push(JSON.parse(buf.slice(0, nl)) as Msg);
        buf = buf.slice(nl + 1);
      }
      if (got.length >= count) {
        clearTimeout(t);
        s.destroy();
        resolve(got);
      }
    });
    s.on('error', reject);
  });
}

test('both sockets: JSON that is not a request object is -32600 saying so; a notification (no id) gets no answer; string ids are echoed', async () => {
  for (const sock of [d.uiSock, d.requestSock]) {
    const lines = ['"just a string"', 'null', '42', '[]', '{"jsonrpc":"2.0","id":{"a":1},"method":"x"}', '{"jsonrpc":"2.0","method":"task.end","params":{}}', '{"jsonrpc":"2.0","id":"last","method":"no.such"}'];
    const got = await rawLines(sock, lines, 6);
    for (const [i, what] of ['a string', 'null', 'a number'].entries()) {
      assert.equal(got[i]!.error?.code, -32600, `${lines[i]} on ${sock}`);
      assert.equal(got[i]!.id, null);
      assert.match(got[i]!.error!.message, new RegExp(`JSON ${what}, not an object`));
    }
    assert.equal(got[3]!.error?.code, -32600);
    assert.match(got[3]!.error!.message, /batches/);
    assert.equal(got[4]!.error?.code, -32600);
    assert.match(got[4]!.error!.message, /\bid\b/);
    // The notification was not answered: the next answer is the last call's, with its string id.
    assert.equal(got[5]!.id, 'last');
    assert.equal(got[5]!.error?.code, -32601);
  }
});

test('ui.sock: naming a prompt, grant, task or key that does not exist is -32004 saying which (README "The JSON API")', async () => {
  for (const [method, params, says] of [
    ['pending.decide', { id: 'p_nope', decision: 'allow', scope: 'once' }, /no pending prompt p_nope/],
    ['grants.revoke', { id: 'g_nope' }, /no grant g_nope/],
    ['tasks.end', { task: 't_nope' }, /no task t_nope/],
    ['keys.remove', { fingerprint: 'SHA256:nope' }, /no key SHA256:nope/],
  ] as [string, unknown, RegExp][]) {
    const r = await ui.call(method, params);
    assert.equal(r.error?.code, -32004, `${method} → ${JSON.stringify(r)}`);
    assert.match(r.error.message, says);
  }
});
