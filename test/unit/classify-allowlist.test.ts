// Issue 10, item 1: the shell classifier is an allowlist. Every row of the table in
// classify-allowlist-rows.ts is checked for its action, for the reason the prompt and
// history will show (which rule made it non-read), and for the resources it lists.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyShell, summarizeClassification } from '../../main/core/classify/shell';
import { ROWS, ISSUE_EXAMPLES, READS } from './classify-allowlist-rows';

const CWD = '/repo';

describe('shell allowlist table (issue 10)', () => {
  test(`has at least 200 rows (${ROWS.length}), every issue example and at least 100 plain reads`, () => {
    assert.ok(ROWS.length >= 200);
    assert.ok(ISSUE_EXAMPLES.length >= 29);
    assert.ok(READS.length >= 100);
    assert.equal(new Set(ROWS.map((r) => r.cmd)).size, ROWS.length, 'no duplicate rows');
  });
  for (const row of ROWS) {
    test(`${row.action}: ${JSON.stringify(row.cmd)}`, () => {
      const c = classifyShell(row.cmd, CWD);
      const info = JSON.stringify({ action: c.action, reasons: c.riskReasons, resources: c.resources });
      assert.equal(c.action, row.action, info);
      if (row.why) assert.ok(c.riskReasons.some((x) => x.reason.includes(row.why!)), `no reason containing "${row.why}": ${info}`);
      for (const r of row.has ?? []) assert.ok(c.resources.includes(r), `missing resource ${r}: ${info}`);
      // A non-read always says why (the prompt and the history show it).
      if (c.action !== 'read' && c.action !== 'other') assert.ok(c.riskReasons.length > 0 || c.parts.some((p) => p.action !== 'read'), info);
      // A read raises no reason at all: reads stay silent.
      if (row.action === 'read') assert.deepEqual(c.riskReasons, [], info);
    });
  }
});

describe('what reaches the prompt', () => {
  test('the reason names the rule and the part names the command', () => {
    const c = classifyShell('cat a && sort -o out.txt a', CWD);
    assert.equal(c.action, 'write');
    assert.deepEqual(c.riskReasons, [{ level: 'medium', reason: 'sort -o writes its output to a file' }]);
    assert.match(summarizeClassification(c), /sort -o out\.txt a → write \/repo\/out\.txt/);
  });
  test('an unknown flag says which flag and which program', () => {
    const c = classifyShell('grep --foo x f', CWD);
    assert.deepEqual(c.riskReasons, [{ level: 'medium', reason: 'unknown flag --foo for grep: not known to be read-only' }]);
  });
});
