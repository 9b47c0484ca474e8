// `airlock watch` driven like a person would: in tmux, reading the screen and typing keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../helpers/daemon';
import { guardHolds, waitForCard, watchInTmux } from '../helpers/watch-tmux';
import type { AgentAnswer } from '../../main/contract/agent';

const pane = watchInTmux('airlock-watch', 160, 50);
const SESSION = pane.session;
const { tmux, screen } = pane;

test('a prompt appears live with its countdown; "t" allows it for the task', async () => {
  const { task, token } = await pane.agent.call<{ task: string; token: string }>('task.start', { name: 'tmux task', cwd: '/repo' });
  const pending = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/src/w.ts', summary: 'write src/w.ts from tmux test', task, token });
  const s = await waitForCard(screen, /write src\/w\.ts from tmux test/, 'the prompt on screen');
  assert.match(s, /1 pending/);
  // A 60 s countdown; a loaded machine may take a few seconds to get here.
  const shownLeft = Number(/denies in (\d+)s/.exec(s)?.[1]);
  assert.ok(shownLeft >= 30 && shownLeft <= 60, `a countdown from 60 s: ${shownLeft}`);
  assert.match(s, /task: tmux task/);
  assert.match(s, /who: .*node/);
  assert.match(s, /\[t\] allows for this task: write src\/\*\* \(fs\.write\)/);
  const first = Number(/denies in (\d+)s/.exec(s)![1]);
  await waitFor(() => Number(/denies in (\d+)s/.exec(screen())?.[1] ?? first) < first, 'the countdown to tick', 20_000);
  tmux('send-keys', '-t', SESSION, 't');
  const a = await pending;
  assert.equal(a.decision, 'allow');
  assert.match(a.reason, /for this task/);
  await waitFor(() => /0 pending/.test(screen()) && /allowed for this task/.test(screen()), 'the screen to update');
  const again = await pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/src/w.ts', summary: 'again', task, token });
  assert.equal(again.decision, 'allow');
  assert.ok(again.grant);
  // The suggested pattern (src/**) covers the next file in src/ too: no prompt.
  const sibling = await pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/src/deep/other.ts', summary: 'sibling', task, token });
  assert.equal(sibling.decision, 'allow');
  assert.equal(sibling.grant, again.grant);
});

test('"e" edits the pattern before allowing for the task', async () => {
  const { task, token } = await pane.agent.call<{ task: string; token: string }>('task.start', { name: 'edit task', cwd: '/repo' });
  const pending = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/lib/a.ts', summary: 'write lib/a.ts (edit me)', task, token });
  await waitFor(() => /edit me/.test(screen()), 'the prompt on screen');
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'e');
  await waitFor(() => /pattern for this task .*: \/repo\/lib\/\*\*/.test(screen()), 'the editor prefilled with the suggestion');
  for (let i = 0; i < 12; i++) tmux('send-keys', '-t', SESSION, 'BSpace');
  tmux('send-keys', '-t', SESSION, '-l', '/repo/lib/a.ts');
  tmux('send-keys', '-t', SESSION, 'Enter');
  const a = await pending;
  assert.equal(a.decision, 'allow');
  const { grants } = await (await pane.d.ui()).call<{ grants: { id: string; resource: string }[] }>('grants.list', { task });
  assert.deepEqual(grants.map((g) => g.resource), ['/repo/lib/a.ts']);
});

test('a key pressed in the first half second is ignored (input guard); "d" then denies', async () => {
  await guardHolds('"o" as soon as the prompt showed', async (attempt) => {
    const summary = `deploy guarded ${attempt}`;
    const pending = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'deploy', action: 'execute', summary });
    let answered = false;
    pending.then(() => (answered = true), () => (answered = true));
    await waitFor(() => screen().includes(summary), 'the prompt on screen', 30_000, 5);
    tmux('send-keys', '-t', SESSION, 'o');
    await waitFor(() => /ignored "o"/.test(screen()) || answered, 'the guard message (or, the key being late, an answer)');
    if (answered) return false;
    await new Promise((r) => setTimeout(r, 600));
    tmux('send-keys', '-t', SESSION, 'd');
    const a = await pending;
    assert.equal(a.decision, 'deny');
    assert.match(a.reason, /denied once by the human/);
    return true;
  });
});

