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
import { tmpdir } from 'node:os';
import path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';
import type { Grant } from '../../main/contract/approver';
import { partCovered } from '../../main/core/grants';
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
