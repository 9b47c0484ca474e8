// A sandboxed agent holds no credential from the environment it was started from:
// variables whose names say they hold one (*KEY*, *SECRET*, *TOKEN*, passwords) stay
// outside unless the human keeps one by name (`--keep-env`), and the human is told which
// (one line on stderr). Real bwrap. main/integrations/exec/sandbox-env.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';

const hasBwrap = fs.existsSync('/usr/bin/bwrap') || fs.existsSync('/usr/local/bin/bwrap');

let d: Daemon;
let ui: RpcClient;
let work: string;
let env: NodeJS.ProcessEnv;

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  const home = tempHome('al-senv-');
  work = fs.mkdtempSync(path.join(home, 'proj-'));
  env = {
    ...d.env,
    HOME: home,
    OPENAI_API_KEY: 'sk-live-value-1',
    AWS_SECRET_ACCESS_KEY: 'aws-value-2',
    GITHUB_TOKEN: 'ghp-value-3',
    DB_PASSWORD: 'pw-value-4',
    PLAIN_SETTING: 'plain-value',
  };
  await ui.call('grants.create', { source: 'exec', action: '*', resource: '**', effect: 'allow', note: 'sandbox-env: run anything' });
});
after(async () => {
  ui?.close();
  await d?.stop();
});

const SHOW = 'for v in OPENAI_API_KEY AWS_SECRET_ACCESS_KEY GITHUB_TOKEN DB_PASSWORD PLAIN_SETTING; do eval "echo $v=\\${$v:-unset}"; done';

describe('the caller\'s credentials stay outside the sandbox', { skip: hasBwrap ? false : 'bwrap is not installed' }, () => {
  test('airlock exec --sandbox: *KEY*, *SECRET*, *TOKEN* and password variables are unset inside, others pass; stderr names what was withheld', async () => {
    // control: without --sandbox the command sees them all (the variables are really there)
    const plain = await run(process.execPath, [CLI, 'exec', '--shell', '--', SHOW], { cwd: work, env, timeoutMs: 30_000 });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /OPENAI_API_KEY=sk-live-value-1/);
    const r = await run(process.execPath, [CLI, 'exec', '--sandbox', '--shell', '--', SHOW], { cwd: work, env, timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    for (const v of ['OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'DB_PASSWORD']) assert.match(r.stdout, new RegExp(`^${v}=unset$`, 'm'), r.stdout);
    assert.match(r.stdout, /^PLAIN_SETTING=plain-value$/m);
    for (const value of ['sk-live-value-1', 'aws-value-2', 'ghp-value-3', 'pw-value-4']) assert.ok(!r.stdout.includes(value), `${value} reached the sandbox`);
    assert.match(r.stderr, /the sandbox does not get .*GITHUB_TOKEN.*OPENAI_API_KEY.*--keep-env NAME/);
  });

  test('--keep-env NAME passes that one as it is, and only it', async () => {
    const r = await run(process.execPath, [CLI, 'exec', '--sandbox', '--keep-env', 'OPENAI_API_KEY', '--shell', '--', SHOW], { cwd: work, env, timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^OPENAI_API_KEY=sk-live-value-1$/m);
    assert.match(r.stdout, /^GITHUB_TOKEN=unset$/m);
    assert.doesNotMatch(r.stderr, /OPENAI_API_KEY/);
  });

  test('airlock task start --sandbox -- AGENT: the agent does not get them either', async () => {
    const r = await run(process.execPath, [CLI, 'task', 'start', 'sandbox env', '--sandbox', '--', '/bin/sh', '-c', SHOW], { cwd: work, env, timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^GITHUB_TOKEN=unset$/m);
    assert.match(r.stdout, /^OPENAI_API_KEY=unset$/m);
    assert.match(r.stdout, /^PLAIN_SETTING=plain-value$/m);
    assert.match(r.stderr, /the sandbox does not get .*GITHUB_TOKEN/);
  });
});
