// Ways around a grant that the differential write fuzzer (test/fuzz/classify-write.fuzz.ts)
// found, run for real through `airlock exec --task … --shell` in throwaway project
// directories. Each case: a human answers an ordinary command's prompt the way the prompt
// offers (allow for this task, with the suggested pattern), or types a grant; a control
// through bash shows the harmful variant really does its harm; through Airlock, that
// variant now asks (the human denies) and nothing happens. Before the fixes each variant
// ran silently under the grant.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { CLI, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';

/** A project directory: a.txt, notes.txt, bk/, a .git/hooks directory, and ./x, a program that leaves `harm`. */
function project(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(tempHome('al-fw-'), 'p-')));
  fs.writeFileSync(path.join(dir, 'a.txt'), 'a\nb\n');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'n\n');
  fs.mkdirSync(path.join(dir, 'bk'));
  fs.mkdirSync(path.join(dir, '.git', 'hooks'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'x'), '#!/bin/sh\n: > harm\n', { mode: 0o755 });
  return dir;
}

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;
let server: http.Server;
let port = 0;

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  agent = await d.agent();
  human = await Human.on(ui);
  server = http.createServer((_req, res) => res.end('ok\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  server?.close();
  agent?.close();
  ui?.close();
  await d?.stop();
});

const exec = (token: string, cwd: string, cmd: string) => run(process.execPath, [CLI, 'exec', '--task', token, '--shell', '--', cmd], { cwd, env: d.env, timeoutMs: 30_000 });

async function startTask(name: string, cwd: string): Promise<{ task: string; token: string }> {
  return agent.call<{ task: string; token: string }>('task.start', { name, cwd });
}

/** Runs `cmd` in the task; the human allows it for the task with the prompt's suggestion (or exactly this command). */
async function allowForTask(token: string, cwd: string, cmd: string): Promise<string> {
  const pending = exec(token, cwd, cmd);
  const p = await human.next(20_000);
  const pattern = p.suggestion ? { tool: p.suggestion.tool, resource: p.suggestion.resource } : undefined;
  await human.decide(p.id, 'allow', 'task', pattern ? { pattern } : {});
  const r = await pending;
  assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
  return pattern?.resource ?? '(exact command)';
}

/** The harmful variant asks now: the human denies, the command does not run, nothing is harmed. */
async function asksAndIsDenied(token: string, cwd: string, cmd: string, harm: string, why: RegExp): Promise<void> {
  const pending = exec(token, cwd, cmd);
  const p = await human.next(20_000);
  assert.ok(p.risk.reasons.some((r) => why.test(r)) || why.test(JSON.stringify(p.resources)), `the prompt does not say why: ${JSON.stringify({ reasons: p.risk.reasons, resource: p.resource })}`);
  await human.decide(p.id, 'deny', 'once');
  assert.equal((await pending).code, 126);
  assert.equal(fs.existsSync(path.join(cwd, harm)), false, `${harm} exists: ${cmd} ran`);
}

/** Control: the harmful variant, run by bash itself in a fresh project, does leave `harm`. */
async function bashHarms(cmd: string, harm: string): Promise<void> {
  const cwd = project();
  await run('bash', ['-c', cmd], { cwd, timeoutMs: 20_000 });
  assert.ok(fs.existsSync(path.join(cwd, harm)), `control: bash -c '${cmd}' did not leave ${harm}, so this case proves nothing`);
}

