// Two budgets of the daemon and what happens when they run out: resolving symbolic links
// (main/os/real-path.ts, 200 ms per request) and waiting for a locked database
// (main/store/faults.ts, 2 s per answer). Running out must ask or deny — never allow,
// never hang. The real broker, store and shell classifier; the lock is held by a second
// SQLite connection to the same file, as another process would.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { classifyShell } from '../../main/core/classify/shell';
import { BUDGET_MS, resolveRealPaths } from '../../main/os/real-path';
import { LOCK_BUDGET_MS } from '../../main/store';
import { makeParts, type Parts } from './core-parts';
import { waitFor } from '../helpers/daemon';

const W = fs.mkdtempSync(path.join(os.tmpdir(), 'al-budget-'));
after(() => fs.rmSync(W, { recursive: true, force: true }));
fs.writeFileSync(path.join(W, 'notes.txt'), 'x');
fs.symlinkSync(path.join(W, 'notes.txt'), path.join(W, 'link.txt'));

/** The core wired as the daemon wires it, its store serving (short lock waits), real time. */
function broker(realPaths = resolveRealPaths): Parts & { b: Parts['broker'] } {
  const p = makeParts({ classifier: classifyShell, realPaths });
  p.store.serving();
  return { ...p, b: p.broker };
}

const spent = (paths: readonly string[]) => resolveRealPaths(paths, -1);

test('the symbolic-link budget is 200 ms, and running out of it is reported, not taken as "no link"', () => {
  assert.equal(BUDGET_MS, 200);
  const ok = resolveRealPaths([path.join(W, 'link.txt')]);
  assert.equal(ok.incomplete, null);
  assert.equal(ok.real.get(path.join(W, 'link.txt')), path.join(W, 'notes.txt'));
  const r = resolveRealPaths([path.join(W, 'link.txt')], -1);
  assert.equal(r.real.size, 0);
  assert.match(r.incomplete ?? '', /took too long \(over \d+ steps or -1 ms\)/);
});

test('a read whose paths could not be resolved in time is asked, never allowed as a read', async () => {
  // Control: with time to resolve, the default policy allows the read silently.
  const fast = broker();
  const a = await fast.b.ask({ source: 'api', tool: 'fs.read', action: 'read', resource: path.join(W, 'link.txt'), summary: 'read' }, { connection: 'c' });
  assert.equal(a.decision, 'allow');
  fast.b.shutdown();
  fast.close();

  const { b, queue, close } = broker(spent);
  for (const raw of [
    { source: 'api', tool: 'fs.read', action: 'read', resource: path.join(W, 'notes.txt'), summary: 'read notes' },
    { source: 'exec', tool: 'shell', action: 'read', summary: `cat ${W}/link.txt`, args: { command: `cat ${W}/link.txt` }, cwd: W },
  ] as const) {
    let answered = false;
    const p = b.ask(raw as Parameters<Parts['broker']['ask']>[0], { connection: `c-${raw.source}` }).then((x) => ((answered = true), x));
    // Until it is asked or answered (a fixed pause could end before either on a loaded machine).
    await waitFor(() => answered || queue.list().some((x) => x.summary === raw.summary), `${raw.summary}: asked or answered`);
    assert.equal(answered, false, `${raw.summary}: answered without asking`);
    const prompt = queue.list().find((x) => x.summary === raw.summary);
    assert.ok(prompt, `${raw.summary}: a prompt`);
    assert.ok(prompt.risk.reasons.some((r) => /could not tell where every path leads \(resolving symbolic links took too long/.test(r)), prompt.risk.reasons.join('; '));
    queue.decide({ id: prompt.id, decision: 'deny', scope: 'once' });
    assert.equal((await p).decision, 'deny');
  }
  b.shutdown();
  close();
});

test('a locked database: the answer is a deny within the bound, the event loop stays free, and the next answer is recorded', async () => {
  const { b, store, queue, close } = broker();
  const first = await b.ask({ source: 'api', tool: 'fs.read', action: 'read', resource: '/tmp/a', summary: 'first' }, { connection: 'c' });
  assert.equal(first.decision, 'allow');
  const other = new Database(store.file);
  other.exec('BEGIN EXCLUSIVE');
  try {
    const t0 = Date.now();
    // Ticks of a 10 ms timer while the answer waits: the loop is blocked at most one attempt at a time.
    let ticks = 0;
    let worstGap = 0;
    let last = Date.now();
    const timer = setInterval(() => {
      worstGap = Math.max(worstGap, Date.now() - last);
      last = Date.now();
      ticks++;
    }, 10);
    // An allow by policy and a human's allow: neither may become an allow without its record.
    const policy = b.ask({ source: 'api', tool: 'fs.read', action: 'read', resource: '/tmp/b', summary: 'during' }, { connection: 'c' });
    const asked = b.ask({ source: 'api', tool: 'fs.write', action: 'write', resource: '/tmp/w', summary: 'write during' }, { connection: 'c' });
    await waitFor(() => queue.list().some((x) => x.summary === 'write during'), 'the write to be asked', 30_000, 5);
    const prompt = queue.list().find((x) => x.summary === 'write during')!;
    queue.decide({ id: prompt.id, decision: 'allow', scope: 'once' });
    const [a1, a2] = await Promise.all([policy, asked]);
    clearInterval(timer);
    const ms = Date.now() - t0;
    for (const a of [a1, a2]) {
      assert.equal(a.decision, 'deny');
      assert.equal(a.event, 0);
      assert.match(a.reason, new RegExp(`stayed locked by another process for ${LOCK_BUDGET_MS} ms`));
    }
    assert.ok(ms >= LOCK_BUDGET_MS * 0.75 && ms < LOCK_BUDGET_MS + 4000, `denied after ${ms} ms`);
    assert.ok(ticks > 20, `the loop ran ${ticks} timer ticks while waiting`);
    assert.ok(worstGap < 1000, `the loop was blocked ${worstGap} ms at once`);
  } finally {
    other.exec('COMMIT');
    other.close();
  }
  const next = await b.ask({ source: 'api', tool: 'fs.read', action: 'read', resource: '/tmp/c', summary: 'after' }, { connection: 'c' });
  assert.equal(next.decision, 'allow');
  assert.equal(next.event, first.event + 1);
  assert.equal(store.verifyChain().ok, true);
  b.shutdown();
  close();
});

test('a lock released during the wait: the answer is committed late and keeps its decision', async () => {
  const { b, store, close } = broker();
  const other = new Database(store.file);
  other.exec('BEGIN EXCLUSIVE');
  setTimeout(() => {
    other.exec('COMMIT');
    other.close();
  }, 300);
  const a = await b.ask({ source: 'api', tool: 'fs.read', action: 'read', resource: '/tmp/late', summary: 'late' }, { connection: 'c' });
  assert.equal(a.decision, 'allow');
  assert.equal(a.event, 1);
  assert.equal(store.getEvent(1)?.summary, 'late');
  b.shutdown();
  close();
});
