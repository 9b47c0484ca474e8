// How `airlock watch` fits a prompt card into the terminal's rows (black-box wave 8). The card
// is made of groups of lines, each with a rank: when the rows run out, the least important
// groups give lines first (the agent's process chain, then what will happen, then the
// literal's later lines), each keeping a line that counts what it left out, so the reasons
// it is risky, the paths it acts on and the keys stay on screen. Before, the card was cut
// from its end: a long process chain on a 24-row terminal pushed a critical upload's
// "secret sent out" reason and the keys line off the screen.
import { columnsOfChar, splitColumns, visible } from '../../../shared/display-text';

export interface LineGroup {
  lines: string[];
  /** 0: never shortened (the header line, the keys); higher ranks give lines first. */
  rank: number;
  /** Lines this group keeps, whatever the room (its counting line included). */
  min: number;
  /** Lines shown at most even with room to spare (the marker line included); default all. */
  cap?: number;
  /** The line that stands for `n` lines left out. */
  more: (n: number) => string;
}

/** At most `k` lines of the group: the first k−1 and a line counting the rest. */
function shown(g: LineGroup, k: number): string[] {
  if (g.lines.length <= k) return g.lines;
  if (k <= 0) return [];
  return [...g.lines.slice(0, k - 1), g.more(g.lines.length - (k - 1))];
}

/**
 * The card's lines in at most `room` rows: groups are shortened least important first (and,
 * within a rank, the last group first). If even their minimums do not fit, the card is cut
 * before its rank-0 groups at the end (the keys), never through them.
 */
export function fitGroups(groups: LineGroup[], room: number): string[] {
  const k = groups.map((g) => Math.min(g.lines.length, g.cap ?? g.lines.length));
  let excess = k.reduce((a, b) => a + b, 0) - room;
  const ranks = [...new Set(groups.map((g) => g.rank))].filter((r) => r > 0).sort((a, b) => b - a);
  for (const rank of ranks) {
    for (let i = groups.length - 1; i >= 0 && excess > 0; i--) {
      const g = groups[i]!;
      if (g.rank !== rank) continue;
      const give = Math.min(excess, Math.max(0, k[i]! - Math.min(g.min, g.lines.length)));
      k[i]! -= give;
      excess -= give;
    }
  }
  const out = groups.flatMap((g, i) => shown(g, k[i]!));
  if (out.length <= room) return out;
  // Still too long: keep the trailing rank-0 groups (the keys) whole, cut what comes before.
  let tailStart = groups.length;
  while (tailStart > 0 && (groups[tailStart - 1]!.rank === 0 || k[tailStart - 1] === 0)) tailStart--;
  const tail = groups.slice(tailStart).flatMap((g, i) => shown(g, k[tailStart + i]!));
  const head = groups.slice(0, tailStart).flatMap((g, i) => shown(g, k[i]!));
  const keep = Math.max(0, room - tail.length - 1);
  return [...head.slice(0, keep), `  … (${head.length - keep} more lines)`, ...tail];
}

/** A labelled text wrapped to the width: the label on the first line, the rest indented. */
export function wrapLabelled(label: string, text: string, width: number, indent = '    '): string[] {
  const first = visible(`${label}${text}`);
  const w = Math.max(10, width - indent.length);
  const pieces = splitColumns(first, width);
  if (pieces.length <= 1) return pieces;
  // The first piece takes the whole width; the rest are re-split under the indent.
  const rest = splitColumns(pieces.slice(1).join(''), w).map((p) => indent + p);
  return [pieces[0]!, ...rest];
}

/** The end of a (visible) line in at most `width` columns, with "…" when its start was cut. */
export function tailColumns(s: string, width: number): string {
  const chars = Array.from(s);
  let used = 0;
  let i = chars.length;
  while (i > 0 && used + columnsOfChar(chars[i - 1]!) <= width - 1) used += columnsOfChar(chars[--i]!);
  return i === 0 ? s : `…${chars.slice(i).join('')}`;
}