describe('differential write fuzzer: what it found, run for real under a grant', () => {
  test("sed -i '1e ./x' a.txt under the suggested {sed,sed *} grant: sed runs the e command, so it asks (execute)", async () => {
    const cwd = project();
    const t = await startTask('fw sed', cwd);
    const granted = await allowForTask(t.token, cwd, "sed -i 's/a/b/' a.txt");
    assert.equal(granted, '{sed,sed *}');
    // The grant works for what it is for: another in-place edit runs silently.
    assert.equal((await exec(t.token, cwd, 'sed -i 1d notes.txt')).code, 0);
    await bashHarms("sed -i '1e ./x' a.txt", 'harm');
    await asksAndIsDenied(t.token, cwd, "sed -i '1e ./x' a.txt", 'harm', /runs a shell command/);
    await agent.call('task.end', { task: t.token });
  });

  test("sed -i'.git/hooks/*' under the same grant: the backup goes into .git/hooks, so it asks (a git hook)", async () => {
    const cwd = project();
    const t = await startTask('fw sed backup', cwd);
    await allowForTask(t.token, cwd, "sed -i 's/a/b/' a.txt");
    fs.writeFileSync(path.join(cwd, 'pre-commit'), '#!/bin/sh\n: > harm\n', { mode: 0o755 });
    await bashHarms("printf '#!/bin/sh\\n' > pre-commit; sed -i'.git/hooks/*' 1d pre-commit", '.git/hooks/pre-commit');
    await asksAndIsDenied(t.token, cwd, "sed -i'.git/hooks/*' 2d pre-commit", '.git/hooks/pre-commit', /hook/);
    await agent.call('task.end', { task: t.token });
  });

  test('install --strip-program=./x under the suggested {install,install *} grant: install runs ./x, so it asks', async () => {
    const cwd = project();
    const t = await startTask('fw install', cwd);
    assert.equal(await allowForTask(t.token, cwd, 'install -m 644 a.txt bk/'), '{install,install *}');
    await bashHarms('install --strip-program=./x -s a.txt bk/', 'harm');
    await asksAndIsDenied(t.token, cwd, 'install --strip-program=./x -s a.txt bk/', 'harm', /--strip-program runs a program/);
    await agent.call('task.end', { task: t.token });
  });

  test('f=.git/hooks/pre-commit; echo x > $f under "allow for this task" of `f=notes.txt; echo x > $f`: a path computed at run time asks', async () => {
    const cwd = project();
    const t = await startTask('fw dynamic', cwd);
    await allowForTask(t.token, cwd, 'f=notes.txt; echo x > $f');
    await bashHarms('f=.git/hooks/pre-commit; echo x > $f', '.git/hooks/pre-commit');
    await asksAndIsDenied(t.token, cwd, 'f=.git/hooks/pre-commit; echo x > $f', '.git/hooks/pre-commit', /computed at run time/);
    await agent.call('task.end', { task: t.token });
  });

  test('tar -xf a.tar under a typed grant for writes in the project: the archive holds .git/hooks/pre-commit, so it asks every time', async () => {
    const cwd = project();
    const stage = fs.mkdtempSync(path.join(tempHome('al-fw-'), 's-'));
    fs.mkdirSync(path.join(stage, '.git', 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(stage, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
    assert.equal((await run('tar', ['-cf', path.join(cwd, 'a.tar'), '-C', stage, '.git/hooks/pre-commit'], { timeoutMs: 10_000 })).code, 0);
    fs.copyFileSync(path.join(cwd, 'a.tar'), path.join(stage, 'a.tar'));
    const t = await startTask('fw tar', cwd);
    await ui.call('grants.create', { task: t.task, source: 'exec', tool: 'exec', action: 'write', resource: `${cwd}/**`, effect: 'allow' });
    // Covered: an ordinary write in the project runs silently.
    assert.equal((await exec(t.token, cwd, 'cp a.txt b.txt')).code, 0);
    assert.ok(fs.existsSync(path.join(cwd, 'b.txt')));
    await bashHarms(`tar -xf ${path.join(stage, 'a.tar')}`, '.git/hooks/pre-commit');
    await asksAndIsDenied(t.token, cwd, 'tar -xf a.tar', '.git/hooks/pre-commit', /tar extracts the files a\.tar holds/);
    await agent.call('task.end', { task: t.token });
  });

  test("cp -r t/. . under a typed grant for writes in the project: t holds .git/hooks/pre-commit, which lands in the project's hooks, so it asks every time (lead's red team)", async () => {
    const withTree = () => {
      const dir = project();
      fs.mkdirSync(path.join(dir, 't', '.git', 'hooks'), { recursive: true });
      fs.writeFileSync(path.join(dir, 't', '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
      return dir;
    };
    const control = withTree();
    await run('bash', ['-c', 'cp -r t/. .'], { cwd: control, timeoutMs: 20_000 });
    assert.ok(fs.existsSync(path.join(control, '.git', 'hooks', 'pre-commit')), 'control: cp -r t/. . did not copy the hook');
    const cwd = withTree();
    const t = await startTask('fw cp contents', cwd);
    await ui.call('grants.create', { task: t.task, source: 'exec', tool: 'exec', action: 'write', resource: `${cwd}/**`, effect: 'allow' });
    // Covered: copying a directory by its name runs silently.
    assert.equal((await exec(t.token, cwd, 'cp -r bk bk2')).code, 0);
    assert.ok(fs.existsSync(path.join(cwd, 'bk2')));
    await asksAndIsDenied(t.token, cwd, 'cp -r t/. .', '.git/hooks/pre-commit', /cp copies everything t\/\. holds/);
    await agent.call('task.end', { task: t.token });
  });

  test('cp pre-commit .g*/hooks/ under a typed grant for writes in the project: bash expands the glob to .git/hooks, so it asks; a glob over project files stays silent (write fuzzer, seed 11)', async () => {
    const cwd = project();
    fs.writeFileSync(path.join(cwd, 'pre-commit'), '#!/bin/sh\n: > harm\n', { mode: 0o755 });
    const t = await startTask('fw glob', cwd);
    await ui.call('grants.create', { task: t.task, source: 'exec', tool: 'exec', action: 'write', resource: `${cwd}/**`, effect: 'allow' });
    // Covered: a glob over ordinary project files runs silently.
    assert.equal((await exec(t.token, cwd, 'cp *.txt bk/')).code, 0);
    assert.ok(fs.existsSync(path.join(cwd, 'bk', 'notes.txt')));
    await bashHarms("printf '#!/bin/sh\\n' > pre-commit; cp pre-commit .g*/hooks/", '.git/hooks/pre-commit');
    await asksAndIsDenied(t.token, cwd, 'cp pre-commit .g*/hooks/', '.git/hooks/pre-commit', /hook/);
    await asksAndIsDenied(t.token, cwd, 'cp pre-commit .[g]i?/hooks', '.git/hooks/pre-commit', /hook/);
    await agent.call('task.end', { task: t.token });
  });

  test('curl -D .git/hooks/pre-commit under a typed grant for 127.0.0.1 and the project: the header file is a resource, a hook, so it asks', async () => {
    const cwd = project();
    const t = await startTask('fw curl', cwd);
    await ui.call('grants.create', { task: t.task, source: 'exec', tool: 'exec', action: 'transfer', resource: `{127.0.0.1,${cwd}/**}`, effect: 'allow' });
    const url = `http://127.0.0.1:${port}/`;
    // Covered: a download into the project runs silently.
    assert.equal((await exec(t.token, cwd, `curl -s -o got.txt ${url}`)).code, 0);
    assert.equal(fs.readFileSync(path.join(cwd, 'got.txt'), 'utf8'), 'ok\n');
    await bashHarms(`curl -s -D .git/hooks/pre-commit ${url}`, '.git/hooks/pre-commit');
    await asksAndIsDenied(t.token, cwd, `curl -s -D .git/hooks/pre-commit ${url}`, '.git/hooks/pre-commit', /hook/);
    await agent.call('task.end', { task: t.token });
  });

  test('cp x ~-/pre-commit under the suggested {cp,cp *} grant, after a cd into .git/hooks in the agent\'s shell: ~- is $OLDPWD, not a name in the project, so it asks (write fuzzer, seed 21)', async () => {
    const cwd = project();
    const t = await startTask('fw tilde', cwd);
    assert.equal(await allowForTask(t.token, cwd, 'cp a.txt bk/'), '{cp,cp *}');
    // The agent's shell keeps OLDPWD from its last cd (Claude Code's Bash tool is one shell).
    const env = { ...d.env, OLDPWD: path.join(cwd, '.git', 'hooks') };
    const execOld = (cmd: string) => run(process.execPath, [CLI, 'exec', '--task', t.token, '--shell', '--', cmd], { cwd, env, timeoutMs: 30_000 });
    // Covered: another copy in the project runs silently.
    assert.equal((await execOld('cp x bk/y')).code, 0);
    assert.ok(fs.existsSync(path.join(cwd, 'bk', 'y')));
    await bashHarms('cd .git/hooks; cd ../..; cp x ~-/pre-commit', '.git/hooks/pre-commit');
    const pending = execOld('cp x ~-/pre-commit');
    const p = await human.next(20_000);
    assert.ok(JSON.stringify(p.resources).includes('~-/pre-commit'), JSON.stringify(p.resources));
    await human.decide(p.id, 'deny', 'once');
    assert.equal((await pending).code, 126);
    assert.equal(fs.existsSync(path.join(cwd, '.git', 'hooks', 'pre-commit')), false, 'the hook was written');
    await agent.call('task.end', { task: t.token });
  });

  test('x=.git/hooks; cd $x; cp ../../x pre-commit under the suggested {cp,cp *} grant: after a cd to a place known only at run time a relative path can be a hook, so it asks (write fuzzer)', async () => {
    const cwd = project();
    const t = await startTask('fw cd unknown', cwd);
    assert.equal(await allowForTask(t.token, cwd, 'cp a.txt bk/'), '{cp,cp *}');
    // Covered: a copy after a cd to a known place runs silently.
    assert.equal((await exec(t.token, cwd, 'cd bk; cp ../x y')).code, 0);
    assert.ok(fs.existsSync(path.join(cwd, 'bk', 'y')));
    await bashHarms('x=.git/hooks; cd $x; cp ../../x pre-commit', '.git/hooks/pre-commit');
    await asksAndIsDenied(t.token, cwd, 'x=.git/hooks; cd $x; cp ../../x pre-commit', '.git/hooks/pre-commit', /cannot tell|relative paths lead anywhere/);
    await agent.call('task.end', { task: t.token });
  });
});
