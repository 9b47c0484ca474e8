// Red team of keystroke binding in `airlock watch`, in a real tmux pane against a real
// daemon: pastes (bracketed, and bursts of bytes in one read), a terminal too small to
// show the prompt's header and risk line, a resize during a prompt, focus reports (keys
// typed ahead of a tmux attach), and keys hammered into the guard window of the next
// prompt. Each attack ends with a control: a lone key after a pause does decide, so every
// "still pending" here could have failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../helpers/daemon';
import { guardHolds, watchInTmux } from '../helpers/watch-tmux';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Prompt } from '../../main/contract/approver';

const pane = watchInTmux('airlock-redkeys', 120, 40);
const S = pane.session;
const { tmux, screen } = pane;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ask(summary: string, extra: Record<string, unknown> = {}): Promise<{ answer: Promise<AgentAnswer>; id: string }> {
  const answer = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: `/srv/${summary.replace(/\W+/g, '-')}`, summary, ...extra });
  answer.catch(() => undefined);
  const ui = await pane.d.ui();
  try {
    let id = '';
    await waitFor(async () => {
      const { prompts } = await ui.call<{ prompts: Prompt[] }>('pending.list', {});
      id = prompts.find((p) => p.summary === summary)?.id ?? '';
      return id !== '';
    }, `prompt "${summary}" pending`);
    return { answer, id };
  } finally {
    ui.close();
  }
}
async function isPending(id: string): Promise<boolean> {
  const ui = await pane.d.ui();
  try {
    const { prompts } = await ui.call<{ prompts: Prompt[] }>('pending.list', {});
    return prompts.some((p) => p.id === id);
  } finally {
    ui.close();
  }
}
async function stillPending(id: string, why: string): Promise<void> {
  await sleep(300);
  assert.ok(await isPending(id), `${why}: the prompt was decided`);
}
/** tmux pastes the text as a terminal would: bracketed when watch asked for it (it does). */
function paste(text: string): void {
  // Buffers belong to the tmux server, which every tmux user of this machine shares: the
  // name is this run's own (another run's paste-buffer -d would delete a shared one).
  const buffer = `redkeys-${process.pid}`;
  tmux('set-buffer', '-b', buffer, text);
  tmux('paste-buffer', '-p', '-d', '-b', buffer, '-t', S);
}
async function controlKey(a: { answer: Promise<AgentAnswer> }, key: string, decision: 'allow' | 'deny'): Promise<void> {
  await sleep(700);
  tmux('send-keys', '-t', S, key);
  const answer = await a.answer;
  assert.equal(answer.decision, decision, 'a lone key after a pause decides (the test can fail)');
  assert.doesNotMatch(answer.reason, /no answer within/, 'decided by the key, not by the prompt timing out');
}

test('a paste never answers: a bracketed paste of "o", of "ayyy", of a long text ending in "o"', async () => {
  const a = await ask('paste target');
  await waitFor(() => /paste target/.test(screen()), 'the prompt on screen');
  await sleep(700);
  paste('o');
  await waitFor(() => /ignored a paste/.test(screen()), 'watch says the paste was ignored');
  await sleep(700);
  paste('ayyyy');
  await sleep(700);
  paste(`${'lorem ipsum '.repeat(600)}o`);
  await stillPending(a.id, 'a paste');
  await controlKey(a, 'd', 'deny');
});

test('a burst of bytes in one read ("ayyyy", "oo") answers nothing, and does not carry to the next prompt', async () => {
  const a = await ask('burst target');
  const b = await ask('burst next');
  await waitFor(() => /burst target/.test(screen()), 'the prompt on screen');
  await sleep(700);
  tmux('send-keys', '-t', S, '-l', 'ayyyy');
  await waitFor(() => /ignored 5 keys at once/.test(screen()), 'watch says the burst was ignored');
  tmux('send-keys', '-t', S, '-l', 'oo');
  await stillPending(a.id, 'a burst');
  assert.doesNotMatch(screen(), /press y to confirm/, 'no "always" confirmation was opened by the burst');
  await controlKey(a, 'd', 'deny');
  await waitFor(() => /burst next/.test(screen()), 'the next prompt on screen');
  assert.ok(await isPending(b.id), 'the next prompt was not touched');
  await controlKey(b, 'd', 'deny');
});

