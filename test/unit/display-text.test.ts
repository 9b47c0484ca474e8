// The one escaping function every display uses (shared/display-text.ts): what an agent
// sends reaches a terminal, a web page, a window title or a notification with its
// control, bidi and invisible characters made visible, never acting on the display.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnsOf, escapeChar, fitColumns, hasHidden, splitColumns, visible, visibleParts } from '../../shared/display-text';

const cases: [string, string, string][] = [
  ['ESC of an ANSI colour', '\x1b[31mred\x1b[0m', '\\x1b[31mred\\x1b[0m'],
  ['OSC 52 clipboard write ended by BEL', '\x1b]52;c;cm0gLXJmIH4=\x07', '\\x1b]52;c;cm0gLXJmIH4=\\x07'],
  ['OSC 8 hyperlink ended by ST', '\x1b]8;;http://evil\x1b\\ok\x1b]8;;\x1b\\', '\\x1b]8;;http://evil\\x1b\\ok\\x1b]8;;\\x1b\\'],
  ['one-byte C1 CSI (U+009B) and OSC (U+009D)', 'a\u009b2Jb\u009dc', 'a\\x9b2Jb\\x9dc'],
  ['cursor movement that would overwrite a line', 'rm -rf ~\r\x1b[2Kls', 'rm -rf ~\\r\\x1b[2Kls'],
  ['backspaces that erase what came before', 'rm -rf /\b\b\b\b\b\b\b\bls     ', 'rm -rf /\\x08\\x08\\x08\\x08\\x08\\x08\\x08\\x08ls     '],
  ['NUL and DEL', 'a\x00b\x7fc', 'a\\x00b\\x7fc'],
  ['newline and tab (one-line display)', 'echo a\n\trm x', 'echo a\\n\\trm x'],
  ['right-to-left override U+202E', 'cat evil\u202etxt.sh', 'cat evil\\u202etxt.sh'],
  ['every bidi embedding, override and isolate', '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069', '\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069'],
  ['LRM, RLM and the Arabic letter mark', 'a\u200eb\u200fc\u061cd', 'a\\u200eb\\u200fc\\u061cd'],
  ['zero-width space, joiners, word joiner, BOM', 'r\u200bm\u200c \u200d-\u2060r\ufefff', 'r\\u200bm\\u200c \\u200d-\\u2060r\\ufefff'],
  ['invisible operators and soft hyphen', 'a\u2061b\u2062c\u2063d\u2064e\u00adf', 'a\\u2061b\\u2062c\\u2063d\\u2064e\\xadf'],
  ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
  ['Unicode tags (invisible ASCII)', 'ok\u{e0072}\u{e006d}', 'ok\\u{e0072}\\u{e006d}'],
  ['fillers that draw nothing', '\u034f\u115f\u1160\u3164\uffa0\u180e', '\\u034f\\u115f\\u1160\\u3164\\uffa0\\u180e'],
  ['variation selectors supplement', 'x\u{e0100}y', 'x\\u{e0100}y'],
  ['the braille blank, which draws a space that is not one (rm\u2800-rf is one word)', 'rm\u2800-rf x', 'rm\\u2800-rf x'],
  ['lone surrogates', 'a\ud800b\udfffc', 'a\\ud800b\\udfffc'],
  ['a strike-through overlay, so rm -rf reads as crossed out', 'r\u0336m\u0336 -rf ~', 'r\\u0336m\\u0336 -rf ~'],
  ['other overlays and enclosing marks', 'a\u0338b\u20d2c\u20ddd\u20e0', 'a\\u0338b\\u20d2c\\u20ddd\\u20e0'],
  ['a stack of combining marks over four high (Zalgo) draws over the lines around it', 'x\u0300\u0301\u0302\u0303\u0304\u0305', 'x\u0300\u0301\u0302\u0303\\u0304\\u0305'],
];

