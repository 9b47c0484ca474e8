// `watch`'s agent chain: a long command line is cut before its pid, so the pid (which process
// asks) stays on screen whatever the agent's command line holds; it was cut off the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { whatAndWho } from '../../main/cli/commands/watch';
import type { Prompt } from '../../main/contract/approver';
import { columnsOf } from '../../shared/display-text';

test('watch: a long agent command line is cut before "(pid N)", which stays on its line within the width', () => {
  const long = 'node ' + 'x'.repeat(500) + ' --flag';
  const p = { agent: [{ pid: 4242, exe: '/usr/bin/node', commandLine: long }, { pid: 7, exe: '/bin/sh', commandLine: 'sh -c run\u202e' }] } as unknown as Prompt;
  const lines = whatAndWho(p, 80);
  const agentAt = lines.indexOf('  agent:');
  assert.ok(agentAt >= 0, lines.join('\n'));
  const chain = lines.slice(agentAt + 1);
  assert.equal(chain.length, 2);
  assert.match(chain[1]!, /^ {4}node x+… \(pid 4242\)$/);
  assert.ok(columnsOf(chain[1]!) <= 80, `${columnsOf(chain[1]!)} columns`);
  assert.match(chain[0]!, /^ {4}sh -c run\\u202e \(pid 7\)$|^ {4}sh -c run.+ \(pid 7\)$/);
  assert.ok(!chain[0]!.includes('\u202e'), 'shown escaped');
});
