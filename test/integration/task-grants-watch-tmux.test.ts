// Grants asked for in task.start, answered in `airlock watch` (issue 10, item 3), driven
// like a person would: in tmux, reading the screen and typing keys. Every grant is on its
// own line (no summary cut hides the tail), the wildcard of a high-impact action is
// marked, and pressing "o" does not create it: only "c" (one confirmation per grant) does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { CLI, startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import type { RpcClient } from '../../main/client/rpc-client';
import type { Grant } from '../../main/contract/approver';

const SESSION = `airlock-grants-${process.pid}`;
let d: Daemon;
let agent: RpcClient;
let ui: RpcClient;

const tmux = (...args: string[]): string => execFileSync('tmux', args, { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', SESSION);
const key = (k: string) => tmux('send-keys', '-t', SESSION, k);
const settle = () => new Promise((r) => setTimeout(r, 600)); // past the input guard

let hasTmux = true;
try {
  execFileSync('tmux', ['-V'], { stdio: 'ignore' });
} catch {
  hasTmux = false;
}

before(async () => {
  if (!hasTmux) return;
  d = await startDaemon();
  agent = await d.agent();
  ui = await d.ui();
  // Tall enough for 41 grants on their own lines.
  tmux('new-session', '-d', '-s', SESSION, '-x', '240', '-y', '110', '-e', `AIRLOCK_HOME=${d.home}`, process.execPath, CLI, 'watch');
  await waitFor(() => /0 pending/.test(screen()), 'watch to show its header');
});
after(async () => {
  try {
    if (hasTmux) tmux('kill-session', '-t', SESSION);
  } catch {
    // already gone
  }
  agent?.close();
  ui?.close();
  await d?.stop();
});

type Started = { task: string; grants: string[]; declined?: number[] };
const narrow = Array.from({ length: 40 }, (_, i) => ({ action: 'write', tool: 'Write', resource: `/repo/src/module-${i}/file-${i}.ts`, effect: 'allow' }));
const wildcard = { action: '*', resource: '**', effect: 'allow' };

test('40 narrow grants + one "allow * on **": every grant on its own line, the wildcard marked; "o" does not create it', { skip: !hasTmux && 'tmux is not installed' }, async () => {
  const pending = agent.call<Started>('task.start', { name: 'greedy agent', cwd: '/repo', grants: [...narrow, wildcard] });
  await waitFor(() => /#40 /.test(screen()), 'the last grant on screen');
  const s = screen();
  assert.match(s, /task "greedy agent" asks for 41 standing grant\(s\)/);
  for (let i = 0; i < 40; i++) {
    const line = s.split('\n').find((l) => l.includes(`/repo/src/module-${i}/file-${i}.ts`));
    assert.ok(line, `grant #${i} is visible:\n${s}`);
    assert.match(line, new RegExp(`#${i} +allow write · source \\* · tool Write · on /repo/src/module-${i}/file-${i}\\.ts`));
    assert.doesNotMatch(line, /WILDCARD/);
  }
  const last = s.split('\n').find((l) => l.includes('#40 '))!;
  assert.match(last, /!\* #40 +allow \* \(every action\) · source \* · tool \* · on \*\*/, 'high-impact and wildcard marks');
  assert.match(last, /WILDCARD HIGH-IMPACT: not created unless confirmed with c/);
  await settle();
  key('o');
  const r = await pending;
  assert.equal(r.grants.length, 40, 'the narrow grants were created');
  assert.deepEqual(r.declined, [40], 'the wildcard was not');
  const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { task: r.task });
  assert.equal(grants.length, 40);
  assert.ok(!grants.some((g) => g.action === '*' || g.resource === '**'), 'no blank cheque');
  await waitFor(() => /NOT created \(wildcard, not confirmed\): #40/.test(screen()), 'the screen to say what was left out');
});

test('"c" confirms the wildcard grant (one press per grant), then "o" creates it too', { skip: !hasTmux && 'tmux is not installed' }, async () => {
  const pending = agent.call<Started>('task.start', { name: 'confirmed agent', cwd: '/repo', grants: [narrow[0], wildcard, { action: 'delete', effect: 'allow' }] });
  await waitFor(() => /#2 /.test(screen()), 'the grants on screen');
  await settle();
  key('c');
  await waitFor(() => /confirmed #1/.test(screen()), 'the first confirmation');
  assert.match(screen().split('\n').find((l) => l.includes('#1 '))!, /\[CONFIRMED\]/);
  assert.match(screen().split('\n').find((l) => l.includes('#2 '))!, /not created unless confirmed/, 'one press confirms one grant');
  key('o');
  const r = await pending;
  assert.equal(r.grants.length, 2, 'the narrow one and the confirmed wildcard');
  assert.deepEqual(r.declined, [2], 'the unconfirmed "allow delete on anything" was not created');
  const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { task: r.task });
  assert.deepEqual(grants.map((g) => `${g.action} ${g.resource}`).sort(), ['* **', `write ${narrow[0]!.resource}`]);
});

test('a request made only of wildcard grants cannot be accepted with "o" alone; "d" refuses it', { skip: !hasTmux && 'tmux is not installed' }, async () => {
  const pending = agent.call<Started>('task.start', { name: 'only wildcards', cwd: '/repo', grants: [{ action: 'transfer', effect: 'allow' }] });
  await waitFor(() => /only wildcards/.test(screen()), 'the prompt on screen');
  await settle();
  key('o');
  await waitFor(() => /error: .*confirm each one you accept/.test(screen()), 'the refusal to accept nothing but a blank cheque');
  assert.match(screen(), /only wildcards/, 'still pending');
  key('d');
  const r = await pending;
  assert.deepEqual(r.grants, []);
});
