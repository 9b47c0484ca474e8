// Ways around a grant that the GTFOBins corpus found (test/unit/classify-gtfobins.test.ts),
// run for real through `airlock exec --task … --shell` in throwaway projects. Each case: a
// human answers an ordinary command's prompt the way the prompt offers (allow for this task,
// with the suggested pattern), or types a grant for writes in the project; a control through
// bash shows the variant really does its harm; through Airlock that variant now asks (the
// human denies) and nothing happens. Before the fixes each variant ran silently.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';

/** A project: a.txt, a git repository with one commit, and ./x, a program that leaves `harm`. */
async function project(): Promise<string> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(tempHome('al-gtfo-'), 'p-')));
  fs.writeFileSync(path.join(dir, 'a.txt'), 'a\nb\n');
  fs.writeFileSync(path.join(dir, 'x'), '#!/bin/sh\n: > harm\n', { mode: 0o755 });
  const git = (...args: string[]) => run('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd: dir, timeoutMs: 10_000, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  assert.equal((await git('init', '-q')).code, 0);
  assert.equal((await git('add', 'a.txt')).code, 0);
  assert.equal((await git('commit', '-qm', 'a')).code, 0);
  return dir;
}

/** A patch creating FILE (a new executable file) in git's format. */
const patch = (file: string) => `diff --git a/${file} b/${file}\nnew file mode 100755\n--- /dev/null\n+++ b/${file}\n@@ -0,0 +1 @@\n+echo x\n`;

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  agent = await d.agent();
  human = await Human.on(ui);
});
after(async () => {
  agent?.close();
  ui?.close();
  await d?.stop();
});

const exec = (token: string, cwd: string, cmd: string) => run(process.execPath, [CLI, 'exec', '--task', token, '--shell', '--', cmd], { cwd, env: d.env, timeoutMs: 30_000 });

async function startTask(name: string, cwd: string): Promise<{ task: string; token: string }> {
  return agent.call<{ task: string; token: string }>('task.start', { name, cwd });
}

/** Runs `cmd` in the task; the human allows it for the task with the prompt's suggestion. */
async function allowForTask(token: string, cwd: string, cmd: string): Promise<string> {
  const pending = exec(token, cwd, cmd);
  const p = await human.next(20_000);
  assert.ok(p.suggestion, `${cmd}: no suggestion offered`);
  await human.decide(p.id, 'allow', 'task', { pattern: { tool: p.suggestion.tool, resource: p.suggestion.resource } });
  const r = await pending;
  assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
  return p.suggestion.resource;
}

/** The variant asks now: the human denies, the command does not run, nothing is harmed. */
async function asksAndIsDenied(token: string, cwd: string, cmd: string, harm: string, why: RegExp): Promise<void> {
  const pending = exec(token, cwd, cmd);
  const p = await human.next(20_000);
  assert.ok(p.risk.reasons.some((r) => why.test(r)), `the prompt does not say why: ${JSON.stringify(p.risk.reasons)}`);
  await human.decide(p.id, 'deny', 'once');
  assert.equal((await pending).code, 126);
  assert.equal(fs.existsSync(path.join(cwd, harm)), false, `${harm} exists: ${cmd} ran`);
}

/** Control: the variant, run by bash itself in a fresh project, does leave `harm`. */
async function bashHarms(cmd: string, harm: string, prepare: (dir: string) => void = () => {}): Promise<void> {
  const cwd = await project();
  prepare(cwd);
  await run('bash', ['-c', cmd], { cwd, timeoutMs: 20_000 });
  assert.ok(fs.existsSync(path.join(cwd, harm)), `control: bash -c '${cmd}' did not leave ${harm}, so this case proves nothing`);
}

describe('GTFOBins: what the corpus found, run for real under a grant', () => {
  test('tar cf … --checkpoint-act=exec=./x under the suggested {tar,tar *} grant: GNU tar takes the abbreviation and runs ./x, so it asks (execute)', async () => {
    const cwd = await project();
    const t = await startTask('gtfo tar', cwd);
    assert.equal(await allowForTask(t.token, cwd, 'tar cf out.tar a.txt'), '{tar,tar *}');
    // The grant works for what it is for: another archive is made silently.
    assert.equal((await exec(t.token, cwd, 'tar cf out2.tar a.txt')).code, 0);
    const line = 'tar cf out3.tar a.txt --checkpoint=1 --checkpoint-act=exec=./x';
    await bashHarms(line, 'harm');
    await asksAndIsDenied(t.token, cwd, line, 'harm', /--checkpoint-act runs a program of the caller's choosing/);
    await agent.call('task.end', { task: t.token });
  });

  test('split --fil=./x under the suggested {split,split *} grant: split takes the abbreviation of --filter and runs ./x, so it asks', async () => {
    const cwd = await project();
    const t = await startTask('gtfo split', cwd);
    assert.equal(await allowForTask(t.token, cwd, 'split -n 2 a.txt part-'), '{split,split *}');
    assert.equal((await exec(t.token, cwd, 'split -n 2 a.txt other-')).code, 0);
    await bashHarms('split -n 1 --fil=./x a.txt', 'harm');
    await asksAndIsDenied(t.token, cwd, 'split -n 1 --fil=./x a.txt', 'harm', /split --fil runs a program/);
    await agent.call('task.end', { task: t.token });
  });

  test('git apply writes the files the patch names: asked every time with no grant offered, and --unsafe-paths --directory=.git/hooks says it lands anywhere', async () => {
    const cwd = await project();
    fs.writeFileSync(path.join(cwd, 'ok.diff'), patch('b.txt'));
    fs.writeFileSync(path.join(cwd, 'p.diff'), patch('pre-commit'));
    const t = await startTask('gtfo git apply', cwd);
    // A patch inside the work tree can still write .claude/settings.json or package.json: no
    // grant on git apply is offered (session 27; it was {git apply,git apply *}).
    const ok = exec(t.token, cwd, 'git apply ok.diff');
    const p = await human.next(20_000);
    assert.equal(p.suggestion, undefined, JSON.stringify(p.suggestion));
    await human.decide(p.id, 'allow', 'once');
    assert.equal((await ok).code, 0);
    assert.ok(fs.existsSync(path.join(cwd, 'b.txt')));
    await asksAndIsDenied(t.token, cwd, 'git apply --directory=.git/hooks p.diff', '.git/hooks/pre-commit', /git apply writes the files the patch names/);
    const line = 'git apply --unsafe-paths --directory=.git/hooks p.diff';
    await bashHarms(line, '.git/hooks/pre-commit', (dir) => fs.writeFileSync(path.join(dir, 'p.diff'), patch('pre-commit')));
    await asksAndIsDenied(t.token, cwd, line, '.git/hooks/pre-commit', /git apply --unsafe-paths writes the files the patch names/);
    await agent.call('task.end', { task: t.token });
  });
});
