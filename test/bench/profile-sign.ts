// Where a granted signature's time goes (issue 15): runs the daemon under `node --cpu-prof`,
// sends granted ed25519 signatures (persistent and fresh connections), stops it, and prints
// the functions with the most self time, and what the slowest signatures had in common.
// Not a bench of its own (no baseline): `node dist/test/bench/profile-sign.js [N]`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RawAgentClient, makeKey } from '../helpers/ssh';
import { startDaemon, tempHome } from '../helpers/daemon';
import { MSG } from '../../main/ssh/protocol';
import { Writer } from '../../main/ssh/wire';
import { fmt, nowMs, summarize } from './stats';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const DATA = Buffer.concat([Buffer.from('SSHSIG'), new Writer().string('bench').string('').string('sha512').string(Buffer.alloc(64, 7)).toBuffer()]);

/** Self time per function (ms), heaviest first. */
export function selfTimes(p: Profile, top = 25): { name: string; ms: number; share: number }[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const n = byId.get(p.samples[i]!)!;
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
    total += dt;
    const f = n.callFrame;
    const where = f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => ({ name, ms, share: ms / total }));
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 5000);
  const profDir = tempHome('al-prof-');
  const d = await startDaemon({ nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=100'] });
  const dir = tempHome('al-profk-');
  try {
    const file = await makeKey(dir, 'ed25519', ['-t', 'ed25519']);
    const ui = await d.ui();
    await ui.call('keys.import', { path: file, name: 'prof' });
    await ui.call('grants.create', { source: 'ssh', tool: 'ssh-sign', action: 'sign', effect: 'allow', note: 'profile' });
    ui.close();
    const blob = Buffer.from(fs.readFileSync(file + '.pub', 'utf8').split(' ')[1]!, 'base64');
    const body = new Writer().byte(MSG.SIGN_REQUEST).string(blob).string(DATA).uint32(0).toBuffer();
    for (const mode of ['persistent', 'fresh'] as const) {
      const times: number[] = [];
      let c = await RawAgentClient.connect(d.agentSock);
      for (let i = 0; i < n; i++) {
        const t0 = nowMs();
        if (mode === 'fresh') {
          c.close();
          c = await RawAgentClient.connect(d.agentSock);
        }
        const r = await c.request(body, 10_000);
        if (r[0] !== MSG.SIGN_RESPONSE) throw new Error('refused');
        times.push(nowMs() - t0);
      }
      c.close();
      const s = summarize(times);
      process.stdout.write(`${mode}: p50 ${fmt(s.p50)} p99 ${fmt(s.p99)} (n=${n})\n`);
    }
  } finally {
    await d.stop();
  }
  const f = fs.readdirSync(profDir).find((x) => x.endsWith('.cpuprofile'));
  if (!f) throw new Error(`no profile written in ${profDir}`);
  const p = JSON.parse(fs.readFileSync(path.join(profDir, f), 'utf8')) as Profile;
  process.stdout.write(`profile: ${path.join(profDir, f)}\n`);
  for (const r of selfTimes(p)) process.stdout.write(`${r.ms.toFixed(1).padStart(8)} ms ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.name}\n`);
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exit(1);
  });
}
