// `airlock mcp`: the protocol's plumbing (ping, tools/list, completion/complete,
// logging/setLevel, resources/list, notifications/…) passes unasked only while its params hold
// the protocol's own fields. A hostile client putting data there (`ping {"secret": …}`, a
// 20 KB cursor, a long id) had it reach the server unasked and unrecorded; now such a message
// is asked like a method nobody knows — recorded with what it carried, and denied, never sent.
// The puppet server (test/helpers/mcp-puppet.ts) shows what reached the server; the daemon is real.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pendingList, waitPending } from '../helpers/blackbox';
import { mcpBlackbox } from '../helpers/mcp-blackbox';
import { PuppetProxy } from '../helpers/mcp-puppet';

const s = mcpBlackbox('mcpleft-p-', 'srv-');
const SECRET = 'AKIA-mcpleft-carried-secret';

describe('plumbing that carries data is asked and recorded', () => {
  test('ping, tools/list, completion/complete, logging/setLevel, resources/list and a notification carrying data are asked, recorded with what they carried, and denied never reach the server; plain plumbing still passes unasked', async () => {
    const x = await PuppetProxy.start(s.d.env, 'mlparams', s.dir);
    try {
      await x.init([]);
      // Plain plumbing: passes, no prompt.
      x.send({ jsonrpc: '2.0', id: 'plain-ping', method: 'ping' });
      x.send({ jsonrpc: '2.0', id: 'plain-list', method: 'tools/list', params: { cursor: 'page-2', _meta: { progressToken: 1 } } });
      x.send({ jsonrpc: '2.0', id: 'plain-level', method: 'logging/setLevel', params: { level: 'info' } });
      x.send({ jsonrpc: '2.0', id: 'plain-complete', method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'lang', value: 'ty' } } });
      x.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 5, total: 10 } });
      for (const id of ['plain-ping', 'plain-list', 'plain-level', 'plain-complete']) await x.atServer((m) => m.id === id, id);
      await x.atServer((m) => m.method === 'notifications/progress', 'the progress notification');
      assert.deepEqual((await pendingList(s.ui)).filter((p) => p.tool.startsWith('mlparams/')), [], 'plain plumbing is not asked');

      const carrying: [string, object][] = [
        ['c-ping', { jsonrpc: '2.0', id: 'c-ping', method: 'ping', params: { secret: SECRET } }],
        ['c-list', { jsonrpc: '2.0', id: 'c-list', method: 'resources/list', params: { cursor: `${SECRET}${'x'.repeat(20_000)}` } }],
        ['c-complete', { jsonrpc: '2.0', id: 'c-complete', method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'lang', value: 'ty' }, exfil: SECRET } }],
        ['c-level', { jsonrpc: '2.0', id: 'c-level', method: 'logging/setLevel', params: { level: 'debug', data: SECRET } }],
        ['c-tools', { jsonrpc: '2.0', id: 'c-tools', method: 'tools/list', params: [SECRET] }],
      ];
      for (const [, m] of carrying) x.send(m);
      x.send({ jsonrpc: '2.0', method: 'notifications/initialized', params: { note: SECRET } });
      const methods = ['ping', 'resources/list', 'completion/complete', 'logging/setLevel', 'tools/list', 'notifications/initialized'];
      for (const method of methods) {
        const p = await waitPending(s.ui, (q) => q.tool === `mlparams/${method}`, `the ${method} prompt`, 20_000);
        assert.equal(p.action, 'other');
        assert.ok(JSON.stringify(p.args).includes(SECRET), `the prompt shows what ${method} carried: ${JSON.stringify(p.args).slice(0, 300)}`);
        assert.ok(JSON.stringify(p.risk.reasons).includes('beyond the protocol'), JSON.stringify(p.risk.reasons));
        await s.ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
      }
      for (const [id] of carrying) {
        const a = await x.answer(id);
        assert.equal(a.error?.code, -32003, JSON.stringify(a));
        assert.match(a.error?.message ?? '', /^Denied by Airlock/);
      }
      // A long id is data too: refused.
      const longId = `id-${SECRET}-${'y'.repeat(300)}`;
      x.send({ jsonrpc: '2.0', id: longId, method: 'ping' });
      assert.match((await x.answer(longId)).error?.message ?? '', /a request id longer than 256 characters/);
      x.send({ jsonrpc: '2.0', id: 'sync', method: 'ping' });
      const sync = await x.atServer((m) => m.id === 'sync', 'the last ping');
      x.serverSays({ jsonrpc: '2.0', id: sync.id, result: {} });
      await x.answer('sync');
      assert.ok(!x.server.raw.some((l) => l.includes(SECRET)), 'nothing carried reached the server');
      // History holds each of them with what it carried.
      const h = await s.ui.ok<{ events: { tool: string; decision: string; args?: unknown }[] }>('history.query', { text: 'mlparams', limit: 50 });
      for (const method of methods) {
        const e = h.events.find((ev) => ev.tool === `mlparams/${method}`);
        assert.ok(e, `${method} is in history`);
        assert.equal(e.decision, 'deny');
        assert.ok(JSON.stringify(e.args).includes(SECRET), `history holds what ${method} carried`);
      }
    } finally {
      await x.close();
    }
  });

  test('allowed, plumbing that carried data reaches the server as asked about, and is in history as allowed', async () => {
    const x = await PuppetProxy.start(s.d.env, 'mlparams2', s.dir);
    try {
      await x.init([]);
      x.send({ jsonrpc: '2.0', id: 'a-ping', method: 'ping', params: { note: 'hello' } });
      const p = await waitPending(s.ui, (q) => q.tool === 'mlparams2/ping', 'the ping prompt', 20_000);
      await s.ui.ok('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
      const at = await x.atServer((m) => m.id === 'a-ping', 'the allowed ping');
      assert.deepEqual(at.params, { note: 'hello' });
      x.serverSays({ jsonrpc: '2.0', id: at.id, result: {} });
      assert.deepEqual((await x.answer('a-ping')).result, {});
      const h = await s.ui.ok<{ events: { tool: string; decision: string; args?: unknown }[] }>('history.query', { text: 'mlparams2', limit: 10 });
      const e = h.events.find((ev) => ev.tool === 'mlparams2/ping');
      assert.equal(e?.decision, 'allow', JSON.stringify(h.events));
      assert.ok(JSON.stringify(e.args).includes('hello'), 'history holds what the ping carried');
    } finally {
      await x.close();
    }
  });
});
