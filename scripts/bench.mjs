// `npm run bench`: runs every test/bench/*.bench.ts (compiled) in one process, one after
// another, and writes docs/BENCHMARKS.md with each figure beside its baseline.
//   npm run bench                 all
//   npm run bench -- core ssh     only benches whose file name contains a word
import { readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const out = process.env.AIRLOCK_OUT || 'dist';
const dir = path.join(root, out, 'test', 'bench');
const filters = process.argv.slice(2);
const files = readdirSync(dir).filter((f) => f.endsWith('.bench.js')).filter((f) => !filters.length || filters.some((x) => f.includes(x))).sort();

const sections = [];
for (const f of files) {
  const t0 = Date.now();
  process.stdout.write(`bench: ${f} ...\n`);
  try {
    const r = await require(path.join(dir, f)).run();
    process.stdout.write(`bench: ${f} done in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${JSON.stringify(r.figures)}\n`);
    sections.push(`## ${r.title}\n\n_${f.replace(/\.js$/, '.ts')}_\n\n${r.markdown}\n`);
  } catch (e) {
    process.stdout.write(`bench: ${f} FAILED: ${e.stack ?? e}\n`);
    sections.push(`## ${f}\n\nFailed in this run: ${String(e.message ?? e)}\n`);
  }
}
let ssh = '';
try { ssh = execFileSync('ssh', ['-V'], { stdio: ['ignore', 'pipe', 'pipe'] }).toString() || ''; } catch (e) { ssh = String(e.stderr ?? ''); }
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}${ssh ? `, ${ssh.trim()}` : ''}`;
const doc = `# Benchmarks\n\nWritten by \`npm run bench\` on ${new Date().toISOString()}.\nMachine: ${machine}.\n\nEvery figure is measured beside its baseline in the same run; ratios are Airlock ÷ baseline (lower is better for times, higher for rates).\n\n${sections.join('\n')}`;
if (!filters.length || process.env.BENCH_WRITE) {
  mkdirSync(path.join(root, 'docs'), { recursive: true });
  writeFileSync(path.join(root, 'docs', 'BENCHMARKS.md'), doc);
  process.stdout.write('bench: wrote docs/BENCHMARKS.md\n');
} else process.stdout.write(doc);
