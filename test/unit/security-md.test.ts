// SECURITY.md points every claim at a test (`file › block › test name`). This keeps those
// pointers true: each cited file exists and each cited name appears in it, so renaming or
// deleting a test that a claim rests on fails here instead of leaving the claim unbacked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO = path.join(__dirname, '..', '..', '..');

interface Ref {
  file: string;
  names: string[];
}

/** `test/x.test.ts › a › b` in backticks; "…" elides, <…> is a placeholder for a table row. */
export function refsOf(md: string): Ref[] {
  const out: Ref[] = [];
  // ``…`` spans hold names with backticks in them: protect those backticks first.
  md = md.replace(/``(.+?)``/g, (_, x: string) => `\`${x.replace(/`/g, '\u0000')}\``);
  for (const m of md.matchAll(/`(test\/[\w./-]+\.ts)((?: › [^`]+)?)`/g)) {
    const names = m[2]!
      .split(' › ')
      .map((s) => s.replace(/\\\|/g, '|').replace(/\u0000/g, '`').trim())
      .filter(Boolean)
      .flatMap((s) => s.split('…').map((x) => x.trim()))
      .flatMap((s) => s.split(/<[^>]+>/).map((x) => x.trim()))
      .filter((s) => s.length >= 4);
    out.push({ file: m[1]!, names });
  }
  return out;
}

test('every test SECURITY.md cites exists, by file and by name', () => {
  const md = fs.readFileSync(path.join(REPO, 'SECURITY.md'), 'utf8');
  const refs = refsOf(md);
  assert.ok(refs.length >= 50, `only ${refs.length} test references found`);
  const problems: string[] = [];
  for (const r of refs) {
    const file = path.join(REPO, r.file);
    if (!fs.existsSync(file)) {
      problems.push(`${r.file}: no such file`);
      continue;
    }
    // Test names are string literals: compare against the source with escapes undone.
    const src = fs.readFileSync(file, 'utf8').replace(/\\(['"`])/g, '$1');
    for (const n of r.names) {
      if (src.includes(n)) continue;
      // A row of a table-driven test: `risk: ${c.name}` cited as "risk: <row name>".
      const row = /^([^:]+): (.+?)(?: → .*)?$/.exec(n);
      if (row && src.includes(`${row[1]}: \${`) && src.includes(row[2]!)) continue;
      problems.push(`${r.file}: no test named like "${n}"`);
    }
  }
  assert.deepEqual(problems, []);
});
