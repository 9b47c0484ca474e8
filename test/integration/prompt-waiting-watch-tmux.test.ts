// `airlock watch` (tmux) on a prompt that more identical requests join: the card says how
// many one answer answers, and a key right after the count changed answers nothing (its
// guard starts again). prompt-coalesce.ts (withWaiting), watch.ts (pending.updated).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentAnswer } from '../../main/contract/agent';
import { waitFor } from '../helpers/daemon';
import { guardHolds, waitForCard, watchInTmux } from '../helpers/watch-tmux';

const pane = watchInTmux('prompt-waiting', 120, 40);

test('watch: "2 identical requests are waiting"; an "o" right after the second joined is ignored; then each gets the answer', async () => {
  await guardHolds('"o" right after a second identical request joined the prompt on screen', async (attempt) => {
    const req = { source: 'api', tool: 'payments/pay', action: 'transfer', resource: 'carol@example.com', summary: `pay 30 to carol (${attempt})` };
    const first = pane.agent.call<AgentAnswer>('request', req);
    let answered = false;
    first.then(() => (answered = true), () => (answered = true));
    await waitForCard(pane.screen, new RegExp(`pay 30 to carol \\(${attempt}\\)`), 'the payment on screen');
    assert.doesNotMatch(pane.screen(), /identical requests are waiting/);
    // The human reads it (past the guard) … and as the finger comes down, a copy joins.
    await new Promise((r) => setTimeout(r, 700));
    const second = pane.agent.call<AgentAnswer>('request', req);
    second.catch(() => undefined);
    await waitFor(() => /2 identical requests are waiting/.test(pane.screen()), 'the count on the card', 10_000);
    pane.tmux('send-keys', '-t', pane.session, 'o');
    await waitFor(() => /ignored "o"/.test(pane.screen()) || answered, 'the guard message (or an answer)', 10_000);
    if (answered) {
      await second.catch(() => undefined);
      return false; // a stalled machine showed the count for over half a second: try again
    }
    await new Promise((r) => setTimeout(r, 700));
    pane.tmux('send-keys', '-t', pane.session, 'd');
    assert.equal((await first).decision, 'deny');
    assert.equal((await second).decision, 'deny', 'the answer answered each');
    return true;
  });
});
