// What an agent sends is shown to a human in a terminal (`airlock watch`), in the web UI
// and Electron renderer, in window titles and in desktop notifications. Text that can
// move the cursor, recolour the screen, reverse the reading order or hide itself must
// not reach any of them as it is: an ESC starts an ANSI/CSI/OSC sequence in a terminal,
// U+202E turns `evil.sh‮txt.exe` around on screen, a zero-width space makes two
// different commands look the same. History keeps the text raw (it is evidence);
// every display goes through here and shows such characters as visible escapes
// (`\x1b`, `\u202e`), so the human sees that they are there.
//
// This file is shared by main/ (watch, Electron main) and app/ (the renderer), so it
// lives outside both (the lint lets app/ import nothing from main/ or preload/ at run
// time) and imports nothing at all: no Node, no DOM, no zod.

/**
 * Characters that never reach a display as they are:
 * - Cc: C0 controls (ESC, CR, BEL, BS …), DEL, C1 controls (U+009B is a one-byte CSI);
 * - Cf: format characters — bidi controls (U+061C, U+200E/F, U+202A–202E, U+2066–2069),
 *   zero-width ones (U+200B–200D, U+2060–2064, U+FEFF), soft hyphen, Unicode tags
 *   (U+E0000–E007F, "ASCII smuggling"), interlinear annotations;
 * - Zl/Zp: U+2028/U+2029, line breaks that a one-line display does not expect;
 * - Cs: lone surrogates (not text at all);
 * - fillers that draw nothing: U+034F, U+115F, U+1160, U+3164, U+FFA0, U+180E, the braille
 *   blank U+2800 (a space to the eye, part of the word to the shell), and the variation
 *   selectors supplement U+E0100–E01EF (invisible payload carriers);
 * - combining marks that draw over or around the text before them: the overlays (U+0334–0338
 *   strike `rm -rf` through so it reads as withdrawn, U+20D2 …) and the enclosing marks
 *   (\p{Me}) but the keycap U+20E3 of emoji like 1️⃣;
 * - a combining mark after four others on one character ("Zalgo"): a stack that high draws
 *   over the lines above and below it. Real scripts stack at most three (Vietnamese,
 *   Thai tone marks), so they are left alone.
 */
// The combining marks are listed alone, to be escaped, not combined.
// eslint-disable-next-line no-misleading-character-class
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u034f\u115f\u1160\u180e\u2800\u3164\uffa0\u{e0100}-\u{e01ef}\u0334-\u0338\u1cd4\u1ce2-\u1ce8\u20d2\u20d3\u20d8-\u20da\u20e5\u20e6\u20ea\u20eb\u{10a39}\u{16af0}-\u{16af4}\u{1bc9e}\u{1d167}-\u{1d169}]|(?!\u20e3)\p{Me}|(?<=\p{M}{4})\p{M}/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** How one hidden character is written: `\n` `\r` `\t`, `\x1b` below U+0100, `\u202e`, `\u{e0041}`. */
export function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x100) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\u{${cp.toString(16)}}`;
}

export interface VisibleOptions {
  /**
   * Keep line feeds and tabs as they are (a multi-line command in a `<pre>`); CR and
   * everything else is still escaped. Off by default: a one-line display must not be
   * split or padded by the agent.
   */
  multiline?: boolean;
}

/** A piece of displayed text: as sent, or an escape standing for a hidden character. */
export type VisiblePart = { text: string; escaped: boolean };

function keeps(ch: string, o: VisibleOptions | undefined): boolean {
  return Boolean(o?.multiline) && (ch === '\n' || ch === '\t');
}

/** The text split into plain runs and escapes, so a UI can mark the escapes. */
export function visibleParts(s: string, o?: VisibleOptions): VisiblePart[] {
  const parts: VisiblePart[] = [];
  let last = 0;
  for (const m of s.matchAll(HIDDEN)) {
    if (keeps(m[0], o)) continue;
    if (m.index > last) parts.push({ text: s.slice(last, m.index), escaped: false });
    parts.push({ text: escapeChar(m[0]), escaped: true });
    last = m.index + m[0].length;
  }
  if (last < s.length) parts.push({ text: s.slice(last), escaped: false });
  return parts;
}

/** The text with every hidden character written as a visible escape. */
export function visible(s: string, o?: VisibleOptions): string {
  return s.replace(HIDDEN, (ch) => (keeps(ch, o) ? ch : escapeChar(ch)));
}

/** True when `visible(s)` differs from `s`: something in it would have been hidden. */
export function hasHidden(s: string, o?: VisibleOptions): boolean {
  return visible(s, o) !== s;
}

/**
 * Terminal columns one code point takes: 2 for East Asian wide/fullwidth and emoji, 0 for
 * combining marks, 1 otherwise. A terminal line cut by string length instead would let
 * 100 fullwidth characters fill 200 columns, wrap, scroll the screen, and push the
 * request's risk, action and tool off the top of `airlock watch`.
 */
const WIDE = /[\u1100-\u115f\u231a\u231b\u2329\u232a\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653\u267f\u2693\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2\u26f3\u26f5\u26fa\u26fd\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{16fe4}\u{17000}-\u{18cff}\u{1b000}-\u{1b2ff}\u{1f004}\u{1f0cf}\u{1f18e}\u{1f191}-\u{1f19a}\u{1f200}-\u{1f251}\u{1f300}-\u{1f64f}\u{1f680}-\u{1f6ff}\u{1f7e0}-\u{1f7eb}\u{1f90c}-\u{1f9ff}\u{1fa70}-\u{1faff}\u{20000}-\u{3fffd}]/u;
const ZERO = /[\p{Mn}\p{Me}]/u;

export function columnsOfChar(ch: string): number {
  if (ZERO.test(ch)) return 0;
  return WIDE.test(ch) ? 2 : 1;
}

export function columnsOf(s: string): number {
  let n = 0;
  for (const ch of s) n += columnsOfChar(ch);
  return n;
}

/** Splits a line into pieces of at most `width` columns (a wide character never straddles two). */
export function splitColumns(s: string, width: number): string[] {
  const out: string[] = [];
  let cur = '';
  let used = 0;
  for (const ch of s) {
    const w = columnsOfChar(ch);
    if (used + w > width && cur !== '') {
      out.push(cur);
      cur = '';
      used = 0;
    }
    cur += ch;
    used += w;
  }
  if (cur !== '' || out.length === 0) out.push(cur);
  return out;
}

/** The line cut to at most `width` columns, ending in `…` when something was cut. */
export function fitColumns(s: string, width: number): string {
  if (columnsOf(s) <= width) return s;
  return splitColumns(s, Math.max(1, width - 1))[0] + '…';
}
