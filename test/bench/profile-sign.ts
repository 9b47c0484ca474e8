// Where a granted signature's time goes (issue 15): runs the daemon under `node --cpu-prof`,
// sends granted ed25519 signatures (persistent and fresh connections), stops it, and prints
// the functions with the most self time, and what the slowest signatures had in common.
// Not a bench of its own (no baseline): `node dist/test/bench/profile-sign.js [N]`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RawAgentClient, makeKey } from '../helpers/ssh';
import { startDaemon, tempHome } from '../helpers/daemon';
import { MSG } from '../../main/ssh/protocol';
import { grantSigning, signRequestBody } from './granted-sign';
import { fmt, summarize } from './stats';
import { type Profile, type Window, selfTimes, slowTimelines, stageHitRates, tailReport } from './profile-windows';


async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 5000);
  const profDir = tempHome('al-prof-');
  const windows: Record<string, Window[]> = {};
  const d = await startDaemon({ nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=100'] });
  const dir = tempHome('al-profk-');
  try {
    const file = await makeKey(dir, 'ed25519', ['-t', 'ed25519']);
    await grantSigning(d, file, 'profile');
    const body = signRequestBody(file);
    for (const mode of ['persistent', 'fresh'] as const) {
      const times: number[] = [];
      const spans: Window[] = [];
      let c = await RawAgentClient.connect(d.agentSock);
      for (let i = 0; i < n; i++) {
        const t0 = Number(process.hrtime.bigint() / 1000n);
        if (mode === 'fresh') {
          c.close();
          c = await RawAgentClient.connect(d.agentSock);
        }
        const r = await c.request(body, 10_000);
        if (r[0] !== MSG.SIGN_RESPONSE) throw new Error('refused');
        const t1 = Number(process.hrtime.bigint() / 1000n);
        times.push((t1 - t0) / 1000);
        spans.push({ startUs: t0, endUs: t1 });
      }
      c.close();
      const s = summarize(times);
      process.stdout.write(`${mode}: p50 ${fmt(s.p50)} p99 ${fmt(s.p99)} (n=${n})\n`);
      windows[mode] = spans;
    }
  } finally {
    await d.stop();
  }
  // One profile per thread: CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main one.
  const files = fs.readdirSync(profDir).filter((x) => x.endsWith('.cpuprofile')).sort((a, b) => a.split('.')[4]!.localeCompare(b.split('.')[4]!, undefined, { numeric: true }));
  const f = files[0];
  if (!f) throw new Error(`no profile written in ${profDir}`);
  const p = JSON.parse(fs.readFileSync(path.join(profDir, f), 'utf8')) as Profile;
  process.stdout.write(`profile: ${path.join(profDir, f)}\n`);
  for (const r of selfTimes(p)) process.stdout.write(`${r.ms.toFixed(1).padStart(8)} ms ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.name}\n`);
  // The tail: what the daemon was doing while its slowest requests waited (profile-windows.ts).
  for (const [mode, spans] of Object.entries(windows)) {
    process.stdout.write(`\n${mode}, where the slowest 1% went:\n`);
    for (const line of tailReport(p, spans)) process.stdout.write(`${line}\n`);
    for (const line of stageHitRates(p, spans)) process.stdout.write(`${line}\n`);
    process.stdout.write(`${mode}, the slowest one by one (daemon stages in ms, in order):\n`);
    for (const line of slowTimelines(p, spans)) process.stdout.write(`${line}\n`);
    // The other threads (the WAL checkpoint worker): busy during the slow requests more often than during all?
    for (const w of files.slice(1)) {
      const wp = JSON.parse(fs.readFileSync(path.join(profDir, w), 'utf8')) as Profile;
      process.stdout.write(`${mode}, worker thread ${w.split('.')[4]} (checkpoints):\n`);
      for (const line of stageHitRates(wp, spans).filter((l) => /requests with|other|program|gc/.test(l))) process.stdout.write(`${line}\n`);
    }
  }
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exit(1);
  });
}
