// The differential write fuzzer (classify-write.fuzz.ts), a short fixed-seed run for CI,
// and a control: lines known to change, run or connect to more than they name are run
// through the same oracle and grant check, so a blind oracle fails here rather than
// passing every line. The long run is `npm run fuzz -- classify-write`.
//
// Runs (2026-11-24; seeds 2-6, 120-150 s each, between and after the fixes; seed 1 and
// the first smoke runs found the first holes and were not counted): 4,292 lines generated,
// 3,279 classified write/delete/transfer, 3,085 run for real, 5,048 times a grant covered
// a line; 45 flagged (seed 2, before the later fixes: 29; seed 6, after all of them: 0 of
// 696 run). Some flags were the oracle's to learn (git's own .git bookkeeping, globs and
// braces in named paths, `~`); 14 real ways around a grant, each fixed with rows in
// test/unit/classify-fuzzwrite.test.ts (failing on the old code) and run for real in
// test/integration/redteam-fuzzwrite.test.ts:
//   sed -i '1e CMD' f          sed -i ran its script unchecked: e and s///e run commands
//   {sed,sed *} covered that   a command grant covered its command whatever its action
//   sed -i'h/*' f              the backup suffix puts a copy elsewhere (through h → .git/hooks)
//   install --strip-program    runs a program of the caller's choosing
//   wget -e / --use-askpass    run a program; -P/-o/--save-cookies/… and the saved file were not resources
//   curl -D/-c/--trace/-O …    wrote files that were not resources; -K reads options not shown
//   f=.git/hooks/x; echo > $f  a grant for `echo x > $f` covered a path computed at run time
//   echo x &> ~/n              a command grant took `~/n` for a host: it wrote outside the task
//   true 2> {,/tmp/x,}         bash's brace expansion made a path the grant never saw
//   tar -xf a.tar, unzip, patch  write what the archive/diff holds (.git/hooks/pre-commit)
//   tar cf ARCHIVE             old-style options: the archive written was no resource
//   wget -{e,} x=y             an option that runs a program, hidden in a brace expansion
// and names made from arguments (gzip f → f.gz, zip x → x.zip, split → xaa, `ln F` → ./F,
// cp/mv -b backups, chmod -w / --reference) that the classification did not list.
//
// Second session (2026-11-24, 10 min each, niced): seed 77's four open flags, all real
// (gzip --suffix SUF took SUF for a file; ln {,--backup,} and git ls-remote {,URL,}: the
// classifier kept brace words as written; split --line-bytes N took N for the input). Seed 11
// (code as the session found it): 5,537 generated, 4,117 write/delete/transfer, 3,663 run, 9
// flagged, 5 real: `mv a .*` (a glob over .git: grants judged the text `.*`, not .git, so
// `cp x .g*/hooks/` wrote a hook under TASKDIR/**; now main/os/glob-paths.ts expands it when
// deciding), `3> {lnk/n,}` (a brace in a redirection hid a link), `zip -n SUF ARCHIVE`, and
// braces around a URL (git fetch, wget); 4 the oracle's (mktemp's own file, tar's sh, sed -i's
// temporary beside a link's target, a quoted "~"). Seed 12 (after those fixes): 6,538
// generated, 4,940, 4,335 run, 4 flagged, 4 real: the parser counts UTF-8 bytes and parts were
// sliced by them (`: ａ; ./make` was the part `make`, covered by {make,make *}), dd's last
// of=, install --suffix. Seed 13: 3,837 generated, 2,948, 2,661 run, 5 flagged, 5 real
// (wget --hsts-file -- --use-askpass ./x ran ./x: the search for such options stopped at the
// value `--`; tee/mkdir write a file named `-`; chmod 0 -o f changes 0; ln --suffix=../x
// falls back to b~). Tests: test/unit/classify-fuzzwrite-args.test.ts,
// test/unit/os-glob-paths.test.ts, redteam-fuzzwrite's glob row. The read fuzzer, seed 131:
// 8,933 generated, 2,995 read, 2,946 run, 4 flagged, none real (gunzip runs gzip, xargs
// e{xpr,} runs the expr it names through braces: the read oracle learnt both; getent hosts
// localhost asks DNS, by design).
//
// Third session (2026-11-24, 10 min each, niced, machine busy). Seed 21: 4,284 generated,
// 3,273 write/delete/transfer, 2,930 run, 4 flagged, 4 real but none under a grant the run
// tried (`--warc-file$(:) .` and `--hsts$(:) *`: an option whose name is computed took the
// next word, and `wget --warc-file$x lnk-hooks/pre-commit URL` was covered by the grant for that
// command; `split *.txt` uses the second match as prefix; `wget -b` writes wget-log). Found by
// hand beside it: `~-/x`, `~user/x` under command grants (`cp x ~-/pre-commit`, `{cp,cp *}`).
// Seed 22 (after those fixes): 2,205 generated, 1,675, 1,539 run, 0 flagged. Seed 23: 2,458
// generated, 1,870, 1,713 run, 3 flagged, 2 real and minor, left (`touch -r *.txt` takes the
// glob's first match as reference and touches the rest; chmod's `-f` after `--` is a file),
// 1 noise (zip's temporary zi* left when a pipe killed it). The grant probe allowed reads as
// by default only from then on (with reads asking, a line with a `cd` part was never covered);
// at once `x=.git/hooks; cd $x; cp ../../a pre-commit` under `{cp,cp *}`, `env -C .git/hooks
// touch pre-commit` and `nice tar -xf a.tar` under TASKDIR/** showed (fixed; tests in
// test/unit/classify-fuzzwrite3.test.ts, redteam-fuzzwrite). The generator then also made
// lines that create a path and use it (a link, `cp -al .git`, OLDPWD, `cd $x`) and writers under
// wrappers (env -C, nice, timeout …, judged though execute). Seed 24 (5 min): 4,377 generated,
// 3,382 judged, 3,043 run, 19 flagged: 10 real, one cause (`ln -s ../.git d/k`: a relative
// link's target is relative to its own directory; it asked, naming /.git), 9 the oracle's
// (hosts of a wrapped curl/wget, an execute part, were not counted as named). The read fuzzer,
// seed 141 (5 min): 7,901 generated, 2,569 read, 2,528 run, 2 flagged, none real (getent hosts
// asks DNS, as for seed 131; `ss --resolve` asks rpcbind's local socket for service names).
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
import { effectCovered, probeGrants } from './classify-write-grants';

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
    // What a named program does by design is no flag (seeds 77 and 11): split's PREFIX* names
    // the literal `{a,b}aa`; tar starts its compressor through sh; mktemp's own new file;
    // sed -i's temporary copy beside a link's target; a quoted "~" (the classifier names the
    // home directory, more than bash writes).
    for (const line of ["split a.txt '{a,b}'", 'LC_ALL=C tar --files-from ../outside -J -cf a.tgz', 'mktemp', 'mktemp -p dir', 'mktemp dir/tXXXXX', 'sed -i --follow-symlinks 1d lnk-etc', 'exec >> "~"']) assert.deepEqual(await kinds(line), [], line);
    // Writes and deletes the classification does not name: here a deliberately wrong one
    // (the classifier names what these lines touch), so the snapshot is what is tested.
    box.prepare();
    const wrong = await box.run('touch new.txt; rm b.json; echo x > ../outside/n', { parts: [{ command: 'touch out', action: 'write', resources: ['/tmp/w/out'] }] }, 8000);
    assert.deepEqual(wrong.findings.map((f) => `${f.kind} ${f.detail}`).sort(), ['unnamed-delete /tmp/w/b.json', 'unnamed-write /tmp/outside/n', 'unnamed-write /tmp/w/new.txt']);
    // A program it does not name, and one planted in the scene.
    assert.ok((await kinds('touch out; x=l; ${x}s >/dev/null')).includes('exec-unnamed'));
    const planted = await kinds('touch out; PATH=.:$PATH cat a.txt');
    assert.ok(planted.includes('exec-outside') && planted.includes('tripwire'), planted.join());
    // A connection to a host it does not name.
    assert.ok((await kinds('touch out; h=127.0.0.2; exec 3<>/dev/tcp/$h/9')).includes('connect'));
    // The grant check: each of the three grants covers a plain write, and none of them would
    // cover a change to a hook, outside the task or a delete by a write grant.
    box.prepare();
    const probe = probeGrants('echo x > out', box.hostTmp);
    assert.deepEqual(probe.checks.map((x) => [x.name, x.covered]), [['exact', true], ['suggested', true], ['workspace', true]]);
    for (const { grant } of probe.checks) {
      assert.equal(effectCovered(grant, probe.req, { kind: 'write', path: '/tmp/w/out' }, false), true);
      for (const e of [{ kind: 'write', path: '/tmp/w/.git/hooks/pre-commit' }, { kind: 'write', path: '/tmp/outside/n' }] as const) assert.equal(effectCovered(grant, probe.req, e, false), false, `${grant.resource}: ${e.path}`);
    }
    assert.equal(effectCovered(probe.checks[2]!.grant, probe.req, { kind: 'delete', path: '/tmp/w/a.txt' }, false), false, 'a write grant covered a delete');
    // The archive still writes its hook under bash; the classification says so and no grant covers it.
    const tar = await judge('tar -xf a.tar', classifyShell('tar -xf a.tar', SANDBOX_CWD), box, 8000);
    assert.deepEqual(tar, []);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test(`write fuzz smoke: write/delete/transfer lines touch only what they name, within the grants that cover them (seed ${SEED})`, { skip }, async () => {
  const r = await fuzz({ seconds: 45, seed: SEED, maxLines: Number(process.env.FUZZ_WRITE_SMOKE_LINES ?? 80), maxFailures: 1000 });
  assert.deepEqual(r.failures.map((f) => `${f.message}\n  line: ${f.input}`), [], `seed ${SEED}: ${JSON.stringify(r.stats)}`);
  assert.ok((r.stats.ran ?? 0) >= 30, JSON.stringify(r.stats));
  assert.ok((r.stats.covered ?? 0) > 0, `no grant ever covered a line: ${JSON.stringify(r.stats)}`);
  assert.ok((r.stats.programs ?? 0) >= 25 && (r.stats.gitSubcommands ?? 0) >= 20, JSON.stringify(r.stats));
  assert.ok((r.stats['action:execute'] ?? 0) > 0, 'the generator never made a line the classifier calls execute');
});
