// Black box 16, run for real through `airlock exec --task --shell` with a human who denies: the
// grant a human is offered for a plain command (`{ssh HOST,ssh HOST *}` for `ssh HOST make test`,
// `{make build,make build *}` for `make build`) covered the same command with an option or a
// variable that runs a program of the agent's choosing on this machine. ssh reads options after
// the host (`ssh HOST -oProxyCommand=CMD …` runs CMD here before connecting), and make expands a
// command-line `X=$(shell CMD)` at once. Both ran without a prompt; now both ask.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Wire } from '../helpers/blackbox';
import { execInTask } from '../helpers/exec-in-task';

let d: Daemon;
let ui: Wire;
let home: string;
let work: string;

before(async () => {
  home = fs.realpathSync(tempHome('al-bb16-'));
  work = path.join(home, 'work');
  fs.mkdirSync(work);
  fs.writeFileSync(path.join(work, 'Makefile'), 'build:\n\t@echo built\n');
  d = await startDaemon();
  ui = await Wire.open(d.uiSock);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

test('ssh HOST -oProxyCommand=CMD under a grant for ssh HOST: asked, and CMD does not run', async () => {
  const marker = path.join(work, 'proxy-ran');
  const line = "ssh build.example.invalid -oBatchMode=yes -oProxyCommand='touch proxy-ran' make test";
  const { asked } = await execInTask(d, ui, { line, cwd: work, home, name: 'bb16 ssh', grants: [{ action: 'execute', resource: '{ssh build.example.invalid,ssh build.example.invalid *}' }, { action: 'write', resource: `${work}/**` }] });
  assert.ok(asked, 'ran without a prompt');
  assert.ok(asked.reasons.some((r) => /ProxyCommand/.test(r)), JSON.stringify(asked.reasons));
  assert.ok(!fs.existsSync(marker), 'the ProxyCommand ran');
});

test("make build 'X=$(shell CMD)' under a grant for make build: asked, and CMD does not run", async () => {
  const marker = path.join(work, 'shell-ran');
  const line = "make build 'X=$(shell touch shell-ran)'";
  const { asked } = await execInTask(d, ui, { line, cwd: work, home, name: 'bb16 make', grants: [{ action: 'execute', resource: '{make build,make build *}' }, { action: 'write', resource: `${work}/**` }] });
  assert.ok(asked, 'ran without a prompt');
  assert.ok(!fs.existsSync(marker), '$(shell …) ran');
  // Control: the plain target is still covered by its grant, and runs.
  const plain = await execInTask(d, ui, { line: 'make build', cwd: work, home, name: 'bb16 make plain', grants: [{ action: 'execute', resource: '{make build,make build *}' }] });
  assert.equal(plain.asked, null, 'the grant no longer covers the plain target');
  assert.match(plain.run.stdout, /built/);
});
