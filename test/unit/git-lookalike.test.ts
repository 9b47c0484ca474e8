// main/os/git-lookalike.ts on real directories: which directory git would take as a bare
// repository from a working directory (the daemon's answer to "cd sub, then git log -p").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { findRepoLookalike } from '../../main/os/git-lookalike';
import { gitEnv, plantRepository } from '../helpers/planted-repo';

test('git-lookalike: a planted HEAD/objects/refs is found from it and from below it; an ordinary .git or nothing is not', () => {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'al-glook-')));
  try {
    const work = path.join(root, 'work');
    execFileSync('git', ['init', '-q', work], { env: gitEnv(root), stdio: 'ignore', timeout: 10_000 });
    const sub = path.join(work, 'sub');
    const marker = plantRepository(root, sub);
    // Control: real git from below the look-alike takes it as the repository and runs its program.
    mkdirSync(path.join(sub, 'deeper'));
    execFileSync('git', ['log', '-p'], { cwd: path.join(sub, 'deeper'), env: gitEnv(root), stdio: 'ignore', timeout: 10_000 });
    assert.ok(existsSync(marker), 'real git in sub/deeper used sub as its repository');

    assert.equal(findRepoLookalike(sub), sub);
    assert.equal(findRepoLookalike(path.join(sub, 'deeper')), sub);
    assert.equal(findRepoLookalike(path.join(sub, 'refs', 'heads')), sub);
    // The session's own work tree: git finds .git first.
    assert.equal(findRepoLookalike(work), null);
    mkdirSync(path.join(work, 'src', 'lib'), { recursive: true });
    assert.equal(findRepoLookalike(path.join(work, 'src', 'lib')), null);
    // A work tree of its own below the look-alike: its .git comes first.
    execFileSync('git', ['init', '-q', path.join(sub, 'inner')], { env: gitEnv(root), stdio: 'ignore', timeout: 10_000 });
    assert.equal(findRepoLookalike(path.join(sub, 'inner')), null);
    // Inside .git itself git uses it as the repository (config included): found.
    assert.equal(findRepoLookalike(path.join(work, '.git')), path.join(work, '.git'));
    // HEAD alone, or without refs/, is not a repository to git.
    const half = path.join(root, 'half');
    mkdirSync(path.join(half, 'objects'), { recursive: true });
    execFileSync('touch', [path.join(half, 'HEAD')]);
    assert.equal(findRepoLookalike(half), null);
    // No repository anywhere, a missing directory, a relative path: nothing, never a throw.
    assert.equal(findRepoLookalike(path.join(root, 'nowhere', 'at', 'all')), null);
    assert.equal(findRepoLookalike('sub'), null);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
