// Where paths really lead, against a real file system: symbolic links (relative,
// absolute, chained, dangling), `..` after a link, loops, /proc, and the budgets.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_PATHS, resolveRealPaths } from '../../main/os/real-path';

const W = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'al-rp-')));
after(() => fs.rmSync(W, { recursive: true, force: true }));
fs.mkdirSync(path.join(W, 'repo/.git/hooks'), { recursive: true });
fs.mkdirSync(path.join(W, 'repo/dir'), { recursive: true });
fs.writeFileSync(path.join(W, 'repo/dir/plain.txt'), 'x');
fs.symlinkSync('../.git/hooks', path.join(W, 'repo/dir/h')); // relative
fs.symlinkSync(path.join(W, 'repo/.git'), path.join(W, 'repo/dir/g')); // absolute
fs.symlinkSync('h', path.join(W, 'repo/dir/hh')); // a link to a link
fs.symlinkSync('../.git/hooks/post-merge', path.join(W, 'repo/dir/dangling')); // target does not exist yet
fs.symlinkSync('loop2', path.join(W, 'repo/dir/loop1'));
fs.symlinkSync('loop1', path.join(W, 'repo/dir/loop2'));
fs.symlinkSync('.', path.join(W, 'repo/dir/self'));

const real = (p: string) => resolveRealPaths([p]);
/** Joined as text: path.join would fold the `..` that these tests are about. */
const R = (p: string) => `${W}/${p}`;

test('a path through a relative, an absolute and a chained link leads to its target', () => {
  assert.equal(real(R('repo/dir/h/pre-commit')).real.get(R('repo/dir/h/pre-commit')), R('repo/.git/hooks/pre-commit'));
  assert.equal(real(R('repo/dir/g/hooks/x')).real.get(R('repo/dir/g/hooks/x')), R('repo/.git/hooks/x'));
  assert.equal(real(R('repo/dir/hh/pre-push')).real.get(R('repo/dir/hh/pre-push')), R('repo/.git/hooks/pre-push'));
  // The link itself, as the last component: a write through it writes the target.
  assert.equal(real(R('repo/dir/h')).real.get(R('repo/dir/h')), R('repo/.git/hooks'));
});

test('a plain path is not listed (nothing to tell); missing components are appended as written', () => {
  const r = resolveRealPaths([R('repo/dir/plain.txt'), R('repo/dir/new/deeper/file')]);
  assert.equal(r.real.size, 0);
  assert.equal(r.incomplete, null);
  assert.equal(real(R('repo/dir/h/new/file')).real.get(R('repo/dir/h/new/file')), R('repo/.git/hooks/new/file'));
});

test('`..` after a link is the parent of the target, not of the link', () => {
  assert.equal(real(R('repo/dir/h/../config')).real.get(R('repo/dir/h/../config')), R('repo/.git/config'));
  assert.equal(real(R('repo/dir/self/self/h/../../.git/config')).real.get(R('repo/dir/self/self/h/../../.git/config')), R('repo/.git/config'));
  // Without a link, `..` is only spelling: the target is the folded path.
  assert.equal(real(R('repo/dir/../dir/plain.txt')).real.get(R('repo/dir/../dir/plain.txt')), R('repo/dir/plain.txt'));
  assert.equal(real('/../../etc/passwd').real.get('/../../etc/passwd'), '/etc/passwd');
});

test('a dangling link leads to the file a write would create', () => {
  assert.equal(real(R('repo/dir/dangling')).real.get(R('repo/dir/dangling')), R('repo/.git/hooks/post-merge'));
});

test('a loop of links is reported, not followed forever, and other paths are still resolved', () => {
  const t0 = Date.now();
  const r = resolveRealPaths([R('repo/dir/loop1/x'), R('repo/dir/h/pre-commit')]);
  assert.match(r.incomplete ?? '', /too many levels of symbolic links/);
  assert.equal(r.real.get(R('repo/dir/h/pre-commit')), R('repo/.git/hooks/pre-commit'));
  assert.ok(Date.now() - t0 < 1000);
});

test('/proc magic links are not followed (they would be the daemon, not the agent) and never crash', () => {
  for (const p of ['/proc/self/cwd/x', '/proc/self/root/etc/passwd', '/proc/self/fd/0', '/proc/1/root/x', '/proc/self/fd/9999/x', '/proc/self/exe']) {
    const r = real(p);
    assert.equal(r.incomplete, null, p);
    assert.equal(r.real.size, 0, `${p} stays as written: ${JSON.stringify([...r.real])}`);
  }
});

test('only absolute and ~/ paths are resolved; hosts, commands and relative names are left alone', () => {
  const r = resolveRealPaths(['git@github.com', 'npm test', 'relative/h/x', 'https://example.com/a/../b']);
  assert.equal(r.real.size, 0);
  assert.equal(r.incomplete, null);
});

test('bounded: more than MAX_PATHS paths in one request are reported as not resolved', () => {
  const many = Array.from({ length: MAX_PATHS + 5 }, (_, i) => R(`repo/dir/f${i}`));
  const r = resolveRealPaths(many);
  assert.match(r.incomplete ?? '', new RegExp(`more than ${MAX_PATHS} paths`));
});

test('bounded: a deep chain of links spends the step budget and stops quickly', () => {
  // 60 links, each to the next: over the 40-link limit for one path.
  const chain = path.join(W, 'chain');
  fs.mkdirSync(chain);
  for (let i = 0; i < 60; i++) fs.symlinkSync(`l${i + 1}`, path.join(chain, `l${i}`));
  fs.mkdirSync(path.join(chain, 'l60'));
  const t0 = Date.now();
  const r = real(path.join(chain, 'l0/x'));
  assert.match(r.incomplete ?? '', /too many levels/);
  // 39 links is fine.
  assert.equal(real(path.join(chain, 'l21/x')).real.get(path.join(chain, 'l21/x')), path.join(chain, 'l60/x'));
  // Many paths each through a long chain: the step budget ends it.
  const r2 = resolveRealPaths(Array.from({ length: 64 }, (_, i) => path.join(chain, `l${i % 21}/x${i}`)));
  assert.match(r2.incomplete ?? '', /took too long/);
  assert.ok(Date.now() - t0 < 2000);
});
