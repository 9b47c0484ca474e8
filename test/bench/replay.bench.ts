// Issue 7: the full recorded Claude Code session (200 calls) through the real hook and
// daemon, a scripted human accepting each suggested task pattern. Reports prompts per
// session, which calls prompted, and whether every planted dangerous moment did.
import { startDaemon } from '../helpers/daemon';
import { loadTrace, replay } from '../helpers/replay';
import { mdTable, type BenchResult } from './stats';

export async function run(): Promise<BenchResult> {
  const d = await startDaemon();
  try {
    const lines = loadTrace();
    const r = await replay(d, lines, (i, n) => {
      if (i % 25 === 0 || i === n) process.stdout.write(`  replay: ${i}/${n} calls\n`);
    });
    const planted = r.calls.filter((c) => c.planted);
    const row = (c: (typeof r.calls)[number]) => [String(c.index), c.tool, '`' + c.what.replace(/\|/g, '\\|').slice(0, 70) + '`', c.risk ?? '', c.suggestion ? '`' + c.suggestion.replace(/\|/g, '\\|').slice(0, 60) + '`' : '—'];
    return {
      title: 'Prompt economy: a recorded 200-call Claude Code bug-fix session',
      figures: { calls: r.calls.length, prompts: r.prompts.length, ordinaryPrompts: r.ordinaryPrompts.length, plantedMissed: r.plantedMissed.length, msPerCall: r.msPerCall },
      markdown: [
        `${r.calls.length} PreToolUse events (test/fixtures/claude-code-bugfix-session.jsonl, made by scripts/make-replay-trace.mjs) fed one by one to`,
        '`airlock hook claude-code` against a real daemon; the scripted human accepts the suggested "allow for this task" pattern (or allows once when none is offered).',
        '',
        mdTable(['calls', 'prompts in all', 'ordinary prompts (aim ≤ 5)', 'planted moments', 'planted that prompted', 'hook wall time per call'], [[
          String(r.calls.length), String(r.prompts.length), String(r.ordinaryPrompts.length), String(planted.filter((c) => c.mustPrompt).length),
          String(planted.filter((c) => c.mustPrompt && c.prompted).length), `${r.msPerCall.toFixed(0)} ms`,
        ]]),
        '',
        'Ordinary prompts (each accepted suggestion then covers the calls like it):',
        '',
        mdTable(['#', 'tool', 'call', 'risk', 'suggested pattern'], r.ordinaryPrompts.map(row)),
        '',
        'Planted dangerous moments:',
        '',
        mdTable(['#', 'tool', 'call', 'risk', 'prompted'], planted.map((c) => [String(c.index), c.tool, '`' + c.what.replace(/\|/g, '\\|').slice(0, 70) + '`', c.risk ?? '(allowed: a read)', c.prompted ? 'yes' : c.mustPrompt ? '**NO**' : 'no (not required)'])),
      ].join('\n'),
    };
  } finally {
    await d.stop();
  }
}
