// Ways around grants that the differential write fuzzer (test/fuzz/classify-write.fuzz.ts)
// found: lines the classifier called write or transfer, naming some paths, that the real
// bash showed running a program or writing a path the classification did not name. A
// grant covering the classification ("allow for this task", the suggested `{sed,sed *}`)
// then let the rest through silently. Each row is first shown doing it for real (the
// control), then classified as what it is; each failed on the code before its fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';
import type { Grant } from '../../main/contract/approver';
import { grantMiss, partCovered } from '../../main/core/grants';
import { expandBraces } from '../../main/core/classify/sh-braces';
import type { CoreRequest } from '../../main/core/request';

const c = (cmd: string) => classifyShell(cmd, '/repo');
const why = (cmd: string) => c(cmd).riskReasons.map((r) => r.reason).join(' | ');

/** Runs `script` with the real bash in a fresh directory holding a.txt and bk/; returns whether `created` exists afterwards. */
function bashCreates(script: string, created: string): boolean {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-fw-'));
  try {
    writeFileSync(path.join(dir, 'a.txt'), 'a\nb\n');
    writeFileSync(path.join(dir, 'cat'), '#!/bin/sh\n: > ran\n', { mode: 0o755 });
    mkdirSync(path.join(dir, 'bk'));
    try {
      execFileSync('bash', ['-c', script], { cwd: dir, env: { PATH: process.env.PATH }, stdio: 'ignore', timeout: 10_000 });
    } catch {
      /* the effect is what counts */
    }
    return existsSync(path.join(dir, created));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('sed -i still runs its script: the e command and the s///e flag run a shell command (execute), w writes a file (named)', () => {
  assert.ok(bashCreates("sed -i '1e touch M' a.txt", 'M'), 'control: sed -i did not run the e command');
  assert.ok(bashCreates("sed -i 's/a/b/w out' a.txt", 'out'), 'control: sed -i did not write out');
  for (const cmd of ["sed -i '1e touch M' a.txt", "sed -i 's/a/b/e' a.txt", "sed --in-place -e p -e 'e id' a.txt", "sed -Ei '$e touch M' a.txt"]) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(why(cmd), /runs a shell command/, cmd);
  }
  const w = c("sed -i 's/a/b/w .git/hooks/pre-commit' a.txt");
  assert.equal(w.action, 'write');
  assert.deepEqual(w.resources.sort(), ['/repo/.git/hooks/pre-commit', '/repo/a.txt']);
  // Plain in-place edits stay writes of the file itself.
  for (const cmd of ["sed -i 's/a/b/' a.txt", 'sed -i 1d a.txt', "sed -n -i p a.txt", "sed -i -- 1d a.txt"]) assert.deepEqual(c(cmd).resources, ['/repo/a.txt'], cmd);
});

test("sed -i SUFFIX keeps a backup, and a SUFFIX with * and / puts it in another directory (`-i'h/*'` through a link h → .git/hooks): the backup is a resource", () => {
  assert.ok(bashCreates("sed -i'bk/*' 1d a.txt", 'bk/a.txt'), "control: sed -i'bk/*' did not put the backup in bk/");
  assert.ok(bashCreates('sed -i.bak 1d a.txt', 'a.txt.bak'));
  assert.deepEqual(c("sed -i'.git/hooks/*' 1d a.txt").resources.sort(), ['/repo/.git/hooks/a.txt', '/repo/a.txt']);
  assert.deepEqual(c('sed -i.bak 1d a.txt').resources.sort(), ['/repo/a.txt', '/repo/a.txt.bak']);
  assert.deepEqual(c('sed --in-place=../x/old_* 1d d/a.txt').resources.sort(), ['/repo/d/a.txt', '/repo/x/old_a.txt']);
});

test('install --strip-program runs the program it names: execute, not write', () => {
  if (existsSync('/usr/bin/install')) assert.ok(bashCreates('install --strip-program=./cat -s a.txt bk/', 'ran'), 'control: install did not run ./cat');
  for (const cmd of ['install --strip-program=./cat -s a.txt bk/', 'install -s --strip-prog=./x a.txt bk/']) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(why(cmd), /--strip-prog\S* runs a program/, cmd);
  }
  assert.equal(c('install -m 644 a.txt bk/').action, 'write');
});

