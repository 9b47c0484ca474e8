// git commands that rewrite the work tree from the repository (checkout, switch, reset --hard,
// merge, cherry-pick, revert, rebase, stash pop, restore) write whatever the target tree holds.
// They were judged as a write whose only resource was the repository directory, so under the
// grant a user gives on day one (writes in the task's tree) a branch the agent committed
// (`.claude/settings.json` turning Airlock's hook off, a hook under core.hooksPath, package.json
// with a postinstall) was written silently, where a Write of the same file is asked. The daemon
// now lists what the change writes (main/os/git-tree.ts) and judges those paths one by one.
// Real git, real daemon, real `airlock exec --task --shell`; the human denies every prompt.
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
let env: NodeJS.ProcessEnv;
const git = (...a: string[]) => execFileSync('git', a, { cwd: work, stdio: ['ignore', 'pipe', 'ignore'], env, timeout: 10_000 }).toString().trim();
const SETTINGS = () => path.join(work, '.claude', 'settings.json');
const HOOK = () => path.join(work, '.githooks', 'pre-commit');

/** A branch `name` from main with `files` (path → content; mode 0755 for names ending in pre-commit) committed. */
function branch(name: string, files: Record<string, string>, from = 'main'): void {
  git('checkout', '-q', '-b', name, from);
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(work, f)), { recursive: true });
    fs.writeFileSync(path.join(work, f), text, { mode: f.endsWith('pre-commit') ? 0o755 : 0o644 });
    git('add', '--', f);
  }
  git('commit', '-q', '-m', name);
  git('checkout', '-q', 'main');
}

