// Small files: no file in main/ is over 400 lines unless its header says why (a comment
// "Over 400 lines on purpose: …" in its first 30 lines). Adding a long file without saying
// why fails here, so the rule cannot rot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

test('every file in main/ over 400 lines says why in its header', () => {
  const main = path.join(ROOT, 'main');
  assert.ok(fs.existsSync(main), `no main/ at ${main}`);
  const files = sources(main);
  assert.ok(files.length > 50, 'the walk found the sources');
  const silent = files.filter((f) => {
    const lines = fs.readFileSync(f, 'utf8').split('\n');
    return lines.length > 400 && !lines.slice(0, 30).some((l) => /^\/\/ Over 400 lines on purpose: \S/.test(l));
  });
  assert.deepEqual(silent.map((f) => path.relative(ROOT, f)), []);
});
