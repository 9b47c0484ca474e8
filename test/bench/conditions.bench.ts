// Grant conditions (issue 14): decision p50 with 1,000 conditional grants beside the same
// 1,000 grants without conditions, in the same run (the plain ones differ only in that a
// resource pattern for another host, not a condition, keeps them from matching: every grant
// is looked at just as far; test/unit/conditions-bench-shape.test.ts checks that the index
// keeps them and their globs run). The grant set is in conditions-grants.ts. The grants sit on the request's own
// tool where it matters: 249 deny grants whose conditions would be checked on every request
// (deny beats allow) but for the condition index, 250 allow grants that do not hold, 500
// on other tools of the same server; the request is an MCP payment allowed by a grant
// (with a condition in the conditional run). Aim: conditional p50 within 1.2× of plain.
//   COND_N=500  shorten a run
import * as fs from 'node:fs';
import type { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import { startDaemon } from '../helpers/daemon';
import { GRANTS, grantOf, payGrant, request } from './conditions-grants';
import { fmt, mdTable, nowMs, ratio, summarize, type BenchResult } from './stats';

const N = Number(process.env.COND_N ?? 2000);
const progress = (m: string) => process.stderr.write(`conditions: ${m}\n`);

async function decisions(a: RpcClient, n: number, expected: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = nowMs();
    const r = await a.call<AgentAnswer>('request', request(i));
    out.push(nowMs() - t0);
    if (r.decision !== 'allow' || r.grant !== expected) throw new Error(`bench request ${i} was not allowed by grant ${expected}: ${JSON.stringify(r)}`);
  }
  return out;
}

async function measure(conditional: boolean): Promise<{ p50: number; p99: number }> {
  const d = await startDaemon();
  try {
    const ui = await d.ui();
    const pay = (await ui.call<{ grant: { id: string } }>('grants.create', payGrant(conditional))).grant;
    for (let i = 1; i < GRANTS; i++) await ui.call('grants.create', grantOf(i, conditional));
    ui.close();
    const a = await d.agent();
    try {
      await decisions(a, Math.min(300, N), pay.id);
      return summarize(await decisions(a, N, pay.id));
    } finally {
      a.close();
    }
  } finally {
    await d.stop();
    fs.rmSync(d.home, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchResult> {
  // Interleaved twice, so load on a shared machine hits both sides alike; the better run of each counts.
  const plain: { p50: number; p99: number }[] = [];
  const cond: { p50: number; p99: number }[] = [];
  for (let round = 0; round < 2; round++) {
    plain.push(await measure(false));
    progress(`plain p50 ${fmt(plain[round]!.p50)}`);
    cond.push(await measure(true));
    progress(`conditional p50 ${fmt(cond[round]!.p50)}`);
  }
  const best = (xs: { p50: number; p99: number }[]) => xs.reduce((a, b) => (b.p50 < a.p50 ? b : a));
  const p = best(plain);
  const c = best(cond);
  const markdown = [
    `Decision round trip of a granted MCP payment over request.sock, ${N.toLocaleString('en')} sequential requests, 1,000 active grants each run.`,
    `Plain run: 499 look-alike grants on the same tool and action for other hosts (\`*.nopeN.example\`), each one's glob run against the request's host.`,
    `Conditional run: 249 deny and 250 allow conditions on the same tool and action; the condition index (core/condition-index.ts) files them under the literal facts they need and evaluates only those that may hold (here the allowing grant's own).`,
    '',
    mdTable(['grants', 'p50', 'p50 ÷ plain', 'p99', 'p99 ÷ plain'], [
      ['1,000 plain (baseline)', fmt(p.p50), '1.00×', fmt(p.p99), '1.00×'],
      ['1,000 with conditions', fmt(c.p50), ratio(c.p50, p.p50), fmt(c.p99), ratio(c.p99, p.p99)],
    ]),
    '',
    `Aim: p50 within 1.2× of plain. Conditions whose facts may hold, and conditions without such facts (has, !=, functions, loops), are evaluated. Conditions in the common subset (field vs literal comparisons, \`in [literals]\`, has, and/or/not) run on a direct evaluator that is checked against @bufbuild/cel by a differential test; anything else runs on @bufbuild/cel (~5–15 µs per condition here).`,
  ].join('\n');
  return { title: 'Grant conditions: 1,000 conditional grants vs 1,000 plain', markdown, figures: { plainP50: p.p50, conditionalP50: c.p50, conditionalRatio: c.p50 / p.p50 } };
}
