// The daemon's look at what a git tree change writes (main/os/git-tree.ts), with real git on
// real repositories, hostile ones included: a repository's config names programs (fsmonitor,
// textconv, filters, a pager, the ssh a partial clone's lazy fetch starts) and the look must run
// none of them; every control shows real git running the same program on the same repository.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitTreeWrites, LookBudget, type TreeAnswer, type TreeSpec } from '../../main/os/git-tree';

let root: string;
const env = () => ({ ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' });
const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, env: env(), stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).toString().trim();

/** A repository with main (README) and the given branches (name → files). */
function repo(name: string, branches: Record<string, Record<string, string>>): string {
  const dir = path.join(root, name);
  git(root, 'init', '-q', '-b', 'main', dir);
  fs.writeFileSync(path.join(dir, 'README'), 'hi\n');
  git(dir, 'add', 'README');
  git(dir, 'commit', '-qm', 'main');
  for (const [b, files] of Object.entries(branches)) {
    git(dir, 'checkout', '-q', '-b', b, 'main');
    for (const [f, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.writeFileSync(path.join(dir, f), text);
      git(dir, 'add', '--', f);
    }
    git(dir, 'commit', '-qm', b);
    git(dir, 'checkout', '-q', 'main');
  }
  return dir;
}

const paths = (a: TreeAnswer) => {
  assert.ok('paths' in a, JSON.stringify(a));
  return a.paths;
};

before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'al-gtree-os-')));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('a hostile repository config (core.fsmonitor, a textconv, a clean/smudge filter, a pager) runs nothing when the daemon looks; real git runs the first three', () => {
  const dir = repo('hostile', { evil: { '.claude/settings.json': '{}\n', 'x.txt': 'x\n' } });
  const mark = (what: string) => path.join(root, `ran-${what}`);
  const script = (what: string) => {
    const p = path.join(root, `${what}.sh`);
    fs.writeFileSync(p, `#!/bin/sh\ntouch '${mark(what)}'\ncat\n`, { mode: 0o755 });
    return p;
  };
  git(dir, 'config', 'core.fsmonitor', script('fsmonitor'));
  git(dir, 'config', 'diff.x.textconv', script('textconv'));
  git(dir, 'config', 'filter.x.clean', script('clean'));
  git(dir, 'config', 'filter.x.smudge', script('smudge'));
  git(dir, 'config', 'core.pager', script('pager'));
  fs.writeFileSync(path.join(dir, '.git', 'info', 'attributes'), '* diff=x filter=x\n');
  // A tracked file whose work-tree copy changed (a filter would be asked for its bytes).
  fs.writeFileSync(path.join(dir, 'README'), 'changed\n');
  const run = (...a: string[]) => spawnSync('git', a, { cwd: dir, env: env(), stdio: 'ignore', timeout: 10_000 });
  // Controls: real git in this repository runs what its config names.
  run('status');
  run('-c', 'core.fsmonitor=false', 'log', '-p', '-1', 'evil', '--', 'x.txt');
  run('-c', 'core.fsmonitor=false', 'diff-files', '-p');
  // (core.pager stays set: git starts a pager only on a terminal, which no control has.)
  for (const w of ['fsmonitor', 'textconv', 'clean']) assert.ok(fs.existsSync(mark(w)), `control: real git ran the ${w} program`);
  for (const w of ['fsmonitor', 'textconv', 'clean', 'pager', 'smudge']) fs.rmSync(mark(w), { force: true });

  const ops: TreeSpec['op'][] = [
    { kind: 'switch', rev: 'evil', force: true },
    { kind: 'tree', rev: 'evil', within: null },
    { kind: 'merge', revs: ['evil'] },
    { kind: 'pick', revs: ['evil'] },
    { kind: 'rebase', upstream: 'evil', onto: null, branch: null },
    { kind: 'checkout', word: 'evil', path: [path.join(dir, 'evil')], rest: [], force: false },
  ];
  for (const op of ops) {
    const a = gitTreeWrites({ cwd: dir, op });
    assert.ok(paths(a).includes(path.join(dir, '.claude/settings.json')), `${op.kind}: ${JSON.stringify(a)}`);
  }
  // The changed work-tree file is seen by the daemon's own hash, not through the filter.
  assert.ok(paths(gitTreeWrites({ cwd: dir, op: { kind: 'tree', rev: null, within: null } })).includes(path.join(dir, 'README')));
  for (const w of ['fsmonitor', 'textconv', 'clean', 'pager', 'smudge']) assert.equal(fs.existsSync(mark(w)), false, `the daemon's look ran the ${w} program`);
});

test("a partial clone missing the target's objects: the look never fetches (no core.sshCommand runs) and answers unknown; real git starts the fetch", () => {
  const dir = repo('partial', { evil: { 'd/b': 'b\n' } });
  const tree = git(dir, 'rev-parse', 'evil:d');
  fs.rmSync(path.join(dir, '.git', 'objects', tree.slice(0, 2), tree.slice(2)));
  const mark = path.join(root, 'ran-ssh');
  const ssh = path.join(root, 'ssh.sh');
  fs.writeFileSync(ssh, `#!/bin/sh\ntouch '${mark}'\nexit 1\n`, { mode: 0o755 });
  for (const [k, v] of [['core.repositoryformatversion', '1'], ['extensions.partialClone', 'origin'], ['remote.origin.url', 'ssh://example.invalid/x'], ['remote.origin.promisor', 'true'], ['core.sshCommand', ssh], ['protocol.ssh.allow', 'always']]) git(dir, 'config', k, v);
  spawnSync('git', ['diff-tree', '-r', 'main', 'evil'], { cwd: dir, env: env(), stdio: 'ignore', timeout: 10_000 });
  assert.ok(fs.existsSync(mark), 'control: real git ran core.sshCommand to fetch the missing tree');
  fs.rmSync(mark);
  const a = gitTreeWrites({ cwd: dir, op: { kind: 'switch', rev: 'evil', force: false } });
  assert.ok('unknown' in a, JSON.stringify(a));
  assert.equal(fs.existsSync(mark), false, 'the look started the fetch');
});

