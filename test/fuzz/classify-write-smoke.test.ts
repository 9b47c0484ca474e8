// The differential write fuzzer (classify-write.fuzz.ts), a short fixed-seed run for CI,
// and a control: lines known to change, run or connect to more than they name are run
// through the same oracle and grant check, so a blind oracle fails here rather than
// passing every line. The long run is `npm run fuzz -- classify-write`.
//
// First runs (2026-11-24, seeds 1-3, 40-60 s each): ~1,900 lines generated, ~1,100
// classified write/delete/transfer and run, ~60 flagged before the oracle learned git's
// own bookkeeping and bash's globs. Real ways around a grant, fixed with rows in
// test/unit/classify-fuzzwrite.test.ts and test/integration/redteam-fuzzwrite.test.ts:
//   sed -i '1e CMD' f        sed -i ran its script unchecked: e and s///e run commands
//   sed -i'h/*' f            the backup suffix puts a copy elsewhere (through a link to .git/hooks)
//   install --strip-program  runs a program of the caller's choosing
//   wget -e / --use-askpass  run a program; -P/-o/--save-cookies/… and the saved file were not resources
//   curl -D/-c/--trace/-O …  wrote files that were not resources; -K reads options not shown
//   f=.git/hooks/x; echo > $f  a grant for `echo x > $f` covered a path computed at run time
// Still open (the oracle flags them; not fixed here): tar -x, unzip and patch write the
// paths their archive or diff names (a .git/hooks/pre-commit inside a.tar) under a grant
// for the command; zip/gzip add suffixes (`zip x` writes x.zip); a dynamic target
// (`> $((1+1))`) is named as written, which no grant covers now but the oracle cannot match.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { READ_FORMS } from '../../main/core/classify/sh-readonly';
import { classifyShell } from '../../main/core/classify/shell';
import { installed, sandboxAvailable } from './classify-read.fuzz';
import { fuzz, judge } from './classify-write.fuzz';
import { SANDBOX_CWD, buildWriteScene, makeWriteSandbox } from './classify-write-oracle';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const skip = sandboxAvailable() ?? false;

test('write fuzz oracle control: unnamed writes, deletes, runs, hooks and grants exceeded are flagged; a clean write is not', { skip }, async () => {
  const root = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'airlock-fuzzwrite-ctl-'));
  try {
    buildWriteScene(path.join(root, 'scene'), Object.keys(READ_FORMS).filter(installed));
    const box = makeWriteSandbox(root, path.join(root, 'scene'));
    const kinds = async (line: string) => (await judge(line, classifyShell(line, SANDBOX_CWD), box, 8000)).map((f) => f.kind);
    // Clean: it writes what it names, and the grants cover exactly that.
    assert.deepEqual(await kinds('echo x > out; cp a.txt dir/; rm b.json; mkdir -p newdir/x'), []);
    assert.deepEqual(await kinds('git add a.txt && git commit -qm x'), []);
    // A write the classification does not name (the second word of $x is never seen).
    const unnamed = await kinds('x="b.json new.txt"; touch $x');
    assert.ok(unnamed.includes('unnamed-write'), unnamed.join());
    assert.ok((await kinds('f=a.txt; cp notes.md x.y; rm $f')).includes('unnamed-delete'));
    // A program it does not name, and one planted in the scene.
    assert.ok((await kinds('touch out; x=l; ${x}s >/dev/null')).includes('exec-unnamed'));
    const planted = await kinds('touch out; PATH=.:$PATH cat a.txt');
    assert.ok(planted.includes('exec-outside') && planted.includes('tripwire'), planted.join());
    // A connection to a host it does not name.
    assert.ok((await kinds('touch out; h=127.0.0.2; exec 3<>/dev/tcp/$h/9')).includes('connect'));
    // Covered by "allow for this task", but the archive writes a git hook.
    const tar = await kinds('tar -xf a.tar');
    assert.ok(tar.includes('grant:exact') && tar.includes('grant:workspace'), tar.join());
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test(`write fuzz smoke: write/delete/transfer lines touch only what they name, within the grants that cover them (seed ${SEED})`, { skip }, async () => {
  const r = await fuzz({ seconds: 45, seed: SEED, maxLines: Number(process.env.FUZZ_WRITE_SMOKE_LINES ?? 80), maxFailures: 1000 });
  // The open class (archives and patches write what they hold; zip/gzip suffixes) is listed
  // in the header; anything else is new.
  const known = /^(tar|unzip|gunzip|gzip|zip|patch|split|bsdtar)\b|\b(tar|unzip|gunzip|gzip|zip|patch|split) /;
  const fresh = r.failures.filter((f) => !known.test(f.input) && !(/^unnamed-write: [^;]*$/.test(f.message) && /[$`]/.test(f.input)));
  assert.deepEqual(fresh.map((f) => `${f.message}\n  line: ${f.input}`), [], `seed ${SEED}: ${JSON.stringify(r.stats)}`);
  assert.ok((r.stats.ran ?? 0) >= 30, JSON.stringify(r.stats));
  assert.ok((r.stats.covered ?? 0) > 0, `no grant ever covered a line: ${JSON.stringify(r.stats)}`);
  assert.ok((r.stats.programs ?? 0) >= 25 && (r.stats.gitSubcommands ?? 0) >= 20, JSON.stringify(r.stats));
  assert.ok((r.stats['action:execute'] ?? 0) > 0, 'the generator never made a line the classifier calls execute');
});
