// git writes where its options and arguments say: `--work-tree X`, `mv a ../x`, `init DIR`,
// `worktree add P`, `format-patch -o D`. The classifier named only the repository, so a grant
// for writes in the task's own tree answered a git command that writes somewhere else.
// Real daemon, the Claude Code hook, a grant for writes under the work directory.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Daemon } from '../helpers/daemon';
import type { Human } from '../helpers/human';
import { run } from '../helpers/run';
import { closeDaemonSession, openDaemonSession } from '../helpers/daemon-session';
import { gitEnv } from '../helpers/planted-repo';
import type { RpcClient } from '../../main/client/rpc-client';

const HOOK_BIN = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code', 'bin.js');

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;
let root: string;

before(async () => {
  ({ d, ui, agent, human } = await openDaemonSession());
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'al-gwt-')));
});
after(async () => {
  await closeDaemonSession({ d, ui, agent });
  rmSync(root, { recursive: true, force: true });
});

async function hook(cwd: string, command: string): Promise<string> {
  const input = JSON.stringify({ session_id: 'git-targets', transcript_path: '/x.jsonl', cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
  const r = await run(process.execPath, [HOOK_BIN], { env: d.env, input, timeoutMs: 30_000 });
  return (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
}

test('a grant for writes in the work tree answers git checkout there, and asks for git writes that land outside it', async () => {
  const work = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  mkdirSync(outside);
  execFileSync('git', ['init', '-q', work], { env: gitEnv(root), stdio: 'ignore', timeout: 10_000 });
  await ui.call('grants.create', { source: 'claude-code', action: 'write', resource: `${work}/**`, effect: 'allow' });
  // Control: the grant covers a git write in the work tree.
  assert.equal(await hook(work, 'git checkout .'), 'allow');
  for (const command of [
    `git --work-tree=${outside} checkout .`,
    `git --work-tree ${outside} checkout -f`,
    'git mv README ../outside/README',
    `git init ${outside}/r`,
    `git worktree add ${outside}/w`,
    `git format-patch -o ${outside} HEAD~1`,
  ]) {
    const answer = hook(work, command);
    const p = await human.next(20_000);
    assert.ok(p.resources.some((r) => r === outside || r.startsWith(`${outside}/`)), `${command}: the prompt lists where it writes: ${JSON.stringify(p.resources)}`);
    await human.decide(p.id, 'deny');
    assert.equal(await answer, 'deny', command);
  }
});
