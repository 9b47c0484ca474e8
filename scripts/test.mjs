// The test command of the README: build, then every test file under node's test runner
// (unit, integration with real OpenSSH/bwrap/MCP, e2e with Chromium). Ends with one line
// `N passed, N failed, N skipped` for .ci/run.
//   npm test                 everything
//   npm test -- unit         only files whose path contains "unit"
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const filters = process.argv.slice(2);
if (!process.env.AIRLOCK_SKIP_BUILD) execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'inherit' });

function walk(dir) {
  let out = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(walk(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}
// Filters match the path under dist/test (`unit/grants`), not the checkout's own path: a
// checkout at /work/wt/unit would otherwise run everything for the filter `unit`.
const testRoot = path.join(root, process.env.AIRLOCK_OUT || 'dist', 'test');
const files = walk(testRoot)
  .filter((f) => !f.includes(`${path.sep}bench${path.sep}`))
  .filter((f) => filters.length === 0 || filters.some((x) => path.relative(testRoot, f).includes(x)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(2);
}
// The timeout is per file: integration/fresh-clone (a full `npm install` that builds
// better-sqlite3, then a test run inside the clone) needs more than 10 minutes on a busy
// 2-core machine. Every loop in the tests has its own tighter bound.
const child = spawn(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=2', '--test-timeout=1500000', ...files], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, AIRLOCK_TEST: '1' },
});
// The spec reporter prints `ℹ pass N` etc. once, before the list of failures: keep the
// last value of each as lines stream by.
const counts = {};
let partial = '';
child.stdout.on('data', (d) => {
  process.stdout.write(d);
  const lines = (partial + d.toString()).split('\n');
  partial = lines.pop() ?? '';
  for (const l of lines) {
    const m = /^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(l.trim());
    if (m) counts[m[1]] = Number(m[2]);
  }
});
child.on('close', (code) => {
  const num = (label) => counts[label] ?? 0;
  const passed = num('pass');
  const failed = num('fail') + num('cancelled');
  const skipped = num('skipped') + num('todo');
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(code ?? 1);
});
