// Black-box, seventh wave: `eval "$(airlock task start NAME --env)"` (the README's way in) with
// an AIRLOCK_HOME whose path holds a space, a `$` and a `;`: the exported SSH_AUTH_SOCK must be
// the task's socket exactly (ssh-add -l reaches it), and nothing in the path runs.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { startDaemon } from '../helpers/daemon';
import { AIRLOCK_BIN } from '../helpers/blackbox';
import { run } from '../helpers/ssh';

test('task start --env with AIRLOCK_HOME holding a space, $ and ;: eval exports the exact socket paths and runs nothing of the path', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb7t-'));
  const home = path.join(root, 'a b$x;touch P');
  const d = await startDaemon({ home });
  try {
    const script = `eval "$("${process.execPath}" "${AIRLOCK_BIN}" task start 'bb7 env' --env)" || exit 9; printf '%s\\n' "$SSH_AUTH_SOCK" "$AIRLOCK_TASK"; ssh-add -l; echo "ssh-add=$?"`;
    const r = await run('bash', ['-c', script], { env: { ...process.env, AIRLOCK_HOME: home }, cwd: root, timeoutMs: 30_000 });
    const [sock, task] = r.stdout.split('\n');
    assert.match(task ?? '', /^t_/, r.stdout + r.stderr);
    assert.equal(sock, path.join(home, 'tasks', task!, 'agent.sock'), r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /no identities/, 'ssh-add reached the task socket');
    assert.match(r.stdout, /ssh-add=1/);
    assert.equal(fs.existsSync(path.join(root, 'P')), false, 'nothing of the path ran');
  } finally {
    await d.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
