// Where the SLOW requests' time went (issue 15): a CPU profile lists self time over the whole
// run, which hides a tail of 1%. The profile's sample timestamps are V8 TimeTicks, the same
// monotonic clock as process.hrtime on Linux, so each request the client timed (its send and
// its answer, in µs) can be laid over the daemon's samples: what was the daemon doing while
// that request waited? Compared between the slowest requests and the typical ones, a stage
// that shows up only in the slow ones is the tail's cause.
import * as path from 'node:path';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** One timed request, client clock (µs of process.hrtime). */
export interface Window {
  startUs: number;
  endUs: number;
}

/** Self time per function (ms), heaviest first. */
export function selfTimes(p: Profile, top = 25): { name: string; ms: number; share: number }[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const n = byId.get(p.samples[i]!)!;
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
    total += dt;
    const key = frameName(n);
    self.set(key, (self.get(key) ?? 0) + dt);
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => ({ name, ms, share: ms / total }));
}

function frameName(n: ProfileNode): string {
  const f = n.callFrame;
  const where = f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
}

/** Each sample's time (µs, profile clock), duration (µs) and the frames on its stack (leaf first). */
function sampleStacks(p: Profile): { t: number; dt: number; stack: string[] }[] {
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const stackOf = new Map<number, string[]>();
  const stack = (id: number): string[] => {
    let s = stackOf.get(id);
    if (s) return s;
    s = [];
    for (let cur: number | undefined = id, i = 0; cur !== undefined && i < 10_000; cur = parent.get(cur), i++) s.push(frameName(byId.get(cur)!));
    stackOf.set(id, s);
    return s;
  };
  const out: { t: number; dt: number; stack: string[] }[] = [];
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    out.push({ t, dt: p.timeDeltas[i + 1] ?? 0, stack: stack(p.samples[i]!) });
  }
  return out;
}

/**
 * Inclusive time per function inside the given windows (each function counted once per
 * sample), as a share of those windows' total sampled time.
 */
function inclusiveShares(samples: { t: number; dt: number; stack: string[] }[], windows: Window[]): { total: number; share: Map<string, number> } {
  const ws = [...windows].sort((a, b) => a.startUs - b.startUs);
  const acc = new Map<string, number>();
  let total = 0;
  let j = 0;
  for (const s of samples) {
    while (j < ws.length && ws[j]!.endUs < s.t) j++;
    if (j >= ws.length) break;
    if (s.t < ws[j]!.startUs) continue;
    total += s.dt;
    for (const f of new Set(s.stack)) acc.set(f, (acc.get(f) ?? 0) + s.dt);
  }
  const share = new Map<string, number>();
  for (const [f, us] of acc) share.set(f, total > 0 ? us / total : 0);
  return { total, share };
}

/**
 * The functions most over-represented in the slowest `tail` share of the windows compared
 * with the middle half, as printable lines.
 */
export function tailReport(p: Profile, windows: Window[], tail = 0.01, top = 20): string[] {
  const sorted = [...windows].sort((a, b) => b.endUs - b.startUs - (a.endUs - a.startUs));
  const nSlow = Math.max(1, Math.round(sorted.length * tail));
  const slow = sorted.slice(0, nSlow);
  const typical = sorted.slice(Math.floor(sorted.length / 4), Math.floor((3 * sorted.length) / 4));
  const samples = sampleStacks(p);
  const s = inclusiveShares(samples, slow);
  const m = inclusiveShares(samples, typical);
  const slowMs = slow.reduce((a, w) => a + (w.endUs - w.startUs), 0) / 1000;
  const typMs = typical.reduce((a, w) => a + (w.endUs - w.startUs), 0) / 1000;
  const lines = [
    `slowest ${nSlow} requests: ${slowMs.toFixed(1)} ms of wall time, ${(s.total / 1000).toFixed(1)} ms of it sampled in the daemon;` +
      ` middle half (${typical.length}): ${typMs.toFixed(1)} ms, ${(m.total / 1000).toFixed(1)} ms sampled`,
    '  slow%   typ%  function (inclusive, share of the sampled time in those requests)',
  ];
  const rows = [...s.share.entries()]
    .map(([f, sh]) => ({ f, sh, typ: m.share.get(f) ?? 0 }))
    .filter((r) => r.f !== '(root)')
    .sort((a, b) => b.sh - b.typ - (a.sh - a.typ))
    .slice(0, top);
  for (const r of rows) lines.push(`${(r.sh * 100).toFixed(1).padStart(6)} ${(r.typ * 100).toFixed(1).padStart(6)}  ${r.f}`);
  return lines;
}

