// A suggested grant says how many of the task's past events it would have matched (issue
// 11 item 6): counted with grant semantics over a bounded window read from real sqlite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store, type NewEvent } from '../../main/store';
import { countPastMatches, type PastEvent } from '../../main/core/past-matches';

const e = (tool: string, resources: string[], command: string | null = null): PastEvent => ({ tool, action: 'write', resources, command });

test('count: tool glob and resource glob both have to match', () => {
  const events = [e('fs.write', ['/repo/src/a.ts']), e('fs.write', ['/repo/src/deep/b.ts']), e('fs.write', ['/repo/lib/c.ts']), e('fs.read', ['/repo/src/a.ts'])];
  assert.equal(countPastMatches({ tool: 'fs.write', resource: '/repo/src/**' }, events), 2);
  assert.equal(countPastMatches({ tool: 'fs.*', resource: '/repo/src/**' }, events), 3);
  assert.equal(countPastMatches({ tool: 'fs.write', resource: '/elsewhere/**' }, events), 0);
});

test('count: every resource of an event must be covered, and a wildcard never reaches a sensitive part', () => {
  const events = [e('fs.write', ['/repo/src/a.ts', '/repo/lib/x.ts']), e('fs.write', ['/repo/.git/hooks/pre-commit']), e('fs.write', [])];
  assert.equal(countPastMatches({ tool: 'fs.write', resource: '/repo/src/**' }, events), 0);
  assert.equal(countPastMatches({ tool: 'fs.write', resource: '/repo/**' }, events), 1, '.git/hooks is not covered by /repo/**; an event with no resources is not');
});

test('count: a command pattern matches the recorded command', () => {
  const events = [e('Bash', [], 'npm test'), e('Bash', [], 'npm test -- --watch'), e('Bash', [], 'npm run build'), e('Bash', [], null)];
  assert.equal(countPastMatches({ tool: 'Bash', resource: '{npm test,npm test *}' }, events), 2);
});

function ev(i: number, p: Partial<NewEvent>): NewEvent {
  return {
    ts: 1_700_000_000_000 + i, task: null, source: 'api', tool: 'fs.write', action: 'write', resource: `/r/${i}`, resources: [`/r/${i}`],
    summary: `write ${i}`, args: JSON.stringify({ i }), cwd: null, process: null, ssh: null, risk: { level: 'medium', reasons: [] },
    decision: 'allow', decidedBy: 'policy', grant: null, scope: null, reason: 'ok', ...p,
  };
}

test('store: taskRecentEvents reads only the task, newest first, bounded, with the command from args', () => {
  const s = new Store(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'al-past-')), 'airlock.db'));
  s.insertTask({ id: 't_a', name: 'a', cwd: null, createdAt: 1, endedAt: null, sshAuthSock: null, remote: null }, 'ab'.repeat(32));
  s.insertTask({ id: 't_b', name: 'b', cwd: null, createdAt: 1, endedAt: null, sshAuthSock: null, remote: null }, 'cd'.repeat(32));
  for (let i = 0; i < 30; i++) s.appendEvent(ev(i, { task: i % 2 ? 't_a' : 't_b', decision: i % 3 ? 'allow' : 'deny' }));
  s.appendEvent(ev(99, { task: 't_a', tool: 'Bash', resources: [], args: JSON.stringify({ command: 'npm test' }) }));
  const all = s.taskRecentEvents('t_a', 1000);
  assert.equal(all.length, 16, 'allowed and denied events of t_a only');
  assert.equal(all[0]!.command, 'npm test', 'newest first');
  assert.deepEqual(all[1]!.resources, ['/r/29']);
  assert.equal(s.taskRecentEvents('t_a', 5).length, 5, 'the window is bounded');
  assert.equal(countPastMatches({ tool: 'fs.write', resource: '/r/*' }, s.taskRecentEvents('t_a', 10)), 9);
  s.close();
});
