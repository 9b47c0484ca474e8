// `airlock exec --task TOKEN --shell -- LINE` in a fresh task holding the given grants, as an
// agent would run it; the human denies the prompt if one comes. For red-team tests that check a
// line is asked (and does nothing when denied) where grants made it run silently before.
import type { Daemon } from './daemon';
import { Wire, airlock, pendingList, type Run } from './blackbox';

export interface Asked {
  level: string;
  reasons: string[];
  resource: unknown;
  /** Every path or host the prompt lists. */
  resources: string[];
}

/** Whichever comes first: the command ends (it ran without a prompt), or its prompt shows and is denied. */
export async function execInTask(d: Daemon, ui: Wire, o: { line: string; cwd: string; home: string; name: string; grants: { action: string; resource: string }[] }): Promise<{ run: Run; asked: Asked | null }> {
  const w = await Wire.open(d.requestSock);
  try {
    const t = await w.ok<{ task: string; token: string }>('task.start', { name: o.name, cwd: o.cwd });
    for (const g of o.grants) await ui.ok('grants.create', { task: t.task, ...g, effect: 'allow' });
    const running = airlock(['exec', '--task', t.token, '--shell', '--', o.line], { env: { ...d.env, HOME: o.home }, cwd: o.cwd, timeoutMs: 30_000 });
    let ended = false;
    void running.then(() => (ended = true));
    let asked: Asked | null = null;
    for (let i = 0; i < 150 && !ended && !asked; i++) {
      const p = (await pendingList(ui)).find((x) => x.summary.includes(o.line.slice(0, 20)));
      if (p) {
        asked = { level: p.risk.level, reasons: p.risk.reasons.map(String), resource: p.resource, resources: (p.resources ?? []).map(String) };
        await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
      } else await new Promise((res) => setTimeout(res, 200));
    }
    const run = await running;
    await w.ok('task.end', { task: t.token });
    return { run, asked };
  } finally {
    w.close();
  }
}
