// Black-box, fifth wave: `airlock watch` in tmux, the keys of README's table that earlier
// waves did not press: `T` (exactly this request: the grant covers this resource and no
// sibling), `D` (every waiting request of this prompt's task, nothing of another task),
// `Esc` (deny), `↑`/`k` (move back through the queue), and `q`, which quits without
// answering anything: the prompts wait for another window (or their timeout).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../helpers/daemon';
import { waitForCard, watchInTmux } from '../helpers/watch-tmux';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Grant, Prompt } from '../../main/contract/approver';

const pane = watchInTmux('bb5-watch', 160, 50);
const { tmux, screen } = pane;
const key = (...k: string[]) => tmux('send-keys', '-t', pane.session, ...k);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function settledWithin(p: Promise<AgentAnswer>, ms: number): Promise<string | null> {
  return Promise.race([p.then((x) => x.decision), sleep(ms).then(() => null)]);
}

function ask(req: Record<string, unknown>): Promise<AgentAnswer> {
  const p = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', ...req });
  p.catch(() => undefined);
  return p;
}

async function pendingCount(): Promise<number> {
  const ui = await pane.d.ui();
  try {
    return (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.length;
  } finally {
    ui.close();
  }
}

test('"T" allows exactly this request for the task: the same resource passes, a sibling in the same directory asks', async () => {
  const { task, token } = await pane.agent.call<{ task: string; token: string }>('task.start', { name: 'bb5 exact', cwd: '/repo' });
  const p = ask({ resource: '/repo/src/exact.ts', summary: 'write src/exact.ts (T)', task: token });
  await waitForCard(screen, /write src\/exact\.ts \(T\)/, 'the prompt');
  await sleep(600);
  key('T');
  const a = await p;
  assert.equal(a.decision, 'allow');
  const ui = await pane.d.ui();
  const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { task });
  ui.close();
  assert.deepEqual(grants.map((g) => g.resource), ['/repo/src/exact.ts'], 'exactly this request, no wildcard');
  assert.equal((await ask({ resource: '/repo/src/exact.ts', summary: 'again', task: token })).decision, 'allow');
  const sib = ask({ resource: '/repo/src/other.ts', summary: 'write src/other.ts (sibling)', task: token });
  await waitForCard(screen, /sibling/, 'the sibling asks');
  await sleep(600);
  key('Escape');
  assert.equal((await sib).decision, 'deny', 'Esc denies');
});

test('"D" denies every waiting request of this prompt\'s task and leaves another task\'s waiting', async () => {
  const a = await pane.agent.call<{ task: string; token: string }>('task.start', { name: 'bb5 deny-all', cwd: '/repo' });
  const b = await pane.agent.call<{ task: string; token: string }>('task.start', { name: 'bb5 other', cwd: '/repo' });
  const mine = [0, 1, 2].map((i) => ask({ resource: `/repo/d${i}.txt`, summary: `write d${i} (mine)`, task: a.token }));
  await waitFor(async () => (await pendingCount()) === 3, 'three prompts');
  const theirs = ask({ resource: '/repo/o.txt', summary: 'write o (theirs)', task: b.token });
  await waitFor(async () => (await pendingCount()) === 4, 'four prompts');
  await waitForCard(screen, /\(mine\)/, 'a prompt of the first task in front');
  await sleep(600);
  key('D');
  for (const m of mine) assert.equal((await m).decision, 'deny');
  assert.equal(await settledWithin(theirs, 500), null, 'the other task still waits');
  await waitForCard(screen, /write o \(theirs\)/, 'the other task\'s prompt comes up');
  await sleep(600);
  key('d');
  assert.equal((await theirs).decision, 'deny');
});

test('"k" / Up move back through the queue: the key then answers the prompt moved to', async () => {
  const first = ask({ resource: '/repo/q1.txt', summary: 'queued one' });
  await waitForCard(screen, /queued one/, 'first');
  const second = ask({ resource: '/repo/q2.txt', summary: 'queued two' });
  await waitFor(() => /1 of 2/.test(screen()), 'the queue says 1 of 2');
  await sleep(600);
  key('j');
  await waitForCard(screen, /queued two/, 'j moved to the second');
  await sleep(600);
  key('Up');
  await waitForCard(screen, /queued one/, 'Up moved back to the first');
  await sleep(600);
  key('o');
  assert.equal((await first).decision, 'allow', 'the key answered the prompt on screen');
  assert.equal(await settledWithin(second, 300), null);
  await waitForCard(screen, /queued two/, 'the second comes up');
  await sleep(600);
  key('k'); // nothing before it: stays
  await sleep(600);
  key('d');
  assert.equal((await second).decision, 'deny');
});

test('"q" quits watch and answers nothing: the prompt keeps waiting for another window', async () => {
  const p = ask({ resource: '/repo/after-q.txt', summary: 'still waiting after q' });
  await waitForCard(screen, /still waiting after q/, 'the prompt');
  await sleep(600);
  key('q');
  await waitFor(() => {
    try {
      tmux('has-session', '-t', pane.session);
      return !/still waiting after q/.test(screen());
    } catch {
      return true;
    }
  }, 'watch to quit');
  assert.equal(await settledWithin(p, 700), null, 'quitting is not an answer');
  assert.equal(await pendingCount(), 1);
  const ui = await pane.d.ui();
  const { prompts } = await ui.call<{ prompts: Prompt[] }>('pending.list', {});
  await ui.call('pending.decide', { id: prompts[0]!.id, decision: 'deny', scope: 'once' });
  ui.close();
  assert.equal((await p).decision, 'deny');
});
