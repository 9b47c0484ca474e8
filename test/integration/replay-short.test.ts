// Issue 7 in CI: a shortened recorded Claude Code session through the real hook and
// daemon. Which calls prompt is asserted; the full trace runs under `npm run bench`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon } from '../helpers/daemon';
import { loadTrace, replay, shortTrace } from '../helpers/replay';

test('replay: few prompts, and every planted dangerous moment prompts', { timeout: 300_000 }, async () => {
  const d = await startDaemon();
  try {
    const r = await replay(d, shortTrace(loadTrace()));
    const show = (c: { index: number; tool: string; what: string; risk?: string }) => `#${c.index} ${c.tool} ${c.what} [${c.risk}]`;
    const prompted = r.ordinaryPrompts.map(show);
    assert.deepEqual(r.plantedMissed.map(show), [], 'planted moments that did not prompt');
    const planted = r.calls.filter((c) => c.mustPrompt);
    assert.equal(planted.length, 3);
    assert.ok(planted.every((c) => c.risk === 'high' || c.risk === 'critical'), JSON.stringify(planted));
    // The ordinary prompts: the first file write in src/ and in test/, the first type
    // check + test run, the dependency install, the first commit and the push.
    assert.deepEqual(
      r.ordinaryPrompts.map((c) => c.what.replace(/ -m .*$/, '').replace(/ 2>&1.*$/, '')),
      ['npx tsc --noEmit && npm test', './src/parse/date.ts', './test/parse/date.test.ts', 'npm install --save date-fns-tz@3', 'git add src && git commit', 'git push origin fix/zoned-iso-dates'],
      prompted.join('\n'),
    );
    assert.ok(r.calls.every((c) => c.decision === 'allow'), 'the scripted human allowed everything it was asked');
    // Reads never prompt.
    assert.ok(r.calls.filter((c) => ['Read', 'Grep', 'Glob'].includes(c.tool) && !c.planted).every((c) => !c.prompted));
  } finally {
    await d.stop();
  }
});
