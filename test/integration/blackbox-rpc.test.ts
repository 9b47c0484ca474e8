// Black-box: DESIGN.md "Contracts" for request.sock (agent side) and ui.sock (human side),
// written from the documents alone and driven with raw JSON lines, as a script in any
// language would. One daemon for the whole file, in a fresh AIRLOCK_HOME it must create.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { waitFor, type Daemon } from '../helpers/daemon';
import { Wire, closeBlackboxSession, openBlackboxSession, pendingList, waitPending, type Pending, type RpcMsg } from '../helpers/blackbox';

let d: Daemon;
let ui: Wire;
let root: string;
const HUMAN_METHODS = ['pending.list', 'pending.decide', 'subscribe', 'grants.list', 'grants.create', 'grants.revoke', 'tasks.list', 'tasks.end', 'history.query', 'keys.list', 'keys.import', 'keys.generate', 'keys.remove', 'audit.verify', 'settings.get', 'settings.set'];

before(async () => {
  ({ root, d, ui } = await openBlackboxSession('bbr-'));
});
after(() => closeBlackboxSession({ root, d, ui }));

let seq = 0;
/** A unique write request (identical waiting requests share one prompt). */
function writeReq(extra: Record<string, unknown> = {}): Record<string, unknown> {
  seq++;
  return { source: 'api', tool: 'fs.write', action: 'write', resource: `/srv/bb/file-${seq}.txt`, summary: `write file-${seq}`, ...extra };
}

async function decide(p: Pending, decision: 'allow' | 'deny', scope = 'once', extra: Record<string, unknown> = {}): Promise<RpcMsg> {
  return ui.call('pending.decide', { id: p.id, decision, scope, ...extra });
}

test('AIRLOCK_HOME holds the sockets and the database; the directory is 0700, the sockets 0600', () => {
  for (const f of ['agent.sock', 'request.sock', 'ui.sock', 'airlock.db']) assert.ok(fs.existsSync(path.join(d.home, f)), `${f} in AIRLOCK_HOME`);
  assert.equal(fs.statSync(d.home).mode & 0o777, 0o700);
  for (const s of ['agent.sock', 'request.sock', 'ui.sock']) {
    const st = fs.statSync(path.join(d.home, s));
    assert.ok(st.isSocket(), `${s} is a socket`);
    assert.equal(st.mode & 0o777, 0o600, `${s} mode`);
  }
});

for (const sockName of ['request.sock', 'ui.sock']) {
  test(`${sockName}: the standard JSON-RPC error codes, and a bad line never kills the connection`, async () => {
    const w = await Wire.open(path.join(d.home, sockName));
    try {
      w.raw('this is not json\n');
      const parse = await w.expectOther((m) => m.error?.code === -32700, 'a -32700 answer');
      assert.equal(parse.id, null, 'a parse error answers with id null');
      assert.equal(parse.jsonrpc, '2.0');
      w.raw('{"jsonrpc":"2.0","id":7,"nomethod":true}\n');
      const inv = await w.expectOther((m) => m.error?.code === -32600, 'a -32600 answer');
      assert.ok(inv.id === 7 || inv.id === null);
      const nm = await w.call('no.such.method', {});
      assert.equal(nm.error?.code, -32601);
      const m = sockName === 'request.sock' ? 'request' : 'grants.revoke';
      const bad = await w.call(m, sockName === 'request.sock' ? { source: 'api', tool: 't', action: 'write' } : { id: 42 });
      assert.equal(bad.error?.code, -32602, JSON.stringify(bad));
      assert.match(bad.error!.message, sockName === 'request.sock' ? /summary/ : /\bid\b/, 'the message names the field');
      // Still alive after all of that.
      const alive = await w.call('no.such.method.again');
      assert.equal(alive.error?.code, -32601);
      assert.equal(w.closed, false);
    } finally {
      w.close();
    }
  });

  test(`${sockName}: a line over 1 MiB is refused with -32600, and the daemon keeps serving`, async () => {
    const w = await Wire.open(path.join(d.home, sockName));
    try {
      const big = JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'request', params: { summary: 'x'.repeat(1_100_000) } });
      w.raw(big + '\n');
      const m = await w.expectOther((x) => x.error?.code === -32600, 'a -32600 for the oversized line', 15_000);
      assert.match(m.error!.message, /MiB|1048576|too long|large|size/i);
      assert.equal((await w.call('no.such.method')).error?.code, -32601, 'the same connection keeps working');
      // The daemon answers a fresh connection.
      const w2 = await Wire.open(path.join(d.home, sockName));
      try {
        assert.equal((await w2.call('no.such.method')).error?.code, -32601);
      } finally {
        w2.close();
      }
    } finally {
      w.close();
    }
  });
}

