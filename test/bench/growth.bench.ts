// Cost growth (issue 6): does Airlock get slower as history and grants pile up?
// Decision latency (a granted request's round trip over request.sock) and history query
// time (first page, a filter, a full-text search; over ui.sock and in-process through the
// Store) at 10k, 100k and 1M events, and decision latency at 10, 1,000 and 10,000 grants.
// Each figure is shown beside the smallest size as a ratio: a flat curve is ~1×.
//   GROWTH_EVENTS=10000,100000  GROWTH_GRANTS=10,1000  GROWTH_N=500   shorten a run
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import { Store } from '../../main/store';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { RARE_WORD, seedHistory } from '../helpers/seed-history';
import { fmt, mdTable, nowMs, ratio, summarize } from './stats';
import type { BenchResult } from './stats';

const list = (v: string | undefined, d: number[]) => (v ? v.split(',').map(Number).filter((n) => n > 0) : d);
const EVENT_SIZES = list(process.env.GROWTH_EVENTS, [10_000, 100_000, 1_000_000]);
const GRANT_SIZES = list(process.env.GROWTH_GRANTS, [10, 1_000, 10_000]);
const N = Number(process.env.GROWTH_N ?? 2000);
const QUERY_RUNS = 15;

const progress = (m: string) => process.stderr.write(`growth: ${m}\n`);

const BENCH_GRANT = { action: 'write', tool: 'bench.tool', resource: '/bench/**', effect: 'allow', note: 'growth bench' };
const benchRequest = (i: number) => ({ source: 'api', tool: 'bench.tool', action: 'write', resource: `/bench/${i % 100}/f`, summary: `growth bench ${i}` });

const QUERIES: { name: string; q: Record<string, unknown> }[] = [
  { name: 'first page (100)', q: { limit: 100 } },
  { name: 'filter source=mcp, action=delete (1 in 35)', q: { source: 'mcp', action: 'delete', limit: 100 } },
  // limit 10: the rare word has 10 matches at 10k events, so every size returns the same rows.
  { name: `search "${RARE_WORD}" (10 rows)`, q: { text: RARE_WORD, limit: 10 } },
];

/** Sequential granted requests; every answer must be the grant's allow (a bench that measures denials would lie). */
async function decisions(a: RpcClient, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = nowMs();
    const r = await a.call<AgentAnswer>('request', benchRequest(i));
    out.push(nowMs() - t0);
    if (r.decision !== 'allow' || r.grant === undefined) throw new Error(`bench request ${i} was not allowed by a grant: ${JSON.stringify(r)}`);
  }
  return out;
}

async function decisionLatency(d: Daemon): Promise<{ p50: number; p99: number }> {
  const a = await d.agent();
  try {
    await decisions(a, Math.min(200, N)); // warm-up: JIT, page cache, grant cache
    return summarize(await decisions(a, N));
  } finally {
    a.close();
  }
}

interface QueryTimes {
  ui: number[];
  store: number[];
  rows: number[];
}

/** Median times of each query, over ui.sock (daemon + transport) and in this process via a read-only Store. */
async function queryTimes(d: Daemon): Promise<QueryTimes> {
  const ui = await d.ui();
  const store = new Store(path.join(d.home, 'airlock.db'), { readonly: true });
  const out: QueryTimes = { ui: [], store: [], rows: [] };
  try {
    for (const { q } of QUERIES) {
      const uiT: number[] = [];
      const stT: number[] = [];
      let rows = 0;
      for (let i = 0; i < QUERY_RUNS; i++) {
        let t0 = nowMs();
        const r = await ui.call<{ events: unknown[] }>('history.query', q);
        uiT.push(nowMs() - t0);
        t0 = nowMs();
        const s = store.queryHistory(q);
        stT.push(nowMs() - t0);
        rows = s.events.length;
        if (r.events.length !== rows) throw new Error(`ui.sock and the Store disagree on ${JSON.stringify(q)}: ${r.events.length} vs ${rows}`);
      }
      if (rows === 0) throw new Error(`query ${JSON.stringify(q)} found nothing: the bench would time an empty result`);
      out.ui.push(summarize(uiT).p50);
      out.store.push(summarize(stT).p50);
      out.rows.push(rows);
    }
  } finally {
    store.close();
    ui.close();
  }
  return out;
}

