// Red team, fourth wave, closed in the daemon: the classifier takes the working directory as
// the session's repository, and Claude Code keeps the Bash tool's directory between calls.
// So an agent plants HEAD, objects/, refs/ and a config naming a program in `sub`, runs
// `cd sub` (a read), and in the next call a plain `git log -p` runs that program. The
// daemon looks at the disk around a git command's directory; a bare-repository look-alike
// makes it "execute", which asks. Real git, real daemon, real hook.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Daemon } from '../helpers/daemon';
import type { Human } from '../helpers/human';
import { run } from '../helpers/run';
import { closeDaemonSession, openDaemonSession } from '../helpers/daemon-session';
import { gitEnv, plantRepository } from '../helpers/planted-repo';
import type { RpcClient } from '../../main/client/rpc-client';

const HOOK_BIN = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code', 'bin.js');

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;
let root: string;

before(async () => {
  ({ d, ui, agent, human } = await openDaemonSession());
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'al-gcwd-')));
});
after(async () => {
  await closeDaemonSession({ d, ui, agent });
  rmSync(root, { recursive: true, force: true });
});

async function hook(cwd: string, command: string): Promise<string> {
  const input = JSON.stringify({ session_id: 'git-cwd', transcript_path: '/x.jsonl', cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
  const r = await run(process.execPath, [HOOK_BIN], { env: d.env, input, timeoutMs: 30_000 });
  return (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
}

test('after "cd sub" into a planted bare-repository look-alike, git log -p asks (execute, with the reason) and runs nothing; the session repository itself stays a silent read', async () => {
  const work = path.join(root, 'work');
  execFileSync('git', ['init', '-q', work], { env: gitEnv(root), stdio: 'ignore', timeout: 10_000 });
  const sub = path.join(work, 'sub');
  const marker = plantRepository(root, sub);
  mkdirSync(path.join(sub, 'deeper'));
  // Control: real git there runs the planted program.
  execFileSync('git', ['log', '-p'], { cwd: sub, env: gitEnv(root), stdio: 'ignore', timeout: 10_000 });
  assert.ok(existsSync(marker), 'control: real git log -p in sub ran the planted textconv');
  rmSync(marker);

  for (const [cwd, command] of [[sub, 'git log -p'], [path.join(sub, 'deeper'), 'git --no-pager show'], [sub, 'git diff HEAD~0 2>/dev/null']] as const) {
    const answer = hook(cwd, command);
    const p = await human.next(20_000);
    assert.equal(p.action, 'execute', `${command} in ${cwd}: ${JSON.stringify(p.risk)}`);
    assert.ok(p.risk.reasons.some((r) => r.includes(`git here would take ${sub} as a repository`)), JSON.stringify(p.risk.reasons));
    await human.decide(p.id, 'deny');
    assert.equal(await answer, 'deny');
  }
  assert.equal(existsSync(marker), false);

  // The session's own repository: git reads stay reads, no prompt.
  for (const command of ['git log -p', 'git status --short']) assert.equal(await hook(work, command), 'allow', command);
  assert.equal(human.unanswered().length, 0, 'no prompt for a git read in the session repository');
});

// git writes where its options and arguments say (`--work-tree X`, `mv a ../x`, `init DIR`,
// `worktree add P`, `format-patch -o D`); the classifier named only the repository, so a grant
// for writes in the task's own tree answered a git command that writes somewhere else.
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

test('a git write or fetch in another repository runs that repository\'s hooks and config: asked as execute even under a grant for writes there', async () => {
  const work = path.join(root, 'work2');
  const other = path.join(root, 'other');
  execFileSync('git', ['init', '-q', work], { env: gitEnv(root), stdio: 'ignore', timeout: 10_000 });
  execFileSync('git', ['init', '-q', other], { env: gitEnv(root), stdio: 'ignore', timeout: 10_000 });
  const marker = path.join(root, 'pre-commit-ran');
  writeFileSync(path.join(other, '.git', 'hooks', 'pre-commit'), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
  // Control: real git runs the other repository's hook.
  execFileSync('git', ['-C', other, 'commit', '-q', '--allow-empty', '-m', 'c'], { env: gitEnv(root), stdio: 'ignore', timeout: 10_000 });
  assert.ok(existsSync(marker), 'control: git -C other commit ran its pre-commit');
  rmSync(marker);
  const g = await ui.call<{ grant: { id: string } }>('grants.create', { source: 'claude-code', action: 'write', resource: `${root}/**`, effect: 'allow' });
  try {
    for (const command of [`git -C ${other} commit --allow-empty -m x`, `cd ${other} && git commit --allow-empty -m x`, `git --git-dir=${other}/.git --work-tree=. commit --allow-empty -m x`]) {
      const answer = hook(work, command);
      const p = await human.next(20_000);
      assert.equal(p.action, 'execute', `${command}: ${JSON.stringify(p.risk)}`);
      await human.decide(p.id, 'deny');
      assert.equal(await answer, 'deny', command);
    }
    assert.equal(existsSync(marker), false);
  } finally {
    await ui.call('grants.revoke', { id: g.grant.id });
  }
});