/** Stages a sample is filed under: the first whose marker is on its stack (leaf first) wins. */
const STAGES: [string, RegExp][] = [
  ['idle', /^\(idle\)/],
  ['gc', /^\(garbage collector\)/],
  ['search-index', /^indexBatch /],
  ['last-used', /^writeTouches |^touch /],
  ['commit', /^flush group-commit|^write .*store\.js|^\(anonymous\) store\.js/],
  ['sign', /^signOneShot |^signWith /],
  ['policy', /^decide request-policy/],
  ['parse', /^parseMessage |^parseSignedData |^describeSign /],
  ['socket', /^writeBuffer|^writeGeneric|^onStreamRead|^Socket\._write/],
  ['program', /^\(program\)/],
];

function stageOf(stack: string[]): string {
  for (const [name, re] of STAGES) if (stack.some((f) => re.test(f))) return name;
  return 'other';
}

/**
 * The slowest `count` requests one by one: their wall time and the daemon's samples inside
 * them as a run-length timeline of stages ("idle 2.10 | policy 0.12 | commit 0.30 ..." in ms).
 */
export function slowTimelines(p: Profile, windows: Window[], count = 12): string[] {
  const samples = sampleStacks(p);
  const slow = [...windows].sort((a, b) => b.endUs - b.startUs - (a.endUs - a.startUs)).slice(0, count);
  const lines: string[] = [];
  for (const w of slow) {
    const runs: { stage: string; us: number }[] = [];
    let covered = 0;
    for (const s of samples) {
      if (s.t < w.startUs || s.t > w.endUs) continue;
      covered += s.dt;
      const stage = stageOf(s.stack);
      const last = runs[runs.length - 1];
      if (last && last.stage === stage) last.us += s.dt;
      else runs.push({ stage, us: s.dt });
    }
    const shown = runs.filter((r) => r.us >= 50).map((r) => `${r.stage} ${(r.us / 1000).toFixed(2)}`);
    lines.push(`${((w.endUs - w.startUs) / 1000).toFixed(2).padStart(6)} ms (sampled ${(covered / 1000).toFixed(2)}): ${shown.join(' | ')}`);
  }
  return lines;
}

/**
 * For each stage, the share of the slowest `tail` requests during which the daemon spent at
 * least `minUs` in it, beside the same share over all requests: a stage that touches 60% of
 * the slow ones and 1% of all is what makes the tail.
 */
export function stageHitRates(p: Profile, windows: Window[], tail = 0.01, minUs = 200): string[] {
  const samples = sampleStacks(p);
  const order = [...windows].sort((a, b) => a.startUs - b.startUs);
  const perWindow = new Map<Window, Map<string, number>>();
  let j = 0;
  for (const s of samples) {
    while (j < order.length && order[j]!.endUs < s.t) j++;
    if (j >= order.length) break;
    const w = order[j]!;
    if (s.t < w.startUs) continue;
    let m = perWindow.get(w);
    if (!m) perWindow.set(w, (m = new Map()));
    const st = stageOf(s.stack);
    m.set(st, (m.get(st) ?? 0) + s.dt);
  }
  const slow = [...windows].sort((a, b) => b.endUs - b.startUs - (a.endUs - a.startUs)).slice(0, Math.max(1, Math.round(windows.length * tail)));
  const hits = (ws: Window[], stage: string) => ws.filter((w) => (perWindow.get(w)?.get(stage) ?? 0) >= minUs).length / ws.length;
  const lines = [`  slow%    all%  requests with >= ${minUs} µs in the stage (slowest ${slow.length} vs all ${windows.length})`];
  for (const stage of [...STAGES.map(([n]) => n), 'other']) {
    lines.push(`${(hits(slow, stage) * 100).toFixed(1).padStart(7)} ${(hits(windows, stage) * 100).toFixed(1).padStart(7)}  ${stage}`);
  }
  return lines;
}