test('"m" allows for 15 minutes and "a" then "y" always', async () => {
  const p1 = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'm.tool', action: 'write', resource: '/m', summary: 'minutes please' });
  await waitFor(() => /minutes please/.test(screen()), 'prompt');
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'm');
  assert.match((await p1).reason, /for 15 min/);
  const p2 = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'a.tool', action: 'write', resource: '/a', summary: 'always please' });
  await waitFor(() => /always please/.test(screen()), 'prompt');
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'a');
  // Always is two steps: the confirmation, then y after a fresh guard.
  await waitFor(() => /press y to confirm/.test(screen()), 'the always confirmation');
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'y');
  assert.match((await p2).reason, /always/);
  assert.equal((await pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'a.tool', action: 'write', resource: '/a', summary: 'again' })).decision, 'allow');
});

test('escape sequences and bidi overrides from the agent are shown escaped, never acted on', async () => {
  const hostile = 'hygiene \x1b]2;PWNED\x07\x1b[2J\x1b[31mred\x1b[0m evil\u202etxt.sh zero\u200bwidth';
  const pending = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/tmp/x\u202etxt', summary: hostile });
  const s = await waitForCard(screen, /hygiene/, 'the prompt on screen');
  assert.ok(s.includes('hygiene \\x1b]2;PWNED\\x07\\x1b[2J\\x1b[31mred\\x1b[0m evil\\u202etxt.sh zero\\u200bwidth'), `summary shown escaped:\n${s}`);
  assert.ok(s.includes('/tmp/x\\u202etxt'), 'resource shown escaped');
  assert.doesNotMatch(s, /[\u202e\u200b]/, 'no raw bidi or zero-width character reached the terminal');
  // An OSC 2 that reached the terminal would have set the pane title.
  assert.notEqual(tmux('display-message', '-p', '-t', SESSION, '#{pane_title}').trim(), 'PWNED');
  await new Promise((r) => setTimeout(r, 600));
  tmux('send-keys', '-t', SESSION, 'd');
  assert.equal((await pending).decision, 'deny');
  // History keeps the text raw: it is evidence.
  const { events } = await (await pane.d.ui()).call<{ events: { summary: string }[] }>('history.query', { limit: 5 });
  assert.ok(events.some((e) => e.summary === hostile), 'recorded raw');
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Which prompt is on screen: the header line of the card names its id. */
const onScreen = () => /· (p_[\w-]+) · denies in/.exec(screen())?.[1] ?? null;

test('five queued prompts: a new one never takes the screen, a double key press decides exactly one, j/k re-arm', async () => {
  const answers = new Map<number, Promise<AgentAnswer>>();
  const settled = new Set<number>();
  const ask = (i: number) => {
    const a = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'q.tool', action: 'write', resource: `/q/${i}`, summary: `queue item ${i}` });
    a.then(() => settled.add(i)).catch(() => undefined);
    answers.set(i, a);
  };
  /** The queue item on screen, by its summary line. */
  const item = () => Number(/summary: queue item (\d+)/.exec(screen())?.[1] ?? 0);
  const open = () => answers.size - settled.size;
  for (let i = 1; i <= 5; i++) {
    ask(i);
    if (i === 1) await waitFor(() => /queue item 1/.test(screen()), 'the first prompt');
  }
  await waitFor(() => /request 1 of 5/.test(screen()), 'the queue of five');
  const first = onScreen();
  assert.ok(first);
  assert.match(screen(), /summary: queue item 1/, 'the oldest stays on screen while the others arrive');
  // A double press: "d", then "d" again as the next prompt comes up (the human's second
  // press lands on it). It meets that prompt's fresh guard: exactly one is decided.
  await guardHolds('a second "d" right after the next prompt showed', async () => {
    if (open() < 2) for (let k = 0; k < 2; k++) ask(answers.size + 1);
    await waitFor(() => item() !== 0 && !settled.has(item()) && new RegExp(`of ${open()} `).test(screen()), 'a pending prompt on screen');
    const shown = item();
    const before = settled.size;
    await sleep(600);
    tmux('send-keys', '-t', SESSION, 'd');
    await waitFor(() => settled.has(shown) && item() !== shown && item() !== 0, 'the next prompt on screen');
    const next = item();
    tmux('send-keys', '-t', SESSION, 'd');
    await waitFor(() => /ignored "d": the prompt on screen changed/.test(screen()) || settled.has(next), 'the second "d" ignored (or, being late, deciding)');
    if (settled.has(next)) return false;
    assert.equal(settled.size, before + 1, 'exactly one prompt was decided: the one on screen');
    assert.equal((await answers.get(shown)!).decision, 'deny');
    assert.match(screen(), new RegExp(`summary: queue item ${next}\\n`));
    assert.match(screen(), new RegExp(`request 1 of ${open()} `));
    return true;
  });
  // j moves on purpose, and a key right after it is ignored too.
  await guardHolds('"o" right after j', async () => {
    const pos = () => /request (\d+) of (\d+) /.exec(screen());
    const last = pos();
    if (open() < 2 || (last && last[1] === last[2])) for (let k = 0; k < 2; k++) ask(answers.size + 1);
    await waitFor(() => {
      const m = pos();
      return !!m && Number(m[2]) === open() && Number(m[1]) < Number(m[2]) && !settled.has(item());
    }, 'a prompt after the one on screen, for j to move to');
    const from = item();
    const before = settled.size;
    tmux('send-keys', '-t', SESSION, 'j');
    await waitFor(() => item() !== from && item() !== 0, 'j to move to the next item');
    const to = item();
    tmux('send-keys', '-t', SESSION, 'o');
    await waitFor(() => /ignored "o": the prompt on screen changed/.test(screen()) || settled.has(to), '"o" ignored (or, being late, deciding)');
    if (settled.has(to)) return false;
    assert.equal(settled.size, before, '"o" right after j answered nothing');
    await sleep(600);
    tmux('send-keys', '-t', SESSION, 'o');
    assert.equal((await answers.get(to)!).decision, 'allow');
    return true;
  });
  // The rest, one by one: after each answer the next comes up, guarded afresh.
  while (open() > 0) {
    const n = settled.size + 1;
    await waitFor(() => item() !== 0 && !settled.has(item()), 'the next prompt on screen');
    await sleep(650);
    tmux('send-keys', '-t', SESSION, 'd');
    await waitFor(() => settled.size === n, `${n} prompts decided`);
  }
  await waitFor(() => /0 pending/.test(screen()), 'the queue to empty');
});

