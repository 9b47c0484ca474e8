// Black-box, wave 13: history must say which remote a request came from (docs/remote.md:
// "History records the remote with the event"). `airlock history` printed a remote's
// `rm -rf` exactly like this machine's, and nothing filtered by remote. Now the table has a
// FROM column and `--remote NAME` (history.query `remote`) keeps what came from that remote.
// The remote's side is its socket, spoken to as the far end of `ssh -R` would (raw JSON-RPC).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Wire, airlock, closeBlackboxSession, openBlackboxSession, waitPending, type BlackboxSession } from '../helpers/blackbox';

let s: BlackboxSession;
let remoteSock = '';

before(async () => {
  s = await openBlackboxSession('bb13h-');
  const add = await airlock(['remote', 'add', 'build', 'ci@build.example', '--json'], { env: s.d.env });
  assert.equal(add.code, 0, add.stderr);
  remoteSock = (JSON.parse(add.stdout) as { remote: { socket: string } }).remote.socket;
});
after(async () => closeBlackboxSession(s));

const del = (resource: string) => ({ source: 'api', tool: 'rm', action: 'delete', resource, summary: `rm -rf ${resource}` });

/** Asks on `sock` and denies the prompt it makes; the event id. */
async function askedAndDenied(sock: string, resource: string): Promise<number> {
  const w = await Wire.open(sock);
  try {
    const answer = w.call('request', del(resource));
    const p = await waitPending(s.ui, (x) => x.resource === resource, `the prompt for ${resource}`);
    await s.ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    const r = await answer;
    return (r.result as { event: number }).event;
  } finally {
    w.close();
  }
}

test('airlock history says where each event came from, and --remote keeps one remote\'s', async () => {
  const fromRemote = await askedAndDenied(remoteSock, '/srv/app');
  const fromHere = await askedAndDenied(s.d.requestSock, '/home/me/app');
  const h = await airlock(['history', '-n', '5'], { env: s.d.env });
  assert.equal(h.code, 0, h.stderr);
  const header = h.stdout.split('\n')[0]!;
  assert.match(header, /\bFROM\b/, h.stdout);
  // The columns before it keep their places (scripts cut them): FROM comes just before SUMMARY.
  assert.deepEqual(header.trim().split(/\s+/), ['ID', 'TIME', 'DECISION', 'BY', 'SOURCE', 'ACTION', 'RISK', 'FROM', 'SUMMARY'], header);
  const row = (id: number) => h.stdout.split('\n').find((l) => l.startsWith(`${id} `)) ?? '';
  assert.match(row(fromRemote), /\bremote build\b/, `the remote's row names it:\n${h.stdout}`);
  assert.match(row(fromHere), /\bthis machine\b/, h.stdout);
  assert.doesNotMatch(row(fromHere), /remote build/);

  const only = await airlock(['history', '--remote', 'build', '--json'], { env: s.d.env });
  assert.equal(only.code, 0, only.stderr);
  const events = only.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: number; remote: { name: string } | null });
  assert.ok(events.some((e) => e.id === fromRemote), only.stdout);
  assert.ok(events.every((e) => e.remote?.name === 'build'), 'nothing of this machine');
  const q = await s.ui.ok<{ events: { id: number }[] }>('history.query', { remote: 'build', limit: 50 });
  assert.deepEqual(q.events.map((e) => e.id), events.map((e) => e.id), 'ui.sock history.query filters the same');
  // Read straight from the database file too (the daemon may be down).
  const db = await airlock(['history', '--remote', 'build', '--json', '--db', `${s.d.home}/airlock.db`], { env: s.d.env });
  assert.equal(db.code, 0, db.stderr);
  assert.ok(db.stdout.includes(`"id":${fromRemote}`), db.stdout);

  const typo = await airlock(['history', '--remote', 'biuld'], { env: s.d.env });
  assert.equal(typo.code, 64, typo.stdout + typo.stderr);
  assert.match(typo.stderr, /remote/);
  const bad = await airlock(['history', '--remote', '../x'], { env: s.d.env });
  assert.equal(bad.code, 64, bad.stdout + bad.stderr);
});
