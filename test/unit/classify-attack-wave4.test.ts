// Red team, fourth wave: ways around the shell classifier found by running candidate
// commands through it and then through the real programs. Each test first shows the real
// program doing the harm (so the test cannot pass against a sed that does not), then that
// the classifier does not call the command a read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';

const c = (cmd: string) => classifyShell(cmd, '/repo');

/** Runs GNU sed on a one-line file in a fresh directory; returns the files left there. */
function realSed(script: string): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-sed-'));
  try {
    writeFileSync(path.join(dir, 'f'), 'a\n');
    try {
      execFileSync('sed', ['-n', script, 'f'], { cwd: dir, stdio: 'ignore', timeout: 10_000 });
    } catch {
      // A jump to a missing label fails at run time, after the w file was created.
    }
    return readdirSync(dir).filter((f) => f !== 'f');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('red team, fourth wave: a sed label ends at a blank, and what follows is a command (sed -n ":a w out" writes out)', () => {
  const writers = [':a w out', 'ba w out', 'ta w out', 'Ta w out', 'b a w out', ':a\tw out', ':a;:b w out', 'v 4.2 w out'];
  for (const script of writers) {
    assert.deepEqual(realSed(script), ['out'], `real GNU sed ${JSON.stringify(script)} creates out`);
    const r = c(`sed -n '${script}' f`);
    assert.equal(r.action, 'write', script);
    assert.ok(r.resources.includes('/repo/out'), `${script}: ${r.resources.join(' ')}`);
    assert.match(r.riskReasons.map((x) => x.reason).join(' | '), /writes a file \(w\): out/, script);
  }
  // `}` ends a label too: the `e` after the block runs a shell command.
  assert.equal(c("sed -n '{:a};e touch m' f").action, 'execute');
  assert.equal(c("sed -n ':a ba e' f").action, 'execute');
  // What sed users write every day stays a read.
  for (const cmd of ["sed ':a;N;$!ba;s/\\n/ /g' f", "sed -e :a -e '$!N;s/\\n//;ta' f", "sed -n '/start/,/end/{/end/!{$!{N;ba}};p}' f", "sed ':x; /\\\\$/ { N; s/\\\\\\n//; bx }' f", "sed -n 'b end; p; :end' f", "sed -n ':a#x w out' f"]) {
    assert.equal(c(cmd).action, 'read', cmd);
  }
  assert.equal(existsSync('/repo/out'), false);
});
