// Ways around a grant found by the third session of the differential write fuzzer
// (test/fuzz/classify-write.fuzz.ts, seeds 21 onwards, and lines that create a path and use
// it in the same line). Each row is first shown doing it with the real bash (the control),
// then classified as what it is and checked against the grants a human would make; each
// failed on the code before its fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';
import type { Grant } from '../../main/contract/approver';
import { partCovered } from '../../main/core/grants';
import type { CoreRequest } from '../../main/core/request';

const c = (cmd: string) => classifyShell(cmd, '/repo');

/** Runs `script` with the real bash in a fresh directory holding a.txt and .git/; returns its output and the paths that exist afterwards among `look`. */
function bash(script: string, look: string[] = []): { out: string; left: string[] } {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-fw3-'));
  try {
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    mkdirSync(path.join(dir, '.git'));
    writeFileSync(path.join(dir, '.git', 'config'), '[core]\n');
    let out = '';
    try {
      out = execFileSync('bash', ['-c', script], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir }, encoding: 'utf8', timeout: 10_000 });
    } catch {
      /* the effect is what counts */
    }
    return { out, left: look.filter((f) => existsSync(path.join(dir, f))) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const grant = (resource: string, action: Grant['action'] = 'write'): Grant => ({ id: 'g', task: 't', source: '*', tool: '*', action, resource, key: null, effect: 'allow', expiresAt: null, usesLeft: null, forwarded: false, remote: null, note: null, createdAt: 0, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null });
/** Whether `g` covers every non-read part of `line` (cwd /repo), as the core decides a shell command. */
function covers(line: string, g: Grant): boolean {
  const cl = classifyShell(line, '/repo');
  const req = { source: 'exec', tool: 'exec', action: cl.action, resource: null, resources: cl.resources, summary: line, argsText: null, args: { command: line }, task: 't', cwd: '/repo', parts: cl.parts, classifierRisk: [] } as unknown as CoreRequest;
  return cl.parts.filter((p) => p.action !== 'read').every((p) => partCovered(g, req, p, 1, '/repo'));
}

test('a tilde other than ~ and ~/ is expanded by bash (~user/x is that home, ~- is $OLDPWD, ~N the directory stack; of=~user/x and {~user,b}/x too): no TASKDIR/** or command grant covers it (seed 21)', () => {
  // Controls: bash makes these other directories of them.
  assert.deepEqual(bash('cd .git; cd ..; echo x >> ~-/config; grep -c x .git/config').out.trim(), '1', 'control: ~- was not .git');
  assert.deepEqual(bash('echo ~root/x of=~root/y {~root,b}/z').out.trim(), '/root/x of=/root/y /root/z b/z', 'control: bash did not expand ~root');
  for (const line of ['cd .git; cd ..; echo x >> ~-/config', 'tee -a ~nobody/x < a.txt', 'cp a.txt ~root/.profile', 'dd if=a.txt of=~root/.bashrc', 'cp a.txt {~root,dir}/x', 'cp a.txt ~1/x']) {
    const cl = c(line);
    assert.ok(!cl.resources.some((r) => r.includes('/repo/~')), `${line}: taken for a name in the task: ${JSON.stringify(cl.resources)}`);
    assert.equal(covers(line, grant('/repo/**')), false, `${line}: covered by /repo/**`);
    const program = line.replace(/^.*; /, '').split(' ')[0]!;
    // A command grant too, even where the daemon could not say where the word leads.
    assert.equal(covers(line, grant(`{${program},${program} *}`)), false, `${line}: covered by {${program},${program} *}`);
  }
  // `~+` is the working directory, `~/x` the home directory.
  assert.deepEqual(c('echo x > ~+/a').resources, ['/repo/a']);
  assert.deepEqual(c('cp a.txt ~/x').resources, ['/repo/a.txt', '~/x']);
  assert.equal(covers('cp a.txt x', grant('/repo/**')), true, 'control: the grant covers a plain write');
});

test('an option whose name is computed at run time (--warc-file$x, --output$x) takes the next word as its value: that word is not a URL or a name a command grant covers (seed 21)', () => {
  assert.deepEqual(bash('gzip --suffix$x .z a.txt', ['a.txt.z']).left, ['a.txt.z'], 'control: gzip saw --suffix .z');
  if (existsSync('/usr/bin/wget')) assert.deepEqual(bash('mkdir d; wget -q --tries=1 --warc-file$x d/w http://127.0.0.1:9/', ['d/w.warc.gz']).left, ['d/w.warc.gz'], 'control: wget saw --warc-file d/w');
  for (const line of ['wget -q --warc-file$x lnk-hooks/pre-commit http://127.0.0.1:9/x', 'wget -q --output-file"$x" .git/config http://127.0.0.1:9/x', 'curl -s --output$(:) lnk-hooks/pre-commit http://127.0.0.1:9/x', 'gzip --suffix$x .z a.txt']) {
    const program = line.split(' ')[0]!;
    const action = program === 'gzip' ? 'write' : 'transfer';
    assert.equal(covers(line, grant(line.replace(/[\\*?[\]{}$"()]/g, '\\$&'), action)), false, `${line}: covered by the grant for that command`);
    assert.equal(covers(line, grant(`{${program},${program} *}`, action)), false, `${line}: covered by {${program},${program} *}`);
  }
  // A computed value after `=` is the option's value as before.
  assert.ok(c('wget -q --warc-file="$x" http://h.test/').resources.includes('$x.warc.gz'));
  assert.equal(covers('gzip --suffix .z a.txt', grant('{gzip,gzip *}')), true, 'control: the grant covers the command spelled out');
});

test('seed 21: a glob given to split may be input and prefix (split *.txt writes b.txtaa); wget -b logs to wget-log in the cwd', () => {
  assert.deepEqual(bash('touch b.txt; split *.txt', ['b.txtaa']).left, ['b.txtaa'], 'control: the second match was the prefix');
  assert.ok(c('split *.txt').resources.includes('/repo/*.txt*'), JSON.stringify(c('split *.txt').resources));
  if (existsSync('/usr/bin/wget')) assert.deepEqual(bash('wget --tries=1 -b http://127.0.0.1:9/ >/dev/null; sleep 0.5', ['wget-log']).left, ['wget-log'], 'control: wget -b wrote wget-log');
  for (const line of ['wget -qb http://h.test/x', 'wget --backgr http://h.test/x']) assert.ok(c(line).resources.includes('/repo/wget-log*'), line);
  assert.ok(!c('wget -b -o log http://h.test/x').resources.includes('/repo/wget-log*'), 'wget -b -o writes its log to -o');
});

test('a command run somewhere else than the line says: relative paths after cd $x or cd -, env -C DIR and sudo -D DIR, and what a wrapped tar -x or unzip writes, are covered by no grant on the task or the command', () => {
  // Controls: bash writes the hook in each.
  assert.deepEqual(bash('mkdir -p .git/hooks; x=.git/hooks; cd $x; cp ../../a.txt pre-commit', ['.git/hooks/pre-commit']).left, ['.git/hooks/pre-commit'], 'control: cd $x');
  assert.deepEqual(bash('mkdir -p .git/hooks; env -C .git/hooks touch pre-commit', ['.git/hooks/pre-commit']).left, ['.git/hooks/pre-commit'], 'control: env -C');
  assert.deepEqual(bash('mkdir -p .git/hooks; env -iC.git/hooks touch pre-commit; env --ch=.git touch x', ['.git/hooks/pre-commit', '.git/x']).left, ['.git/hooks/pre-commit', '.git/x'], 'control: env -iCDIR, --ch=DIR');
  const task = grant('/repo/**', 'execute');
  for (const line of ['x=.git/hooks; cd $x; cp ../../a.txt pre-commit', 'cd .git/hooks; cd -; cd -; cp a.txt pre-commit', 'pushd +1; echo x > config']) {
    assert.equal(covers(line, grant('{cp,cp *}')) || covers(line, grant('{echo,echo *}')), false, `${line}: covered by a command grant`);
    assert.ok(c(line).parts.some((p) => p.unlisted), `${line}: ${JSON.stringify(c(line).parts)}`);
  }
  for (const line of ['env -C .git/hooks touch pre-commit', 'env -iC.git/hooks touch pre-commit', 'env --ch=.git/hooks touch pre-commit', 'sudo -D .git/hooks touch pre-commit', 'sudo --chdir=.git/hooks touch pre-commit']) {
    assert.ok(c(line).resources.includes('/repo/.git/hooks/pre-commit'), `${line}: ${JSON.stringify(c(line).resources)}`);
    assert.equal(covers(line, task), false, `${line}: covered by /repo/**`);
  }
  for (const line of ['env -C "$d" touch pre-commit', 'nice tar -xf a.tar', 'timeout 9 unzip -o a.zip', 'env tar -xf a.tar']) {
    assert.equal(covers(line, task), false, `${line}: covered by /repo/**`);
    assert.equal(covers(line, grant(line.replace(/[\\*?[\]{}$"()]/g, '\\$&'), 'execute')), false, `${line}: covered by the grant for that command`);
  }
  // Where the directory is known, the paths are under it and a grant on the task covers them.
  assert.deepEqual(c('env -C dir touch n').resources, ['/repo/dir/n']);
  assert.equal(covers('env -C dir touch n', task), true);
  assert.equal(covers('cd dir; cp ../a.txt x', grant('{cp,cp *}')), true, 'control: a cd to a known place is followed');
});

test('a relative symbolic link made in the line leads from its own directory: mkdir -p d && ln -s ../.git d/k names ./.git, not ../.git (create-then-use lines, seed 24)', () => {
  assert.deepEqual(bash('mkdir -p d && ln -s ../.git d/k && echo x > d/k/config; grep -c x .git/config').out.trim(), '1', 'control: d/k was ./.git');
  for (const [line, real] of [['mkdir -p d && ln -s ../.git d/k', '/repo/.git'], ['ln -s ../.git/hooks d/k', '/repo/.git/hooks'], ['ln -sf ../../outside d/e/k', '/repo/outside']] as const) {
    assert.ok(c(line).resources.includes(real), `${line}: ${JSON.stringify(c(line).resources)}`);
  }
  assert.equal(covers('mkdir -p d && ln -s ../.git d/k', grant('/repo/**')), false);
});

test('find -execdir runs its command in every directory it finds: its relative words lead there, not to the line\'s directory (find .git -name hooks -execdir touch hooks/pre-commit wrote the hook, named as ./hooks/pre-commit under TASKDIR/**)', () => {
  // Control: bash and find really write the hook.
  assert.deepEqual(bash('mkdir -p .git/hooks; find .git -name hooks -execdir touch hooks/pre-commit \\;', ['.git/hooks/pre-commit', 'hooks/pre-commit']).left, ['.git/hooks/pre-commit']);
  for (const line of ['find .git -name hooks -execdir touch hooks/pre-commit \\;', 'find .git/hooks -name "*.sample" -execdir cp /tmp/x pre-commit \\;', 'find . -name config -okdir tee -a config \\;']) {
    assert.equal(covers(line, grant('/repo/**')), false, `${line}: covered by /repo/**`);
    assert.equal(covers(line, grant('{find,find *}')), false, `${line}: covered by {find,find *}`);
    assert.ok(c(line).riskReasons.some((r) => /runs \S+ in every directory it finds/.test(r.reason)), line);
  }
  // {} is the file find found (under its starting points), and absolute words stay where they are.
  assert.equal(covers('find build -name "*.o" -execdir rm -f {} \\;', grant('/repo/**', 'delete')), true);
  assert.equal(covers('find build -execdir cp {} /repo/out/ \\;', grant('/repo/**')), true);
  assert.equal(c('find . -execdir cat {} \\;').action, 'read');
});

test('unshare --wd / -w and nsenter --wd run the command in that directory: unshare -r --wd=.git/hooks touch pre-commit wrote the hook, judged ./pre-commit; a root or nsenter\'s bare -w places it nowhere', () => {
  // Control: an unprivileged user namespace really writes the hook (where unshare -r works).
  const control = bash('mkdir -p .git/hooks; unshare -r --wd=.git/hooks touch pre-commit', ['.git/hooks/pre-commit', 'pre-commit']).left;
  assert.ok(control.length === 0 || control[0] === '.git/hooks/pre-commit', `control: ${JSON.stringify(control)}`);
  for (const line of ['unshare -r --wd=.git/hooks touch pre-commit', 'unshare -r -w .git/hooks touch pre-commit', 'unshare -r --wd .git/hooks touch pre-commit', 'nsenter --wd=.git/hooks touch pre-commit']) {
    assert.ok(c(line).resources.includes('/repo/.git/hooks/pre-commit'), `${line}: ${JSON.stringify(c(line).resources)}`);
  }
  for (const line of ['unshare -rw .git/hooks touch pre-commit', 'nsenter -t 1 -w touch pre-commit', 'unshare -R /tmp/r touch pre-commit', 'unshare --wd=$d touch pre-commit']) {
    assert.equal(covers(line, grant('/repo/**', 'execute')), false, `${line}: covered by /repo/**`);
    assert.equal(covers(line, grant('{unshare,unshare *}', 'execute')) && covers(line, grant('{nsenter,nsenter *}', 'execute')), false, `${line}: covered by a command grant`);
  }
  assert.deepEqual(c('unshare -r touch x').resources, ['/repo/x'], 'without a directory option nothing moves');
});

test('a write the command line does not name (awk print > ".git/hooks/x") is placed nowhere: no grant on the task or on the command covers it', () => {
  assert.deepEqual(bash('mkdir -p .git/hooks; awk \'BEGIN{print "x" > ".git/hooks/pre-commit"}\'', ['.git/hooks/pre-commit']).left, ['.git/hooks/pre-commit'], 'control: awk wrote the hook');
  const line = 'awk \'BEGIN{print "x" > ".git/hooks/pre-commit"}\'';
  assert.equal(c(line).action, 'write');
  assert.equal(covers(line, grant('/repo/**')), false, 'covered by /repo/**');
  assert.equal(covers(line, grant('{awk,awk *}')), false, 'covered by {awk,awk *}');
  assert.ok(c(line).riskReasons.some((r) => /the file awk writes is not named on the command line/.test(r.reason)), JSON.stringify(c(line).riskReasons));
  // A read stays a read; a write that names its file is judged by that file.
  assert.equal(c("awk '{print $1}' a.txt").action, 'read');
  assert.equal(covers("sed -i s/a/b/ a.txt", grant('/repo/**')), true);
});

test('files a command names outside its usual place: setfacl names every file, rsync its log and backup files, find -files0-from is placed nowhere; no command grant or TASKDIR/** covers them outside (lead, session 27)', () => {
  // Control: find takes its starting points from the list, wherever they are.
  const outside = mkdtempSync(path.join(tmpdir(), 'airlock-fw3-out-'));
  try {
    writeFileSync(path.join(outside, 'victim'), 'v\n');
    writeFileSync(path.join(tmpdir(), 'airlock-fw3-list'), `${path.join(outside, 'victim')}\0`);
    bash(`find -files0-from ${path.join(tmpdir(), 'airlock-fw3-list')} -delete`);
    assert.equal(existsSync(path.join(outside, 'victim')), false, 'control: find -files0-from deleted a file outside its directory');
  } finally {
    rmSync(outside, { recursive: true, force: true });
    rmSync(path.join(tmpdir(), 'airlock-fw3-list'), { force: true });
  }
  for (const [line, program] of [
    ['setfacl -m u:nobody:rwx ~/.ssh/authorized_keys', 'setfacl'],
    ['setfacl --modify=u:nobody:rwx /etc/cron.d/x', 'setfacl'],
    ['rsync --log-file=/etc/cron.d/x --list-only .', 'rsync'],
    ['rsync -a --backup-dir ~/.ssh src/ dst/', 'rsync'],
    ['find -files0-from list -delete', 'find'],
    ['find . -files0-from list -exec rm {} +', 'find'],
  ] as const) {
    assert.equal(covers(line, grant(`{${program},${program} *}`, 'delete')), false, `${line}: covered by {${program},${program} *}: ${JSON.stringify(c(line).parts)}`);
    assert.equal(covers(line, grant('/repo/**', 'delete')), false, `${line}: covered by /repo/**`);
  }
  assert.deepEqual(c('setfacl -m u:x:r a b').resources, ['/repo/a', '/repo/b']);
  assert.equal(covers('setfacl -m u:x:r a.txt', grant('{setfacl,setfacl *}')), true, 'control: the grant covers setfacl in the task');
  assert.equal(covers('rsync a.txt --log-file=log.txt dst/', grant('{rsync,rsync *}')), true, 'control: the grant covers rsync in the task');
});

test('git apply and git am write the files the patch names, .claude/settings.json too, and update-index --cacheinfo puts any content at any path for a checkout to write: placed nowhere, no grant on the task or git covers them (lead, session 27)', () => {
  // Control: inside a work tree, git apply writes .claude/settings.json, which a Write would be asked for.
  const settingsPatch = "printf 'diff --git a/.claude/settings.json b/.claude/settings.json\\nnew file mode 100644\\n--- /dev/null\\n+++ b/.claude/settings.json\\n@@ -0,0 +1 @@\\n+{}\\n' > p.diff";
  assert.deepEqual(bash(`git init -q . 2>/dev/null; ${settingsPatch}; git apply p.diff`, ['.claude/settings.json']).left, ['.claude/settings.json'], 'control: git apply wrote .claude/settings.json');
  assert.deepEqual(
    bash('git init -q . 2>/dev/null; echo {} > x.json; git add x.json; git update-index --add --cacheinfo 100644,$(git hash-object x.json),.claude/settings.json; git checkout -- .', ['.claude/settings.json']).left,
    ['.claude/settings.json'],
    'control: update-index --cacheinfo then checkout -- . wrote .claude/settings.json',
  );
  for (const [line, head] of [
    ['git apply p.diff', 'git apply'],
    ['git apply --index p.diff', 'git apply'],
    ['git apply --cached p.diff', 'git apply'],
    ['git am < p.mbox', 'git am'],
    ['git update-index --add --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,.claude/settings.json', 'git update-index'],
    ['git update-index --index-info < list', 'git update-index'],
  ] as const) {
    assert.ok(c(line).parts.some((p) => p.unlisted), `${line}: ${JSON.stringify(c(line).parts)}`);
    assert.equal(covers(line, grant('/repo/**')), false, `${line}: covered by /repo/**`);
    assert.equal(covers(line, grant(`{${head},${head} *}`)), false, `${line}: covered by {${head},${head} *}`);
  }
  assert.equal(covers('git apply --check p.diff', grant('/repo/**')), true, 'control: a check only reads');
  assert.equal(covers('git update-index --refresh', grant('/repo/**')), true, 'control: a refresh writes no content');
});
