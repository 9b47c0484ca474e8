// Red team, second wave: the agent-side sockets (request.sock and a task's own request.sock)
// must never reach a human-side method, whatever the method name, the framing or the params
// look like, and hostile connections (many, idle, half a line, oversize) must not stall the
// daemon for the next client. Every attempt below held; each stays as a test.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { floodConnections } from '../helpers/conn-flood';
import { startDaemon, type Daemon } from '../helpers/daemon';
import { approverMethods } from '../../main/contract/approver';

let d: Daemon;
before(async () => {
  d = await startDaemon();
});
after(async () => {
  await d?.stop();
});

type Reply = { id?: unknown; result?: unknown; error?: { code: number; message: string } };

/** Sends raw lines on a fresh connection and collects exactly `n` reply lines (bounded). */
function exchange(sock: string, payload: string, n: number, timeoutMs = 10_000): Promise<Reply[]> {
  return new Promise((resolve, reject) => {
    const s = net.createConnection(sock);
    let buf = '';
    const out: Reply[] = [];
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`only ${out.length}/${n} replies in ${timeoutMs} ms`));
    }, timeoutMs);
    s.setEncoding('utf8');
    s.on('connect', () => s.write(payload));
    s.on('data', (x: string) => {
      buf += x;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        out.push(JSON.parse(buf.slice(0, i)) as Reply);
        buf = buf.slice(i + 1);
      }
      if (out.length >= n) {
        clearTimeout(timer);
        s.destroy();
        resolve(out);
      }
    });
    s.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

const humanMethods = Object.keys(approverMethods);
/** Names that are not own keys of the method table but live on every object's prototype chain. */
const prototypeNames = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf', 'prototype'];

function variantsOf(m: string): string[] {
  return [m, m.toUpperCase(), ` ${m}`, `${m} `, `${m}\t`, `${m}\u0000`, `${m}\u200b`, m.replace('.', '/'), m.replace('.', '\u2024'), `request.${m}`, `${m}.request`];
}

/** What a successful smuggle would leave behind: a grant, a changed setting, a decided prompt. */
async function humanSideState(): Promise<string> {
  const ui = await d.ui();
  try {
    const grants = await ui.call<{ grants: unknown[] }>('grants.list', {});
    const settings = await ui.call<{ settings: unknown }>('settings.get', {});
    const secrets = await ui.call<{ secrets: unknown[] }>('secrets.list', {});
    return JSON.stringify({ grants, settings, secrets });
  } finally {
    ui.close();
  }
}

async function sockets(): Promise<{ name: string; path: string }[]> {
  const agent = await d.agent();
  try {
    const started = await agent.call<{ requestSock: string | null; task: string }>('task.start', { name: 'redteam-sockets' });
    assert.ok(started.requestSock, 'task.start gave the task its own request.sock');
    return [
      { name: 'request.sock', path: d.requestSock },
      { name: `tasks/${started.task}/request.sock`, path: started.requestSock },
    ];
  } finally {
    agent.close();
  }
}

test('no human-side method, under any spelling or prototype name, is reachable from an agent socket', { timeout: 60_000 }, async () => {
  const before = await humanSideState();
  const names = [...humanMethods.flatMap(variantsOf), ...prototypeNames, ...prototypeNames.map((p) => `${p}.pending.decide`)];
  const params = { id: 'p_1', decision: 'allow', scope: 'always', action: '*', effect: 'allow', name: 'X', value: 'v', settings: {} };
  for (const s of await sockets()) {
    const lines = names.map((method, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method, params }) + '\n').join('');
    const replies = await exchange(s.path, lines, names.length);
    for (const r of replies) {
      const method = names[r.id as number];
      assert.equal(r.error?.code, -32601, `${s.name}: ${JSON.stringify(method)} must be "no such method", got ${JSON.stringify(r)}`);
      assert.equal(r.result, undefined);
    }
  }
  assert.equal(await humanSideState(), before, 'nothing on the human side changed');
});

