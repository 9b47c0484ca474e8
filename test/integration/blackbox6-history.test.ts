// Black-box, sixth wave: history filters as DESIGN.md (`history.query {task, source, action,
// tool, decision, text, since, until, limit, cursor}`) and `airlock history --help` promise
// them — a typo is an error naming the field, never a silent empty page; times are what the
// help says (ISO or a duration ago); full-text search takes any text a person types; paging
// while events keep arriving gives each event once; and it all works with the daemon stopped.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Wire, airlock, closeBlackboxSession, openBlackboxSession, type BlackboxSession } from '../helpers/blackbox';

let s: BlackboxSession;
let env: NodeJS.ProcessEnv;
let agent: Wire;

interface Event {
  id: number;
  ts: number;
  task: string | null;
  source: string;
  tool: string;
  summary: string;
  decision: string;
}
type Page = { events: Event[]; cursor: string | null };

const WEIRD = 'bb6 weird "quoted" NEAR(a b) foo-bar:baz (unbalanced * ünïcødé 日本語 emoji🔑 -minus';

before(async () => {
  s = await openBlackboxSession('bb6h-');
  env = { ...process.env, AIRLOCK_HOME: s.d.home };
  agent = await Wire.open(s.d.requestSock);
  await agent.ok('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb6/weird', summary: WEIRD });
  await agent.ok('request', { source: 'api', tool: 'cat', action: 'read', resource: '/bb6/plain', summary: 'bb6 plain read' });
});
after(async () => {
  agent?.close();
  await closeBlackboxSession(s);
});

const query = (p: Record<string, unknown>): Promise<Page> => s.ui.ok<Page>('history.query', p);

