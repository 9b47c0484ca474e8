// Regression (found by test/fuzz/json-rpc.fuzz.ts): text with lone UTF-16 surrogates
// (valid in JSON as "\ud800", invalid as UTF-8) used to be hashed as sent but stored by
// SQLite as something else, so `audit verify` reported an untouched history as altered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store, type NewEvent } from '../../main/store';

const ev = (over: Partial<NewEvent>): NewEvent => ({
  ts: 1, task: null, source: 'api', tool: 't', action: 'write', resource: null, resources: [], summary: 's', args: null, cwd: null,
  process: null, ssh: null, risk: { level: 'low', reasons: [] }, decision: 'allow', decidedBy: 'grant', grant: null, scope: null, reason: 'r',
  ...over,
});

test('lone surrogates in any text column keep the chain verifiable and read back as U+FFFD', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-uni-'));
  try {
    const s = new Store(path.join(dir, 'a.db'));
    const emoji = '😀';
    s.appendEvent(ev({ summary: 'x\ud800y' }));
    s.appendEvent(ev({ tool: '\udfff', resource: 'a\udc00', resources: ['\ud800'], cwd: '\ud83d', reason: 'end\ud800' }));
    // A cap that cuts a surrogate pair in half (args are capped by slicing text).
    s.appendEvent(ev({ args: JSON.stringify({ head: emoji.slice(0, 1) }).replace('\\ud83d', emoji.slice(0, 1)) }));
    s.appendEvent(ev({ summary: `pairs stay ${emoji}` }));
    assert.deepEqual(s.verifyChain(), { ok: true, count: 4 });
    assert.equal(s.getEvent(1)!.summary, 'x\ufffdy');
    assert.equal(s.getEvent(2)!.tool, '\ufffd');
    assert.equal(s.getEvent(4)!.summary, `pairs stay ${emoji}`);
    s.close();
    // And after reopening (what `airlock audit verify` does).
    const r = new Store(path.join(dir, 'a.db'), { readonly: true });
    assert.equal(r.verifyChain().ok, true);
    r.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
