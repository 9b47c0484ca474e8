// The coalescing of rejected attempts (main/core/rejection-coalescer.ts) on a fake clock,
// with the daemon's own limits: rows stay bounded per window whatever the flood (one
// connection, or thousands), and nothing is lost — every attempt is a row of its own or
// counted in exactly one coalesced row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REJECTIONS_PER_PEER, REJECTIONS_PER_TASK, REJECTIONS_TOTAL, REJECTION_WINDOW_MS, RejectionCoalescer } from '../../main/core/rejection-coalescer';
import type { RejectedAttempt } from '../../main/core/ports';

function harness() {
  let t = 1_000_000;
  const rows: RejectedAttempt[] = [];
  const c = new RejectionCoalescer((p) => rows.push(p), () => t);
  return { c, rows, advance: (ms: number) => (t += ms) };
}
const attempt = (connection: string | undefined, i = 0, source = 'request.sock', pid = 7): RejectedAttempt => ({
  source,
  tool: '(unparsed)',
  summary: `rejected line on ${source}`,
  raw: `garbage ${i}`,
  reason: 'parse error: not valid JSON',
  process: { pid, uid: 1000, exe: null, argv: [], tree: [] } as unknown as RejectedAttempt['process'],
  ...(connection ? { connection } : {}),
});
const countOf = (r: RejectedAttempt) => Number(/^(\d+) more rejected attempts/.exec(r.summary)?.[1] ?? 0);
const accounted = (rows: RejectedAttempt[]) => rows.reduce((n, r) => n + (countOf(r) || 1), 0);

test('the limits: 100 rows per connection and 2,000 in all per 10 s window', () => {
  assert.deepEqual([REJECTIONS_PER_PEER, REJECTIONS_TOTAL, REJECTION_WINDOW_MS], [100, 2000, 10_000]);
});

test('honest mistakes are each their own row, at once', () => {
  const { c, rows } = harness();
  for (let i = 0; i < REJECTIONS_PER_PEER; i++) assert.ok(c.record(attempt('c1', i)) > 0);
  assert.equal(rows.length, REJECTIONS_PER_PEER);
  c.flush();
  assert.equal(rows.length, REJECTIONS_PER_PEER, 'nothing was held back, so nothing more is written');
});

test('one connection spamming 100,000 lines in one window: 100 rows and one with the count', () => {
  const { c, rows } = harness();
  for (let i = 0; i < 100_000; i++) c.record(attempt('c1', i));
  assert.equal(rows.length, 100);
  c.flush();
  assert.equal(rows.length, 101);
  assert.match(rows[100]!.summary, /^99900 more rejected attempts from one connection of process 7 on request\.sock within 10 s \(after the first 100\), counted in one row; the last: rejected line on request\.sock$/);
  assert.deepEqual(rows[100]!.raw, { coalesced: 99900, last: 'garbage 99999' });
  assert.equal(accounted(rows), 100_000);
});

test('a window ends on the clock: the count is written and the next attempt starts afresh', () => {
  const { c, rows, advance } = harness();
  for (let i = 0; i < 150; i++) c.record(attempt('c1', i));
  advance(REJECTION_WINDOW_MS);
  c.record(attempt('c1', 150));
  assert.equal(rows.length, 102, '100 + the count of the first window + the first of the second');
  assert.equal(countOf(rows[100]!), 50);
  assert.equal(accounted(rows), 151);
});

test('5,000 connections at once: at most 2,000 rows one by one, then one row each for those that went over and one shared row', () => {
  const { c, rows } = harness();
  for (let k = 1; k <= 5000; k++) for (let i = 0; i < 30; i++) c.record(attempt(`c${k}`, i));
  assert.equal(rows.length, REJECTIONS_TOTAL, 'the window budget');
  c.flush();
  assert.ok(rows.length <= 2 * REJECTIONS_TOTAL + 1, `${rows.length} rows`);
  assert.equal(accounted(rows), 5000 * 30, 'every attempt is accounted for');
  assert.equal(rows.filter((r) => /from many connections/.test(r.summary)).length, 1);
});

test('peers are told apart by socket and connection; an attempt without a connection (a refused peer) by its pid', () => {
  const { c, rows } = harness();
  for (let i = 0; i < 105; i++) c.record(attempt('c1', i, 'request.sock'));
  for (let i = 0; i < 105; i++) c.record(attempt('c1', i, 'ui.sock'));
  for (let i = 0; i < 105; i++) c.record(attempt('c2', i, 'request.sock'));
  for (let i = 0; i < 105; i++) c.record({ source: 'agent.sock', tool: '(connect)', summary: 'connection refused: too many open connections', raw: { pid: 9, uid: 1000, gid: 1000 }, reason: 'too many' });
  assert.equal(rows.length, 400);
  c.flush();
  assert.equal(rows.length, 404);
  assert.match(rows[403]!.summary, /^5 more rejected attempts from process 9 on agent\.sock/);
});

// Red team: a sandboxed agent reaches only its own task's sockets. Before, its garbage on 20
// connections spent the whole window's 2,000 rows, and another task's attempt (or one on the
// main request.sock) a moment later was in no row of its own — only counted in the shared row.
test('one task cannot spend the window: another task and the main sockets still get their own rows', () => {
  const { c, rows } = harness();
  let n = 0;
  for (let k = 0; k < 50; k++) for (let i = 0; i < REJECTIONS_PER_PEER; i++, n++) c.record(attempt(`a${k}`, n, 'tasks/evil/request.sock'));
  // Its agent socket counts for it too (the task is carried, the source is 'ssh').
  for (let i = 0; i < 200; i++, n++) c.record({ ...attempt(`s${i}`, n, 'ssh'), task: 'evil' });
  assert.equal(rows.length, REJECTIONS_PER_TASK, 'the task got its share, no more');
  const other = c.record({ ...attempt('b1', 0, 'tasks/other/request.sock'), raw: 'task other: wrong token' });
  assert.ok(other > 0, "another task's attempt is its own row");
  assert.equal(rows.at(-1)!.raw, 'task other: wrong token');
  assert.ok(c.record({ ...attempt('m1', 0, 'request.sock'), raw: 'main socket attempt' }) > 0, 'so is one on the main request.sock');
  assert.equal(rows.at(-1)!.raw, 'main socket attempt');
  c.flush();
  assert.equal(accounted(rows), n + 2, 'and every attempt of the flood is still counted');
});

test("past its share a task's attempts are counted, not written: only the last keeps its details (SECURITY.md says so)", () => {
  const { c, rows } = harness();
  for (let k = 0; k < 5; k++) for (let i = 0; i < REJECTIONS_PER_PEER; i++) c.record(attempt(`a${k}`, i, 'tasks/evil/request.sock'));
  assert.equal(c.record({ ...attempt('a9', 0, 'tasks/evil/request.sock'), raw: 'the one to hide' }), 0);
  c.record({ ...attempt('a10', 1, 'tasks/evil/request.sock'), raw: 'cover' });
  c.flush();
  assert.ok(!rows.some((r) => JSON.stringify(r.raw).includes('the one to hide')), 'its details are in no row');
  assert.equal(accounted(rows), 502, 'but it is counted');
});
