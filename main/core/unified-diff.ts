// A unified diff (`diff -u` style) of two texts, for "what an Edit or Write will change"
// (issue 11 item 3). Bounded: the common head and tail are cut off first, the middle is
// compared line by line only when it is small (LCS table ≤ MAX_CELLS), and otherwise is
// shown as one replaced block; the output is cut at maxLines. No dependency: a diff
// library would be one more thing that parses agent-controlled text in the daemon.

export interface Diff {
  /** `--- a/x` / `+++ b/x` / `@@ … @@` hunks; lines cut at maxLines. */
  text: string;
  added: number;
  removed: number;
  /** The text was cut (maxLines), or a side was incomplete. */
  truncated: boolean;
}

const MAX_CELLS = 250_000;

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

function splitLines(t: string): string[] {
  if (t === '') return [];
  const lines = t.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The edit script of the middle part: LCS when small enough, else delete-all + insert-all. */
function middleOps(a: string[], b: string[], a0: number, b0: number): Op[] {
  const n = a.length;
  const m = b.length;
  const ops: Op[] = [];
  if (n * m > MAX_CELLS || n === 0 || m === 0) {
    a.forEach((line, i) => ops.push({ kind: '-', line, a: a0 + i, b: b0 }));
    b.forEach((line, j) => ops.push({ kind: '+', line, a: a0 + n, b: b0 + j }));
    return ops;
  }
  // lcs[i][j] = LCS length of a[i..] and b[j..], in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i]!, a: a0 + i, b: b0 + j });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
      // Removals before additions, as `diff -u` prints them.
      ops.push({ kind: '-', line: a[i]!, a: a0 + i, b: b0 + j });
      i++;
    } else {
      ops.push({ kind: '+', line: b[j]!, a: a0 + i, b: b0 + j });
      j++;
    }
  }
  return ops;
}

export function unifiedDiff(before: string, after: string, name: string, opts: { context?: number; maxLines?: number; beforeLabel?: string } = {}): Diff {
  const context = opts.context ?? 3;
  const maxLines = opts.maxLines ?? 200;
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ops: Op[] = [];
  for (let i = 0; i < head; i++) ops.push({ kind: ' ', line: a[i]!, a: i, b: i });
  ops.push(...middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail), head, head));
  for (let k = tail; k > 0; k--) ops.push({ kind: ' ', line: a[a.length - k]!, a: a.length - k, b: b.length - k });

  const out: string[] = [`--- ${opts.beforeLabel ?? `a/${name}`}`, `+++ b/${name}`];
  let added = 0;
  let removed = 0;
  // Hunks: runs of changes with `context` equal lines around them.
  const changed = ops.map((o, i) => (o.kind !== ' ' ? i : -1)).filter((i) => i >= 0);
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k]! - context);
    let end = changed[k]!;
    while (k + 1 < changed.length && changed[k + 1]! - end <= 2 * context) end = changed[++k]!;
    end = Math.min(ops.length - 1, end + context);
    k++;
    const slice = ops.slice(start, end + 1);
    const aStart = slice[0]!.a;
    const bStart = slice[0]!.b;
    const aLen = slice.filter((o) => o.kind !== '+').length;
    const bLen = slice.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${aLen ? aStart + 1 : aStart},${aLen} +${bLen ? bStart + 1 : bStart},${bLen} @@`);
    for (const o of slice) {
      if (o.kind === '+') added++;
      if (o.kind === '-') removed++;
      out.push(`${o.kind}${o.line}`);
    }
  }
  const truncated = out.length > maxLines;
  const shown = truncated ? [...out.slice(0, maxLines), `… ${out.length - maxLines} more diff lines`] : out;
  return { text: changed.length ? shown.join('\n') : '', added, removed, truncated };
}
