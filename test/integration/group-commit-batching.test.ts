// Group commit really forms batches through the real socket path (issue 15): with 32 clients
// each waiting for its answer before asking again, the daemon commits many decisions per
// transaction; one sequential client gets one transaction per decision (it never waits for
// a batch to fill). The count is the daemon's own (store.commitStats, logged at shutdown as
// "history: N events committed in T transactions"), and every answered event is in the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { startDaemon, type Daemon } from '../helpers/daemon';
import { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';

const params = (i: number) => ({ source: 'api', tool: 'gc.tool', action: 'write', resource: `/gc/${i}`, summary: `gc ${i}` });

async function granted(): Promise<Daemon> {
  const d = await startDaemon();
  const ui = await d.ui();
  await ui.call('grants.create', { action: 'write', tool: 'gc.tool', effect: 'allow' });
  ui.close();
  return d;
}

function commitLine(d: Daemon): { events: number; transactions: number; largest: number } {
  const m = /history: (\d+) events committed in (\d+) transactions \(largest (\d+)\)/.exec(d.output());
  assert.ok(m, `the daemon logs its group-commit count at shutdown; output was:\n${d.output()}`);
  return { events: Number(m[1]), transactions: Number(m[2]), largest: Number(m[3]) };
}

function eventIds(d: Daemon): Set<number> {
  const db = new Database(path.join(d.home, 'airlock.db'), { readonly: true });
  try {
    return new Set((db.prepare("SELECT id FROM events WHERE tool = 'gc.tool' AND decision = 'allow'").all() as { id: number }[]).map((r) => r.id));
  } finally {
    db.close();
  }
}

test('group commit: 32 concurrent clients share transactions, and every answer is committed', async () => {
  const d = await granted();
  const answers: AgentAnswer[] = [];
  const clients = await Promise.all(Array.from({ length: 32 }, () => RpcClient.connect(d.requestSock)));
  await Promise.all(
    clients.map(async (c, k) => {
      for (let i = 0; i < 25; i++) answers.push((await c.call('request', params(k * 100 + i))) as AgentAnswer);
    }),
  );
  clients.forEach((c) => c.close());
  await d.stop();
  assert.equal(answers.length, 800);
  assert.ok(answers.every((a) => a.decision === 'allow'), 'every request was granted');
  const g = commitLine(d);
  assert.ok(g.events >= 800, `all 800 decisions were committed (${g.events})`);
  // Each client has one request in flight, so each turn of the loop sees several; well
  // under one transaction per decision proves they were committed together.
  assert.ok(g.transactions <= g.events / 3, `batches formed: ${g.events} events in ${g.transactions} transactions`);
  assert.ok(g.largest >= 4, `some batch held several decisions (largest ${g.largest})`);
  const ids = eventIds(d);
  for (const a of answers) assert.ok(ids.has(a.event), `answered event ${a.event} is in history`);
});

test('group commit: a lone sequential client commits alone, one transaction per decision', async () => {
  const d = await granted();
  const c = await RpcClient.connect(d.requestSock);
  for (let i = 0; i < 40; i++) assert.equal(((await c.call('request', params(i))) as AgentAnswer).decision, 'allow');
  c.close();
  await d.stop();
  const g = commitLine(d);
  assert.equal(g.transactions, g.events, `a lone request commits on its own (${g.events} events, ${g.transactions} transactions)`);
  assert.equal(g.largest, 1);
  assert.equal(eventIds(d).size, 40);
});