async function eventsCurve(): Promise<{ rows: { size: number; dec: { p50: number; p99: number }; q: QueryTimes; seedMs: number }[] }> {
  const home = tempHome('al-grow-');
  const db = path.join(home, 'airlock.db');
  const rows: { size: number; dec: { p50: number; p99: number }; q: QueryTimes; seedMs: number }[] = [];
  let have = 0;
  try {
    for (const size of EVENT_SIZES) {
      // Seed with the daemon stopped: the Store is single-writer. Count what is really there
      // (the bench's own requests add events too) so each size is what the table says.
      const missing = size - have;
      progress(`seeding ${missing.toLocaleString('en')} events (to ${size.toLocaleString('en')}) ...`);
      const seeded = missing > 0 ? seedHistory(db, missing, { startTs: Date.now() - size * 1000 }) : { ms: 0 };
      progress(`seeded in ${(seeded.ms / 1000).toFixed(1)} s; starting the daemon`);
      const d = await startDaemon({ home });
      try {
        if (rows.length === 0) {
          const ui = await d.ui();
          await ui.call('grants.create', BENCH_GRANT);
          ui.close();
        }
        const dec = await decisionLatency(d);
        progress(`${size.toLocaleString('en')} events: decision p50 ${fmt(dec.p50)} p99 ${fmt(dec.p99)}; querying history ...`);
        const q = await queryTimes(d);
        progress(`${size.toLocaleString('en')} events: queries (ui.sock) ${q.ui.map(fmt).join(', ')}`);
        rows.push({ size, dec, q, seedMs: seeded.ms });
      } finally {
        await d.stop();
      }
      const s = new Store(db, { readonly: true });
      have = s.eventCount();
      s.close();
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
  return { rows };
}

/**
 * Grants of the shapes people make, none of which matches the bench request, so every
 * request is checked against all of them (deny beats allow: the broker must look at each).
 */
function fillerGrant(i: number): Record<string, unknown> {
  switch (i % 4) {
    case 0:
      return { action: 'write', tool: `tool.${i}`, resource: '**', effect: 'allow' };
    case 1:
      return { action: 'write', tool: '*', resource: `/work/p${i}/**`, effect: 'allow' };
    case 2:
      return { action: 'execute', source: 'claude-code', tool: 'Bash', resource: `npm run t${i} *`, effect: 'allow' };
    default:
      return { action: '*', source: 'mcp', tool: `fs/read_${i}`, resource: `/data/${i}/*`, effect: 'deny' };
  }
}

async function grantsCurve(): Promise<{ size: number; dec: { p50: number; p99: number } }[]> {
  const d = await startDaemon();
  const out: { size: number; dec: { p50: number; p99: number } }[] = [];
  try {
    const ui = await d.ui();
    await ui.call('grants.create', BENCH_GRANT);
    let have = 1;
    // One discarded round first: otherwise the smallest size is measured on a fresh
    // daemon still warming up (JIT, caches), which flatters every larger size's ratio.
    await decisionLatency(d);
    for (const size of GRANT_SIZES) {
      progress(`creating grants up to ${size.toLocaleString('en')} ...`);
      for (; have < size; have++) await ui.call('grants.create', fillerGrant(have));
      const listed = await ui.call<{ grants: unknown[] }>('grants.list', {});
      if (listed.grants.length !== size) throw new Error(`expected ${size} active grants, the daemon lists ${listed.grants.length}`);
      const dec = await decisionLatency(d);
      progress(`${size.toLocaleString('en')} grants: decision p50 ${fmt(dec.p50)} p99 ${fmt(dec.p99)}`);
      out.push({ size, dec });
    }
    ui.close();
  } finally {
    await d.stop();
    fs.rmSync(d.home, { recursive: true, force: true });
  }
  return out;
}

const n = (x: number) => x.toLocaleString('en');

export async function run(): Promise<BenchResult> {
  const ev = await eventsCurve();
  const gr = await grantsCurve();
  const e0 = ev.rows[0]!;
  const g0 = gr[0]!;
  const figures: Record<string, number> = {};
  for (const r of ev.rows) {
    figures[`decisionP50_${r.size}ev`] = r.dec.p50;
    figures[`decisionP99_${r.size}ev`] = r.dec.p99;
    QUERIES.forEach((_, i) => (figures[`query${i}Ui_${r.size}ev`] = r.q.ui[i]!));
  }
  for (const r of gr) {
    figures[`decisionP50_${r.size}grants`] = r.dec.p50;
    figures[`decisionP99_${r.size}grants`] = r.dec.p99;
  }
  const last = ev.rows[ev.rows.length - 1]!;
  const lastG = gr[gr.length - 1]!;
  figures.decisionP50RatioEvents = last.dec.p50 / e0.dec.p50;
  figures.decisionP50RatioGrants = lastG.dec.p50 / g0.dec.p50;

  const decRows = ev.rows.map((r) => [`${n(r.size)} events`, fmt(r.dec.p50), ratio(r.dec.p50, e0.dec.p50), fmt(r.dec.p99), ratio(r.dec.p99, e0.dec.p99)]);
  const grantRows = gr.map((r) => [`${n(r.size)} grants`, fmt(r.dec.p50), ratio(r.dec.p50, g0.dec.p50), fmt(r.dec.p99), ratio(r.dec.p99, g0.dec.p99)]);
  const qRows: string[][] = [];
  QUERIES.forEach((qq, i) => {
    for (const r of ev.rows) {
      qRows.push([qq.name, n(r.size), String(r.q.rows[i]), fmt(r.q.store[i]!), ratio(r.q.store[i]!, e0.q.store[i]!), fmt(r.q.ui[i]!), ratio(r.q.ui[i]!, e0.q.ui[i]!)]);
    }
  });
  return {
    title: 'Cost growth: decisions and history queries at 10k–1M events and 10–10,000 grants',
    figures,
    markdown: [
      `Decision: ${n(N)} sequential granted requests over request.sock after a warm-up (each one matched against every grant, committed to the`,
      `hash chain, answered). History: ${QUERY_RUNS} runs of each query, median, in-process through the Store (server-side time) and over ui.sock.`,
      'Events are seeded through the real Store (same chain and search index as the daemon writes); the grants are of mixed shapes',
      '(tool-specific, path globs, command patterns, task-less denies) and none but one matches, so every request is checked against all of them.',
      'Ratios are against the smallest size: a flat curve is ~1×.',
      '',
      mdTable(['history size', 'decision p50', 'ratio', 'decision p99', 'ratio'], decRows),
      '',
      mdTable(['grants', 'decision p50', 'ratio', 'decision p99', 'ratio'], grantRows),
      '',
      mdTable(['query', 'events', 'rows', 'Store (server side)', 'ratio', 'ui.sock round trip', 'ratio'], qRows),
      '',
      `Seeding: ${ev.rows.map((r) => `${n(r.size)} events in ${(r.seedMs / 1000).toFixed(1)} s (increment)`).join(', ')}.`,
    ].join('\n'),
  };
}
