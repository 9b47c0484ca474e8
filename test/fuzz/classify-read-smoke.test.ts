// The differential read fuzzer (classify-read.fuzz.ts), a short fixed-seed run for CI,
// and a control: lines known to do more than read are run through the same oracle, so
// a blind oracle (no strace output, a sandbox that runs nothing) fails here rather than
// passing every line. The long run is `npm run fuzz -- classify-read`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { READ_FORMS } from '../../main/core/classify/sh-readonly';
import { fuzz, installed, sandboxAvailable } from './classify-read.fuzz';
import { SANDBOX_CWD, buildScene, makeSandbox, type Finding } from './classify-read-oracle';
import { sweepLines } from './classify-read-gen';
import { classifyShell } from '../../main/core/classify/shell';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const skip = sandboxAvailable() ?? false;

test('fuzz oracle control: lines that really run, write, connect or trip a wire are flagged; a plain read is not', { skip }, async () => {
  const root = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'airlock-fuzzread-ctl-'));
  try {
    buildScene(path.join(root, 'scene'), Object.keys(READ_FORMS).filter(installed));
    const box = makeSandbox(root, path.join(root, 'scene'));
    const kinds = async (line: string) => (await box.run(line, 8000)).findings.map((f: Finding) => f.kind);
    assert.deepEqual(await kinds('cat a.txt; ls -la dir; git log --oneline; grep -r x .'), []);
    // A planted ./ls (exec outside the system dirs, and its tripwire).
    const planted = await kinds('PATH=.:$PATH ls');
    assert.ok(planted.includes('exec-outside') && planted.includes('tripwire'), planted.join());
    // A program the line does not name.
    assert.ok((await kinds('x=l; ${x}s')).includes('exec-unnamed'));
    // A write, a delete, a rename.
    assert.ok((await kinds('echo x > out')).includes('write'));
    assert.ok((await kinds('sed -n "w out" a.txt')).includes('write'));
    assert.ok((await kinds('unlink a.txt')).includes('fs-change'));
    assert.ok((await kinds('mv a.txt z')).includes('fs-change'));
    // A git hook (the session's repository) and a configured program (sub/'s fsmonitor).
    assert.ok((await kinds('git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x')).includes('tripwire'));
    assert.ok((await kinds('git -C sub status')).includes('tripwire'));
    // A connection (no network in the sandbox: the attempt is what counts).
    assert.ok((await kinds('exec 3<>/dev/tcp/127.0.0.1/9')).includes('connect'));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test(`fuzz smoke: lines the classifier calls read do nothing but read under the real bash (seed ${SEED})`, { skip }, async () => {
  const r = await fuzz({ seconds: 50, seed: SEED, maxReadLines: Number(process.env.FUZZ_READ_SMOKE_LINES ?? 120) });
  assert.deepEqual(r.failures.map((f) => `${f.message}\n  line: ${f.input}`), [], `seed ${SEED}: ${JSON.stringify(r.stats)}`);
  // It reached the sandbox with real lines from the tables, and some did run programs.
  assert.ok((r.stats.ran ?? 0) >= 40, JSON.stringify(r.stats));
  assert.ok((r.stats.execs ?? 0) >= r.stats.ran!, JSON.stringify(r.stats));
  assert.ok((r.stats.programs ?? 0) >= 100 && (r.stats.gitSubcommands ?? 0) >= 30, JSON.stringify(r.stats));
  assert.ok((r.stats['not-read:execute'] ?? 0) > 0, 'the generator never made a line the classifier refuses');
});

test('the exhaustive sweeps hold the lines that found ways around (git log --format --output=out, xxd a.txt -bits), none of them read now', () => {
  const lines = sweepLines({ installed });
  assert.ok(lines.length > 3000, `${lines.length} sweep lines`);
  for (const l of ['git log HEAD --format --output=out', 'git rev-list HEAD -L --output=out', 'git diff HEAD --orderfile --output=out', ...(installed('xxd') ? ['xxd a.txt -bits'] : [])]) {
    assert.ok(lines.includes(l), `the sweep lacks ${l}`);
    assert.notEqual(classifyShell(l, SANDBOX_CWD).action, 'read', l);
  }
});