test("wget -e / --use-askpass / --config run or read commands that are not shown: execute; the files wget writes are resources", () => {
  for (const cmd of ['wget -e use_askpass=./cat http://127.0.0.1:9/', 'wget --use-askpass=./cat http://h.test/', 'wget --config=rc http://h.test/', 'wget -qe x=y http://h.test/', 'wget --exec x=y http://h.test/']) {
    assert.equal(c(cmd).action, 'execute', cmd);
  }
  const rows: [string, string[]][] = [
    ['wget -P .git/hooks http://h.test/pre-commit', ['/repo/.git/hooks', '/repo/.git/hooks/pre-commit']],
    ['wget -o log http://h.test/x', ['/repo/log', '/repo/x']],
    ['wget --save-cookies c.txt -O out http://h.test/', ['/repo/c.txt', '/repo/out']],
    ['wget --warc-file w http://h.test/', ['/repo/index.html', '/repo/w.warc.gz']],
    ['wget http://h.test/x.sh', ['/repo/x.sh']],
  ];
  for (const [cmd, files] of rows) {
    const r = c(cmd);
    assert.equal(r.action, 'transfer', cmd);
    assert.deepEqual(r.resources.filter((x) => x.startsWith('/')).sort(), files, cmd);
    assert.ok(r.resources.includes('h.test'), cmd);
  }
});

test('curl writes the files its -D, -c, --trace, --stderr, --libcurl … options and -O name: resources; -K reads options that are not shown: execute', () => {
  if (existsSync('/usr/bin/curl')) assert.ok(bashCreates('curl -s --stderr bk/e http://127.0.0.1:9/', 'bk/e'), 'control: curl did not write its --stderr file');
  const rows: [string, string[]][] = [
    ['curl -D .git/hooks/pre-commit http://h.test/', ['/repo/.git/hooks/pre-commit']],
    ['curl -c jar --trace t http://h.test/', ['/repo/jar', '/repo/t']],
    ['curl --stderr e --libcurl p.c http://h.test/', ['/repo/e', '/repo/p.c']],
    ['curl -O http://h.test/a/b.sh', ['/repo/b.sh']],
    ['curl --output-dir d -O http://h.test/b.sh', ['/repo/d', '/repo/d/b.sh']],
    ['curl -sSL -o out http://h.test/', ['/repo/out']],
  ];
  for (const [cmd, files] of rows) {
    const r = c(cmd);
    assert.equal(r.action, 'transfer', cmd);
    assert.deepEqual(r.resources.filter((x) => x.startsWith('/')).sort(), files, cmd);
  }
  for (const cmd of ['curl -K cfg http://h.test/', 'curl --config cfg http://h.test/', 'curl -sK cfg http://h.test/']) assert.equal(c(cmd).action, 'execute', cmd);
  assert.equal(c('curl -sS http://h.test/').action, 'transfer');
});

