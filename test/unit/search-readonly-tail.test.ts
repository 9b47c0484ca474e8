// Red team (background search indexing, 76a5d89): the daemon now indexes only in pauses, so
// up to MAX_BACKLOG committed events can be unindexed while it runs — and stay so after a
// kill -9. A writable store catches up before a search; a read-only one (`airlock history
// --text` without the daemon, or with --db while it runs) cannot write the index, and used to
// search the index alone: an event recorded a moment ago was missing from the results. It now
// searches the unindexed tail too, in a temporary in-memory index of its own connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store, type NewEvent } from '../../main/store';

function ev(i: number, summary: string): NewEvent {
  return {
    ts: 1_700_000_000_000 + i, task: null, source: 'api', tool: 'fs.write', action: 'write', resource: `/r/${i}`, resources: [`/r/${i}`],
    summary, args: null, cwd: null, process: null, ssh: null, risk: { level: 'low', reasons: [] },
    decision: 'allow', decidedBy: 'grant', grant: null, scope: null, reason: 'ok',
  };
}

test('a read-only search finds events the index has not reached yet, and the indexed ones, once each', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'al-rotail-')), 'airlock.db');
  const w = new Store(file);
  for (let i = 0; i < 10; i++) w.appendEvent(ev(i, `upload number ${i}`));
  w.queryHistory({ text: 'upload' }); // a search by the writer indexes what is there (as the daemon does)
  for (let i = 10; i < 25; i++) w.appendEvent(ev(i, `upload number ${i}`));
  w.appendEvent(ev(25, 'exfiltrate the keys'));
  void w.db; // committed, not indexed: the daemon between pauses, or killed before its next one
  const stamp = () => [file, `${file}-wal`].map((f) => (fs.existsSync(f) ? `${fs.statSync(f).mtimeMs}/${fs.statSync(f).size}` : 'none')).join(' ');
  const before = stamp();
  const r = new Store(file, { readonly: true });
  try {
    const hit = r.queryHistory({ text: 'exfiltrate' }).events;
    assert.deepEqual(hit.map((e) => e.summary), ['exfiltrate the keys'], 'the newest event is found');
    const all = r.queryHistory({ text: 'upload', limit: 100 }).events;
    assert.deepEqual(all.map((e) => e.id), Array.from({ length: 25 }, (_, i) => 25 - i), 'indexed and unindexed alike, newest first, none twice');
    const page = r.queryHistory({ text: 'upload', limit: 10 });
    const next = r.queryHistory({ text: 'upload', limit: 100, cursor: page.cursor! });
    assert.deepEqual([...page.events, ...next.events].map((e) => e.id), all.map((e) => e.id), 'pages across the boundary');
    assert.equal(r.queryHistory({ text: 'upload', source: 'ssh' }).events.length, 0, 'other filters still apply to the tail');
    assert.deepEqual(r.queryHistory({ text: 'exfiltrate' }).events.length, 1, 'a second search (tail index reused) agrees');
    assert.equal(stamp(), before, 'the reader wrote nothing to the database or its WAL');
  } finally {
    r.close();
  }
  // The same with the WAL emptied into the file: the reader then searches an in-memory copy.
  w.db.pragma('wal_checkpoint(TRUNCATE)');
  assert.equal(fs.statSync(`${file}-wal`).size, 0);
  const copy = new Store(file, { readonly: true });
  try {
    assert.deepEqual(copy.queryHistory({ text: 'exfiltrate' }).events.map((e) => e.id), [26]);
  } finally {
    copy.close();
    w.close();
  }
});
