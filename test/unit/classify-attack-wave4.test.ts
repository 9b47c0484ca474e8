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
import { plantRepository } from '../helpers/planted-repo';

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

/** The planted bare-repository look-alike of test/helpers/planted-repo.ts, at root/planted. */
function plantedRepository(root: string): { dir: string; marker: string } {
  const dir = path.join(root, 'planted');
  return { dir, marker: plantRepository(root, dir) };
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

test('red team, fourth wave: git in a subdirectory is not a read, since git takes a subdirectory holding HEAD, objects/ and config as its repository (git -C sub log -p ran a textconv)', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'airlock-subrepo-'));
  try {
    const env = { ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: '1' };
    const { dir, marker } = plantedRepository(root);
    // The session's repository, with the planted directory inside its work tree.
    const work = path.join(root, 'work');
    execFileSync('git', ['init', '-q', work], { env, stdio: 'ignore', timeout: 10_000 });
    cpSync(dir, path.join(work, 'sub'), { recursive: true });
    execFileSync('git', ['status', '--porcelain'], { cwd: work, env, stdio: 'ignore', timeout: 10_000 });
    assert.equal(existsSync(marker), false, 'git status in the session repository itself runs nothing');
    execFileSync('git', ['-C', 'sub', 'log', '-p'], { cwd: work, env, stdio: 'ignore', timeout: 10_000 });
    assert.ok(existsSync(marker), 'real git -C sub log -p took sub as a bare repository and ran its textconv program');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  for (const cmd of ['git -C sub log -p', 'git -C /repo/sub show', 'cd sub && git log -p', 'cd sub; git status', 'git -C ./sub diff']) {
    const r = c(cmd);
    assert.equal(r.action, 'execute', cmd);
    assert.match(r.riskReasons.map((x) => x.reason).join(' | '), /subdirectory/, cmd);
  }
  // The session's directory itself, however spelled, stays a read.
  for (const cmd of ['git log -p', 'git -C . status', 'git -C /repo show', 'git -C sub/.. log', 'cd sub && cd .. && git status']) assert.equal(c(cmd).action, 'read', cmd);
});

test('red team, fourth wave: xargs -e, -i, -l take a value only when attached, so the next word is the program (xargs -e touch ran touch)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-xargs-'));
  try {
    for (const flag of ['-e', '-l', '--eof', '--max-lines']) {
      execFileSync('xargs', [flag, 'touch'], { cwd: dir, input: `made${flag}\n`, stdio: ['pipe', 'ignore', 'ignore'], timeout: 10_000 });
      assert.ok(existsSync(path.join(dir, `made${flag}`)), `real xargs ${flag} touch ran touch`);
    }
    // --process-slot-var=PATH sets PATH=0 for the program: `cat` is then ./0/cat.
    mkdirSync(path.join(dir, '0'));
    writeFileSync(path.join(dir, '0', 'cat'), `#!/bin/sh\n: > '${path.join(dir, 'slot-ran')}'\n`, { mode: 0o755 });
    execFileSync('xargs', ['--process-slot-var=PATH', 'cat'], { cwd: dir, input: 'f\n', stdio: ['pipe', 'ignore', 'ignore'], timeout: 10_000 });
    assert.ok(existsSync(path.join(dir, 'slot-ran')), 'real xargs --process-slot-var=PATH cat ran ./0/cat');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const cmd of ['ls | xargs -e rm', 'ls | xargs -l rm', 'ls | xargs -i rm {}', 'ls | xargs --eof rm', 'ls | xargs --replace rm {}', 'ls | xargs --max-lines rm', 'ls | xargs -- rm']) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(c(cmd).riskReasons.map((x) => x.reason).join(' | '), /xargs runs rm/, cmd);
  }
  for (const cmd of ['ls | xargs --process-slot-var=PATH cat', 'ls | xargs --process-slot-var PATH cat', 'ls | xargs --process-slot-var=LD_PRELOAD cat']) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(c(cmd).riskReasons.map((x) => x.reason).join(' | '), /PATH|LD_PRELOAD/, cmd);
  }
  for (const cmd of ['ls | xargs -e cat', 'ls | xargs -eEND cat', 'ls | xargs -i cat {}', 'ls | xargs -I % cat %', 'ls | xargs -n1 -P4 cat', 'ls | xargs -- cat']) assert.equal(c(cmd).action, 'read', cmd);
});

test('red team, fourth wave: a carriage return is a letter to bash but a blank to the parser (cat, CR, /tmp/x ran the program ./cat CR/tmp/x)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-cr-'));
  try {
    mkdirSync(path.join(dir, 'cat\r', 'tmp'), { recursive: true });
    writeFileSync(path.join(dir, 'cat\r', 'tmp', 'x'), `#!/bin/sh\n: > '${path.join(dir, 'ran')}'\n`, { mode: 0o755 });
    try {
      execFileSync('bash', ['-c', 'cat\r/tmp/x'], { cwd: dir, stdio: 'ignore', timeout: 10_000 });
    } catch {
      // Only whether the planted program ran matters.
    }
    assert.ok(existsSync(path.join(dir, 'ran')), 'real bash ran ./cat\\r/tmp/x');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const cmd of ['cat\r/tmp/x', 'ls\rrm x', 'ls\r\nrm x', "sh -c $'cat\\r/tmp/x'", "bash -c 'ls\rrm'"]) {
    const r = c(cmd);
    assert.equal(r.action, 'execute', JSON.stringify(cmd));
    assert.match(r.riskReasons.map((x) => x.reason).join(' | '), /carriage return/, JSON.stringify(cmd));
  }
});