test('keys hammered into the guard window of the next prompt keep it guarded; a pause, then one key, decides', async () => {
  await guardHolds('keys hammered 200 ms apart', async (attempt) => {
    const a = await ask(`hammer one ${attempt}`);
    const b = await ask(`hammer two ${attempt}`);
    await waitFor(() => screen().includes(`hammer one ${attempt}`), 'the prompt on screen');
    await sleep(700);
    tmux('send-keys', '-t', S, 'o');
    assert.equal((await a.answer).decision, 'allow');
    // The human keeps pressing "o" (for the prompt they saw, or out of habit) every 200 ms,
    // for 1.2 s, more than twice the guard: each press is inside the guard of the next prompt
    // and pushes it back. (A gap of more than half a second on a loaded machine lets one act:
    // then the attempt is run afresh.)
    for (let i = 0; i < 6; i++) {
      await sleep(200);
      tmux('send-keys', '-t', S, 'o');
    }
    await sleep(300);
    if (!(await isPending(b.id))) return false;
    await controlKey(b, 'o', 'allow');
    return true;
  });
});

test('a terminal too small to show the header and risk line answers nothing until enlarged (then after the guard)', async () => {
  await guardHolds('a key right after the terminal was enlarged', async (attempt) => {
    tmux('resize-window', '-t', S, '-x', '60', '-y', '6');
    try {
      await waitFor(() => /0 pending|Airlock: 0 pending/.test(screen()), 'watch redrawn small');
      const a = await ask(`tiny terminal ${attempt}`);
      await waitFor(() => /too small to show a prompt/.test(screen()), 'watch says the terminal is too small');
      assert.doesNotMatch(screen(), /tiny terminal/, 'the prompt is not half-shown');
      await sleep(700);
      tmux('send-keys', '-t', S, 'o');
      await stillPending(a.id, 'a key in a terminal too small to show the prompt');
      tmux('resize-window', '-t', S, '-x', '120', '-y', '40');
      await waitFor(() => /tiny terminal/.test(screen()) && /\[MEDIUM\]|\[LOW\]|\[HIGH\]/.test(screen()), 'the prompt with its risk line once enlarged');
      tmux('send-keys', '-t', S, 'o'); // right after it came into view: guarded
      await sleep(300);
      // Late on a loaded machine (more than half a second after the redraw), the key rightly
      // acts; enlarged is the state the next attempt starts from.
      if (!(await isPending(a.id))) return false;
      await controlKey(a, 'o', 'allow');
      return true;
    } finally {
      tmux('resize-window', '-t', S, '-x', '120', '-y', '40');
    }
  });
});

test('a resize during a prompt re-arms the guard: a key right after it is ignored', async () => {
  await guardHolds('a key right after a resize', async (attempt) => {
    const a = await ask(`resize target ${attempt}`);
    await waitFor(() => screen().includes(`resize target ${attempt}`), 'the prompt on screen');
    await sleep(700);
    tmux('resize-window', '-t', S, '-x', '100', '-y', '30');
    try {
      await sleep(80);
      tmux('send-keys', '-t', S, 'o');
      await sleep(300);
      if (!(await isPending(a.id))) return false;
      await controlKey(a, 'd', 'deny');
      return true;
    } finally {
      tmux('resize-window', '-t', S, '-x', '120', '-y', '40');
    }
  });
});

test('focus reports: unfocused, keys answer nothing; a key typed ahead of the focus-in (tmux attach) meets a fresh guard', async () => {
  await guardHolds('a key with, and right after, the focus-in', async (attempt) => {
    const a = await ask(`focus target ${attempt}`);
    await waitFor(() => screen().includes(`focus target ${attempt}`), 'the prompt on screen');
    await sleep(700);
    // What a terminal (tmux with focus-events on) sends when focus leaves the pane: ESC [ O.
    tmux('send-keys', '-t', S, '-H', '1b', '5b', '4f');
    await waitFor(() => /terminal not focused/.test(screen()), 'watch knows it lost focus');
    await sleep(700);
    tmux('send-keys', '-t', S, 'o');
    await stillPending(a.id, 'a key while unfocused');
    // Focus comes back with a key typed ahead of it, in one read: ESC [ I o; then another
    // key, still inside the guard the focus-in started (and the first key pushed back).
    tmux('send-keys', '-t', S, '-H', '1b', '5b', '49', '6f');
    tmux('send-keys', '-t', S, 'o');
    await sleep(300);
    if (!(await isPending(a.id))) return false;
    await controlKey(a, 'o', 'allow');
    return true;
  });
});