test('batches smuggling human-side calls are refused whole, on both kinds of agent socket', { timeout: 30_000 }, async () => {
  const before = await humanSideState();
  const batch = [
    { jsonrpc: '2.0', id: 1, method: 'request', params: { source: 'api', tool: 't', action: 'read', summary: 'cover' } },
    { jsonrpc: '2.0', id: 2, method: 'grants.create', params: { action: '*', effect: 'allow' } },
    { jsonrpc: '2.0', id: 3, method: 'settings.set', params: {} },
  ];
  // A batch nested in params, and a call object with a second "method" key (JSON.parse keeps the last).
  const dupKey = '{"jsonrpc":"2.0","id":4,"method":"request","method":"grants.create","params":{"action":"*","effect":"allow"}}';
  for (const s of await sockets()) {
    const [a, b] = await exchange(s.path, JSON.stringify(batch) + '\n' + dupKey + '\n', 2);
    assert.equal(a!.error?.code, -32600);
    assert.match(a!.error!.message, /batches are not supported/);
    assert.equal(b!.id, 4);
    assert.equal(b!.error?.code, -32601, `${s.name}: the duplicated "method" key resolves to grants.create, which is not here`);
  }
  assert.equal(await humanSideState(), before);
});

test('params that name a decision, a grant or a prototype key never decide: refused as invalid, no state changes', { timeout: 30_000 }, async () => {
  const before = await humanSideState();
  const base = { source: 'api', tool: 'rt.write', action: 'write', resource: '/rt', summary: 'x' };
  const attempts: object[] = [
    { ...base, decision: 'allow' },
    { ...base, grant: { action: '*', effect: 'allow' } },
    { ...base, scope: 'always' },
    JSON.parse(`{"source":"api","tool":"rt.write","action":"write","summary":"x","__proto__":{"decision":"allow"}}`) as object,
    { ...base, constructor: { prototype: { decision: 'allow' } } },
  ];
  for (const s of await sockets()) {
    const lines = attempts.map((params, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'request', params }) + '\n').join('');
    const replies = await exchange(s.path, lines, attempts.length);
    for (const r of replies) assert.equal(r.error?.code, -32602, `${s.name} attempt ${String(r.id)}: ${JSON.stringify(r)}`);
  }
  const ui = await d.ui();
  const { prompts } = await ui.call<{ prompts: unknown[] }>('pending.list', {});
  ui.close();
  assert.equal(prompts.length, 0, 'no refused call became a prompt either');
  assert.equal(await humanSideState(), before);
  assert.equal(({} as Record<string, unknown>).decision, undefined, 'no prototype pollution in the test process');
});

test('200 idle connections and 50 slowloris half-lines do not stall the next client or ui.sock', { timeout: 60_000 }, async () => {
  // From other processes (each process may hold 128 connections per socket: flood-connections.test.ts).
  const hogs = [
    await floodConnections(d.requestSock, 100),
    await floodConnections(d.requestSock, 100),
    await floodConnections(d.requestSock, 50, { first: '{"jsonrpc":"2.0","id":1,"method":"request","params":{"summary":"' + 'A'.repeat(60_000) }),
  ];
  try {
    assert.deepEqual(
      hogs.map((h) => h.open),
      [100, 100, 50],
      'all 250 are below the caps and stay open',
    );
    const t0 = Date.now();
    const [r] = await exchange(d.requestSock, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'request', params: { source: 'api', tool: 't', action: 'read', summary: 'after the hogs' } }) + '\n', 1, 20_000);
    assert.equal((r!.result as { decision: string }).decision, 'allow');
    const ui = await d.ui();
    await ui.call('pending.list', {});
    ui.close();
    // Milliseconds normally; under the 10 s after which the half-lines are closed, so a
    // daemon stalled by them until then fails it, with a loaded machine's slack.
    assert.ok(Date.now() - t0 < 8000, `answered in ${Date.now() - t0} ms`);
  } finally {
    for (const h of hogs) await h.stop();
  }
});
