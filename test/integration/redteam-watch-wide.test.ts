// Red team, second wave: `airlock watch` in an 80×24 tmux pane. An agent's text made of
// fullwidth characters takes two columns each; cut by string length it wrapped, scrolled
// the screen and pushed the header and the risk · action · tool line off the top. Lines
// are now cut and wrapped by terminal columns (shared/display-text.ts columnsOf).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { CLI, startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import type { AgentAnswer } from '../../main/contract/agent';
import type { RpcClient } from '../../main/client/rpc-client';

const SESSION = `airlock-watch-wide-${process.pid}`;
let d: Daemon;
let agent: RpcClient;

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}
const screen = () => tmux('capture-pane', '-p', '-t', SESSION);

before(async () => {
  d = await startDaemon();
  agent = await d.agent();
  tmux('new-session', '-d', '-s', SESSION, '-x', '80', '-y', '24', '-e', `AIRLOCK_HOME=${d.home}`, process.execPath, CLI, 'watch');
  await waitFor(() => /0 pending/.test(screen()), 'watch to show its header');
});
after(async () => {
  try {
    tmux('kill-session', '-t', SESSION);
  } catch {
    // already gone
  }
  agent?.close();
  await d?.stop();
});

test('fullwidth text in every agent field cannot scroll the risk, action and tool off the screen', { timeout: 30_000 }, async () => {
  const wide = 'Ｗ'.repeat(400);
  const pending = agent.call<AgentAnswer>('request', {
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
  await new Promise((r) => setTimeout(r, 300));
  const s = screen();
  const rows = s.split('\n');
  assert.match(rows[0] ?? '', /^Airlock watch — 1 pending/, `the header stays on the first row:\n${s}`);
  assert.ok(rows.some((r) => /\[\w+\] write · wide\.tool · p_/.test(r)), `risk · action · tool still on screen:\n${s}`);
  assert.ok(s.includes('[d]/Esc deny'), `the keys line is still on screen:\n${s}`);
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'd');
  assert.equal((await pending).decision, 'deny');
});
