// The first granted signature after a pause (issue 15, the signature tail): bursts of signatures
// on one connection with pauses long enough for the checkpoint worker to run in each, and the
// first signature of each burst timed apart from the rest. With BASELINE_DIST another build's
// daemon runs the same bursts, interleaved. Not a bench of its own:
// `node dist/test/bench/sign-after-pause.js [bursts] [perBurst] [pauseMs]`.
import * as path from 'node:path';
import { RawAgentClient, makeKey } from '../helpers/ssh';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { MSG } from '../../main/ssh/protocol';
import { grantSigning, signRequestBody } from './granted-sign';
import { fmt, nowMs, percentile, summarize } from './stats';


async function setUp(d: Daemon, file: string): Promise<RawAgentClient> {
  await grantSigning(d, file, 'bench');
  return RawAgentClient.connect(d.agentSock);
}

async function main(): Promise<void> {
  const bursts = Number(process.argv[2] ?? 60);
  const perBurst = Number(process.argv[3] ?? 50);
  const pauseMs = Number(process.argv[4] ?? 400);
  const dir = tempHome('al-pausek-');
  const file = await makeKey(dir, 'ed25519', ['-t', 'ed25519']);
  const body = signRequestBody(file);
  const base = process.env.BASELINE_DIST;
  const daemons = [await startDaemon(), ...(base ? [await startDaemon({ cli: path.resolve(base, 'main', 'cli', 'index.js') })] : [])];
  try {
    const clients = [];
    for (const d of daemons) clients.push(await setUp(d, file));
    const firsts: number[][] = daemons.map(() => []);
    const rest: number[][] = daemons.map(() => []);
    for (let b = 0; b < bursts; b++) {
      for (let k = 0; k < clients.length; k++) {
        await new Promise((r) => setTimeout(r, pauseMs));
        for (let i = 0; i < perBurst; i++) {
          const t0 = nowMs();
          const r = await clients[k]!.request(body, 10_000);
          if (r[0] !== MSG.SIGN_RESPONSE) throw new Error('refused');
          (i === 0 ? firsts[k]! : rest[k]!).push(nowMs() - t0);
        }
      }
    }
    for (const c of clients) c.close();
    daemons.forEach((_, k) => {
      const f = [...firsts[k]!].sort((x, y) => x - y);
      const o = summarize(rest[k]!);
      process.stdout.write(
        `${k === 0 ? 'this build' : `BASELINE_DIST`}: first after a ${pauseMs} ms pause p50 ${fmt(percentile(f, 50))} p90 ${fmt(percentile(f, 90))} (n=${firsts[k]!.length}); the others p50 ${fmt(o.p50)} p99 ${fmt(o.p99)}\n`,
      );
    });
  } finally {
    for (const d of daemons) await d.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
