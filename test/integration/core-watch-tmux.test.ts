// `airlock watch` driven like a person would: in tmux, reading the screen and typing keys.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { CLI, startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import type { AgentAnswer } from '../../main/contract/agent';
import type { RpcClient } from '../../main/client/rpc-client';

const SESSION = `airlock-watch-${process.pid}`;
let d: Daemon;
let agent: RpcClient;

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}
const screen = () => tmux('capture-pane', '-p', '-t', SESSION);

before(async () => {
  d = await startDaemon();
  agent = await d.agent();
  tmux('new-session', '-d', '-s', SESSION, '-x', '160', '-y', '50', '-e', `AIRLOCK_HOME=${d.home}`, process.execPath, CLI, 'watch');
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

test('a prompt appears live with its countdown; "t" allows it for the task', async () => {
  const { task } = await agent.call<{ task: string }>('task.start', { name: 'tmux task', cwd: '/repo' });
  const pending = agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/src/w.ts', summary: 'write src/w.ts from tmux test', task });
  await waitFor(() => /write src\/w\.ts from tmux test/.test(screen()), 'the prompt on screen');
  const s = screen();
  assert.match(s, /1 pending/);
  assert.match(s, /denies in (5\d|60)s/);
  assert.match(s, /task: tmux task/);
  assert.match(s, /who: .*node/);
  assert.match(s, /\[t\] allows for this task: write src\/\*\* \(fs\.write\)/);
  const first = Number(/denies in (\d+)s/.exec(s)![1]);
  await waitFor(() => Number(/denies in (\d+)s/.exec(screen())?.[1] ?? first) < first, 'the countdown to tick', 3000);
  tmux('send-keys', '-t', SESSION, 't');
  const a = await pending;
  assert.equal(a.decision, 'allow');
  assert.match(a.reason, /for this task/);
  await waitFor(() => /0 pending/.test(screen()) && /allowed for this task/.test(screen()), 'the screen to update');
  const again = await agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/src/w.ts', summary: 'again', task });
  assert.equal(again.decision, 'allow');
  assert.ok(again.grant);
  // The suggested pattern (src/**) covers the next file in src/ too: no prompt.
  const sibling = await agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/src/deep/other.ts', summary: 'sibling', task });
  assert.equal(sibling.decision, 'allow');
  assert.equal(sibling.grant, again.grant);
});

test('"e" edits the pattern before allowing for the task', async () => {
  const { task } = await agent.call<{ task: string }>('task.start', { name: 'edit task', cwd: '/repo' });
  const pending = agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/lib/a.ts', summary: 'write lib/a.ts (edit me)', task });
  await waitFor(() => /edit me/.test(screen()), 'the prompt on screen');
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'e');
  await waitFor(() => /pattern for this task .*: \/repo\/lib\/\*\*/.test(screen()), 'the editor prefilled with the suggestion');
  for (let i = 0; i < 12; i++) tmux('send-keys', '-t', SESSION, 'BSpace');
  tmux('send-keys', '-t', SESSION, '-l', '/repo/lib/a.ts');
  tmux('send-keys', '-t', SESSION, 'Enter');
  const a = await pending;
  assert.equal(a.decision, 'allow');
  const { grants } = await (await d.ui()).call<{ grants: { id: string; resource: string }[] }>('grants.list', { task });
  assert.deepEqual(grants.map((g) => g.resource), ['/repo/lib/a.ts']);
});

test('a key pressed in the first half second is ignored (input guard); "d" then denies', async () => {
  const pending = agent.call<AgentAnswer>('request', { source: 'api', tool: 'deploy', action: 'execute', summary: 'deploy guarded' });
  await waitFor(() => /deploy guarded/.test(screen()), 'the prompt on screen', 5000, 5);
  tmux('send-keys', '-t', SESSION, 'o');
  await waitFor(() => /ignored "o"/.test(screen()), 'the guard message');
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'd');
  const a = await pending;
  assert.equal(a.decision, 'deny');
  assert.match(a.reason, /denied once by the human/);
});

test('"m" allows for 15 minutes and "a" always', async () => {
  const p1 = agent.call<AgentAnswer>('request', { source: 'api', tool: 'm.tool', action: 'write', resource: '/m', summary: 'minutes please' });
  await waitFor(() => /minutes please/.test(screen()), 'prompt');
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'm');
  assert.match((await p1).reason, /for 15 min/);
  const p2 = agent.call<AgentAnswer>('request', { source: 'api', tool: 'a.tool', action: 'write', resource: '/a', summary: 'always please' });
  await waitFor(() => /always please/.test(screen()), 'prompt');
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'a');
  assert.match((await p2).reason, /always/);
  assert.equal((await agent.call<AgentAnswer>('request', { source: 'api', tool: 'a.tool', action: 'write', resource: '/a', summary: 'again' })).decision, 'allow');
});
