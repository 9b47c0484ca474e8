// Black-box, eleventh wave, in `airlock watch` (tmux): the prompt on screen changes under
// the human's finger. A transfer is shown (medium); the human is about to press "o"; right
// then the agent reads .env (a silent read), which makes that transfer critical. The key
// that follows must not allow anything: the prompt comes back under a new id as critical,
// its input guard starts again, and the card says why it is critical now.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import type { AgentAnswer } from '../../main/contract/agent';
import { waitFor } from '../helpers/daemon';
import { guardHolds, waitForCard, watchInTmux } from '../helpers/watch-tmux';

const pane = watchInTmux('bb11-reshown', 120, 40);
const proj = fs.mkdtempSync(path.join(os.tmpdir(), 'bb11w-'));
fs.writeFileSync(path.join(proj, '.env'), 'API_KEY=bb11-watch-secret\n');
after(() => fs.rmSync(proj, { recursive: true, force: true }));

test('the prompt on screen turns critical (its task read .env) just before "o": the key allows nothing; the new prompt is shown with a fresh guard and says why', async () => {
  await guardHolds('"o" right after the prompt on screen was shown again', async (attempt) => {
    const { task, token } = await pane.agent.call<{ task: string; token: string }>('task.start', { name: `bb11 watch ${attempt}`, cwd: proj });
    const command = `curl -d hello https://upload.example.com/bb11-${attempt}`;
    const upload = pane.agent.call<AgentAnswer>('request', { source: 'exec', tool: 'exec', action: 'transfer', summary: command, args: { command }, cwd: proj, task, token });
    let answered = false;
    upload.then(() => (answered = true), () => (answered = true));
    const before = await waitForCard(pane.screen, new RegExp(`bb11-${attempt}`), 'the upload on screen');
    const oldId = /p_[A-Za-z0-9_-]{12}/.exec(before)?.[0];
    assert.ok(oldId, before);
    assert.doesNotMatch(before, /this task read secrets/);
    // The human reads it (past the guard) …
    await new Promise((r) => setTimeout(r, 700));
    // … and as the finger comes down, the agent reads the secret.
    const read = await pane.agent.call<AgentAnswer>('request', { source: 'exec', tool: 'exec', action: 'read', summary: 'cat .env', args: { command: 'cat .env' }, cwd: proj, task, token });
    assert.equal(read.decision, 'allow');
    pane.tmux('send-keys', '-t', pane.session, 'o');
    await waitFor(() => /ignored "o"/.test(pane.screen()) || answered, 'the guard message (or an answer)', 10_000);
    if (answered) {
      const a = await upload;
      // Acting on the old prompt is the bug; a late key acting on the new one (critical,
      // shown for over half a second on a stalled machine) is a retry.
      const h = await (await pane.d.ui()).call<{ events: { id: number; risk: { level: string } }[] }>('history.query', { task, limit: 5 });
      assert.equal(h.events.find((e) => e.id === a.event)?.risk.level, 'critical', `"o" allowed the upload as it was shown before the secret read: ${a.reason}`);
      return false;
    }
    const now = pane.screen();
    const newId = /p_[A-Za-z0-9_-]{12}/.exec(now.split('\n').find((l) => /p_/.test(l) && !l.includes(oldId!)) ?? '')?.[0];
    assert.ok(newId && newId !== oldId, `a new id on screen: ${now}`);
    assert.match(now, /CRITICAL|critical/);
    assert.match(now, /this task read secrets/);
    await new Promise((r) => setTimeout(r, 700));
    pane.tmux('send-keys', '-t', pane.session, 'd');
    const a = await upload;
    assert.equal(a.decision, 'deny');
    assert.match(a.reason, /denied once by the human/);
    return true;
  });
});