test('history --source misspelt (and --task naming no task) is a usage error naming the field, not "no events" with exit 0 — through the daemon and on ui.sock; a real source with no events yet is an empty page', async () => {
  for (const [flag, v] of [['--source', 'ecex'], ['--source', 'API'], ['--task', 't_doesnotexist']] as const) {
    const r = await airlock(['history', flag, v], { env });
    assert.equal(r.code, 64, `history ${flag} ${v}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, new RegExp(flag.slice(2)), `names the field: ${r.stderr}`);
    assert.ok(r.stderr.includes(v), `and the value: ${r.stderr}`);
    assert.doesNotMatch(r.stdout, /no events/);
    const rpc = await s.ui.call('history.query', { [flag.slice(2)]: v });
    assert.equal(rpc.error?.code, -32602, JSON.stringify(rpc));
    assert.match(rpc.error!.message, new RegExp(flag.slice(2)));
  }
  // The message lists the sources this history holds, so the fix is one copy away.
  const r = await airlock(['history', '--source', 'ecex'], { env });
  assert.match(r.stderr, /\bapi\b/, r.stderr);
  // Known sources, and sources that are in this history (a socket's name for rejected lines), are fine.
  const ssh = await airlock(['history', '--source', 'ssh'], { env });
  assert.equal(ssh.code, 0, ssh.stderr);
  assert.match(ssh.stdout, /no events/);
  await s.ui.call('no.such.method', {});
  const ui = await airlock(['history', '--source', 'ui.sock', '--json'], { env });
  assert.equal(ui.code, 0, ui.stderr);
  assert.ok(ui.stdout.split('\n').filter(Boolean).every((l) => (JSON.parse(l) as Event).source === 'ui.sock'));
  assert.ok(ui.stdout.length > 0, 'the rejected ui.sock line is found by its source');
});

test('--since/--until take what the help says (ISO time, or a duration ago): "0", "11/24/2026", "2026-02-30", "yesterday", "-5h" are exit 64 naming the value; since after until is an error, not an empty page', async () => {
  for (const bad of ['0', '12', '11/24/2026', '2026-02-30', '2026-13-01', 'yesterday', '-5h', '1.5h', '2026']) {
    for (const flag of ['--since', '--until']) {
      const r = await airlock(['history', flag, bad], { env });
      assert.equal(r.code, 64, `${flag} ${bad}: ${r.stdout}${r.stderr}`);
      assert.ok(r.stderr.includes(bad), `names the value: ${r.stderr}`);
    }
  }
  const today = new Date().toISOString().slice(0, 10);
  for (const good of ['2h', '1d', '30m', today, `${today}T00:00:00Z`, `${today}T00:00`, `${today}T00:00:00.000+00:00`]) {
    const r = await airlock(['history', '--since', good, '--json'], { env });
    assert.equal(r.code, 0, `--since ${good}: ${r.stderr}`);
    assert.match(r.stdout, /bb6 plain read/, `--since ${good} finds today's events`);
  }
  const swapped = await airlock(['history', '--since', '10m', '--until', '1h'], { env });
  assert.equal(swapped.code, 64, `since after until: ${swapped.stdout}${swapped.stderr}`);
  assert.match(swapped.stderr, /since/);
  assert.match(swapped.stderr, /until/);
  const now = Date.now();
  const rpc = await s.ui.call('history.query', { since: now, until: now - 3_600_000 });
  assert.equal(rpc.error?.code, -32602, JSON.stringify(rpc));
  for (const bad of ['0', '11/24/2026', '2026-02-30', 'yesterday']) {
    const r = await s.ui.call('history.query', { since: bad });
    assert.equal(r.error?.code, -32602, `since ${bad}: ${JSON.stringify(r)}`);
    assert.match(r.error!.message, /since/);
  }
  // Numbers are milliseconds since the epoch; ISO strings are times.
  assert.ok((await query({ since: now - 3_600_000 })).events.some((e) => e.summary === 'bb6 plain read'));
  assert.ok((await query({ since: new Date(now - 3_600_000).toISOString() })).events.some((e) => e.summary === 'bb6 plain read'));
  assert.equal((await query({ until: new Date(now - 3_600_000).toISOString() })).events.length, 0);
});

test('--text takes any text: FTS5 syntax characters ("  *  NEAR  -  :  unbalanced parentheses) and Unicode are words to find, never an error', async () => {
  const probes = ['"', '*', 'NEAR', 'NEAR(a b)', '-', ':', '((', ')', 'foo-bar', 'foo-bar:baz', '"quoted', 'quoted"', '(unbalanced', 'ünïcødé', '日本語', 'emoji🔑', '-minus', 'AND', 'OR', 'NOT', '^bb6', '{summary}:x', 'summary:weird', 'a\u0000b', '\\'];
  for (const text of probes) {
    const r = await s.ui.call('history.query', { text });
    assert.equal(r.error, undefined, `text ${JSON.stringify(text)}: ${JSON.stringify(r.error)}`);
    if (text.includes('\u0000')) continue; // no command line can carry a NUL
    const cli = await airlock(['history', '--text', text, '--json'], { env });
    assert.equal(cli.code, 0, `--text ${JSON.stringify(text)}: ${cli.stderr}`);
  }
  for (const text of ['NEAR(a b)', 'foo-bar:baz', '"quoted"', 'ünïcødé', '日本語', 'emoji', '(unbalanced', 'bb6 weird', 'weird NEAR']) {
    const r = await query({ text });
    assert.ok(r.events.some((e) => e.summary === WEIRD), `text ${JSON.stringify(text)} finds the event: ${JSON.stringify(r.events.map((e) => e.summary))}`);
    assert.ok(!r.events.some((e) => e.summary === 'bb6 plain read'), `text ${JSON.stringify(text)} does not find the plain one`);
  }
});

test('paging with a cursor while events keep arriving: every event that existed when paging began is seen exactly once, in order, none from the future', async () => {
  for (let i = 0; i < 60; i++) await agent.ok('request', { source: 'api', tool: 'cat', action: 'read', resource: `/bb6/p${i}`, summary: `bb6 paged ${i}` });
  const snapshot = (await query({ limit: 1000 })).events.map((e) => e.id);
  const writer = await Wire.open(s.d.requestSock);
  let stop = false;
  let written = 0;
  const writing = (async () => {
    for (let i = 0; !stop && i < 500; i++) {
      await writer.ok('request', { source: 'api', tool: 'cat', action: 'read', resource: `/bb6/late${i}`, summary: `bb6 late ${i}` });
      written++;
    }
  })();
  try {
    const seen: number[] = [];
    let cursor: string | null | undefined;
    let first = true;
    for (let page = 0; page < 200 && (first || cursor); page++) {
      const r = await query({ limit: 7, ...(cursor ? { cursor } : {}) });
      if (first) assert.ok(r.events[0]!.id >= snapshot[0]!, 'the first page starts at the newest');
      first = false;
      seen.push(...r.events.map((e) => e.id));
      cursor = r.cursor;
      await new Promise((res) => setTimeout(res, 5));
    }
    assert.ok(written > 0, 'events arrived while paging');
    assert.equal(new Set(seen).size, seen.length, 'no event twice');
    assert.deepEqual([...seen].sort((a, b) => b - a), seen, 'newest first throughout');
    const start = seen[0]!;
    const expected = snapshot.filter((id) => id <= start);
    assert.deepEqual(seen.filter((id) => id <= snapshot[0]!), expected, 'no gaps: every event older than the first page is there');
    // Events that arrived after the first page are not mixed into later pages.
    assert.ok(seen.slice(7).every((id) => id < seen[6]!), 'later pages hold only older events');
  } finally {
    stop = true;
    await writing;
    writer.close();
  }
});

test('with the daemon stopped: history (filters, --text, --json) and audit verify read the file; a misspelt source is still exit 64', async () => {
  await s.d.stop();
  const all = await airlock(['history', '--json', '-n', '1000'], { env });
  assert.equal(all.code, 0, all.stderr);
  const rows = all.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Event);
  assert.ok(rows.some((e) => e.summary === WEIRD));
  const text = await airlock(['history', '--text', 'NEAR(a b)', '--json'], { env });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /bb6 weird/);
  const typo = await airlock(['history', '--source', 'claude_code'], { env });
  assert.equal(typo.code, 64, typo.stdout + typo.stderr);
  assert.match(typo.stderr, /source/);
  const page = await airlock(['history', '-n', '3'], { env });
  assert.equal(page.code, 0);
  const more = /more: airlock history --cursor (\d+)/.exec(page.stdout);
  assert.ok(more, `a full page says how to go on: ${page.stdout}`);
  const next = await airlock(['history', '-n', '3', '--cursor', more[1]!, '--json'], { env });
  assert.equal(next.code, 0, next.stderr);
  const ids = next.stdout.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as Event).id);
  assert.ok(ids.length === 3 && ids.every((id) => id < Number(more[1]) + 1));
  const v = await airlock(['audit', 'verify', '--json'], { env });
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.equal((JSON.parse(v.stdout) as { ok: boolean }).ok, true);
});
