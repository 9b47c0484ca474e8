// The ways around the approver the differential read fuzzer found
// (test/fuzz/classify-read.fuzz.ts; rows in test/unit/classify-fuzzread.test.ts), run for
// real in throwaway directories: a control through bash shows each line really writes or
// runs something; through `airlock exec --shell` and the Claude Code hook, with a human
// who denies, nothing happens. Each was allowed silently, as a read, before its fix.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { CLI, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { bashHookDecision } from '../helpers/native-hook';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';


/** Each leaves `harm` behind in its directory when it runs. */
const FOUND: { cmd: string; harm: string; why: RegExp; git?: boolean; dirty?: boolean }[] = [
  { cmd: 'xxd -u a.txt -bits', harm: '-bits', why: /xxd writes its output there/ },
  { cmd: 'POSIXLY_CORRECT=1 uniq a.txt -c', harm: '-c', why: /POSIXLY_CORRECT/ },
  { cmd: 'git diff --unified --output=out', harm: 'out', why: /git diff --output writes its output to a file/, git: true, dirty: true },
  { cmd: 'git log HEAD --format --output=out', harm: 'out', why: /--format followed by --output=out/, git: true },
  { cmd: "printf '#!/bin/sh\\n: > hooked\\n' > .git/hooks/post-index-change; chmod +x .git/hooks/post-index-change; touch a.txt; git status", harm: 'hooked', why: /writes a git hook .* and runs git in the same command/, git: true },
];

/** A directory holding a.txt (a git repository with it committed, when asked). */
function scene(git = false, dirty = false): { cwd: string; harmed: (f: string) => boolean } {
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(tempHome('al-fz-'), 'w-')));
  fs.writeFileSync(path.join(cwd, 'a.txt'), 'a\na\nb\n');
  if (git) {
    const env = { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
    for (const args of [['init', '-q'], ['add', 'a.txt'], ['commit', '-qm', 'x']]) execFileSync('git', args, { cwd, env, stdio: 'ignore' });
    if (dirty) fs.writeFileSync(path.join(cwd, 'a.txt'), 'changed\n');
  }
  return { cwd, harmed: (f) => fs.existsSync(path.join(cwd, f)) };
}

let d: Daemon;
let ui: RpcClient;
let human: Human;

const hookDecision = (cwd: string, command: string) => bashHookDecision(d.env, cwd, command, 'fuzzread');

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  human = await Human.on(ui);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

describe('differential read fuzzer: what it found, run for real', () => {
  for (const f of FOUND) {
    test(f.cmd, async () => {
      const control = scene(f.git, f.dirty);
      await run('bash', ['-c', f.cmd], { cwd: control.cwd, timeoutMs: 20_000 });
      assert.ok(control.harmed(f.harm), `control: bash -c '${f.cmd}' did not leave ${f.harm}, so this row proves nothing`);

      const viaExec = scene(f.git, f.dirty);
      const pending = run(process.execPath, [CLI, 'exec', '--shell', '--', f.cmd], { cwd: viaExec.cwd, env: d.env, timeoutMs: 30_000 });
      const p = await human.next(20_000);
      assert.notEqual(p.action, 'read');
      assert.ok(p.risk.reasons.some((r) => f.why.test(r)), `the prompt does not say why: ${JSON.stringify(p.risk.reasons)}`);
      await human.decide(p.id, 'deny');
      assert.equal((await pending).code, 126);
      assert.equal(viaExec.harmed(f.harm), false);

      const viaHook = scene(f.git, f.dirty);
      const hooked = hookDecision(viaHook.cwd, f.cmd);
      const hp = await human.next(20_000);
      assert.notEqual(hp.action, 'read');
      assert.ok(hp.risk.reasons.some((r) => f.why.test(r)), JSON.stringify(hp.risk.reasons));
      await human.decide(hp.id, 'deny');
      assert.equal(await hooked, 'deny');
      assert.equal(viaHook.harmed(f.harm), false);
    });
  }
});
