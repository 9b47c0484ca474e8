// A path the same line makes (leftovers, stop 27). The daemon follows links that exist when it
// judges a line; one that a part of the line makes does not exist yet. Two ways an agent used
// that, run for real through `airlock exec --task --shell` with a human who denies:
// - a branch whose tree holds a committed link `k -> ~/.ssh`: `git checkout -q evil && echo …
//   >> k/authorized_keys` under the task's grants for `git checkout` and for writes in its own
//   directory ran without a prompt and wrote into ~/.ssh (the write was judged as ./k/…);
// - `ln -s ~/.ssh k && cat k/id_x`: the read was judged as ./k/id_x, and the prompt named the
//   directory the link points at, never the key the line reads.
// Now the first asks (a path under a tree git just checked out), and the second's read names the
// key itself.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Wire } from '../helpers/blackbox';
import { execInTask } from '../helpers/exec-in-task';

let d: Daemon;
let ui: Wire;
let home: string;
let work: string;
const KEYS = () => path.join(home, '.ssh', 'authorized_keys');

before(async () => {
  home = fs.realpathSync(tempHome('al-llink-'));
  fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
  fs.writeFileSync(path.join(home, '.ssh', 'id_x'), '-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-real-key\n', { mode: 0o600 });
  fs.writeFileSync(KEYS(), 'ssh-ed25519 AAAA-the-users-own-key\n', { mode: 0o600 });
  work = path.join(home, 'work');
  fs.mkdirSync(work);
  const env = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@x' };
  const git = (...a: string[]) => execFileSync('git', a, { cwd: work, stdio: 'ignore', env });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(work, 'README.md'), 'hi\n');
  git('add', 'README.md');
  git('commit', '-q', '-m', 'main');
  git('checkout', '-q', '-b', 'evil');
  fs.symlinkSync(path.join(home, '.ssh'), path.join(work, 'k'));
  git('add', 'k');
  git('commit', '-q', '-m', 'a link');
  git('checkout', '-q', 'main');
  assert.ok(!fs.existsSync(path.join(work, 'k')), 'set-up: the link is only in the branch');
  d = await startDaemon();
  ui = await Wire.open(d.uiSock);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

/** Runs `line` in a task with `grants`; denies its prompt if one comes. */
const inTask = (line: string, grants: { action: string; resource: string }[]) => execInTask(d, ui, { line, cwd: work, home, name: `line links ${line}`, grants });

test('git checkout of a branch holding a link, then a write through it, under grants for git checkout and the task directory: asked, and ~/.ssh is untouched', async () => {
  const line = 'git checkout -q evil && echo ssh-ed25519-planted >> k/authorized_keys';
  const { asked } = await inTask(line, [
    { action: 'write', resource: '{git checkout,git checkout *}' },
    { action: 'write', resource: `${work}/**` },
  ]);
  assert.ok(asked, 'the write through the committed link ran without a prompt');
  assert.ok(asked.reasons.some((r) => /symbolic link/.test(r)), JSON.stringify(asked.reasons));
  assert.doesNotMatch(fs.readFileSync(KEYS(), 'utf8'), /planted/);
});

test('ln -s HOME/.ssh k && cat k/id_x: the prompt names the key the read reaches, not only the link', async () => {
  const line = `ln -s ${home}/.ssh k2 && cat k2/id_x`;
  const { asked } = await inTask(line, [{ action: 'write', resource: `${work}/**` }]);
  assert.ok(asked, 'asked (the link points at a secret directory)');
  assert.ok(asked.reasons.some((r) => r.includes(`${home}/.ssh/id_x`)), `the read through the link is judged as the key itself: ${JSON.stringify(asked.reasons)}`);
  assert.ok(!fs.existsSync(path.join(work, 'k2')), 'denied: no link');
});