test('only the choices the prompt allows: critical offers no grant, no task offers no [t]', async () => {
  const crit = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'net.upload', action: 'transfer', resource: '/home/u/.ssh/id_ed25519', summary: 'upload my key (critical)' });
  const s = await waitForCard(screen, /upload my key/, 'the critical prompt');
  assert.match(s, /\[CRITICAL\]/);
  assert.match(s, /\[d\]\/Esc deny {2}\[o\] once\s*$/m, 'deny and once only');
  assert.doesNotMatch(s, /\[t\] task|\[m\] 15 min|\[a\] always/);
  await sleep(600);
  tmux('send-keys', '-t', SESSION, 'a');
  await waitFor(() => /"a" is not offered for this critical request/.test(screen()), 'a refused');
  tmux('send-keys', '-t', SESSION, 'd');
  assert.equal((await crit).decision, 'deny');
  const plain = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'p.tool', action: 'write', resource: '/p', summary: 'no task here' });
  const plainCard = await waitForCard(screen, /no task here/, 'the prompt');
  assert.doesNotMatch(plainCard, /\[t\] task|\[D\] deny all/);
  assert.match(plainCard, /\[a\] always…/);
  await sleep(600);
  tmux('send-keys', '-t', SESSION, 'd');
  assert.equal((await plain).decision, 'deny');
});

test('the alternate screen: no scrollback however long it runs, the header stays on the first line', async () => {
  const p = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'long.tool', action: 'write', resource: '/long', summary: 'stay a while' });
  await waitForCard(screen, /stay a while/, 'the prompt');
  // Three countdown ticks (three redraws), however long a loaded machine takes for them.
  const ticks = () => Number(/denies in (\d+)s/.exec(screen())?.[1] ?? 99);
  const start = ticks();
  await waitFor(() => ticks() <= start - 3, 'three countdown ticks');
  assert.equal(tmux('display-message', '-p', '-t', SESSION, '#{alternate_on}').trim(), '1', 'watch runs on the alternate screen');
  assert.equal(Number(tmux('display-message', '-p', '-t', SESSION, '#{history_size}').trim()), 0, 'nothing scrolled into the scrollback');
  assert.match(screen().split('\n')[0]!, /^Airlock watch — 1 pending/);
  tmux('send-keys', '-t', SESSION, 'd');
  assert.equal((await p).decision, 'deny');
});

