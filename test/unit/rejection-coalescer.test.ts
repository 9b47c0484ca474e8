// The coalescing of rejected attempts (main/core/rejection-coalescer.ts) on a fake clock:
// rows stay bounded per window whatever the flood (one process, or hundreds), and nothing is
// lost — every attempt is a row of its own or counted in exactly one coalesced row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RejectionCoalescer } from '../../main/core/rejection-coalescer';
import type { RejectedAttempt } from '../../main/core/ports';

function harness() {
  let t = 1_000_000;
  const rows: RejectedAttempt[] = [];
  const c = new RejectionCoalescer((p) => rows.push(p), () => t);
  return { c, rows, advance: (ms: number) => (t += ms) };
}
const attempt = (pid: number, i = 0, source = 'request.sock'): RejectedAttempt => ({
  source,
  tool: '(unparsed)',
  summary: `rejected line on ${source}`,
  raw: `garbage ${i}`,
  reason: 'parse error: not valid JSON',
  process: { pid, uid: 1000, exe: null, argv: [], tree: [] } as unknown as RejectedAttempt['process'],
});
const countOf = (r: RejectedAttempt) => Number(/^(\d+) more rejected attempts/.exec(r.summary)?.[1] ?? 0);
const accounted = (rows: RejectedAttempt[]) => rows.reduce((n, r) => n + (countOf(r) || 1), 0);

test('a few honest mistakes are each their own row, at once', () => {
  const { c, rows } = harness();
  for (let i = 0; i < 20; i++) assert.ok(c.record(attempt(7, i)) > 0);
  assert.equal(rows.length, 20);
  c.flush();
  assert.equal(rows.length, 20, 'nothing was held back, so nothing more is written');
});

test('one process spamming 100,000 lines in one window: 20 rows and one with the count', () => {
  const { c, rows } = harness();
  for (let i = 0; i < 100_000; i++) c.record(attempt(7, i));
  assert.equal(rows.length, 20);
  c.flush();
  assert.equal(rows.length, 21);
  assert.match(rows[20]!.summary, /^99980 more rejected attempts from process 7 on request\.sock within 10 s \(after the first 20\), counted in one row; the last: rejected line on request\.sock$/);
  assert.deepEqual(rows[20]!.raw, { coalesced: 99980, last: 'garbage 99999' });
  assert.equal(accounted(rows), 100_000);
});

test('a window ends on the clock: the count is written and the next attempt starts afresh', () => {
  const { c, rows, advance } = harness();
  for (let i = 0; i < 50; i++) c.record(attempt(7, i));
  advance(10_000);
  c.record(attempt(7, 50));
  assert.equal(rows.length, 22, '20 + the count of the first window + the first of the second');
  assert.equal(countOf(rows[20]!), 30);
  assert.equal(accounted(rows), 51);
});

test('500 processes at once: at most 100 rows one by one, then one row each for those that went over and one shared row', () => {
  const { c, rows } = harness();
  for (let pid = 1; pid <= 500; pid++) for (let i = 0; i < 30; i++) c.record(attempt(pid, i));
  assert.equal(rows.length, 100, 'the window budget');
  c.flush();
  assert.ok(rows.length <= 2 * 100 + 1, `${rows.length} rows`);
  assert.equal(accounted(rows), 500 * 30, 'every attempt is accounted for');
  assert.equal(rows.filter((r) => /from many processes/.test(r.summary)).length, 1);
});

test('peers are told apart by socket and pid; a refused peer without process info by its credentials', () => {
  const { c, rows } = harness();
  for (let i = 0; i < 25; i++) c.record(attempt(7, i, 'request.sock'));
  for (let i = 0; i < 25; i++) c.record(attempt(7, i, 'ui.sock'));
  for (let i = 0; i < 25; i++) c.record({ source: 'agent.sock', tool: '(connect)', summary: 'connection refused: too many open connections', raw: { pid: 9, uid: 1000, gid: 1000 }, reason: 'too many' });
  assert.equal(rows.length, 60);
  c.flush();
  assert.equal(rows.length, 63);
  assert.match(rows[62]!.summary, /^5 more rejected attempts from process 9 on agent\.sock/);
});
