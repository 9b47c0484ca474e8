// Red team, fourth wave: ways around the shell classifier found by running candidate
// commands through it and then through the real programs. Each test first shows the real
// program doing the harm (so the test cannot pass against a sed that does not), then that
// the classifier does not call the command a read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';

const c = (cmd: string) => classifyShell(cmd, '/repo');

/** Runs GNU sed on a one-line file in a fresh directory; returns the files left there. */
function realSed(script: string): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-sed-'));
  try {
    writeFileSync(path.join(dir, 'f'), 'a\n');
    try {
      execFileSync('sed', ['-n', script, 'f'], { cwd: dir, stdio: 'ignore', timeout: 10_000 });
    } catch {
      // A jump to a missing label fails at run time, after the w file was created.
    }
    return readdirSync(dir).filter((f) => f !== 'f');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('red team, fourth wave: a sed label ends at a blank, and what follows is a command (sed -n ":a w out" writes out)', () => {
  const writers = [':a w out', 'ba w out', 'ta w out', 'Ta w out', 'b a w out', ':a\tw out', ':a;:b w out', 'v 4.2 w out'];
  for (const script of writers) {
    assert.deepEqual(realSed(script), ['out'], `real GNU sed ${JSON.stringify(script)} creates out`);
    const r = c(`sed -n '${script}' f`);
    assert.equal(r.action, 'write', script);
    assert.ok(r.resources.includes('/repo/out'), `${script}: ${r.resources.join(' ')}`);
    assert.match(r.riskReasons.map((x) => x.reason).join(' | '), /writes a file \(w\): out/, script);
  }
  // `}` ends a label too: the `e` after the block runs a shell command.
  assert.equal(c("sed -n '{:a};e touch m' f").action, 'execute');
  assert.equal(c("sed -n ':a ba e' f").action, 'execute');
  // What sed users write every day stays a read.
  for (const cmd of ["sed ':a;N;$!ba;s/\\n/ /g' f", "sed -e :a -e '$!N;s/\\n//;ta' f", "sed -n '/start/,/end/{/end/!{$!{N;ba}};p}' f", "sed ':x; /\\\\$/ { N; s/\\\\\\n//; bx }' f", "sed -n 'b end; p; :end' f", "sed -n ':a#x w out' f"]) {
    assert.equal(c(cmd).action, 'read', cmd);
  }
  assert.equal(existsSync('/repo/out'), false);
});

/** A directory an agent could fill with plain files: HEAD, objects/, refs/, a config
 * naming a textconv program, info/attributes using it. None of it is under `.git/`. */
function plantedRepository(root: string): { dir: string; marker: string } {
  const env = { ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, stdio: 'ignore', timeout: 10_000 });
  const src = path.join(root, 'src');
  git(root, 'init', '-q', src);
  writeFileSync(path.join(src, 'f'), 'a\n');
  git(src, 'add', 'f');
  git(src, 'commit', '-qm', 'm');
  const dir = path.join(root, 'planted');
  cpSync(path.join(src, '.git'), dir, { recursive: true });
  const marker = path.join(root, 'ran');
  const tc = path.join(root, 'tc.sh');
  writeFileSync(tc, `#!/bin/sh\ntouch '${marker}'\ncat "$1"\n`, { mode: 0o755 });
  git(dir, '--bare', 'config', 'diff.x.textconv', tc);
  mkdirSync(path.join(dir, 'info'), { recursive: true });
  writeFileSync(path.join(dir, 'info', 'attributes'), '* diff=x\n');
  return { dir, marker };
}

test('red team, fourth wave: git --bare makes the directory itself the repository, so its plain config runs programs (git --bare log -p ran a textconv)', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'airlock-bare-'));
  try {
    const { dir, marker } = plantedRepository(root);
    execFileSync('git', ['--bare', 'log', '-p'], { cwd: dir, env: { ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'ignore', timeout: 10_000 });
    assert.ok(existsSync(marker), 'real git --bare log -p ran the textconv program the planted config names');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  for (const cmd of ['git --bare log -p', 'git --bare show', 'git -C sub --bare log', 'git --no-pager --bare log -p', 'cd sub && git --bare show']) {
    const r = c(cmd);
    assert.equal(r.action, 'execute', cmd);
    assert.match(r.riskReasons.map((x) => x.reason).join(' | '), /--bare makes the directory itself the repository/, cmd);
  }
  for (const cmd of ['git log -p', 'git show', 'git --no-pager log']) assert.equal(c(cmd).action, 'read', cmd);
});
