// A path that an earlier part of the same line makes (leftovers, stop 27): a link, a copy, a
// move, or a tree git checks out. It did not exist when the line was judged, so the daemon's
// real-path check could not follow it: `ln -s ~/.ssh k && cat k/id_x` was a read of ./k/id_x,
// silent under the default policy, and the task never remembered reading a key. Now a later
// path at or under what was made is judged as what it stands for too, and one under a tree
// git just checked out (where a committed link may be) asks each time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyShell } from '../../main/core/classify/shell';

const CWD = '/repo';
const part = (line: string, i: number) => classifyShell(line, CWD).parts[i]!;

test('line links: a later read or write through a link the line made is judged as the link target', () => {
  assert.ok(part('mkdir x && ln -s ~/.ssh x/k && cat x/k', 2).resources.includes('~/.ssh'));
  assert.ok(part('ln -s /etc/shadow ./ok.txt; cat ok.txt', 1).resources.includes('/etc/shadow'));
  assert.ok(part('ln -s .. up && cat up/.ssh/id_x', 1).resources.includes('/.ssh/id_x'));
  assert.ok(part('ln -s ~/.ssh a; ln -s a b; cat b/id', 2).resources.includes('~/.ssh/id'), 'a link to a link');
  assert.ok(part('ln -s ~/.ssh; cat .ssh/id', 1).resources.includes('~/.ssh/id'), 'ln -s TARGET links in the working directory');
  assert.ok(part('ln -s -t d ~/.ssh; cat d/.ssh/id', 1).resources.includes('~/.ssh/id'));
  assert.ok(part('ln -s ~/.ssh k; cd k; cat id', 2).resources.includes('~/.ssh/id'), 'after a cd into the link');
  assert.ok(part('ln -s ~/.ssh k; cat */id_rsa', 1).resources.includes('~/.ssh/id_rsa'), 'a glob that may match the link');
  assert.ok(part('ln -s ~/.ssh k && grep -R BEGIN .', 1).resources.includes('~/.ssh'), 'a recursive read of a directory holding the link');
  assert.ok(part('ln -s ~/.ssh k && echo x >> k/authorized_keys', 1).resources.includes('~/.ssh/authorized_keys'), 'a write through it');
  assert.ok(part('cp -a d e && cat e/x', 1).resources.includes('/repo/d/x'), 'a copy is its source (links in it included)');
  assert.ok(part('mv ~/.ssh/id_x k && cat k', 1).resources.includes('~/.ssh/id_x'));
  // Nothing made: nothing added.
  assert.deepEqual(part('ln -s ~/.ssh k; cat src/a.ts', 1).resources, ['/repo/src/a.ts']);
});

test('line links: a path under a tree git checked out in the same line asks; git itself and the project root do not', () => {
  const k = classifyShell('git checkout -q evil && cat k/id_x', CWD);
  assert.ok(k.parts[1]!.unlisted, 'cat k/id_x may go through a committed link');
  assert.ok(k.riskReasons.some((r) => r.level === 'high' && /symbolic link/.test(r.reason)), JSON.stringify(k.riskReasons));
  assert.ok(classifyShell('git pull && echo x >> k/authorized_keys', CWD).parts[1]!.unlisted);
  assert.ok(!classifyShell('git checkout main && npm test', CWD).parts[1]!.unlisted);
  assert.ok(!classifyShell('git checkout -b x && git add src/a.ts', CWD).parts[1]!.unlisted);
  assert.ok(!classifyShell('git status && cat README.md', CWD).parts[1]!.unlisted, 'a read of the tree changes nothing');
});
