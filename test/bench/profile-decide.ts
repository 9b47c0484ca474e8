// Where a granted decision's time goes (issue 15): runs the daemon under `node --cpu-prof`,
// sends granted requests over request.sock — first from one sequential client, then from
// 32 concurrent clients — stops it, and prints the functions with the most self time and
// how many transactions group commit wrote (the daemon's last log line). Not a bench of its
// own (no baseline):
//   node dist/test/bench/profile-decide.js [N] [seq|conc|both]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RpcClient } from '../../main/client/rpc-client';
import { startDaemon, tempHome } from '../helpers/daemon';
import { fmt, nowMs, summarize } from './stats';
import { selfTimes } from './profile-windows';

const params = (i: number) => ({ source: 'api', tool: 'bench.tool', action: 'write', resource: `/bench/${i % 100}`, summary: `bench write ${i}` });

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 5000);
  const mode = process.argv[3] ?? 'both';
  const profDir = tempHome('al-prof-');
  const d = await startDaemon({ nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-interval=${process.env.PROF_INTERVAL ?? 100}`] });
  try {
    const ui = await d.ui();
    await ui.call('grants.create', { action: 'write', tool: 'bench.tool', effect: 'allow', note: 'profile' });
    ui.close();
    if (mode !== 'conc') {
      const c = await RpcClient.connect(d.requestSock);
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = nowMs();
        await c.call('request', params(i));
        times.push(nowMs() - t0);
      }
      c.close();
      const s = summarize(times);
      process.stdout.write(`sequential: p50 ${fmt(s.p50)} p99 ${fmt(s.p99)} (n=${n})\n`);
    }
    if (mode !== 'seq') {
      const cs = await Promise.all(Array.from({ length: 32 }, () => RpcClient.connect(d.requestSock)));
      const per = Math.ceil(n / 32);
      const t0 = nowMs();
      await Promise.all(cs.map(async (c) => {
        for (let i = 0; i < per; i++) await c.call('request', params(i));
      }));
      const secs = (nowMs() - t0) / 1000;
      cs.forEach((c) => c.close());
      process.stdout.write(`32 clients: ${((per * 32) / secs).toFixed(0)} decisions/s (n=${per * 32})\n`);
    }
  } finally {
    await d.stop();
  }
  process.stdout.write(`${/history: .*transactions.*/.exec(d.output())?.[0] ?? 'no group-commit line in the daemon output'}\n`);
  const f = fs.readdirSync(profDir).find((x) => x.endsWith('.cpuprofile'));
  if (!f) throw new Error(`no profile written in ${profDir}`);
  const p = JSON.parse(fs.readFileSync(path.join(profDir, f), 'utf8'));
  process.stdout.write(`profile: ${path.join(profDir, f)}\n`);
  for (const r of selfTimes(p, 40)) process.stdout.write(`${r.ms.toFixed(1).padStart(8)} ms ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.name}\n`);
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exit(1);
  });
}