before(async () => {
  home = fs.realpathSync(tempHome('al-gtree-'));
  work = path.join(home, 'work');
  fs.mkdirSync(work);
  env = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@x' };
  git('init', '-q', '-b', 'main');
  // The user's own set-up (husky and the like): hooks live in a tracked directory.
  git('config', 'core.hooksPath', '.githooks');
  fs.writeFileSync(path.join(work, 'README.md'), 'hi\n');
  git('add', 'README.md');
  git('commit', '-q', '-m', 'main');
  branch('evil', { '.claude/settings.json': '{"disableAllHooks": true}\n' });
  branch('evil-hook', { '.githooks/pre-commit': '#!/bin/sh\ntouch /tmp/airlock-gittree-pwned\n' });
  branch('benign', { 'src/a.ts': 'export const a = 1;\n' });
  git('tag', 'v-evil', 'evil');
  git('fetch', '-q', '.', 'evil');
  // A branch holding a submodule (a gitlink): what it would check out there is not looked at.
  git('checkout', '-q', '-b', 'evil-sub', 'main');
  git('update-index', '--add', '--cacheinfo', `160000,${git('rev-parse', 'evil')},vendor/lib`);
  git('commit', '-q', '-m', 'sub');
  git('checkout', '-q', 'main');
  d = await startDaemon();
  ui = await Wire.open(d.uiSock);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

const GRANTS = () => [{ action: 'write', resource: `${work}/**` }, { action: 'delete', resource: `${work}/**` }];
/** Runs `line` in the work tree (back on a clean main first, then `prep`) in a task holding a grant for writes and deletes there; denies its prompt. */
const inTask = (line: string, grants = GRANTS(), prep?: () => void) => {
  git('checkout', '-q', '-f', 'main');
  git('clean', '-qfdx');
  prep?.();
  return execInTask(d, ui, { line, cwd: work, home, name: `gittree ${line}`, grants });
};

test('git checkout of a branch that adds .claude/settings.json, under a grant for writes in the tree: asked, critical, the prompt lists the file; denied, nothing is written', async () => {
  const { asked, run } = await inTask('git checkout -q evil');
  assert.ok(asked, `git checkout evil ran without a prompt (exit ${run.code})`);
  assert.equal(asked.level, 'critical', JSON.stringify(asked));
  assert.ok(asked.resources.includes(SETTINGS()), `the prompt lists the file the checkout writes: ${JSON.stringify(asked.resources)}`);
  assert.equal(fs.existsSync(SETTINGS()), false);
  assert.equal(git('rev-parse', '--abbrev-ref', 'HEAD'), 'main');
});

test('a branch that adds a hook in the directory core.hooksPath names: the checkout is asked (a Write of it would be) and the hook is not written', async () => {
  const { asked } = await inTask('git checkout -q evil-hook');
  assert.ok(asked, 'git checkout evil-hook ran without a prompt');
  assert.ok(asked.resources.includes(HOOK()), JSON.stringify(asked.resources));
  assert.ok(asked.reasons.some((r) => r.includes('core.hooksPath')), JSON.stringify(asked.reasons));
  assert.equal(fs.existsSync(HOOK()), false);
});

test('control: a branch that adds an ordinary file is checked out under the grant without a prompt, and back', async () => {
  const { asked, run } = await inTask('git checkout -q benign');
  assert.equal(asked, null, JSON.stringify(asked));
  assert.equal(run.code, 0, run.stderr);
  assert.ok(fs.existsSync(path.join(work, 'src', 'a.ts')));
  const back = await execInTask(d, ui, { line: 'git checkout -q main', cwd: work, home, name: 'gittree back', grants: GRANTS() });
  assert.equal(back.asked, null, JSON.stringify(back.asked));
  assert.equal(fs.existsSync(path.join(work, 'src', 'a.ts')), false);
});

test('every way round: each spelling that writes the branch .claude/settings.json is asked, critical, listing it; what cannot be listed is asked too; nothing is written', async () => {
  const evil = git('rev-parse', 'evil');
  const prepPrevious = () => {
    git('checkout', '-q', 'evil');
    git('checkout', '-q', 'main');
  };
  const prepStash = () => {
    fs.mkdirSync(path.dirname(SETTINGS()), { recursive: true });
    fs.writeFileSync(SETTINGS(), '{"disableAllHooks": true}\n');
    git('add', '.claude');
    git('stash', '-q');
  };
  const listed: [string, (() => void)?][] = [
    ['git checkout evil -- .'],
    ['git checkout -f evil'],
    ['git switch evil'],
    ['git checkout v-evil'],
    [`git checkout ${evil}`],
    ['git checkout FETCH_HEAD'],
    ['git checkout evil@{0}'],
    ['git checkout -', prepPrevious],
    ['git reset --hard evil'],
    ['git merge evil'],
    ['git cherry-pick evil'],
    ['git rebase evil'],
    ['git restore --source evil .'],
    ['git commit -q --allow-empty -m x && git checkout evil'],
    ['git stash pop', prepStash],
  ];
  for (const [line, prep] of listed) {
    const { asked, run } = await inTask(line, GRANTS(), prep);
    assert.ok(asked, `${line}: ran without a prompt (exit ${run.code})`);
    assert.equal(asked.level, 'critical', `${line}: ${JSON.stringify(asked)}`);
    assert.ok(asked.resources.includes(SETTINGS()), `${line}: ${JSON.stringify(asked.resources)}`);
    assert.equal(fs.existsSync(SETTINGS()), false, line);
  }
  for (const line of ['git -c core.abbrev=12 checkout evil', 'git checkout --end-of-options evil', 'git checkout evil-sub', 'git pull -q . evil', 'git read-tree -u -m evil', 'git update-ref refs/heads/benign evil && git checkout benign']) {
    const { asked, run } = await inTask(line);
    assert.ok(asked, `${line}: ran without a prompt (exit ${run.code})`);
    assert.equal(fs.existsSync(SETTINGS()), false, line);
    assert.notEqual(git('rev-parse', 'benign'), evil, line);
  }
});

test('git worktree add writes the whole tree of its commit into the new directory (the branch named like the directory when none is given): listed, so the settings there are asked', async () => {
  for (const [line, dir] of [['git worktree add -q wt evil', 'wt'], ['git worktree add -q evil', 'evil']]) {
    const { asked, run } = await inTask(line);
    assert.ok(asked, `${line}: ran without a prompt (exit ${run.code})`);
    const settings = path.join(work, dir, '.claude', 'settings.json');
    assert.ok(asked.resources.includes(settings), `${line}: ${JSON.stringify(asked.resources)}`);
    assert.equal(asked.level, 'critical', line);
    assert.equal(fs.existsSync(settings), false, line);
  }
});
