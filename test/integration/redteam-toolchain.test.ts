// Version queries that run code: where Rust is installed with rustup, `cargo` and `rustc` are
// rustup's proxies, and a workspace `rust-toolchain.toml` whose `path` names a directory makes
// `cargo --version` run <path>/bin/cargo: any program the agent wrote there. These were reads
// (allowed silently) until the lead's red team of 2026-11-24. A control through bash shows the
// program really runs; through `airlock exec --shell` and the Claude Code hook the human is
// asked, with the reason, and a denial leaves nothing behind. Skipped, with the reason, on a
// machine without rustup (the classifier rows in test/unit/classify-attack.test.ts still run).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { bashHookDecision } from '../helpers/native-hook';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';

/** The rustup proxy directory, when rustup is installed (PATH, then ~/.cargo/bin). */
function rustupBin(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(':'), path.join(process.env.HOME ?? '/root', '.cargo', 'bin')];
  for (const d of dirs) {
    if (d && fs.existsSync(path.join(d, 'rustup')) && fs.existsSync(path.join(d, 'cargo'))) return d;
  }
  return null;
}
const BIN = rustupBin();
const SKIP = BIN ? false : 'rustup is not installed here (no rustup and cargo in PATH or ~/.cargo/bin)';

/** A workspace whose rust-toolchain.toml points at a "toolchain" that leaves `pwned` behind. */
function scene(): { cwd: string; pwned: () => boolean } {
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(tempHome('al-rt-'), 'w-')));
  const bin = path.join(cwd, 'tc', 'bin');
  fs.mkdirSync(bin, { recursive: true });
  for (const tool of ['cargo', 'rustc']) fs.writeFileSync(path.join(bin, tool), `#!/bin/sh\n: > '${cwd}/pwned'\necho ${tool} 1.0.0\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(cwd, 'rust-toolchain.toml'), `[toolchain]\npath = "${path.join(cwd, 'tc')}"\n`);
  return { cwd, pwned: () => fs.existsSync(path.join(cwd, 'pwned')) };
}

let d: Daemon;
let ui: RpcClient;
let human: Human;

before(async () => {
  if (SKIP) return;
  d = await startDaemon({ env: { PATH: `${BIN}:${process.env.PATH ?? ''}` } });
  ui = await d.ui();
  human = await Human.on(ui);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

describe('a toolchain file makes a version query run any program', { skip: SKIP }, () => {
  for (const cmd of ['cargo --version', 'rustc --version', 'cargo -V']) {
    test(cmd, async () => {
      const control = scene();
      await run('bash', ['-c', cmd], { cwd: control.cwd, env: d.env, timeoutMs: 20_000 });
      assert.ok(control.pwned(), `control: bash -c '${cmd}' did not run the planted toolchain, so this row proves nothing`);

      const viaExec = scene();
      const pending = run(process.execPath, [CLI, 'exec', '--shell', '--', cmd], { cwd: viaExec.cwd, env: d.env, timeoutMs: 30_000 });
      const p = await human.next(20_000);
      assert.notEqual(p.action, 'read');
      assert.ok(p.risk.reasons.some((r) => /rustup's proxy: it runs the toolchain a rust-toolchain.toml names/.test(r)), JSON.stringify(p.risk.reasons));
      await human.decide(p.id, 'deny');
      assert.equal((await pending).code, 126);
      assert.equal(viaExec.pwned(), false);

      const viaHook = scene();
      const hooked = bashHookDecision(d.env, viaHook.cwd, cmd, 'toolchain');
      const hp = await human.next(20_000);
      assert.notEqual(hp.action, 'read');
      await human.decide(hp.id, 'deny');
      assert.equal(await hooked, 'deny');
      assert.equal(viaHook.pwned(), false);
    });
  }
});
