// Fuzz target: shell lines the classifier calls write, delete or transfer, checked against
// what the real bash does with them, and against the grants a human would make from their
// prompts. A grant lets such a line through silently when its classification falls inside
// the grant, so a line that changes a path it does not name, runs a program it does not
// name or connects to a host it does not name is a way around the approver. The generator
// (classify-write-gen.ts) builds lines from the write/delete/transfer tables, the
// classifier keeps the ones it calls write/delete/transfer (never execute, which no
// suggested grant widens), the oracle (classify-write-oracle.ts) runs each under
// bubblewrap + strace with /tmp snapshotted, and classify-write-grants.ts asks the real
// core which grants cover it and whether they cover what it really did.
//
// Bounded and deterministic: FUZZ_SEED picks the lines, FUZZ_WRITE_LINES caps how many
// run, each under FUZZ_WRITE_LINE_MS.
//   FUZZ_SECONDS=600 FUZZ_WRITE_LINES=3000 npm run fuzz -- classify-write
// Smoke run and the counts of the first runs: test/fuzz/classify-write-smoke.test.ts (header).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';
import { READ_FORMS } from '../../main/core/classify/sh-readonly';
import { clipText, prng, type FuzzFailure, type FuzzOptions, type FuzzReport } from './lib';
import { installed, sandboxAvailable } from './classify-read.fuzz';
import { makeWriteGenerator } from './classify-write-gen';
import { SANDBOX_CWD, buildWriteScene, makeWriteSandbox, type WriteFinding } from './classify-write-oracle';
import { namedWords } from './classify-read-oracle';
import { effectCovered, probeGrants } from './classify-write-grants';

export interface WriteFuzzOptions extends FuzzOptions {
  /** Stop after this many write/delete/transfer lines have run. */
  maxLines?: number;
  lineMs?: number;
  maxFailures?: number;
}

const JUDGED = new Set(['write', 'delete', 'transfer']);
/**
 * A writer under a wrapper is execute (`nice tar -xf a.tar`, `env -C d touch x`), yet a grant on
 * the task's directory or the wrapper's command covers it: judged too, when every part that is
 * not a read is such a wrapper (classify-write-gen.ts wrappedCommand).
 */
const WRAPPED = /^(env|nice|timeout|stdbuf|nohup|setsid|command)(\s|$)/;
const judged = (c: ReturnType<typeof classifyShell>) => JUDGED.has(c.action) || (c.action === 'execute' && c.parts.some((p) => p.action !== 'read') && c.parts.every((p) => p.action === 'read' || WRAPPED.test(p.command)));

export async function fuzz(opts: WriteFuzzOptions): Promise<FuzzReport> {
  const t0 = Date.now();
  const deadline = t0 + opts.seconds * 1000;
  const missing = sandboxAvailable();
  if (missing) return { target: 'classify-write', seed: opts.seed, iterations: 0, ms: 0, failures: [{ kind: 'no sandbox', message: missing, input: '' }], stats: {} };
  const maxLines = opts.maxLines ?? Number(process.env.FUZZ_WRITE_LINES ?? Infinity);
  const lineMs = opts.lineMs ?? Number(process.env.FUZZ_WRITE_LINE_MS ?? 4000);
  const maxFailures = opts.maxFailures ?? Number(process.env.FUZZ_WRITE_MAX_FAILURES ?? 20);
  const gen = makeWriteGenerator({ installed });
  const root = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'airlock-fuzzwrite-'));
  const template = path.join(root, 'scene');
  buildWriteScene(template, Object.keys(READ_FORMS).filter(installed));
  const box = makeWriteSandbox(root, template);
  const r = prng(opts.seed);
  const failures: FuzzFailure[] = [];
  const stats: Record<string, number> = { programs: gen.programs, gitSubcommands: gen.gitSubcommands, generated: 0, classified: 0, ran: 0, flagged: 0, covered: 0, 'grant-exceeded': 0, timedOut: 0, execs: 0, duplicate: 0 };
  const seen = new Set<string>();
  let nextLog = t0 + 10_000;
  try {
    while (Date.now() < deadline && stats.ran! < maxLines && failures.length < maxFailures) {
      const line = gen.line(r);
      stats.generated!++;
      const c = classifyShell(line, SANDBOX_CWD);
      stats[`action:${c.action}`] = (stats[`action:${c.action}`] ?? 0) + 1;
      if (!judged(c)) continue;
      stats.classified!++;
      if (seen.has(line)) {
        stats.duplicate!++;
        continue;
      }
      seen.add(line);
      const found = await judge(line, c, box, lineMs, stats);
      if (found.length) {
        stats.flagged!++;
        for (const f of found) stats[`flag:${f.kind}`] = (stats[`flag:${f.kind}`] ?? 0) + 1;
        failures.push({ kind: `${c.action} line did more than it names`, message: describe(found), input: clipText(line, 1000) });
      }
      if (opts.log && Date.now() >= nextLog) {
        opts.log(`classify-write: ${stats.generated} generated, ${stats.classified} write/delete/transfer, ${stats.ran} ran, ${failures.length} flagged`);
        nextLog += 10_000;
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return { target: 'classify-write', seed: opts.seed, iterations: stats.generated!, ms: Date.now() - t0, failures, stats };
}

/** Runs one classified line: the grants first (on the fresh scene, as the daemon resolves links before it runs), then bash. */
export async function judge(line: string, c: ReturnType<typeof classifyShell>, box: ReturnType<typeof makeWriteSandbox>, lineMs: number, stats: Record<string, number> = {}): Promise<WriteFinding[]> {
  box.prepare();
  const probe = probeGrants(line, box.hostTmp);
  // What the daemon decides on: the classification with each path's real target beside it.
  const run = await box.run(line, { parts: probe.req.parts ?? c.parts }, lineMs);
  stats.ran = (stats.ran ?? 0) + 1;
  stats.execs = (stats.execs ?? 0) + run.execs;
  if (run.timedOut) stats.timedOut = (stats.timedOut ?? 0) + 1;
  const found = [...run.findings];
  const gitNamed = namedWords(line).has('git');
  for (const check of probe.checks) {
    if (!check.covered) continue;
    stats.covered = (stats.covered ?? 0) + 1;
    stats[`covered:${check.name}`] = (stats[`covered:${check.name}`] ?? 0) + 1;
    const outside = run.effects.filter((e) => !effectCovered(check.grant, probe.req, e, gitNamed));
    if (outside.length) {
      stats['grant-exceeded'] = (stats['grant-exceeded'] ?? 0) + 1;
      found.push({ kind: `grant:${check.name}`, detail: `\`${check.grant.resource}\` (${String(check.grant.action)}) covered it, but it also ${outside.slice(0, 3).map((e) => `${e.kind === 'write' ? 'wrote' : 'removed'} ${e.path}`).join(', ')}` });
    }
  }
  return found;
}

const describe = (fs_: WriteFinding[]) => fs_.slice(0, 6).map((f) => `${f.kind}: ${f.detail}`).join('; ');
