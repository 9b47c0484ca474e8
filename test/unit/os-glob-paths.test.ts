// Globs in a shell command's paths, expanded as bash will (main/os/glob-paths.ts), against a
// real file system and checked against bash itself: `.gi?/hooks/`, `.g*`, classes, names
// starting with `.`, links on the way, a trailing `/`, no match, and the bounds. Then through
// the daemon's policy: a project write grant no longer covers `cp x .g*/hooks/` (the write
// fuzzer, seed 11: it wrote .git/hooks/x silently), and still covers globs inside the project.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expandGlob, hasGlob, MAX_GLOB_MATCHES } from '../../main/os/glob-paths';
import { resolveRealPaths } from '../../main/os/real-path';
import type { Grant } from '../../main/contract/approver';
import { classifyShell } from '../../main/core/classify/shell';
import { GrantIndex } from '../../main/core/grants';
import { RequestPolicy } from '../../main/core/request-policy';
import { DEFAULT_SETTINGS } from '../../main/core/settings';

const W = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'al-glob-')));
after(() => fs.rmSync(W, { recursive: true, force: true }));
const P = path.join(W, 'p');
fs.mkdirSync(path.join(P, '.git/hooks'), { recursive: true });
fs.writeFileSync(path.join(P, '.git/hooks/pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
fs.mkdirSync(path.join(P, 'src'));
for (const f of ['a.txt', 'b.txt', 'c.md']) fs.writeFileSync(path.join(P, 'src', f), 'x\n');
fs.writeFileSync(path.join(P, 'package.json'), '{}\n');
fs.symlinkSync('.git/hooks', path.join(P, 'hk'));

const budget = () => ({ matches: MAX_GLOB_MATCHES, entries: 20_000, deadline: Date.now() + 5_000 });
const rel = (ps: string[]) => ps.map((p) => path.relative(P, p)).sort();
/** What bash itself makes of `pattern` in P (nullglob, so no match is nothing). */
const bash = (pattern: string) =>
  execFileSync('bash', ['-c', `shopt -s nullglob; for f in ${pattern}; do printf '%s\\n' "$f"; done`], { cwd: P, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/\/$/, ''))
    .sort();

test('a glob expands as bash expands it: leading dots only for a pattern that starts with one, classes, links, a trailing slash, no match', () => {
  for (const pattern of ['.gi?/hooks/pre-commit', '.g*/hooks', '*', '.*', 'src/[ab].txt', 'src/[!a]*', 'src/*.txt', 'h?/pre-commit', '*/', 'src/*/x', 'nothing*', '[p]ackage.json', 'src/[[:alpha:]].txt']) {
    const ours = rel(expandGlob(`${P}/${pattern}`, budget()));
    assert.deepEqual(ours, bash(pattern), pattern);
  }
  assert.equal(hasGlob('/p/.gi?/x'), true);
  assert.equal(hasGlob('/p/[ab]'), true);
  assert.equal(hasGlob('/p/a[b'), false);
  assert.equal(hasGlob('/p/plain.txt'), false);
});

test('bounded: too many matches or entries stop the expansion (the request is asked)', () => {
  const many = path.join(W, 'many');
  fs.mkdirSync(many);
  for (let i = 0; i <= MAX_GLOB_MATCHES; i++) fs.writeFileSync(path.join(many, `f${i}`), '');
  assert.throws(() => expandGlob(`${many}/f*`, budget()), /more than 256 names match/);
  assert.throws(() => expandGlob(`${many}/f*`, { ...budget(), entries: 10 }), /directory entries/);
  const r = resolveRealPaths([`${many}/f*`], { globs: [`${many}/f*`] });
  assert.match(r.incomplete ?? '', /more than 256 names match/);
  // Each match's real target is beside it.
  const g = resolveRealPaths([`${P}/h?/pre-commit`], { globs: [`${P}/h?/pre-commit`] });
  assert.deepEqual(g.globs.get(`${P}/h?/pre-commit`), [`${P}/hk/pre-commit`, `${P}/.git/hooks/pre-commit`]);
});

const TASK = 'globs';
const grant = (resource: string): Grant => ({ id: 'g', task: TASK, source: '*', tool: '*', action: 'write', resource, key: null, effect: 'allow', expiresAt: null, usesLeft: null, forwarded: false, remote: null, note: null, createdAt: 0, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null });
const ASK_ALL = { ...DEFAULT_SETTINGS, policy: { read: 'ask', write: 'ask', delete: 'ask', transfer: 'ask', execute: 'ask', sign: 'ask', other: 'ask' } as const };

/** How the daemon's policy answers `line` in the task at P under one grant (the real classifier and resolver). */
function answer(line: string, g: Grant): string {
  const policy = new RequestPolicy(
    { settings: () => ASK_ALL, liveTask: () => ({ name: TASK, cwd: P }), authorizeTask: () => TASK, mcpTool: () => null, activeGrants: () => new GrantIndex([g]), memoryOf: () => ({}) },
    { classifier: classifyShell, realPaths: (p, o) => resolveRealPaths(p, 1_000, [], o?.claudeDirs, o?.globs), now: () => 1 },
  );
  const req = policy.normalize({ source: 'exec', tool: 'exec', action: 'write', summary: line, args: { command: line }, cwd: P }, { boundTask: TASK });
  const v = policy.evaluate(req);
  return v.kind === 'answer' ? `${v.decision} by ${v.decidedBy}` : v.kind;
}

test("a glob that reaches .git/hooks or package.json is judged by what it matches: a project write grant or {cp,cp *} no longer covers `cp x .g*/hooks/` (write fuzzer, seed 11)", () => {
  // Control: bash really writes the hook.
  const ctl = fs.mkdtempSync(path.join(W, 'ctl-'));
  fs.mkdirSync(path.join(ctl, '.git/hooks'), { recursive: true });
  fs.writeFileSync(path.join(ctl, 'pre-commit'), '#!/bin/sh\n');
  execFileSync('bash', ['-c', 'cp pre-commit .gi?/hooks/'], { cwd: ctl });
  assert.ok(fs.existsSync(path.join(ctl, '.git/hooks/pre-commit')), 'control: cp did not write the hook');
  const rows = [
    ['cp src/a.txt .gi?/hooks/pre-commit', '{cp,cp *}'],
    ['cp src/a.txt .g*/hooks/', '{cp,cp *}'],
    ['echo x > .[g]it/hooks/pre-commit', '{echo,echo *}'],
    ['cp src/a.txt h?/pre-commit', '{cp,cp *}'],
    ['echo {} > packag?.json', '{echo,echo *}'],
  ] as const;
  for (const [line, command] of rows) for (const g of [grant(`${P}/**`), grant(command)]) assert.notEqual(answer(line, g), 'allow by grant', `${line} under ${g.resource}`);
  // Globs inside the project that match ordinary files stay covered.
  assert.equal(answer('rm -f src/*.txt', { ...grant(`${P}/**`), action: 'delete' }), 'allow by grant');
  assert.equal(answer('cp src/[ab].txt src/c.md', grant(`${P}/**`)), 'allow by grant');
  assert.equal(answer('cp src/a.txt src/*.md', grant('{cp,cp *}')), 'allow by grant');
});
