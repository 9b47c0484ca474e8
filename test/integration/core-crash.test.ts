// kill -9 while 16 clients are being answered; after a restart every answered request
// is in history and the chain verifies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon } from '../helpers/daemon';
import { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import type { HistoryEvent } from '../../main/contract/approver';

test('crash: every answered request survives kill -9 and the chain verifies', async () => {
  const d = await startDaemon();
  const ui = await d.ui();
  await ui.call('grants.create', { action: 'write', tool: 'crash.tool', effect: 'allow' });
  ui.close();
  const answered: number[] = [];
  let stop = false;
  const clients = await Promise.all(Array.from({ length: 16 }, () => RpcClient.connect(d.requestSock)));
  const loops = clients.map(async (c, i) => {
    for (let n = 0; n < 5000 && !stop; n++) {
      try {
        const a = await c.call<AgentAnswer>('request', { source: 'api', tool: 'crash.tool', action: 'write', resource: `/c/${i}/${n}`, summary: `client ${i} #${n}` });
        answered.push(a.event);
      } catch {
        return;
      }
    }
  });
  // Kill once a good number are answered (bounded: at most 20 s), not after a fixed time:
  // on a loaded 2-core machine 400 ms was a dozen answers.
  for (const until = Date.now() + 20_000; answered.length < 200 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 25));
  await d.kill();
  stop = true;
  await Promise.all(loops);
  assert.ok(answered.length > 16, `only ${answered.length} answered before the kill`);

  const d2 = await d.restart();
  try {
    const ui2 = await d2.ui();
    const v = await ui2.call<{ ok: boolean; count: number }>('audit.verify', {});
    assert.equal(v.ok, true);
    const ids = new Set<number>();
    let cursor: string | null = null;
    for (let i = 0; i < 1000; i++) {
      const r: { events: HistoryEvent[]; cursor: string | null } = await ui2.call('history.query', { source: 'api', limit: 1000, ...(cursor ? { cursor } : {}) });
      for (const e of r.events) ids.add(e.id);
      cursor = r.cursor;
      if (!cursor) break;
    }
    const missing = answered.filter((id) => !ids.has(id));
    assert.deepEqual(missing, [], `${missing.length} answered events missing`);
    // And the restarted daemon keeps answering and chaining.
    const c = await d2.agent();
    const a = await c.call<AgentAnswer>('request', { source: 'api', tool: 'crash.tool', action: 'write', resource: '/after', summary: 'after restart' });
    assert.equal(a.decision, 'allow');
    assert.equal(a.event, v.count + 1);
    c.close();
    ui2.close();
  } finally {
    await d2.stop();
  }
});
