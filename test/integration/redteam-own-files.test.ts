// Red team: an agent with a broad delete or write grant goes after Airlock itself, under a
// custom AIRLOCK_HOME (the default locations are matched by name in core/risk.ts; a custom
// home only the running daemon knows). Real daemon: the grant answers for the workspace
// beside Airlock's files, never for the database, keys, sockets or a directory holding them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Daemon } from '../helpers/daemon';
import type { Human } from '../helpers/human';
import { closeDaemonSession, openDaemonSession } from '../helpers/daemon-session';
import type { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;

before(async () => {
  ({ d, ui, agent, human } = await openDaemonSession());
});
after(() => closeDaemonSession({ d, ui, agent }));

test(`a grant for everything still asks, critical, before Airlock's own files under a custom AIRLOCK_HOME are written or deleted (and before rm -rf of the directory holding them); the workspace beside them is granted`, async () => {
  const work = path.join(d.home, 'work');
  fs.mkdirSync(work, { recursive: true });
  await ui.call('grants.create', { action: 'delete', resource: '**', effect: 'allow', note: 'everything' });
  await ui.call('grants.create', { action: 'write', resource: '**', effect: 'allow', note: 'everything' });
  await ui.call('grants.create', { source: 'claude-code', tool: 'Bash', action: 'delete', resource: '**', effect: 'allow', note: 'any rm' });

  // Control: the grants answer for the workspace (so the test can fail).
  const plain = await agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.delete', action: 'delete', resource: path.join(work, 'old.txt'), summary: 'delete old.txt' });
  assert.equal(plain.decision, 'allow');
  assert.equal(human.unanswered().length, 0);

  const attempts: Record<string, unknown>[] = [
    { source: 'api', tool: 'fs.delete', action: 'delete', resource: path.join(d.home, 'airlock.db'), summary: 'tidy up a database' },
    { source: 'api', tool: 'fs.write', action: 'write', resource: path.join(d.home, 'keys', 'master.secret'), summary: 'rotate a file' },
    { source: 'api', tool: 'fs.delete', action: 'delete', resource: path.join(d.home, 'request.sock'), summary: 'remove a stale socket' },
    { source: 'claude-code', tool: 'Bash', action: 'delete', summary: 'clean the folder', args: { command: `rm -rf ${d.home}` }, cwd: work },
    { source: 'claude-code', tool: 'Bash', action: 'delete', summary: 'clean up', args: { command: 'rm -rf ../airlock.db-wal ../tasks' }, cwd: work },
  ];
  for (const req of attempts) {
    const answer = agent.call<AgentAnswer>('request', req);
    answer.catch(() => undefined);
    const p = await human.next(10_000);
    assert.equal(p.risk.level, 'critical', `${JSON.stringify(req)}: ${p.risk.reasons.join(' | ')}`);
    assert.ok(p.risk.reasons.some((r) => /Airlock's own files.*switch Airlock off/.test(r)), p.risk.reasons.join(' | '));
    await human.decide(p.id, 'deny');
    assert.equal((await answer).decision, 'deny');
  }
  assert.ok(fs.existsSync(path.join(d.home, 'airlock.db')));
});
