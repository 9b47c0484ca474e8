// Fuzz target: shell lines the classifier calls `read` (allowed without asking) checked
// against what the real bash does with them. Differential: the generator
// (classify-read-gen.ts) builds lines from the allowlist tables themselves, the
// classifier keeps the ones it calls read, and the oracle (classify-read-oracle.ts) runs
// each under bubblewrap + strace in a scene full of tripwires. A line that runs a program
// it does not name, writes, deletes, connects or trips a wire is a way around the approver.
//
// Bounded and deterministic: FUZZ_SEED picks the lines, FUZZ_READ_LINES caps how many
// read lines run (default: as many as FUZZ_SECONDS allows), each under FUZZ_READ_LINE_MS.
//   FUZZ_SECONDS=600 FUZZ_READ_LINES=5000 npm run fuzz -- classify-read
// FUZZ_READ_SWEEP=1 runs the exhaustive sweeps instead (every option after the files, every
// value-taking option followed by a write option). Smoke run: test/fuzz/classify-read-smoke.test.ts.
//
// First long runs (2026-11-24; seeds 1, 2, 3, 11, 21, 31, 41, 51, 61; 30 s to 10 min each):
// 39,582 lines generated, 12,299 classified read, 12,121 run for real, 72 flagged. Most
// flags were the oracle's to fix (a program's own by-design behaviour: npm's log, man's
// helpers, git's index lock …, listed in classify-read-oracle.ts with why). Real ways
// around the approver, each fixed with a test that fails on the old code
// (test/unit/classify-fuzzread.test.ts, test/integration/redteam-fuzzread.test.ts):
//   xxd IN -bits            xxd's options end at the input file; -bits is the file it writes
//   ss NAME, ss .           ss resolves the word through DNS (a transfer, as getent hosts)
//   git status              runs .git/hooks/post-index-change (same-line hook chain: critical)
//   git diff --unified --output=out   --unified[=n] takes only an attached value
// and, while writing the generator's prefixes, POSIXLY_CORRECT=1 uniq a.txt -c (writes -c).
// A sweep of every flag of every form placed after the files (3,582 lines) found nothing
// more; a sweep of every value-taking option followed by a write option (2,301 lines run)
// found 26 that wrote (git log --format --output=out …: git takes those values only
// attached), all closed by one rule in sh-flags.ts; the whole sweep after it
// (FUZZ_READ_SWEEP=1: 6,441 lines, 3,926 read and run) flagged only by-design behaviour.
// Lead's runs of 2026-11-24 (seeds 101, 202, 303, 10 min each, 21,295 lines, 6,898 read and run): two
// flags. `man -u` rebuilds man's index cache (a write: fixed, unit/classify-fuzzread). `getent hosts
// localhost` asked DNS for localhost's IPv6 address where /etc/hosts has no ::1 line: the query
// is the fixed word localhost, nothing of the agent's, so it stays a read. `npm run fuzz` prints each run's counts (generated, read, ran, flagged).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';
import { READ_FORMS } from '../../main/core/classify/sh-readonly';
import { clipText, prng, type FuzzFailure, type FuzzOptions, type FuzzReport } from './lib';
import { makeGenerator, sweepLines } from './classify-read-gen';
import { SANDBOX_CWD, buildScene, makeSandbox, type Finding } from './classify-read-oracle';

const BASH_BUILTINS = new Set(['echo', 'printf', 'true', 'false', ':', 'type', 'pwd', 'test', '[', 'help', 'history', 'jobs', 'dirs', 'read', 'wait', 'exit', 'return', 'shift', 'times', 'caller', 'alias', 'hash', 'trap', 'shopt', 'umask', 'ulimit', 'set', 'compgen', 'cd', 'pushd', 'popd']);

/** Whether a program runs here at all (a generated line naming a missing one proves nothing). */
export function installed(name: string): boolean {
  if (BASH_BUILTINS.has(name)) return true;
  return ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'].some((d) => fs.existsSync(path.join(d, name)));
}