test('request.sock refuses every human-side method with -32601 (the agent can never decide, grant or read history)', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    for (const m of HUMAN_METHODS) {
      const r = await w.call(m, {});
      assert.equal(r.error?.code, -32601, `${m} on request.sock: ${JSON.stringify(r)}`);
    }
  } finally {
    w.close();
  }
});

test('request params are validated: an unknown source or action is -32602 naming the field', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const src = await w.call('request', { ...writeReq(), source: 'hacker' });
    assert.equal(src.error?.code, -32602);
    assert.match(src.error!.message, /source/);
    const act = await w.call('request', { ...writeReq(), action: 'obliterate' });
    assert.equal(act.error?.code, -32602);
    assert.match(act.error!.message, /action/);
    const notObj = await w.call('request', 'write everything');
    assert.equal(notObj.error?.code, -32602);
  } finally {
    w.close();
  }
});

test('request → a prompt with the documented fields → allow once → {decision, reason, event}; args recorded as sent', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const args = { content: 'hello', nested: { n: 1, list: [1, 'two'] } };
    const req = writeReq({ args, cwd: '/srv/bb' });
    const answer = w.call('request', req, 30_000);
    const p = await waitPending(ui, (x) => x.summary === req.summary, 'the prompt');
    const listed = await ui.ok<{ prompts: unknown[] }>('pending.list');
    assert.ok(Array.isArray(listed.prompts), 'pending.list answers {prompts: [...]}');
    for (const f of ['id', 'source', 'tool', 'action', 'resource', 'summary', 'args', 'risk', 'createdAt', 'expiresAt']) assert.ok(f in p, `prompt has ${f}: ${JSON.stringify(p)}`);
    assert.ok('task' in p, 'prompt has task (null when none)');
    assert.equal(p.source, 'api');
    assert.equal(p.tool, 'fs.write');
    assert.equal(p.action, 'write');
    assert.deepEqual(p.args, args);
    assert.ok(['low', 'medium', 'high', 'critical'].includes(p.risk.level), p.risk.level);
    assert.ok(Array.isArray(p.risk.reasons));
    // Who asks: the process tree of the requester (this test process).
    assert.ok(p.process, 'the prompt says which process asks');
    assert.equal(p.process!.pid, process.pid);
    assert.equal(p.process!.uid, process.getuid!());
    assert.ok(Array.isArray(p.process!.argv) && Array.isArray(p.process!.tree));
    assert.ok(new Date(String(p.expiresAt)).getTime() > new Date(String(p.createdAt)).getTime() || Number(p.expiresAt) > Number(p.createdAt), 'expires after it was created');
    const dr = await decide(p, 'allow');
    assert.equal(dr.error, undefined, JSON.stringify(dr));
    assert.equal(dr.result?.grant ?? undefined, undefined, 'allow once makes no grant');
    const a = await answer;
    assert.equal(a.error, undefined);
    assert.equal(a.result!.decision, 'allow');
    assert.equal(typeof a.result!.reason, 'string');
    assert.equal(typeof a.result!.event, 'number');
    // History holds the args exactly as sent.
    const h = await ui.ok<{ events: Record<string, unknown>[] }>('history.query', { text: req.summary as string, limit: 5 });
    const ev = h.events.find((e) => JSON.stringify(e).includes(String(req.resource)));
    assert.ok(ev, 'the event is in history');
    assert.ok(JSON.stringify(ev).includes(JSON.stringify(args)) || JSON.stringify(ev).includes(JSON.stringify(JSON.stringify(args))), `args as sent: ${JSON.stringify(ev)}`);
  } finally {
    w.close();
  }
});

test('deny answers decision "deny" with a reason; a second decide on the same prompt is an error, not a change', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const req = writeReq();
    const answer = w.call('request', req, 30_000);
    const p = await waitPending(ui, (x) => x.summary === req.summary, 'the prompt');
    assert.equal((await decide(p, 'deny')).error, undefined);
    const a = await answer;
    assert.equal(a.result!.decision, 'deny');
    assert.ok(String(a.result!.reason).length > 0);
    const again = await decide(p, 'allow');
    assert.ok(again.error, 'deciding an answered prompt fails');
    assert.equal(again.error!.code, -32004);
  } finally {
    w.close();
  }
});

