// The literal (the command, path or URL a prompt shows first) folded for display, in the web
// card and in `airlock watch` alike (black-box wave 8). An agent can pad a command with blank
// lines so that what it really runs sits below the fold: `ls`, thirty empty lines, then
// `curl … | sh`, and the folded card showed `ls` over an empty box. Folded, a run of blank
// lines is drawn as one marked line that counts them, and the text's last lines are shown
// too, so every line that holds something near the top, and how the text ends, are on screen.

/**
 * A line that draws nothing: spaces of every width and the braille blank. (Characters that
 * display-text.ts shows as marked escapes — controls, zero-width, fillers — are not blank.)
 */
const BLANK_LINE = /^[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u2800]*$/u;

/** A line of the literal, or a run of `blank` blank lines drawn as one. */
export type FoldedLine = { text: string } | { blank: number };

/** The literal's lines, each run of two or more blank lines made one entry that counts them. */
export function foldBlankLines(text: string): FoldedLine[] {
  const out: FoldedLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; ) {
    if (!BLANK_LINE.test(lines[i]!)) {
      out.push({ text: lines[i]! });
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && BLANK_LINE.test(lines[j]!)) j++;
    if (j - i >= 2) out.push({ blank: j - i });
    else out.push({ text: lines[i]! });
    i = j;
  }
  return out;
}

/** How a folded run of blank lines reads on screen. */
export const blankRunWords = (n: number): string => `⟨${n} blank lines⟩`;

/**
 * The literal's last lines that hold something (at most `lines` of them, the last `maxChars`
 * characters), for "ends with" under a folded literal; null when nothing is there.
 */
export function literalEnding(text: string, lines = 2, maxChars = 240): string | null {
  const kept = text.split('\n').filter((l) => !BLANK_LINE.test(l));
  if (!kept.length) return null;
  const end = kept.slice(-lines).join('\n');
  return end.length > maxChars ? `…${end.slice(end.length - maxChars)}` : end;
}
