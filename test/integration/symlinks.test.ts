// Paths are matched by what they really are (issue 10): a grant for a directory does not
// reach a git hook through a symbolic link inside it. Real links in a temp dir, asked
// through request.sock and run through `airlock exec --shell` against the real daemon.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Prompt } from '../../main/contract/approver';
import { CLI, tempHome, type Daemon } from '../helpers/daemon';
import type { Human } from '../helpers/human';
import { run } from '../helpers/run';
import { closeDaemonSession, openDaemonSession } from '../helpers/daemon-session';

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;
let W: string;
let repo: string;
let task: string;
/** The task's token: on the shared request.sock the id alone does not act as the task. */
let token: string;

before(async () => {
  ({ d, ui, agent, human } = await openDaemonSession());
  W = fs.realpathSync(tempHome('al-sl-'));
  repo = path.join(W, 'repo');
  fs.mkdirSync(path.join(repo, '.git/hooks'), { recursive: true });
  fs.mkdirSync(path.join(repo, 'dir'));
  fs.writeFileSync(path.join(repo, '.git/config'), '[core]\n');
  fs.symlinkSync('../.git/hooks', path.join(repo, 'dir/h')); // the setup of the issue
  fs.symlinkSync(path.join(repo, '.git'), path.join(repo, 'dir/g'));
  fs.symlinkSync('../.git/hooks/post-merge', path.join(repo, 'dir/dangling'));
  fs.symlinkSync('loop2', path.join(repo, 'dir/loop1'));
  fs.symlinkSync('loop1', path.join(repo, 'dir/loop2'));
  ({ task, token } = await agent.call<{ task: string; token: string }>('task.start', { name: 'links', cwd: repo }));
  await ui.call('grants.create', { task, action: 'write', resource: `${repo}/dir/**`, effect: 'allow' });
});
after(() => closeDaemonSession({ d, ui, agent }));

const write = (resource: string, extra: object = {}) =>
  agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource, summary: `write ${resource}`, task, token, ...extra });

/** Asks, takes the prompt it must raise, denies it, and returns the prompt. */
async function mustPrompt(p: Promise<AgentAnswer>): Promise<Prompt> {
  const prompt = await human.next(10_000);
  await human.decide(prompt.id, 'deny');
  assert.equal((await p).decision, 'deny');
  return prompt;
}

describe('symbolic links through request.sock', () => {
  test('the grant allows a plain file in the directory (no prompt)', async () => {
    const a = await write(`${repo}/dir/notes.txt`);
    assert.equal(a.decision, 'allow', a.reason);
    assert.equal(human.unanswered().length, 0);
  });

  test('dir/h/pre-commit with h → .git/hooks asks at high risk, as the direct path does, and the prompt says where it leads', async () => {
    const viaLink = await mustPrompt(write(`${repo}/dir/h/pre-commit`));
    const direct = await mustPrompt(write(`${repo}/.git/hooks/pre-commit`));
    assert.equal(viaLink.risk.level, 'high');
    assert.equal(viaLink.risk.level, direct.risk.level);
    assert.ok(viaLink.risk.reasons.some((r) => r.includes(`${repo}/dir/h/pre-commit is really ${repo}/.git/hooks/pre-commit`)), viaLink.risk.reasons.join(' | '));
    assert.ok(viaLink.risk.reasons.some((r) => /git hook/.test(r)));
    assert.equal(viaLink.resource, `${repo}/dir/h/pre-commit`, 'the literal path stays what the prompt shows first');
    assert.ok(viaLink.resources.includes(`${repo}/.git/hooks/pre-commit`), 'the real path is a resource too');
    const ev = (await ui.call<{ events: { resources: string[] }[] }>('history.query', { task, decision: 'deny', limit: 5 })).events;
    assert.ok(ev.some((e) => e.resources.includes(`${repo}/.git/hooks/pre-commit`)), 'history records the real path');
  });

  test('an absolute link, `..` after a link and a dangling link are all judged by their target', async () => {
    for (const [lit, target] of [
      [`${repo}/dir/g/hooks/post-checkout`, `${repo}/.git/hooks/post-checkout`],
      [`${repo}/dir/h/../config`, `${repo}/.git/config`],
      [`${repo}/dir/dangling`, `${repo}/.git/hooks/post-merge`],
    ] as const) {
      const p = await mustPrompt(write(lit));
      assert.equal(p.risk.level, 'high', lit);
      assert.ok(p.resources.includes(target), `${lit}: ${JSON.stringify(p.resources)}`);
    }
  });

  test('a grant naming only the literal path does not let a write reach the protected target', async () => {
    const g = await ui.call<{ grant: { id: string } }>('grants.create', { task, action: 'write', resource: `${repo}/dir/h/pre-commit`, effect: 'allow' });
    await mustPrompt(write(`${repo}/dir/h/pre-commit`));
    await ui.call('grants.revoke', { id: g.grant.id });
  });

  test('a deny grant on the real target denies the write through the link', async () => {
    const g = await ui.call<{ grant: { id: string } }>('grants.create', { task, action: 'write', resource: `${repo}/.git/**`, effect: 'deny', note: 'never .git' });
    const a = await write(`${repo}/dir/g/config`);
    assert.equal(a.decision, 'deny');
    assert.match(a.reason, /denied by grant .*never \.git/);
    await ui.call('grants.revoke', { id: g.grant.id });
  });

  test('a loop of links asks (critical: no grant alone allows what cannot be resolved), and the daemon keeps serving', async () => {
    const p = await mustPrompt(write(`${repo}/dir/loop1/x`));
    assert.equal(p.risk.level, 'critical');
    assert.ok(p.risk.reasons.some((r) => /too many levels of symbolic links/.test(r)));
    assert.equal((await write(`${repo}/dir/after-loop.txt`)).decision, 'allow');
  });

  test('/proc magic links: a wildcard grant never covers them', async () => {
    const g = await ui.call<{ grant: { id: string } }>('grants.create', { task, action: 'write', resource: '**', effect: 'allow' });
    const p = await mustPrompt(write('/proc/self/cwd/dir/h/pre-commit'));
    assert.equal(p.risk.level, 'high');
    await ui.call('grants.revoke', { id: g.grant.id });
  });

  test('a request with hundreds of paths stays bounded: answered fast, asked (not allowed by the grant)', async () => {
    const resources = Array.from({ length: 200 }, (_, i) => `${repo}/dir/many-${i}`);
    const t0 = Date.now();
    const p = await mustPrompt(write(`${repo}/dir/many`, { resources }));
    assert.ok(p.risk.reasons.some((r) => /more than 64 paths/.test(r)), p.risk.reasons.join(' | '));
    assert.ok(Date.now() - t0 < 5000);
  });

  test('requests without paths are unaffected (a host stays a host)', async () => {
    const asked = agent.call<AgentAnswer>('request', { source: 'api', tool: 'deploy', action: 'transfer', resource: 'staging.example.com', summary: 'deploy', task, token });
    const p = await human.next(10_000);
    assert.deepEqual(p.resources, ['staging.example.com']);
    assert.ok(!p.risk.reasons.some((r) => /is really|could not tell/.test(r)));
    await human.decide(p.id, 'deny');
    assert.equal((await asked).decision, 'deny');
  });
});