test('pending.decide validates its params: bad decision / scope is -32602', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const req = writeReq();
    const answer = w.call('request', req, 30_000);
    const p = await waitPending(ui, (x) => x.summary === req.summary, 'the prompt');
    const bad1 = await ui.call('pending.decide', { id: p.id, decision: 'maybe', scope: 'once' });
    assert.equal(bad1.error?.code, -32602);
    assert.match(bad1.error!.message, /decision/);
    const bad2 = await ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'forever-and-ever' });
    assert.equal(bad2.error?.code, -32602);
    assert.match(bad2.error!.message, /scope/);
    assert.ok((await pendingList(ui)).some((x) => x.id === p.id), 'still waiting after the bad decides');
    await decide(p, 'deny');
    assert.equal((await answer).result!.decision, 'deny');
  } finally {
    w.close();
  }
});

test('subscribe: pending.added, pending.resolved, event.recorded and grants.changed arrive as notifications', async () => {
  const sub = await Wire.open(d.uiSock);
  const w = await Wire.open(d.requestSock);
  try {
    const s = await sub.call('subscribe');
    assert.equal(s.error, undefined);
    const req = writeReq();
    const answer = w.call('request', req, 30_000);
    await sub.expectOther((m) => m.method === 'pending.added' && JSON.stringify(m.params).includes(String(req.summary)), 'pending.added');
    const p = await waitPending(ui, (x) => x.summary === req.summary, 'the prompt');
    await decide(p, 'deny');
    await answer;
    await sub.expectOther((m) => m.method === 'pending.resolved' && JSON.stringify(m.params).includes(p.id), 'pending.resolved');
    await sub.expectOther((m) => m.method === 'event.recorded', 'event.recorded');
    const g = await ui.ok<Record<string, unknown>>('grants.create', { action: 'read', tool: 'bb.sub', effect: 'allow' });
    await sub.expectOther((m) => m.method === 'grants.changed', 'grants.changed');
    const gid = (g.id ?? (g.grant as { id?: string } | undefined)?.id) as string;
    assert.equal((await ui.call('grants.revoke', { id: gid })).error, undefined);
  } finally {
    w.close();
    sub.close();
  }
});

test('grants.create / grants.list / grants.revoke; an allow grant answers without a prompt; deny beats allow', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const allow = await ui.ok<Record<string, unknown>>('grants.create', { action: 'write', tool: 'bb.grant', resource: '/srv/g/**', effect: 'allow', note: 'bb allow' });
    const allowId = (allow.id ?? (allow.grant as { id?: string }).id) as string;
    assert.match(allowId, /\S/);
    const listed = await ui.ok<unknown>('grants.list', {});
    assert.ok(JSON.stringify(listed).includes(allowId), 'grants.list shows it');
    const a = await w.ok<Record<string, unknown>>('request', { source: 'api', tool: 'bb.grant', action: 'write', resource: '/srv/g/a/b.txt', summary: 'granted write' });
    assert.equal(a.decision, 'allow');
    assert.equal(a.grant, allowId, 'the answer names the grant that decided');
    const deny = await ui.ok<Record<string, unknown>>('grants.create', { action: 'write', tool: 'bb.grant', resource: '/srv/g/secret/**', effect: 'deny' });
    const denyId = (deny.id ?? (deny.grant as { id?: string }).id) as string;
    const b = await w.ok<Record<string, unknown>>('request', { source: 'api', tool: 'bb.grant', action: 'write', resource: '/srv/g/secret/x', summary: 'deny beats allow' });
    assert.equal(b.decision, 'deny');
    assert.equal(b.grant, denyId);
    assert.equal((await ui.call('grants.revoke', { id: allowId })).error, undefined);
    assert.equal((await ui.call('grants.revoke', { id: denyId })).error, undefined);
    // Revoked: the same write asks again (we deny it).
    const req = { source: 'api', tool: 'bb.grant', action: 'write', resource: '/srv/g/a/c.txt', summary: 'after revoke' };
    const ans = w.call('request', req, 30_000);
    const p = await waitPending(ui, (x) => x.summary === 'after revoke', 'a prompt after the revoke');
    await decide(p, 'deny');
    assert.equal((await ans).result!.decision, 'deny');
    const unknown = await ui.call('grants.revoke', { id: 'g_doesnotexist' });
    assert.equal(unknown.error?.code, -32004);
    const badSpec = await ui.call('grants.create', { action: 'write', effect: 'perhaps' });
    assert.equal(badSpec.error?.code, -32602);
    assert.match(badSpec.error!.message, /effect/);
  } finally {
    w.close();
  }
});

