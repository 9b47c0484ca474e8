// Red team, second wave: `airlock watch` in an 80×24 tmux pane. An agent's text made of
// fullwidth characters takes two columns each; cut by string length it wrapped, scrolled
// the screen and pushed the header and the risk · action · tool line off the top. Lines
// are now cut and wrapped by terminal columns (shared/display-text.ts columnsOf).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../helpers/daemon';
import { watchInTmux } from '../helpers/watch-tmux';
import type { AgentAnswer } from '../../main/contract/agent';

const pane = watchInTmux('airlock-watch-wide', 80, 24);
const SESSION = pane.session;
const { tmux, screen } = pane;

test('fullwidth text in every agent field cannot scroll the risk, action and tool off the screen', { timeout: 120_000 }, async () => {
  const wide = 'Ｗ'.repeat(400);
  const pending = pane.agent.call<AgentAnswer>('request', {
    source: 'api',
    tool: 'wide.tool',
    action: 'write',
    resource: `/w/${wide}`,
    resources: [`/w/${wide}`, `/x/${wide}`, `/y/${wide}`],
    summary: `wide ${wide}`,
    args: { text: `${wide}\n${wide}\n${wide}\n${wide}` },
    cwd: `/c/${wide}`,
  });
  await waitFor(() => /wide\.tool/.test(screen()), 'the prompt on screen');
  // The frame drawn whole (its keys line is the card's last; tmux may take a frame in two
  // reads), then the checks below on one capture.
  await waitFor(() => screen().includes('[d]/Esc deny'), 'the keys line', 10_000).catch(() => undefined);
  const s = screen();
  const rows = s.split('\n');
  assert.match(rows[0] ?? '', /^Airlock watch — 1 pending/, `the header stays on the first row:\n${s}`);
  assert.ok(rows.some((r) => /\[\w+\] write · wide\.tool · p_/.test(r)), `risk · action · tool still on screen:\n${s}`);
  assert.ok(s.includes('[d]/Esc deny'), `the keys line is still on screen:\n${s}`);
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'd');
  assert.equal((await pending).decision, 'deny');
});

test('a wide note on a task.start grant cannot cut off its [WILDCARD HIGH-IMPACT] mark', { timeout: 120_000 }, async () => {
  const started = pane.agent.call('task.start', {
    name: 'wide-grants',
    grants: [{ action: 'write', resource: '**', effect: 'allow', note: 'Ｎ'.repeat(120) }],
  });
  started.catch(() => undefined);
  await waitFor(() => /wide-grants/.test(screen()), 'the grant prompt on screen');
  const mark = /\[WILDCARD HIGH-IMPACT: not created unless confirmed with c\]/;
  // The frame drawn whole (tmux may take a frame in two reads), then the check on one capture.
  await waitFor(() => mark.test(screen().replace(/\n\s*/g, '')), 'the mark', 10_000).catch(() => undefined);
  const s = screen();
  assert.match(s.replace(/\n\s*/g, ''), mark, `the mark is on screen:\n${s}`);
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'd');
  await started.catch(() => undefined);
});
