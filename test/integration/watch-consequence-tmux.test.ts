// `airlock watch` shows what will happen and who asks, like the web card (issue 11 item 3):
// the consequence line of a delete, the first lines of an Edit's diff (escaped, capped),
// and the agent's process chain. Driven in tmux, reading the screen as a person would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { waitFor } from '../helpers/daemon';
import { waitForCard, watchInTmux } from '../helpers/watch-tmux';
import type { AgentAnswer } from '../../main/contract/agent';

const pane = watchInTmux('airlock-watch-conseq', 160, 60);
const SESSION = pane.session;
const { tmux, screen } = pane;

test('a delete shows what and how much; the agent chain is listed with full command lines', async () => {
  const work = fs.mkdtempSync(path.join(pane.d.home, 'proj-'));
  fs.mkdirSync(path.join(work, 'build'));
  for (let i = 0; i < 12; i++) fs.writeFileSync(path.join(work, 'build', `f${i}`), 'x'.repeat(500));
  const del = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.delete', action: 'delete', resource: path.join(work, 'build'), summary: 'clean the build', cwd: work });
  const s = await waitForCard(screen, /clean the build/, 'the prompt on screen');
  assert.match(s, /will: deletes build\/: 12 files, 6\.0 kB/);
  assert.match(s, /agent:/);
  // The test runner is the agent here: which of its processes are nearest depends on how the
  // suite was started (CI adds bash .ci/run → npm test → …), so only check that full
  // command lines with their pids are listed under "agent:".
  assert.match(s, /agent:\n(?:.*\n)*?\s+\S.* \(pid \d+\)\n/);
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'd');
  assert.equal((await del).decision, 'deny');
});

test('an Edit shows its diff, escaped and capped to the first lines', async () => {
  const work = fs.mkdtempSync(path.join(pane.d.home, 'proj-'));
  const file = path.join(work, 'page.html');
  const old = 'line 0\n';
  fs.writeFileSync(file, old);
  const edit = pane.agent.call<AgentAnswer>('request', {
    source: 'claude-code', tool: 'Write', action: 'write', resource: file, summary: `Write ${file}`, cwd: work,
    args: { file_path: file, content: `\x1b[2J<script>evil</script>\u202e\n` + Array.from({ length: 40 }, (_, i) => `new ${i}`).join('\n') + '\n' },
  });
  const s = await waitForCard(screen, /diff of .*page\.html/, 'the diff on screen');
  assert.match(s, /\+\\x1b\[2J<script>evil<\/script>\\u202e/, 'ESC and the bidi override are shown as escapes');
  assert.ok(!s.includes('\u202e'));
  assert.match(s, /\(\+\d+ more lines\)/, 'a long diff is cut to its first lines');
  assert.ok(!/new 39/.test(s), 'the end of a long diff is not on screen');
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'd');
  assert.equal((await edit).decision, 'deny');
});

test('the suggested grant says how many of the task\'s past events it would have matched', async () => {
  const { task, token } = await pane.agent.call<{ task: string; token: string }>('task.start', { name: 'past task', cwd: '/repo' });
  const answer = async (resource: string, key: string) => {
    const pending = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource, summary: `write ${resource}`, task, token });
    await waitFor(() => screen().includes(`write ${resource}`), 'the prompt on screen');
    await new Promise((r) => setTimeout(r, 600));
    tmux('send-keys', '-t', SESSION, key);
    return pending;
  };
  assert.equal((await answer('/repo/src/a.ts', 'o')).decision, 'allow');
  assert.equal((await answer('/repo/lib/x.ts', 'd')).decision, 'deny');
  const pending = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/src/b.ts', summary: 'write next b', task, token });
  const card = await waitForCard(screen, /write next b/, 'the prompt on screen');
  // src/** covers a.ts (allowed once) but not lib/x.ts: 1 of the task's 2 past events.
  assert.match(card, /\[t\] allows for this task: .*src\/\*\*[\s\S]*would have matched 1 of this task's last 2 events/);
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'd');
  assert.equal((await pending).decision, 'deny');
});