test('a `when` condition: compiled when the grant is made; true allows, false or an error never allows', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const broken = await ui.call('grants.create', { action: 'transfer', tool: 'bb.pay', effect: 'allow', when: 'args.amount <= <= 50' });
    assert.equal(broken.error?.code, -32602, `a condition that does not compile is refused: ${JSON.stringify(broken)}`);
    assert.match(broken.error!.message, /when/);
    const g = await ui.ok<Record<string, unknown>>('grants.create', { action: 'transfer', tool: 'bb.pay', resource: '*', effect: 'allow', when: 'args.amount <= 50' });
    const gid = (g.id ?? (g.grant as { id?: string }).id) as string;
    const ok = await w.ok<Record<string, unknown>>('request', { source: 'mcp', tool: 'bb.pay', action: 'transfer', resource: 'alice', summary: 'pay 40', args: { amount: 40 } });
    assert.equal(ok.decision, 'allow');
    for (const [summary, args] of [
      ['pay 60', { amount: 60 }],
      ['pay no amount', { to: 'bob' }],
      ['pay a string', { amount: 'lots' }],
    ] as const) {
      const ans = w.call('request', { source: 'mcp', tool: 'bb.pay', action: 'transfer', resource: 'alice', summary, args }, 30_000);
      const p = await waitPending(ui, (x) => x.summary === summary, `a prompt for "${summary}"`);
      await decide(p, 'deny');
      assert.equal((await ans).result!.decision, 'deny', summary);
    }
    await ui.ok('grants.revoke', { id: gid });
  } finally {
    w.close();
  }
});

test('task.start → {task, sshAuthSock, token}; on the shared socket the id alone cannot act as the task, the token can; task.end', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const t = await w.ok<{ task: string; sshAuthSock: string; token: string; requestSock: string }>('task.start', { name: 'bb task', cwd: '/srv/bb' });
    assert.match(t.task, /\S/);
    assert.ok(t.sshAuthSock.startsWith(path.join(d.home, 'tasks')), `the task's SSH socket is under tasks/: ${t.sshAuthSock}`);
    assert.ok(fs.statSync(t.sshAuthSock).isSocket());
    assert.equal(fs.statSync(path.join(d.home, 'tasks')).mode & 0o777, 0o700);
    assert.equal(typeof t.token, 'string');
    assert.notEqual(t.token, t.task);
    const tasks = await ui.ok<unknown>('tasks.list', {});
    assert.ok(JSON.stringify(tasks).includes(t.task));
    // The id alone: refused.
    const byId = await w.call('request', { ...writeReq(), task: t.task });
    assert.ok(byId.error, `the id alone must not act as the task: ${JSON.stringify(byId)}`);
    const endById = await w.call('task.end', { task: t.task });
    assert.ok(endById.error, 'task.end with the id alone is refused');
    // The token: the request belongs to the task.
    const req = writeReq({ task: t.token });
    const ans = w.call('request', req, 30_000);
    const p = await waitPending(ui, (x) => x.summary === req.summary, 'the task prompt');
    assert.ok(JSON.stringify(p.task).includes(t.task), `the prompt names the task: ${JSON.stringify(p.task)}`);
    // Allow for this task: a grant bound to the task; the next identical request is allowed by it.
    const dr = await decide(p, 'allow', 'task');
    assert.equal(dr.error, undefined, JSON.stringify(dr));
    assert.ok(dr.result?.grant, 'scope task returns the grant');
    assert.equal((await ans).result!.decision, 'allow');
    const again = await w.ok<Record<string, unknown>>('request', { ...req, summary: 'same write again' });
    assert.equal(again.decision, 'allow');
    assert.ok(again.grant, 'decided by the task grant');
    // The task's own request.sock: everything on it is the task's.
    const own = await Wire.open(t.requestSock ?? path.join(d.home, 'tasks', t.task, 'request.sock'));
    try {
      const viaOwn = await own.ok<Record<string, unknown>>('request', { ...req, summary: 'same write on the task socket' });
      assert.equal(viaOwn.decision, 'allow', 'the task grant answers on the task socket');
      const start = await own.call('task.start', { name: 'escape' });
      assert.ok(start.error, 'no task.start from a task socket');
    } finally {
      own.close();
    }
    assert.deepEqual(await w.ok('task.end', { task: t.token }), {});
    // Ended: the task grant no longer answers; naming the task is refused.
    const after = await w.call('request', { ...req, summary: 'after task end' });
    assert.ok(after.error || after.result?.decision === 'deny', `an ended task acts no more: ${JSON.stringify(after)}`);
  } finally {
    w.close();
  }
});

