// `npm run soak`: 64 clients × 10,000 mixed requests (granted, deny-granted, prompts a
// scripted human answers, invalid requests, unparseable lines, SSH signatures) while the
// daemon is killed with SIGKILL and restarted 20 times; then history is checked from the
// database (test/soak/soak.ts). Exits 1 on any wrong decision, missing event, broken chain
// or memory over the bound.
//   SOAK_CLIENTS=16 SOAK_REQUESTS=1000 SOAK_RESTARTS=5 npm run soak    a smaller run
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const { runSoak } = require(path.join(root, process.env.AIRLOCK_OUT || 'dist', 'test', 'soak', 'soak.js'));
const opts = {
  clients: Number(process.env.SOAK_CLIENTS ?? 64),
  perClient: Number(process.env.SOAK_REQUESTS ?? 10_000),
  restarts: Number(process.env.SOAK_RESTARTS ?? 20),
  rssLimitMb: Number(process.env.SOAK_RSS_MB ?? 512),
  log: (l) => process.stdout.write(`soak: ${l}\n`),
};
opts.log(`${opts.clients} clients × ${opts.perClient} requests, ${opts.restarts} kill -9 restarts, RSS bound ${opts.rssLimitMb} MiB`);
const r = await runSoak(opts);
const { wrong, missing, ...summary } = r;
opts.log(JSON.stringify(summary));
for (const w of wrong.slice(0, 20)) opts.log(`WRONG: ${w}`);
for (const m of missing.slice(0, 20)) opts.log(`MISSING: ${m}`);
const ok = wrong.length === 0 && missing.length === 0 && r.chain.ok && r.restarts === opts.restarts;
opts.log(ok ? `passed in ${(r.ms / 1000).toFixed(0)} s: ${Object.values(r.answered).reduce((a, b) => a + b, 0)} answered, ${r.unanswered} cut by kills, ${r.events} events, chain verifies, max RSS ${r.rssMaxMb} MiB` : 'FAILED');
process.exit(ok ? 0 : 1);
