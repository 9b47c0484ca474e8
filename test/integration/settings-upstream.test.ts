// The upstreamAgent setting takes effect at once: a real OpenSSH ssh-agent's keys appear
// beside ours after settings.set, and disappear when it is cleared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as path from 'node:path';
import { startDaemon, tempHome, waitFor } from '../helpers/daemon';
import * as fs from 'node:fs';

test('settings.set upstreamAgent switches the fronted agent without a restart', async () => {
  const dir = tempHome('al-up-');
  const sock = path.join(dir, 'upstream.sock');
  const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
  const d = await startDaemon();
  try {
    await waitFor(() => fs.existsSync(sock), 'ssh-agent socket');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'upstream-key', '-f', path.join(dir, 'k')]);
    execFileSync('ssh-add', ['-q', path.join(dir, 'k')], { env: { ...process.env, SSH_AUTH_SOCK: sock } });
    const ui = await d.ui();
    type Keys = { keys: { comment: string; origin: string }[] };
    const listed = async () => (await ui.call<Keys>('keys.list', {})).keys.filter((k) => k.origin === 'upstream').map((k) => k.comment);
    assert.deepEqual(await listed(), []);
    await ui.call('settings.set', { upstreamAgent: sock });
    await waitFor(async () => (await listed()).includes('upstream-key'), 'the upstream key to be listed', 20_000);
    const viaOurAgent = execFileSync('ssh-add', ['-l'], { env: { ...process.env, SSH_AUTH_SOCK: d.agentSock } }).toString();
    assert.match(viaOurAgent, /upstream-key/);
    await ui.call('settings.set', { upstreamAgent: null });
    await waitFor(async () => (await listed()).length === 0, 'the upstream key to go', 20_000);
    ui.close();
  } finally {
    await d.stop();
    agent.kill();
  }
});
