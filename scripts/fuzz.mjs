// `npm run fuzz`: runs every fuzz target (compiled test/fuzz/*.fuzz.js) for FUZZ_SECONDS
// each (default 60), one after another, and exits 1 if any found a failure. Each failing
// input is written to test-results/fuzz/ so it can become a regression test.
//   npm run fuzz                          all targets, 60 s each
//   FUZZ_SECONDS=10 npm run fuzz -- shell only targets whose file name contains a word
//   FUZZ_SEED=1234 npm run fuzz           replay a run (the seed is printed)
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const dir = path.join(root, process.env.AIRLOCK_OUT || 'dist', 'test', 'fuzz');
const seconds = Number(process.env.FUZZ_SECONDS ?? 60);
const seed = Number(process.env.FUZZ_SEED ?? (Date.now() & 0x7fffffff));
const filters = process.argv.slice(2);
const files = readdirSync(dir).filter((f) => f.endsWith('.fuzz.js')).filter((f) => !filters.length || filters.some((x) => f.includes(x))).sort();
if (!files.length) {
  console.error(`fuzz: no targets in ${dir}${filters.length ? ` matching ${filters.join(' ')}` : ''} (build first)`);
  process.exit(2);
}
const log = (line) => process.stdout.write(`fuzz: ${line}\n`);
log(`${files.length} targets, ${seconds} s each, seed ${seed}`);
let failed = 0;
const outDir = path.join(root, 'test-results', 'fuzz');
for (const f of files) {
  let r;
  try {
    r = await require(path.join(dir, f)).fuzz({ seconds, seed, log });
  } catch (e) {
    log(`${f}: the target itself failed: ${e.stack ?? e}`);
    failed++;
    continue;
  }
  const rate = Math.round(r.iterations / (r.ms / 1000));
  log(`${r.target}: ${r.iterations} inputs in ${(r.ms / 1000).toFixed(1)} s (${rate}/s), ${r.failures.length} failures; ${JSON.stringify(r.stats)}`);
  if (r.failures.length) {
    failed++;
    mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${r.target}-${seed}.json`);
    writeFileSync(file, JSON.stringify(r, null, 2));
    for (const x of r.failures.slice(0, 5)) log(`  ${x.kind}: ${x.message}\n    input: ${x.input.slice(0, 300)}`);
    log(`  all failures: ${path.relative(root, file)} (replay: FUZZ_SEED=${seed})`);
  }
}
log(failed ? `${failed} target(s) found failures` : 'no failures');
process.exit(failed ? 1 : 0);