test('the daemon goes away: watch says so and reconnects by itself after a restart', async () => {
  const p = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'r.tool', action: 'write', resource: '/r', summary: 'before the restart' });
  p.catch(() => undefined);
  await waitFor(() => /before the restart/.test(screen()), 'the prompt');
  pane.agent.close();
  await pane.d.stop();
  await waitFor(() => /can't reach Airlock/.test(screen()), 'the unreachable state', 20_000);
  assert.doesNotMatch(screen(), /before the restart/, 'the prompt is gone with the daemon');
  pane.d = await pane.d.restart();
  pane.agent = await pane.d.agent();
  await waitFor(() => /connected to Airlock again/.test(screen()) && /0 pending/.test(screen()), 'watch to reconnect', 30_000);
  const again = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'r.tool', action: 'write', resource: '/r', summary: 'after the restart' });
  await waitFor(() => /after the restart/.test(screen()), 'a prompt from the new daemon');
  await sleep(600);
  tmux('send-keys', '-t', SESSION, 'd');
  assert.equal((await again).decision, 'deny');
});

test('an MCP prompt says which server and where its action came from, lists conditions in words; "r" allows only reads from that server for the task', async () => {
  const { task, token } = await pane.agent.call<{ task: string; token: string }>('task.start', { name: 'tmux mail', cwd: '/repo' });
  const mcp = (name: string, args: object, annotations: object, summary: string) =>
    pane.agent.call<AgentAnswer>('request', { source: 'mcp', tool: `mail/${name}`, action: 'write', summary, args: { arguments: args, annotations }, task, token });
  const pending = mcp('delete_message', { id: 'm1', folder: 'INBOX' }, { destructiveHint: true }, 'delete message m1 (tmux)');
  const s = await waitForCard(screen, /delete message m1 \(tmux\)/, 'the prompt on screen');
  assert.match(s, /mcp server: mail/);
  assert.match(s, /"delete" from: the server's annotations/);
  assert.match(s, /conditions a grant could carry .*: id is "m1" · folder is "INBOX"/);
  assert.match(s, /\[r\] only reads from mail, for this task/);
  await new Promise((r) => setTimeout(r, 600)); // the input guard
  tmux('send-keys', '-t', SESSION, 'r');
  const a = await pending;
  assert.equal(a.decision, 'deny');
  assert.match(a.reason, /only reads from mail for this task/);
  await waitFor(() => /only reads from mail for this task; denied/.test(screen()), 'the status line');
  const read = await mcp('list_messages', {}, { readOnlyHint: true }, 'list (tmux)');
  assert.equal(read.decision, 'allow');
  const send = await mcp('send_message', { to: 'x@evil.example' }, { openWorldHint: true }, 'send (tmux)');
  assert.equal(send.decision, 'deny');
  assert.match(send.reason, /mail: never write, delete, move or send/);
});

test('a key pressed while an answer is on its way is ignored: one decision, and no error on the status line over it', async () => {
  const pending = pane.agent.call<AgentAnswer>('request', { source: 'api', tool: 'slow.tool', action: 'write', resource: '/slow', summary: 'answer in flight' });
  await waitForCard(screen, /answer in flight/, 'the prompt');
  const id = onScreen();
  assert.ok(id);
  await sleep(600);
  // The daemon stopped: the answer "o" sends stays in flight until it runs again.
  const pid = pane.d.proc.pid!;
  process.kill(pid, 'SIGSTOP');
  try {
    tmux('send-keys', '-t', SESSION, 'o');
    await waitFor(() => screen().includes(`sending the answer to ${id}`), 'the answer on its way');
    // Before, this sent a second decide; once the first settled the prompt it was refused,
    // and "error: … no such prompt" took the status line.
    tmux('send-keys', '-t', SESSION, 'd');
    await waitFor(() => screen().includes(`ignored "d": the answer to ${id} is already on its way`), 'the second key ignored');
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  const a = await pending;
  assert.equal(a.decision, 'allow');
  assert.match(a.reason, /allowed once by the human/);
  await waitFor(() => screen().includes(`allowed once ${id}: answer in flight`), 'the status line to say what counted');
  assert.doesNotMatch(screen(), /error:/);
  const { events } = await (await pane.d.ui()).call<{ events: { summary: string; decision: string }[] }>('history.query', { limit: 10 });
  assert.deepEqual(events.filter((e) => e.summary === 'answer in flight').map((e) => e.decision), ['allow'], 'one decision recorded');
});