test('a command grant never covers a part whose path is computed at run time: `f=.git/hooks/pre-commit; echo x > $f` under a grant for `echo x > $f`', () => {
  const grant: Grant = { id: 'g', task: 't', source: '*', tool: '*', action: 'transfer', resource: 'echo x \\> \\$f', key: null, effect: 'allow', expiresAt: null, usesLeft: null, forwarded: false, remote: null, note: null, createdAt: 0, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null };
  const line = 'f=.git/hooks/pre-commit; echo x > $f';
  assert.ok(bashCreates(`mkdir -p .git/hooks; ${line}`, '.git/hooks/pre-commit'), 'control: bash did not write the hook');
  const cl = classifyShell(line, '/repo');
  const req = { source: 'exec', tool: 'exec', action: cl.action, resource: null, resources: cl.resources, summary: line, argsText: null, args: { command: line }, task: 't', cwd: '/repo', process: undefined, ssh: undefined, parts: cl.parts, classifierRisk: [] } as unknown as CoreRequest;
  const part = cl.parts.find((p) => p.command === 'echo x > $f')!;
  assert.ok(part, JSON.stringify(cl.parts));
  assert.equal(partCovered(grant, req, part, 1, '/repo'), false);
  // A command whose paths are known stays covered by its grant.
  const plain = classifyShell('echo x > out', '/repo');
  assert.equal(partCovered({ ...grant, resource: 'echo x \\> out' }, { ...req, parts: plain.parts }, plain.parts[0]!, 1, '/repo'), true);
});

test('a command grant covers its command for the action it was granted for or a lesser one: {sed,sed *} granted for an in-place edit does not cover sed -i running a command', () => {
  const grant: Grant = { id: 'g', task: 't', source: '*', tool: '*', action: 'write', resource: '{sed,sed *}', key: null, effect: 'allow', expiresAt: null, usesLeft: null, forwarded: false, remote: null, note: null, createdAt: 0, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null };
  const covers = (line: string, g: Grant = grant) => {
    const cl = classifyShell(line, '/repo');
    const req = { source: 'exec', tool: 'exec', action: cl.action, resource: null, resources: cl.resources, summary: line, argsText: null, args: { command: line }, task: 't', cwd: '/repo', parts: cl.parts, classifierRisk: [] } as unknown as CoreRequest;
    return cl.parts.every((p) => partCovered(g, req, p, 1, '/repo'));
  };
  assert.equal(covers("sed -i 's/a/b/' a.txt"), true);
  assert.equal(covers('sed -n p a.txt'), true, 'a read is less than the write granted');
  assert.equal(covers("sed -i '1e touch M' a.txt"), false);
  assert.equal(covers("sed -i 's/a/b/e' a.txt"), false);
  // Any action, or a list naming execute, covers it; a deny pattern denies whatever the action.
  assert.equal(covers("sed -i '1e touch M' a.txt", { ...grant, action: '*' }), true);
  assert.equal(covers("sed -i '1e touch M' a.txt", { ...grant, action: ['write', 'execute'] }), true);
  assert.equal(covers("sed -i '1e touch M' a.txt", { ...grant, effect: 'deny', action: 'read' }), true);
});

test('a command grant covers ~/… paths only inside the task directory: echo x &> ~/n under {echo,echo *} wrote in the home directory', () => {
  const grant: Grant = { id: 'g', task: 't', source: '*', tool: '*', action: 'write', resource: '{echo,echo *}', key: null, effect: 'allow', expiresAt: null, usesLeft: null, forwarded: false, remote: null, note: null, createdAt: 0, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null };
  const covers = (line: string, cwd: string) => {
    const cl = classifyShell(line, cwd);
    const req = { source: 'exec', tool: 'exec', action: cl.action, resource: null, resources: cl.resources, summary: line, argsText: null, args: { command: line }, task: 't', cwd, parts: cl.parts, classifierRisk: [] } as unknown as CoreRequest;
    return cl.parts.every((p) => partCovered(grant, req, p, 1, cwd));
  };
  assert.equal(covers('echo x > out', '/repo'), true);
  for (const line of ['echo x &> ~/n', 'echo x >> ~/notes.txt', 'echo x > ~', 'echo x > $HOME/n']) assert.equal(covers(line, '/repo'), false, line);
  // A task directory inside the home directory: `~/proj/out` is inside it.
  const proj = path.join(homedir(), 'proj-fw');
  assert.equal(covers('echo x > ~/proj-fw/out', proj), true);
  assert.equal(covers('echo x > ~/proj-fw/../elsewhere', proj), false);
});

