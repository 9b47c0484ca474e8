// Regression (found by test/fuzz/json-rpc.fuzz.ts): text with lone UTF-16 surrogates
// (valid in JSON as "\ud800", invalid as UTF-8) used to be hashed as sent but stored by
// SQLite as something else, so `audit verify` reported an untouched history as altered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { Store, type NewEvent } from '../../main/store';
import { GENESIS, rowHash } from '../../main/store/chain';

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

// Issue 15 changed how a row's hash is computed (one crypto.hash call instead of a Hash
// object with three updates) and how text is made well-formed (toWellFormed instead of a
// regular expression). History written by earlier builds must still verify: these hashes
// were computed by the build before the change, for a row with non-ASCII text, a line
// separator and quotes, without and with the `remote` column.
test('the chain hash of a row is the same as earlier builds computed (history written before still verifies)', () => {
  const row = {
    id: 7, ts: 1700000000007, task: 't_ab', source: 'api', tool: 'fs.write', action: 'write', resource: '/tmp/é/🙂',
    resources: JSON.stringify(['/tmp/é/🙂']), summary: 'write \u2028 "quoted"', args: '{"a":1}', cwd: '/tmp', process: null, ssh: null,
    risk_level: 'low', risk_reasons: '[]', decision: 'allow', decided_by: 'grant', grant_id: 'g_1', scope: null, reason: 'ok', remote: null,
  };
  assert.equal(rowHash(GENESIS, row), 'b197e7af0ee760e4e8dcc20338fec86894e9c101adbf67d1329abc4f4311f108');
  assert.equal(
    rowHash('ab'.repeat(32), { ...row, remote: JSON.stringify({ name: 'box', via: 'ssh box' }) }),
    'd926ef2c9d1626216852c6a451446eec66aa091c0cbcdd66cd344c98da4d1617',
  );
  // Spelled out: sha256 over the previous hash, a newline and the canonical JSON, as UTF-8.
  const canonical = JSON.stringify([row.id, row.ts, row.task, row.source, row.tool, row.action, row.resource, row.resources, row.summary,
    row.args, row.cwd, row.process, row.ssh, row.risk_level, row.risk_reasons, row.decision, row.decided_by, row.grant_id, row.scope, row.reason]);
  assert.equal(rowHash(GENESIS, row), createHash('sha256').update(`${GENESIS}\n${canonical}`, 'utf8').digest('hex'));
});

test('lone surrogates are replaced one by one, pairs kept, in every position (the same text as the regular expression gave)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-uni-'));
  try {
    const s = new Store(path.join(dir, 'a.db'));
    const cases = ['\udc00\ud800\udc00', '\ud800\ud800\udc00', '\ud83d', 'a\udfffb\ud800', '\ud83d\ude00\udc00', 'plain', ''];
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
    for (const c of cases) s.appendEvent(ev({ summary: c }));
    cases.forEach((c, i) => assert.equal(s.getEvent(i + 1)!.summary, c.replace(lone, '\ufffd'), JSON.stringify(c)));
    assert.equal(s.getEvent(1)!.summary, '\ufffd\ud800\udc00');
    assert.deepEqual(s.verifyChain(), { ok: true, count: cases.length });
    s.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
