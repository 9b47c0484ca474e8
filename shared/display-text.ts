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
 * - fillers that draw nothing: U+034F, U+115F, U+1160, U+3164, U+FFA0, U+180E, and the
 *   variation selectors supplement U+E0100–E01EF (invisible payload carriers).
 */
// U+034F is a combining mark on purpose: it is listed alone, to be escaped, not combined.
// eslint-disable-next-line no-misleading-character-class
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u034f\u115f\u1160\u180e\u3164\uffa0\u{e0100}-\u{e01ef}]/gu;

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
