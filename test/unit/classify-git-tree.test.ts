// The question the shell classifier poses for git commands that rewrite the work tree
// (core/classify/sh-git-tree.ts): which target, compared with what; `unknown` (the part is
// placed nowhere, so no grant for the tree covers it) whenever it cannot be posed; nothing for
// commands that leave the work tree alone. The daemon's answer is tested with real git in
// test/unit/os-git-tree.test.ts and test/integration/gittree-*.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyShell } from '../../main/core/classify/shell';
import type { GitTreeSpec } from '../../main/core/ports';

const CWD = '/repo';
const partOf = (cmd: string) => {
  const c = classifyShell(cmd, CWD);
  return c.parts.find((p) => p.command.includes('git')) ?? c.parts[0];
};

const ASKED: [string, GitTreeSpec['op']][] = [
  ['git checkout evil', { kind: 'checkout', word: 'evil', path: ['/repo/evil'], rest: [], force: false }],
  ['git checkout -q -f evil', { kind: 'checkout', word: 'evil', path: ['/repo/evil'], rest: [], force: true }],
  ['git checkout evil -- .', { kind: 'tree', rev: 'evil', within: ['/repo'] }],
  ['git checkout -- src', { kind: 'tree', rev: null, within: ['/repo/src'] }],
  ['git checkout -b new evil', { kind: 'switch', rev: 'evil', force: false }],
  ['git checkout -', { kind: 'checkout', word: '@{-1}', path: ['/repo/@{-1}'], rest: [], force: false }],
  ['git checkout HEAD@{1}', { kind: 'checkout', word: 'HEAD@{1}', path: ['/repo/HEAD@{1}'], rest: [], force: false }],
  ['git switch evil', { kind: 'switch', rev: 'evil', force: false }],
  ['git switch --discard-changes FETCH_HEAD', { kind: 'switch', rev: 'FETCH_HEAD', force: true }],
  ['git switch -c x', { kind: 'switch', rev: 'HEAD', force: false }],
  ['git reset --hard evil', { kind: 'tree', rev: 'evil', within: null }],
  ['git reset --hard', { kind: 'tree', rev: 'HEAD', within: null }],
  ['git reset --keep v1.0', { kind: 'switch', rev: 'v1.0', force: false }],
  ['git restore --source evil .', { kind: 'tree', rev: 'evil', within: ['/repo'] }],
  ['git restore -- a.ts', { kind: 'tree', rev: null, within: ['/repo/a.ts'] }],
  ['git restore --staged --worktree x', { kind: 'tree', rev: 'HEAD', within: ['/repo/x'] }],
  ['git merge evil', { kind: 'merge', revs: ['evil'] }],
  ['git merge --no-ff -m msg a b', { kind: 'merge', revs: ['a', 'b'] }],
  ['git cherry-pick 1234abc', { kind: 'pick', revs: ['1234abc'] }],
  ['git revert -n HEAD~2', { kind: 'pick', revs: ['HEAD~2'] }],
  ['git rebase main', { kind: 'rebase', upstream: 'main', onto: null, branch: null }],
  ['git rebase --onto evil main topic', { kind: 'rebase', upstream: 'main', onto: 'evil', branch: 'topic' }],
  ['git stash pop', { kind: 'stash', rev: 'stash@{0}' }],
  ['git stash apply 2', { kind: 'stash', rev: 'stash@{2}' }],
  ['git stash', { kind: 'tree', rev: 'HEAD', within: null }],
  ['git stash push -- src', { kind: 'tree', rev: 'HEAD', within: ['/repo/src'] }],
  ['git checkout-index -a -f', { kind: 'tree', rev: null, within: null }],
  ['git worktree add wt evil', { kind: 'worktree', dir: '/repo/wt', rev: 'evil', guess: null }],
  ['git worktree add ../evil', { kind: 'worktree', dir: '/evil', rev: null, guess: 'evil' }],
  ['git worktree add -b x ../wt', { kind: 'worktree', dir: '/wt', rev: 'HEAD', guess: null }],
];

test('git commands that rewrite the work tree pose the question of what they write to the daemon', () => {
  for (const [cmd, op] of ASKED) {
    const p = partOf(cmd);
    assert.equal(p.unlisted, undefined, `${cmd}: ${p.unlisted}`);
    assert.deepEqual(p.gitTree, { cwd: CWD, op }, cmd);
  }
});

test('what cannot be posed as a question is placed nowhere (walk-arounds included): an unknown option, a computed word, a range, pull, bisect, read-tree -u, a word that is not a plain revision', () => {
  for (const cmd of [
    'git pull',
    'git pull . evil',
    'git checkout --end-of-options evil',
    'git checkout --recurse-submodules evil',
    'git checkout "$B"',
    'git checkout "HEAD@{1 day ago}"',
    'git checkout --pathspec-from-file=list',
    'git switch --orphan x',
    'git merge',
    'git merge --abort',
    'git rebase',
    'git rebase --continue',
    'git rebase -i main',
    'git cherry-pick A..B',
    'git cherry-pick ^A B',
    'git stash -u',
    'git stash branch b',
    'git read-tree -u -m evil',
    'git bisect start',
    'git --work-tree=/elsewhere checkout evil',
    'git reset --hard "$X"',
    'git update-ref refs/heads/main EVIL && git checkout main',
    'git fetch origin && git checkout FETCH_HEAD',
    './make-branch.sh; git switch evil',
  ]) {
    const c = classifyShell(cmd, CWD);
    const p = [...c.parts].reverse().find((x) => /^git .*\b(checkout|switch|merge|rebase|cherry-pick|stash|read-tree|bisect|pull|reset)\b/.test(x.command))!;
    assert.ok(p, cmd);
    assert.ok(p.unlisted, `${cmd}: placed nowhere (${JSON.stringify(p)})`);
    assert.equal(p.gitTree, undefined, cmd);
    assert.ok(c.riskReasons.some((r) => r.reason.startsWith(p.unlisted!)), `${cmd}: the prompt says why`);
  }
});

test('git add and commit earlier in the line: the question is still posed, with the work tree compared; commands that leave the work tree alone pose none', () => {
  const p = partOf('git add -A && git commit -qm x && git checkout main');
  const last = classifyShell('git add -A && git commit -qm x && git checkout main', CWD).parts.at(-1)!;
  assert.ok(p);
  assert.equal(last.unlisted, undefined);
  assert.deepEqual(last.gitTree, { cwd: CWD, op: { kind: 'checkout', word: 'main', path: ['/repo/main'], rest: [], force: false }, afterCommit: true });
  for (const cmd of ['git commit -m x', 'git reset --soft HEAD~1', 'git reset HEAD~1', 'git stash list', 'git stash drop', 'git restore --staged x', 'git read-tree evil', 'git checkout', 'git status']) {
    const c = classifyShell(cmd, CWD);
    assert.ok(c.parts.every((x) => x.gitTree === undefined && x.unlisted === undefined), `${cmd}: ${JSON.stringify(c.parts)}`);
  }
});

test('without a known working directory the question cannot be posed: placed nowhere', () => {
  const c = classifyShell('cd "$D" && git checkout evil', CWD);
  assert.ok(c.parts.at(-1)!.unlisted, JSON.stringify(c.parts));
});