test('tar -x, unzip and patch write the paths their archive or diff holds (.git/hooks/pre-commit in a.tar): the part says so, and no allow grant but one for anything covers it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-fw-tar-'));
  try {
    // Control: an archive holding a hook puts it in place.
    mkdirSync(path.join(dir, 'src/.git/hooks'), { recursive: true });
    writeFileSync(path.join(dir, 'src/.git/hooks/pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
    execFileSync('tar', ['-cf', path.join(dir, 'a.tar'), '-C', path.join(dir, 'src'), '.git/hooks/pre-commit']);
    assert.ok(bashCreates(`tar -xf ${path.join(dir, 'a.tar')}`, '.git/hooks/pre-commit'), 'control: tar -x did not write the hook');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const grant = (resource: string, action: Grant['action'] = 'write'): Grant => ({ id: 'g', task: 't', source: '*', tool: '*', action, resource, key: null, effect: 'allow', expiresAt: null, usesLeft: null, forwarded: false, remote: null, note: null, createdAt: 0, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null });
  const req = (line: string) => {
    const cl = classifyShell(line, '/repo');
    return { cl, req: { source: 'exec', tool: 'exec', action: cl.action, resource: null, resources: cl.resources, summary: line, argsText: null, args: { command: line }, task: 't', cwd: '/repo', parts: cl.parts, classifierRisk: [] } as unknown as CoreRequest };
  };
  for (const [line, pattern] of [['tar -xf a.tar', '{tar,tar *}'], ['tar xzf a.tgz -C dir', 'tar *'], ['unzip -o a.zip', '{unzip,unzip *}'], ['patch -p1 < p.diff', '{patch,patch *}']] as const) {
    const { cl, req: r } = req(line);
    const part = cl.parts.find((p) => p.action === 'write')!;
    assert.ok(part.unlisted, `${line}: ${JSON.stringify(cl.parts)}`);
    assert.match(why(line), /no grant covers that/, line);
    assert.equal(partCovered(grant(pattern), r, part, 1, '/repo'), false, `${line} under ${pattern}`);
    assert.equal(partCovered(grant('/repo/**'), r, part, 1, '/repo'), false, `${line} under /repo/**`);
    assert.equal(grantMiss(grant('/repo/**'), r, 1), 'resource', `${line}: the whole request under /repo/**`);
    assert.equal(partCovered(grant('**', '*'), r, part, 1, '/repo'), true, `${line}: an allow for anything still covers it`);
  }
  // Creating or listing an archive names everything it writes.
  for (const line of ['tar -cf out.tar a.txt', 'tar -tf a.tar', 'unzip -l a.zip', 'zip out a.txt']) assert.ok(c(line).parts.every((p) => !p.unlisted), line);
});

test('gzip, gunzip and zip write names made from their arguments: f.gz, f, x.zip are resources', () => {
  assert.ok(bashCreates('gzip a.txt', 'a.txt.gz'));
  assert.deepEqual(c('gzip a.txt').resources.sort(), ['/repo/a.txt', '/repo/a.txt.gz']);
  assert.deepEqual(c('gzip -S .x a.txt').resources.sort(), ['/repo/a.txt', '/repo/a.txt.x']);
  assert.deepEqual(c('gunzip d/a.gz').resources.sort(), ['/repo/d/a', '/repo/d/a.gz']);
  assert.deepEqual(c('gzip -d a.tgz').resources.sort(), ['/repo/a.tar', '/repo/a.tgz']);
  assert.deepEqual(c('zip out a.txt').resources.sort(), ['/repo/a.txt', '/repo/out', '/repo/out.zip']);
  assert.deepEqual(c('zip out.zip a.txt').resources.sort(), ['/repo/a.txt', '/repo/out.zip']);
});

test('grants hold for every word a brace expansion becomes: `true 2> {,/tmp/x,}` writes /tmp/x, `.git/hoo{k,}s/x` is a hook', () => {
  assert.ok(bashCreates('echo x > {,bk/n,}', 'bk/n'), 'control: bash expanded the brace in a redirection');
  const grant = (resource: string): Grant => ({ id: 'g', task: 't', source: '*', tool: '*', action: 'write', resource, key: null, effect: 'allow', expiresAt: null, usesLeft: null, forwarded: false, remote: null, note: null, createdAt: 0, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null });
  const part = (line: string, g: Grant) => {
    const cl = classifyShell(line, '/repo');
    const req = { source: 'exec', tool: 'exec', action: cl.action, resource: null, resources: cl.resources, summary: line, argsText: null, args: { command: line }, task: 't', cwd: '/repo', parts: cl.parts, classifierRisk: [] } as unknown as CoreRequest;
    return cl.parts.filter((p) => p.action !== 'read').every((p) => partCovered(g, req, p, 1, '/repo'));
  };
  for (const [line, pattern] of [['true 2> {,/tmp/outside/n,}', '{true,true *}'], ['echo x > .git/hoo{k,}s/pre-commit', '{echo,echo *}'], ['touch {,~/n}', '{touch,touch *}'], ['cp a.txt {,../x}', '{cp,cp *}']] as const) {
    assert.equal(part(line, grant(pattern)), false, `${line} under ${pattern}`);
    assert.equal(part(line, grant('/repo/**')), false, `${line} under /repo/**`);
  }
  // Ordinary brace use inside the project stays covered.
  assert.equal(part('mkdir -p src/{a,b}/{c,d}', grant('{mkdir,mkdir *}')), true);
  assert.equal(part('mkdir -p src/{a,b}', grant('/repo/**')), true);
  assert.equal(part('touch x{1..3}', grant('/repo/**')), true);
  // Too many words to check: asks.
  assert.equal(part('touch x{1..5000}', grant('/repo/**')), false);
  // A deny reaches any of the words.
  const deny = { ...grant('/repo/.git/hooks/**'), effect: 'deny' as const };
  assert.equal(grantMiss(deny, { ...({} as CoreRequest), source: 'exec', tool: 'exec', action: 'write', resources: ['/repo/.git/hoo{k,}s/x'], task: 't', remote: null, ssh: null } as unknown as CoreRequest, 1), null);
});

test('expandBraces: bash words, literal groups kept, bounded', () => {
  assert.deepEqual(expandBraces('/r/{a,b}/{c,d}'), ['/r/a/c', '/r/a/d', '/r/b/c', '/r/b/d']);
  assert.deepEqual(expandBraces('a{,b}'), ['a', 'ab']);
  assert.deepEqual(expandBraces('{a,{b,c}}x'), ['ax', 'bx', 'cx']);
  assert.deepEqual(expandBraces('x{3..1}'), ['x3', 'x2', 'x1']);
  assert.deepEqual(expandBraces('{a..c}'), ['a', 'b', 'c']);
  assert.deepEqual(expandBraces('{x}'), ['{x}']);
  assert.deepEqual(expandBraces('a{'), ['a{']);
  assert.equal(expandBraces('{1..100000}'), null);
  assert.equal(expandBraces('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}'), null);
});

test('tar cf ARCHIVE (old-style options) names the archive it writes; split, a one-word ln and backups name theirs; chmod -w and --reference name the right files', () => {
  // …and, since stop 27, the files it archives (it reads them).
  assert.deepEqual(c('tar cf .git/hooks/pre-commit x').resources, ['/repo/.git/hooks/pre-commit', '/repo/x']);
  assert.ok(bashCreates('split a.txt', 'xaa'));
  assert.deepEqual(c('split a.txt').resources.sort(), ['/repo/a.txt', '/repo/x*']);
  assert.ok(c('split a.txt .git/hooks/p').resources.includes('/repo/.git/hooks/p*'));
  assert.ok(bashCreates('cd bk && ln ../a.txt', 'bk/a.txt'), 'control: a one-word ln links in the working directory');
  assert.deepEqual(c('ln /etc/hostname').resources.sort(), ['/etc/hostname', '/repo/hostname']);
  assert.ok(bashCreates('cp -b a.txt bk/x; cp -b a.txt bk/x', 'bk/x~'));
  assert.ok(c('cp -b a.txt b').resources.includes('/repo/b~'));
  assert.ok(c('mv -S .orig a.txt b').resources.includes('/repo/b.orig'));
  assert.ok(c('cp --backup=numbered a.txt b').resources.includes('/repo/b.~*~'));
  assert.ok(c('install -b -t bin a.txt').resources.includes('/repo/bin/*~'));
  assert.deepEqual(c('chmod -w a.txt').resources, ['/repo/a.txt']);
  assert.deepEqual(c('chmod --reference a.txt b c').resources, ['/repo/b', '/repo/c']);
});

test('an option that runs a program is seen through a brace expansion: wget -{e,} x=y is wget -e x=y', () => {
  for (const cmd of ['wget -{e,} use_askpass=./x http://h.test/', 'install -{-strip-program=./x,} -s a.txt bk/', 'curl -{K,} cfg http://h.test/', 'tar -c{I,} ./x -f out.tar a.txt']) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(why(cmd), /brace expansion/, cmd);
  }
  assert.equal(c('wget -{q,} http://h.test/x').action, 'transfer');
});

