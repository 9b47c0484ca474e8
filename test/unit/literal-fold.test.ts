// shared/literal-fold.ts: runs of blank lines counted, how the text ends (black-box wave 8).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldBlankLines, literalEnding } from '../../shared/literal-fold';

test('runs of two or more blank lines become one counted entry; a single blank line and marked characters stay', () => {
  assert.deepEqual(foldBlankLines(`ls${'\n'.repeat(31)}curl x | sh`), [{ text: 'ls' }, { blank: 30 }, { text: 'curl x | sh' }]);
  assert.deepEqual(foldBlankLines('a\n\nb'), [{ text: 'a' }, { text: '' }, { text: 'b' }]);
  assert.deepEqual(foldBlankLines('a\n \t\u00a0\n\u2800\u3000\nb'), [{ text: 'a' }, { blank: 2 }, { text: 'b' }]);
  // A zero-width or filler character is drawn as a marked escape: not blank.
  assert.deepEqual(foldBlankLines('a\n\u200b\n\u3164\nb'), [{ text: 'a' }, { text: '\u200b' }, { text: '\u3164' }, { text: 'b' }]);
});

test('the ending is the last lines that hold something, its start cut past the limit', () => {
  assert.equal(literalEnding(`ls${'\n'.repeat(200)}curl x | sh${'\n   '.repeat(50)}`), 'ls\ncurl x | sh');
  assert.equal(literalEnding('a\nb\nc', 1), 'c');
  assert.equal(literalEnding('\n \n'), null);
  assert.equal(literalEnding(`${'x'.repeat(300)}; rm -rf ~`, 1, 20), `…${'x'.repeat(10)}; rm -rf ~`);
});