test('paths with a newline, symbolic links and where they point, the core.hooksPath directory, the stash, a soft reset moved HEAD under the work tree', () => {
  const dir = repo('shapes', { nl: { 'a\nb.txt': 'x\n' } });
  git(dir, 'checkout', '-q', '-b', 'link');
  fs.symlinkSync(path.join(root, '.ssh'), path.join(dir, 'k'));
  git(dir, 'add', 'k');
  git(dir, 'commit', '-qm', 'link');
  git(dir, 'checkout', '-q', 'main');
  git(dir, 'config', 'core.hooksPath', '.githooks');
  assert.deepEqual(paths(gitTreeWrites({ cwd: dir, op: { kind: 'switch', rev: 'nl', force: false } })), [path.join(dir, 'a\nb.txt')]);
  const l = gitTreeWrites({ cwd: dir, op: { kind: 'switch', rev: 'link', force: false } });
  assert.ok('links' in l && l.links.some((x) => x.path === path.join(dir, 'k') && x.target === path.join(root, '.ssh')), JSON.stringify(l));
  assert.ok('hooksDir' in l && l.hooksDir === path.join(dir, '.githooks'));
  // A stash holding a staged .claude/settings.json.
  fs.mkdirSync(path.join(dir, '.claude'));
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), '{}\n');
  git(dir, 'add', '.claude');
  git(dir, 'stash', '-q');
  assert.equal(fs.existsSync(path.join(dir, '.claude', 'settings.json')), false);
  assert.ok(paths(gitTreeWrites({ cwd: dir, op: { kind: 'stash', rev: 'stash@{0}' } })).includes(path.join(dir, '.claude/settings.json')));
  // `git reset --soft nl` moves HEAD and the index: a later `git reset --hard` (target HEAD) writes nl's file.
  git(dir, 'reset', '-q', '--soft', 'nl');
  assert.ok(paths(gitTreeWrites({ cwd: dir, op: { kind: 'tree', rev: 'HEAD', within: null } })).includes(path.join(dir, 'a\nb.txt')));
});

test('what cannot be worked out is unknown: not a repository, a revision it does not have, a submodule, too many files, out of time, an option for a revision', () => {
  const dir = repo('limits', { many: Object.fromEntries(Array.from({ length: 205 }, (_, i) => [`f${i}`, `${i}\n`])) });
  const unknown = (a: TreeAnswer, re: RegExp) => assert.ok('unknown' in a && re.test(a.unknown), JSON.stringify(a));
  unknown(gitTreeWrites({ cwd: root, op: { kind: 'switch', rev: 'main', force: false } }), /failed|not/);
  unknown(gitTreeWrites({ cwd: dir, op: { kind: 'switch', rev: 'nope', force: false } }), /names no commit/);
  unknown(gitTreeWrites({ cwd: dir, op: { kind: 'switch', rev: '--output=/tmp/x', force: false } }), /not a plain revision/);
  unknown(gitTreeWrites({ cwd: dir, op: { kind: 'switch', rev: 'many', force: false } }), /too many/);
  unknown(gitTreeWrites({ cwd: dir, op: { kind: 'switch', rev: 'many', force: false } }, 1), /too long/);
  git(dir, 'checkout', '-q', '-b', 'sub', 'main');
  git(dir, 'update-index', '--add', '--cacheinfo', `160000,${git(dir, 'rev-parse', 'main')},vendor/lib`);
  git(dir, 'commit', '-qm', 'sub');
  git(dir, 'checkout', '-q', 'main');
  unknown(gitTreeWrites({ cwd: dir, op: { kind: 'switch', rev: 'sub', force: false } }), /submodule/);
});

test("a flood of looks cannot hold the daemon: past the budget's time in its window a look is not made (asked as unknown), and the window frees it again", () => {
  const dir = repo('budget', { evil: { '.claude/settings.json': '{}\n' } });
  let t = 1_000_000;
  const budget = new LookBudget(10_000, 60_000, () => t);
  const op = { kind: 'switch', rev: 'evil', force: false } as const;
  // Control: a look is made, lists the file, and its time is counted.
  assert.ok(paths(gitTreeWrites({ cwd: dir, op }, undefined, budget)).includes(path.join(dir, '.claude/settings.json')));
  assert.ok(budget.left() < 60_000, `the look's time was counted: ${budget.left()} left`);
  // Looks that took the rest of the window's time (a flood): the next is not made.
  budget.record(60_000);
  const refused = gitTreeWrites({ cwd: dir, op }, undefined, budget);
  assert.ok('unknown' in refused && /spent its time/.test(refused.unknown), JSON.stringify(refused));
  // The window moves on: looks are made again.
  t += 10_001;
  assert.ok(paths(gitTreeWrites({ cwd: dir, op }, undefined, budget)).includes(path.join(dir, '.claude/settings.json')));
  // A look never gets more than the budget has left: its deadline shrinks to it.
  const tight = new LookBudget(10_000, 1, () => t);
  const a = gitTreeWrites({ cwd: dir, op }, undefined, tight);
  assert.ok('unknown' in a && /too long/.test(a.unknown), JSON.stringify(a));
});
