// Shared by every benchmark: percentiles and a markdown table. A bench file exports
//   run(): Promise<BenchResult>
// and scripts/bench.mjs runs them all and writes docs/BENCHMARKS.md.
export interface BenchResult {
  title: string;
  /** Markdown body: tables of figures beside their baselines, as ratios. */
  markdown: string;
  /** Key figures for machines (and for checking aims). */
  figures: Record<string, number>;
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const i = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[i]!;
}

export function summarize(samples: number[]): { p50: number; p99: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), n: s.length };
}

export const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);
export const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

export function mdTable(head: string[], rows: string[][]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
