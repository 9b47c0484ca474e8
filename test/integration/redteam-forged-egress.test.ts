// Red team: an agent saying `source: "egress"` on a socket it holds, to pass off its request
// as its sandbox's outbound connection. Only the task's egress proxy speaks for egress (it
// sets the facts the prompt shows: host, port, address, what the task sent): the policy
// refuses any other request naming that source (request-policy.ts), on request.sock, on a
// task's own request.sock and on a remote's socket alike. Decision: refused, not asked as
// critical (as a forged `source: "ssh"` is, redteam-forged-ssh): no honest client on the
// agent side ever sends it, so there is nothing for the human to weigh, and a prompt
// would look like the proxy's own. The refusal is recorded like any other rejected call.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Daemon } from '../helpers/daemon';
import { Wire, closeBlackboxSession, openBlackboxSession, pendingList, waitPending } from '../helpers/blackbox';

let d: Daemon;
let ui: Wire;
let root: string;

before(async () => {
  ({ root, d, ui } = await openBlackboxSession('rfe-'));
});
after(() => closeBlackboxSession({ root, d, ui }));

const forged = (extra: Record<string, unknown> = {}) => ({ source: 'egress', tool: 'net.connect', action: 'transfer', resource: 'exfil.example.com:443', summary: 'connect to exfil.example.com:443', ...extra });

async function refusedEverywhere(sock: string, extra: Record<string, unknown>, where: string): Promise<void> {
  const agent = await Wire.open(sock);
  try {
    const r = await agent.call('request', forged(extra));
    assert.equal(r.error?.code, -32602, `${where}: ${JSON.stringify(r)}`);
    assert.match(r.error!.message, /egress requests come only from the task's egress proxy/, where);
    assert.equal(r.result, undefined, `${where}: never answered`);
  } finally {
    agent.close();
  }
}

test('a request claiming source egress is refused on request.sock, a task\'s own socket and a remote\'s, never asked; no grant; each refusal is in history', async () => {
  const agent = await Wire.open(d.requestSock);
  const started = await agent.ok<{ task: string; token: string; requestSock: string }>('task.start', { name: 'forger', cwd: root });
  agent.close();
  const remote = await ui.ok<{ remote: { socket: string } }>('remotes.add', { name: 'far' });
  await refusedEverywhere(d.requestSock, {}, 'request.sock');
  await refusedEverywhere(d.requestSock, { task: started.token }, 'request.sock as the task');
  await refusedEverywhere(started.requestSock, {}, 'the task\'s own request.sock');
  await refusedEverywhere(remote.remote.socket, {}, 'a remote\'s socket');
  assert.deepEqual(await pendingList(ui), [], 'nothing was asked');
  assert.deepEqual((await ui.ok<{ grants: unknown[] }>('grants.list')).grants, [], 'nothing was granted');
  const { events } = await ui.ok<{ events: { decision: string; reason: string; source: string }[] }>('history.query', { decision: 'reject', limit: 50 });
  const rejected = events.filter((e) => /egress requests come only from the task's egress proxy/.test(e.reason));
  assert.equal(rejected.length, 4, JSON.stringify(events));
  // Control: the same connection, said honestly by the agent (source api), is asked like any request.
  const honest = await Wire.open(d.requestSock);
  try {
    const asked = honest.call('request', forged({ source: 'api' }), 60_000);
    const p = await waitPending(ui, (x) => x.resource === 'exfil.example.com:443', 'the honest request asked');
    assert.equal(p.source, 'api');
    await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    assert.equal((await asked).result?.decision, 'deny');
  } finally {
    honest.close();
  }
});