describe('symbolic links through airlock exec --shell', () => {
  const exec = (cmd: string) => run(process.execPath, [CLI, 'exec', '--task', token, '--shell', '--', cmd], { cwd: repo, env: d.env, timeoutMs: 30_000 });

  test('a write inside the granted directory runs without a prompt', async () => {
    const r = await exec('echo ok > dir/plain.txt');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.readFileSync(path.join(repo, 'dir/plain.txt'), 'utf8'), 'ok\n');
    assert.equal(human.unanswered().length, 0);
  });

  for (const [cmd, hook] of [
    ['echo evil > dir/h/pre-commit', '.git/hooks/pre-commit'],
    ['cp /etc/hostname dir/h/pre-push', '.git/hooks/pre-push'],
    ['echo "[core] fsmonitor=x" >> dir/h/../config', '.git/config'],
    ['cd dir && echo evil > g/hooks/post-commit', '.git/hooks/post-commit'],
    ['echo evil > dir/dangling', '.git/hooks/post-merge'],
  ] as const) {
    test(`\`${cmd}\` asks (its target is ${hook}); denied, nothing is written`, async () => {
      const before = fs.existsSync(path.join(repo, hook)) ? fs.readFileSync(path.join(repo, hook), 'utf8') : null;
      const pending = exec(cmd);
      const p = await human.next(15_000);
      assert.ok(p.resources.includes(path.join(repo, hook)), `${JSON.stringify(p.resources)} lacks the real target`);
      assert.ok(['high', 'critical'].includes(p.risk.level), p.risk.level);
      await human.decide(p.id, 'deny');
      const r = await pending;
      assert.equal(r.code, 126, r.stderr);
      const after = fs.existsSync(path.join(repo, hook)) ? fs.readFileSync(path.join(repo, hook), 'utf8') : null;
      assert.equal(after, before, 'nothing was written');
    });
  }

  test('a cwd that is itself a link is resolved too', async () => {
    const r = run(process.execPath, [CLI, 'exec', '--task', token, '--shell', '--', 'echo evil > pre-rebase'], { cwd: path.join(repo, 'dir/h'), env: d.env, timeoutMs: 30_000 });
    const p = await human.next(15_000);
    assert.ok(p.resources.includes(path.join(repo, '.git/hooks/pre-rebase')), JSON.stringify(p.resources));
    await human.decide(p.id, 'deny');
    assert.equal((await r).code, 126);
  });
});

describe('symbolic links: what is not covered', () => {
  // Links are resolved when the request is decided; the tool acts later, outside Airlock.
  // Closing this needs the write to go through Airlock (openat2 RESOLVE_NO_SYMLINKS in the
  // daemon) — documented in SECURITY.md's limits.
  test.todo('a link swapped after the decision (TOCTOU)');
});