test('task.start with grants shows them to the human first; nothing is granted silently', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const started = w.call('task.start', { name: 'bb with grants', grants: [{ action: 'write', tool: 'bb.tg', resource: '/srv/tg/**', effect: 'allow' }] }, 30_000);
    const p = await waitPending(ui, (x) => JSON.stringify(x).includes('bb with grants'), 'the grants prompt');
    assert.match(JSON.stringify(p), /\/srv\/tg\/\*\*/, 'the prompt shows the grant asked for');
    await decide(p, 'deny');
    const r = await started;
    if (r.error === undefined) {
      const t = r.result as { task: string; token: string; grants?: unknown[] };
      assert.equal((t.grants ?? []).length, 0, 'denied: no grants');
      const gl = await ui.ok<unknown>('grants.list', { task: t.task });
      assert.ok(!JSON.stringify(gl).includes('/srv/tg/**'), 'nothing granted');
      await w.ok('task.end', { task: t.token });
    }
  } finally {
    w.close();
  }
});

test('tasks.end (human side) ends a task and its open prompts are denied', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const t = await w.ok<{ task: string; token: string }>('task.start', { name: 'bb ended by human' });
    const req = writeReq({ task: t.token });
    const ans = w.call('request', req, 30_000);
    await waitPending(ui, (x) => x.summary === req.summary, 'the prompt');
    assert.equal((await ui.call('tasks.end', { task: t.task })).error, undefined);
    assert.equal((await ans).result!.decision, 'deny');
  } finally {
    w.close();
  }
});

test('a requester that disconnects is denied, and its prompt leaves the queue', async () => {
  const w = await Wire.open(d.requestSock);
  const req = writeReq();
  void w.call('request', req, 30_000).catch(() => undefined);
  const p = await waitPending(ui, (x) => x.summary === req.summary, 'the prompt');
  w.close();
  await waitFor(async () => !(await pendingList(ui)).some((x) => x.id === p.id), 'the prompt to leave the queue');
  const h = await ui.ok<{ events: Record<string, unknown>[] }>('history.query', { text: String(req.summary), limit: 5 });
  const ev = h.events.find((e) => JSON.stringify(e).includes(String(req.resource)));
  assert.ok(ev && JSON.stringify(ev).includes('deny'), `recorded as a denial: ${JSON.stringify(ev)}`);
});

test('history.query filters (source, action, decision, text, since) and pages with limit + cursor', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    // Reads are allowed by default: ten quick events with a marker.
    for (let i = 0; i < 10; i++) await w.ok('request', { source: 'claude-code', tool: 'Read', action: 'read', resource: `/srv/hq/${i}`, summary: `hqmarker read ${i}` });
    const all = await ui.ok<{ events: Record<string, unknown>[]; cursor?: unknown }>('history.query', { text: 'hqmarker' });
    assert.equal(all.events.length, 10);
    const bySrc = await ui.ok<{ events: Record<string, unknown>[] }>('history.query', { source: 'claude-code', action: 'read', decision: 'allow', text: 'hqmarker' });
    assert.equal(bySrc.events.length, 10);
    const none = await ui.ok<{ events: Record<string, unknown>[] }>('history.query', { source: 'mcp', text: 'hqmarker' });
    assert.equal(none.events.length, 0);
    const denied = await ui.ok<{ events: Record<string, unknown>[] }>('history.query', { decision: 'deny', text: 'hqmarker' });
    assert.equal(denied.events.length, 0);
    const future = await ui.ok<{ events: Record<string, unknown>[] }>('history.query', { since: new Date(Date.now() + 3_600_000).toISOString(), text: 'hqmarker' });
    assert.equal(future.events.length, 0, 'since in the future finds nothing');
    // Paging: 4 + 4 + 2, no duplicates.
    const seen = new Set<string>();
    let cursor: unknown;
    for (let page = 0; page < 5; page++) {
      const r = await ui.ok<{ events: { id?: unknown; resource?: unknown }[]; cursor?: unknown }>('history.query', { text: 'hqmarker', limit: 4, ...(cursor !== undefined && cursor !== null ? { cursor } : {}) });
      for (const e of r.events) seen.add(JSON.stringify(e.id ?? e.resource));
      cursor = r.cursor;
      if (cursor === undefined || cursor === null || r.events.length === 0) break;
    }
    assert.equal(seen.size, 10, 'every event once across the pages');
    const bad = await ui.call('history.query', { limit: -3 });
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /limit/);
  } finally {
    w.close();
  }
});