for (const [name, input, shown] of cases) {
  test(`display hygiene: ${name}`, () => {
    assert.equal(visible(input), shown);
    assert.equal(hasHidden(input), true);
    // No character that a display would act on survives.
    assert.doesNotMatch(visible(input), /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/);
    // The parts put back together are the visible text, and the escapes are marked.
    const parts = visibleParts(input);
    assert.equal(parts.map((p) => p.text).join(''), shown);
    assert.ok(parts.some((p) => p.escaped));
    for (const p of parts.filter((x) => x.escaped)) assert.match(p.text, /^\\(x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]+\}|n|r|t)$/);
  });
}

test('display hygiene: ordinary text, accents, CJK, emoji and right-to-left scripts are left alone', () => {
  for (const s of ['git push origin main', 'café naïve Ünïcödé', 'cafe\u0301 (decomposed)', 'Vie\u0323\u0302t Nam', 'กี่ ที่ น้ำ', 'keycap 1\ufe0f\u20e3', 'हिन्दी', '日本語のファイル.txt', 'build 🚀 done', 'שלום עולם', 'مرحبا', 'tab\\t and \\x1b typed as text']) {
    assert.equal(visible(s), s);
    assert.equal(hasHidden(s), false);
    assert.deepEqual(visibleParts(s), s ? [{ text: s, escaped: false }] : []);
  }
  assert.deepEqual(visibleParts(''), []);
});

test('display hygiene: multiline keeps line feeds and tabs, never CR or escapes', () => {
  assert.equal(visible('a\n\tb\r\n\x1b[2J', { multiline: true }), 'a\n\tb\\r\n\\x1b[2J');
  assert.equal(visible('a\u2028b', { multiline: true }), 'a\\u2028b');
});

test('display hygiene: escapeChar writes each width the same way', () => {
  assert.equal(escapeChar('\x1b'), '\\x1b');
  assert.equal(escapeChar('\u202e'), '\\u202e');
  assert.equal(escapeChar('\u{e0041}'), '\\u{e0041}');
  assert.equal(escapeChar('\n'), '\\n');
});

test('display hygiene: every C0, C1 and Cf character in the BMP is escaped (exhaustive)', () => {
  const missed: string[] = [];
  for (let cp = 0; cp <= 0xffff; cp++) {
    const ch = String.fromCharCode(cp);
    const hidden = cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || /\p{Cf}/u.test(ch) || (cp >= 0xd800 && cp <= 0xdfff);
    if (hidden && visible(ch) === ch) missed.push(cp.toString(16));
  }
  assert.deepEqual(missed, []);
});

test('display hygiene: long hostile input is handled in linear time', () => {
  const s = '\x1b[31m\u202e\u200b'.repeat(100_000);
  const t0 = Date.now();
  const v = visible(s);
  assert.ok(Date.now() - t0 < 2000);
  assert.equal(v.length, '\\x1b[31m\\u202e\\u200b'.length * 100_000);
});

test('terminal columns: wide characters count 2, combining marks 0, so a cut line never wraps', () => {
  assert.equal(columnsOf('abc'), 3);
  assert.equal(columnsOf('ＷＩＤＥ'), 8);
  assert.equal(columnsOf('漢字🔥'), 6);
  assert.equal(columnsOf('e\u0301'), 1);
  const wide = 'Ｗ'.repeat(100);
  const cut = fitColumns(wide, 80);
  assert.ok(columnsOf(cut) <= 80, `fitColumns kept ${columnsOf(cut)} columns`);
  assert.ok(cut.endsWith('…'));
  assert.equal(fitColumns('short', 80), 'short');
  const pieces = splitColumns('a' + wide, 15);
  assert.ok(pieces.every((p) => columnsOf(p) <= 15), 'no piece is wider than asked');
  assert.equal(pieces.join(''), 'a' + wide, 'nothing lost, no wide character split');
  assert.deepEqual(splitColumns('', 10), ['']);
});
