// Red team, sixth wave, for real: the ways around the classifier this wave found
// (test/unit/classify-attack6.test.ts), run in throwaway directories holding a planted ./ls.
// A control through bash shows the planted program really runs; through `airlock exec
// --shell` and the Claude Code hook, with a human who denies, it does not. Then a sample of
// the sixth-wave corpus through the real hook: no attack is allowed silently, every plain
// read is.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { bashHookDecision } from '../helpers/native-hook';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';
import { ATTACKS6, PLAIN_READS6 } from '../unit/classify-attack6-corpus';


/** Each runs ./ls (which touches `marker`) through bash, though every word in it looks like a read. */
const FOUND: { cmd: string; why: RegExp; stdin?: string }[] = [
  { cmd: 'for PATH in .; do ls; done', why: /loop variable of for\/select sets PATH/ },
  { cmd: 'select PATH in .; do ls; break; done', why: /loop variable of for\/select sets PATH/, stdin: '1\n' },
  { cmd: 'wait -p PATH; ls', why: /wait -p sets PATH/ },
  { cmd: 'printf -vPATH .; ls', why: /printf -vPATH assigns a shell variable/ },
];

/** A directory whose ./ls leaves a marker when it runs. */
function scene(): { cwd: string; harmed: () => boolean } {
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(tempHome('al-a6-'), 'w-')));
  fs.writeFileSync(path.join(cwd, 'ls'), '#!/bin/sh\n: > marker\n');
  fs.chmodSync(path.join(cwd, 'ls'), 0o755);
  return { cwd, harmed: () => fs.existsSync(path.join(cwd, 'marker')) };
}

let d: Daemon;
let ui: RpcClient;
let human: Human;

const hookDecision = (cwd: string, command: string) => bashHookDecision(d.env, cwd, command, 'a6-sample');

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  human = await Human.on(ui);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

describe('red team, sixth wave: ways around the classifier, run for real', () => {
  for (const f of FOUND) {
    test(f.cmd, async () => {
      const control = scene();
      await run('bash', ['-c', f.cmd], { cwd: control.cwd, input: f.stdin ?? '', timeoutMs: 20_000 });
      assert.ok(control.harmed(), `control: bash -c '${f.cmd}' did not run ./ls, so this row proves nothing`);

      // airlock exec --shell runs /bin/sh: the line goes to bash as Claude Code's Bash tool would.
      const viaExec = scene();
      const line = `${f.stdin ? 'echo 1 | ' : ''}bash -c '${f.cmd}'`;
      const pending = run(process.execPath, [CLI, 'exec', '--shell', '--', line], { cwd: viaExec.cwd, env: d.env, timeoutMs: 30_000 });
      const p = await human.next(20_000);
      assert.notEqual(p.action, 'read');
      assert.ok(p.risk.reasons.some((r) => f.why.test(r)), `the prompt does not say why: ${JSON.stringify(p.risk.reasons)}`);
      await human.decide(p.id, 'deny');
      assert.equal((await pending).code, 126);
      assert.equal(viaExec.harmed(), false);

      const viaHook = scene();
      const hooked = hookDecision(viaHook.cwd, f.cmd);
      const hp = await human.next(20_000);
      assert.notEqual(hp.action, 'read');
      assert.ok(hp.risk.reasons.some((r) => f.why.test(r)), JSON.stringify(hp.risk.reasons));
      await human.decide(hp.id, 'deny');
      assert.equal(await hooked, 'deny');
      assert.equal(viaHook.harmed(), false);
    });
  }

  test('a sample of the sixth-wave corpus through the real hook: no attack is allowed; every plain read is', async () => {
    const cwd = scene().cwd;
    // Every prompt is denied as it comes; the hook's answer is what is checked.
    const denier = (async () => {
      for (;;) {
        const p = await human.next(5_000).catch(() => null);
        if (!p) return;
        await human.decide(p.id, 'deny');
      }
    })();
    const attacks = ATTACKS6.filter((_, i) => i % 12 === 0);
    const reads = PLAIN_READS6.filter((_, i) => i % 4 === 0);
    const allowed: string[] = [];
    for (const cmd of attacks) if ((await hookDecision(cwd, cmd)) === 'allow') allowed.push(cmd);
    const asked: string[] = [];
    for (const cmd of reads) if ((await hookDecision(cwd, cmd)) !== 'allow') asked.push(cmd);
    await denier;
    assert.ok(attacks.length >= 60 && reads.length >= 25, `${attacks.length} attacks, ${reads.length} reads`);
    assert.deepEqual(allowed, [], 'attacks the hook allowed without a prompt');
    assert.deepEqual(asked, [], 'plain reads the hook did not allow');
  });
});