test('audit.verify → {ok: true, count}', async () => {
  const r = await ui.ok<{ ok: boolean; count: number; firstBad?: unknown }>('audit.verify');
  assert.equal(r.ok, true);
  assert.ok(r.count > 10, `count ${r.count}`);
  assert.equal(r.firstBad ?? undefined, undefined);
});

test('settings.get / settings.set: promptTimeoutSec; no answer in time is a deny recorded as a timeout', async () => {
  const s = await ui.ok<Record<string, unknown>>('settings.get');
  assert.ok('promptTimeoutSec' in s || JSON.stringify(s).includes('promptTimeoutSec'), JSON.stringify(s));
  const bad = await ui.call('settings.set', { promptTimeoutSec: 'soon' });
  assert.equal(bad.error?.code, -32602);
  await ui.ok('settings.set', { promptTimeoutSec: 2 });
  const w = await Wire.open(d.requestSock);
  try {
    const req = writeReq();
    const t0 = Date.now();
    const a = await w.ok<Record<string, unknown>>('request', req, 20_000);
    assert.equal(a.decision, 'deny');
    assert.match(String(a.reason), /no answer within 2 s|time/i);
    assert.ok(Date.now() - t0 >= 1500 && Date.now() - t0 < 15_000, `timed out after ${Date.now() - t0} ms`);
    const h = await ui.ok<{ events: Record<string, unknown>[] }>('history.query', { text: String(req.summary), limit: 5 });
    assert.match(JSON.stringify(h.events), /timeout/, 'recorded as a timeout');
  } finally {
    w.close();
    await ui.ok('settings.set', { promptTimeoutSec: 60 });
  }
});

test('a write into .git/hooks then git commit in one task is critical: an allow grant alone does not answer it', async () => {
  const w = await Wire.open(d.requestSock);
  const repo = fs.mkdtempSync(path.join(root, 'repo-'));
  fs.mkdirSync(path.join(repo, '.git', 'hooks'), { recursive: true });
  try {
    const t = await w.ok<{ task: string; token: string }>('task.start', { name: 'bb chain', cwd: repo });
    const g = await ui.ok<Record<string, unknown>>('grants.create', { task: t.task, action: 'execute', resource: '*', effect: 'allow' });
    const hookWrite = { source: 'api', tool: 'fs.write', action: 'write', resource: path.join(repo, '.git/hooks/pre-commit'), summary: 'bb write hook', task: t.token, cwd: repo };
    const a1 = w.call('request', hookWrite, 30_000);
    const p1 = await waitPending(ui, (x) => x.summary === 'bb write hook', 'the hook write prompt');
    assert.ok(['high', 'critical'].includes(p1.risk.level), `a git hook write is risky: ${p1.risk.level}`);
    await decide(p1, 'allow');
    assert.equal((await a1).result!.decision, 'allow');
    const commit = { source: 'exec', tool: 'git', action: 'execute', resource: 'git commit -m x', summary: 'bb git commit', task: t.token, cwd: repo, args: { argv: ['git', 'commit', '-m', 'x'] } };
    const a2 = w.call('request', commit, 30_000);
    const p2 = await waitPending(ui, (x) => x.summary === 'bb git commit' || (x.task !== null && JSON.stringify(x).includes('git commit')), 'the commit is asked despite the grant');
    assert.equal(p2.risk.level, 'critical');
    // "Always" is refused for it, whichever client asks.
    const always = await decide(p2, 'allow', 'always');
    assert.ok(always.error, `an always-allow on a critical prompt is refused: ${JSON.stringify(always)}`);
    await decide(p2, 'deny');
    assert.equal((await a2).result!.decision, 'deny');
    await ui.ok('grants.revoke', { id: (g.id ?? (g.grant as { id?: string }).id) as string });
    await w.ok('task.end', { task: t.token });
  } finally {
    w.close();
  }
});