export function sandboxAvailable(): string | null {
  for (const p of ['/usr/bin/bwrap', '/usr/bin/strace', '/bin/bash']) if (!fs.existsSync(p)) return `${p} is missing`;
  return null;
}

export interface ReadFuzzOptions extends FuzzOptions {
  /** Stop after this many lines classified read have run (the smoke run's bound). */
  maxReadLines?: number;
  /** Per-line wall-clock cap in ms. */
  lineMs?: number;
  /** Keep going past the first failures (exploration runs list every one). */
  maxFailures?: number;
  /** Run the exhaustive sweeps (classify-read-gen.ts sweepLines) instead of random lines. */
  sweep?: boolean;
}

export async function fuzz(opts: ReadFuzzOptions): Promise<FuzzReport> {
  const t0 = Date.now();
  const deadline = t0 + opts.seconds * 1000;
  const missing = sandboxAvailable();
  if (missing) return { target: 'classify-read', seed: opts.seed, iterations: 0, ms: 0, failures: [{ kind: 'no sandbox', message: missing, input: '' }], stats: {} };
  const maxRead = opts.maxReadLines ?? Number(process.env.FUZZ_READ_LINES ?? Infinity);
  const lineMs = opts.lineMs ?? Number(process.env.FUZZ_READ_LINE_MS ?? 4000);
  const maxFailures = opts.maxFailures ?? Number(process.env.FUZZ_READ_MAX_FAILURES ?? 10);
  const gen = makeGenerator({ installed });
  // A copy of the scene per line: on a memory file system when there is one (10× faster).
  const root = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'airlock-fuzzread-'));
  const template = path.join(root, 'scene');
  buildScene(template, Object.keys(READ_FORMS).filter(installed));
  const box = makeSandbox(root, template);
  const r = prng(opts.seed);
  // FUZZ_READ_SWEEP=1: the exhaustive sweeps, in order, instead of random lines.
  const sweep = (opts.sweep ?? process.env.FUZZ_READ_SWEEP === '1') ? sweepLines({ installed }) : null;
  let sweepAt = 0;
  const failures: FuzzFailure[] = [];
  const stats: Record<string, number> = { programs: gen.programs, gitSubcommands: gen.gitSubcommands, generated: 0, read: 0, ran: 0, flagged: 0, timedOut: 0, execs: 0, duplicate: 0 };
  const seen = new Set<string>();
  let nextLog = t0 + 10_000;
  try {
    while (Date.now() < deadline && stats.ran! < maxRead && failures.length < maxFailures) {
      if (sweep && sweepAt >= sweep.length) break;
      const line = sweep ? sweep[sweepAt++]! : gen.line(r);
      stats.generated!++;
      const c = classifyShell(line, SANDBOX_CWD);
      if (c.action !== 'read') {
        stats[`not-read:${c.action}`] = (stats[`not-read:${c.action}`] ?? 0) + 1;
        continue;
      }
      stats.read!++;
      if (seen.has(line)) {
        stats.duplicate!++;
        continue;
      }
      seen.add(line);
      const run = await box.run(line, lineMs);
      stats.ran!++;
      stats.execs! += run.execs;
      if (run.timedOut) stats.timedOut!++;
      if (run.findings.length) {
        stats.flagged!++;
        for (const f of run.findings) stats[`flag:${f.kind}`] = (stats[`flag:${f.kind}`] ?? 0) + 1;
        failures.push({ kind: 'read line did more than read', message: describe(run.findings), input: clipText(line, 1000) });
      }
      if (opts.log && Date.now() >= nextLog) {
        opts.log(`classify-read: ${stats.generated} generated, ${stats.read} read, ${stats.ran} ran, ${failures.length} flagged`);
        nextLog += 10_000;
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return { target: 'classify-read', seed: opts.seed, iterations: stats.generated!, ms: Date.now() - t0, failures, stats };
}

const describe = (fs_: Finding[]) => fs_.slice(0, 6).map((f) => `${f.kind}: ${f.detail}`).join('; ');
