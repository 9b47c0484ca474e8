// Time to a visible prompt (issue 15): from the agent's request being sent to the human
// being able to see its card. Two human sides, each against the same daemon:
//  - web mode in Chromium (playwright-core, /usr/bin/chromium): a MutationObserver in the
//    page stamps the moment the card enters the DOM (test/helpers/web-ui.ts);
//  - `airlock watch` in tmux: `capture-pane` polled every ~2 ms until the request's summary
//    is on the screen (the polling adds up to a few ms, so this errs on the slow side).
// The baseline is the same request's `pending.added` reaching a ui.sock subscriber: the
// daemon's own part, before any drawing. Each prompt is then denied through ui.sock.
import { execFileSync } from 'node:child_process';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Prompt } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import { CLI, startDaemon, waitFor } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { browserMissing, launchChromium, openUi, promptSeenAt, startWebDaemon, watchPromptArrivals } from '../helpers/web-ui';
import { fmt, mdTable, nowMs, summarize, type BenchResult } from './stats';

const N = Number(process.env.BENCH_PROMPT_N ?? 30);
const AIM_MS = 100;

interface Sample {
  /** Request sent → pending.added at a ui.sock subscriber (the daemon's part). */
  notified: number;
  /** Request sent → card visible. */
  visible: number;
}

async function oneRequest(agent: RpcClient, human: Human, summary: string, visible: (p: Prompt, sentAt: number, sentHr: number) => Promise<number>): Promise<Sample> {
  const sentAt = Date.now();
  const sentHr = nowMs();
  const answer = agent.call<AgentAnswer>('request', { source: 'api', tool: 'bench.prompt', action: 'write', resource: `/bench/${summary}`, summary });
  answer.catch(() => undefined);
  const prompt = await human.next();
  const notified = nowMs() - sentHr;
  const v = await visible(prompt, sentAt, sentHr);
  await human.ui.call('pending.decide', { id: prompt.id, decision: 'deny', scope: 'once' });
  await answer;
  return { notified, visible: v };
}

async function web(): Promise<{ daemon: number[]; visible: number[] } | string> {
  const missing = browserMissing();
  if (missing) return missing;
  const d = await startWebDaemon();
  const browser = await launchChromium();
  try {
    const { page } = await openUi(browser, d);
    await watchPromptArrivals(page);
    const agent = await d.agent();
    const human = await Human.on(await d.ui());
    const daemon: number[] = [];
    const visible: number[] = [];
    for (let i = 0; i < N + 3; i++) {
      // Page and Node share the system clock (ms resolution): Date.now on both sides.
      const s = await oneRequest(agent, human, `web prompt ${i}`, async (p, sentAt) => (await promptSeenAt(page, p.id)) - sentAt);
      if (i < 3) continue; // warm-up
      daemon.push(s.notified);
      visible.push(s.visible);
    }
    agent.close();
    human.ui.close();
    return { daemon, visible };
  } finally {
    await browser.close();
    await d.stop();
  }
}

async function watch(): Promise<{ daemon: number[]; visible: number[] }> {
  const d = await startDaemon();
  const session = `airlock-bench-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
  try {
    tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '50', '-e', `AIRLOCK_HOME=${d.home}`, process.execPath, CLI, 'watch');
    await waitFor(() => /0 pending/.test(tmux('capture-pane', '-p', '-t', session)), 'watch to show its header');
    const agent = await d.agent();
    const human = await Human.on(await d.ui());
    const daemon: number[] = [];
    const visible: number[] = [];
    for (let i = 0; i < N + 3; i++) {
      const summary = `watch prompt ${i}`;
      const s = await oneRequest(agent, human, summary, async (_p, _sentAt, sentHr) => {
        const re = new RegExp(`${summary}\\b`);
        // Bounded: 10 s of polling at most.
        for (let k = 0; k < 5000; k++) {
          if (re.test(tmux('capture-pane', '-p', '-t', session))) return nowMs() - sentHr;
          await new Promise((r) => setTimeout(r, 2));
        }
        throw new Error(`"${summary}" never appeared in watch`);
      });
      // Let watch take the card down before the next one (its screen says 0 pending).
      await waitFor(() => /0 pending/.test(tmux('capture-pane', '-p', '-t', session)), 'watch to clear the prompt', 5000, 5);
      if (i < 3) continue;
      daemon.push(s.notified);
      visible.push(s.visible);
    }
    agent.close();
    human.ui.close();
    return { daemon, visible };
  } finally {
    try {
      tmux('kill-session', '-t', session);
    } catch {
      // already gone
    }
    await d.stop();
  }
}

export async function run(): Promise<BenchResult> {
  const w = await web();
  const t = await watch();
  const rows: string[][] = [];
  const figures: Record<string, number> = {};
  const add = (label: string, key: string, r: { daemon: number[]; visible: number[] }) => {
    const dd = summarize(r.daemon);
    const v = summarize(r.visible);
    rows.push([label, fmt(dd.p50), fmt(v.p50), fmt(v.p99), `${(v.p50 / dd.p50).toFixed(1)}×`, v.p50 <= AIM_MS ? 'met' : 'NOT met']);
    figures[`${key}.daemon_p50_ms`] = dd.p50;
    figures[`${key}.visible_p50_ms`] = v.p50;
    figures[`${key}.visible_p99_ms`] = v.p99;
  };
  if (typeof w === 'string') rows.push(['web (Chromium)', '—', '—', '—', '—', `not run: ${w}`]);
  else add('web UI in Chromium', 'web', w);
  add('`airlock watch` in tmux', 'watch', t);
  return {
    title: 'Time to a visible prompt: request sent → card on screen',
    figures,
    markdown: [
      `${N} prompts each (after 3 warm-up), one at a time, each denied through ui.sock before the next. The baseline is the same`,
      "request's `pending.added` reaching a ui.sock subscriber (the daemon's share); the rest is transport and drawing. Web: a",
      'MutationObserver in the page stamps the card; watch: `tmux capture-pane` polled every ~2 ms (adds up to a few ms).',
      '',
      mdTable(['human side', 'pending.added p50 (baseline)', 'visible p50', 'visible p99', 'p50 ÷ baseline', `aim ≤ ${AIM_MS} ms p50`], rows),
    ].join('\n'),
  };
}

if (require.main === module) {
  run().then(
    (r) => process.stdout.write(`${r.markdown}\n${JSON.stringify(r.figures, null, 2)}\n`),
    (e) => {
      process.stderr.write(`${(e as Error).stack}\n`);
      process.exit(1);
    },
  );
}