test("a recursive copy of a directory's contents (cp -r t/. ., cp -rT t ., rsync -a t/ .) writes whatever that tree holds, .git/hooks too, and chmod/chown -R change everything under it: no allow grant but one for anything covers them (lead's red team)", () => {
  const plant = 'mkdir -p t/.git/hooks && printf "#!/bin/sh\\n" > t/.git/hooks/pre-commit';
  for (const copy of ['cp -r t/. .', 'cp -rT t .', 'rsync -a t/ .']) {
    if (copy.startsWith('rsync') && !existsSync('/usr/bin/rsync')) continue;
    assert.ok(bashCreates(`${plant} && ${copy}`, '.git/hooks/pre-commit'), `control: ${copy} did not write the hook`);
  }
  const grant = (resource: string, action: Grant['action'] = 'write'): Grant => ({ id: 'g', task: 't', source: '*', tool: '*', action, resource, key: null, effect: 'allow', expiresAt: null, usesLeft: null, forwarded: false, remote: null, note: null, createdAt: 0, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null });
  for (const line of ['cp -r t/. .', 'cp -a t/. ./', 'cp -rT t .', 'cp --recursive t/./ dst', 'cp -t dst -r t/.', 'rsync -a t/ .', 'rsync -r t/ dst/', 'chmod -R a+x .', 'chmod --recursive 777 .', 'chown -R u .', 'chgrp -vR g src', 'setfacl -R -m u:x:rwx .']) {
    const cl = classifyShell(line, '/repo');
    const r = { source: 'exec', tool: 'exec', action: cl.action, resource: null, resources: cl.resources, summary: line, argsText: null, args: { command: line }, task: 't', cwd: '/repo', parts: cl.parts, classifierRisk: [] } as unknown as CoreRequest;
    const part = cl.parts.find((p) => p.action === 'write')!;
    assert.ok(part?.unlisted, `${line}: ${JSON.stringify(cl.parts)}`);
    assert.equal(partCovered(grant('/repo/**'), r, part, 1, '/repo'), false, `${line} under /repo/**`);
    assert.equal(partCovered(grant('**', '*'), r, part, 1, '/repo'), true, `${line}: an allow for anything still covers it`);
  }
  // Copies whose written paths follow the names given stay ordinary writes.
  for (const line of ['cp -r t dst', 'cp t/a .', 'cp -r src/a.txt .', 'rsync -a t dst', 'cp a b', 'chmod +x run.sh', 'chmod 644 a.txt', 'chown u a.txt']) assert.ok(c(line).parts.every((p) => !p.unlisted), line);
});
