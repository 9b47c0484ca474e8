// Red team, second round, for real: ways around the shell classifier that the attack
// corpus (test/unit/classify-attack-corpus.ts) found, run in throwaway directories. A
// control run with /bin/sh shows each one really runs a program; through `airlock exec
// --shell` and the Claude Code hook, with a human who denies, nothing runs and the hook
// never answers `allow`. Then a sample of the corpus through the real hook: no attack is
// allowed silently and the plain reads are.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';
import type { Prompt } from '../../main/contract/approver';
import { ATTACKS, PLAIN_READS } from '../unit/classify-attack-corpus';

const HOOK_BIN = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code', 'bin.js');

interface Attack {
  name: string;
  cmd: string;
  /** A risk reason the prompt must show. */
  why: RegExp;
  /** Builds the scene; returns the session directory and a check that says whether the attack did its harm. */
  setup: (root: string) => Scene;
}

interface Scene {
  cwd: string;
  harmed: () => boolean;
}

const gitEnv = (home: string) => ({ ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: home });

/** A repository next to the session's directory whose config runs a program on `git status`. */
function plantedRepo(root: string): Scene {
  const cwd = path.join(root, 'work');
  const other = path.join(root, 'other');
  fs.mkdirSync(cwd);
  fs.mkdirSync(other);
  const git = (...a: string[]) => execFileSync('git', a, { cwd: other, stdio: 'ignore', env: gitEnv(root) });
  git('init', '-q');
  fs.writeFileSync(path.join(other, 'f'), 'x\n');
  git('add', 'f');
  git('config', 'core.fsmonitor', 'touch marker; false');
  return { cwd, harmed: () => fs.existsSync(path.join(other, 'marker')) };
}

const ATTACKS_RUN: Attack[] = [
  {
    name: 'tar -tf * with files named like options runs --checkpoint-action',
    cmd: 'tar -tf *',
    why: /tar option .* is not known to be read-only/,
    setup: (root) => {
      const cwd = path.join(root, 'work');
      fs.mkdirSync(cwd);
      fs.writeFileSync(path.join(cwd, 'f'), 'x\n');
      // `+` sorts before `-`: the archive is the first word the glob gives -f.
      execFileSync('tar', ['cf', '+a.tar', 'f'], { cwd });
      fs.writeFileSync(path.join(cwd, '--checkpoint=1'), '');
      fs.writeFileSync(path.join(cwd, '--checkpoint-action=exec=touch marker'), '');
      return { cwd, harmed: () => fs.existsSync(path.join(cwd, 'marker')) };
    },
  },
  {
    name: 'find -exec xargs rm: the program find runs runs another (it used to be judged as xargs alone, a read)',
    cmd: "printf 'victim.txt\\n' | find . -maxdepth 0 -exec xargs rm \\;",
    why: /xargs runs rm with words from its input/,
    setup: (root) => {
      const cwd = path.join(root, 'work');
      fs.mkdirSync(cwd);
      fs.writeFileSync(path.join(cwd, 'victim.txt'), 'keep me\n');
      return { cwd, harmed: () => !fs.existsSync(path.join(cwd, 'victim.txt')) };
    },
  },
  { name: 'git -C ../other status obeys the other repository\'s core.fsmonitor', cmd: 'git -C ../other status', why: /outside the session's directory/, setup: plantedRepo },
  { name: 'cd ../other && git status does too', cmd: 'cd ../other && git status', why: /outside the session's directory/, setup: plantedRepo },
  { name: 'git --git-dir names a repository whose config git obeys', cmd: 'git --git-dir=../other/.git --work-tree=../other status', why: /--git-dir names a repository/, setup: plantedRepo },
];

let d: Daemon;
let ui: RpcClient;
/** Prompts as they arrive; `autoDeny` answers every one with deny. */
const prompts: Prompt[] = [];
const waiters: ((p: Prompt) => void)[] = [];
let autoDeny = false;

function nextPrompt(ms = 20_000): Promise<Prompt> {
  const p = prompts.shift();
  if (p) return Promise.resolve(p);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no prompt within ${ms} ms`)), ms);
    waiters.push((x) => {
      clearTimeout(t);
      resolve(x);
    });
  });
}

const deny = (id: string) => ui.call('pending.decide', { id, decision: 'deny', scope: 'once' });

function hookInput(cwd: string, command: string, session: string): string {
  return JSON.stringify({ session_id: session, transcript_path: '/x.jsonl', cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
}

async function hookDecision(cwd: string, command: string, session: string): Promise<string> {
  const r = await run(process.execPath, [HOOK_BIN], { env: d.env, input: hookInput(cwd, command, session), timeoutMs: 30_000 });
  return (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
}

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  ui.onNotification = (method, params) => {
    if (method !== 'pending.added') return;
    const p = params as Prompt;
    if (autoDeny) {
      void deny(p.id).catch(() => undefined);
      prompts.push(p);
      return;
    }
    const w = waiters.shift();
    if (w) w(p);
    else prompts.push(p);
  };
  await ui.call('subscribe');
});
after(async () => {
  ui?.close();
  await d?.stop();
});

describe('red team, second round: ways around the classifier, run for real', () => {
  for (const a of ATTACKS_RUN) {
    test(a.name, async () => {
      // Control: straight through /bin/sh, the attack runs its program.
      const control = a.setup(tempHome('al-rc-'));
      await run('/bin/sh', ['-c', a.cmd], { cwd: control.cwd, env: { ...gitEnv(path.dirname(control.cwd)), LC_ALL: 'C' }, timeoutMs: 20_000 });
      assert.ok(control.harmed(), `control: ${a.cmd} did nothing, so this row proves nothing`);

      // airlock exec --shell: a prompt that names the rule; denied, nothing ran.
      const viaExec = a.setup(tempHome('al-rc-'));
      const pending = run(process.execPath, [CLI, 'exec', '--shell', '--', a.cmd], { cwd: viaExec.cwd, env: { ...d.env, GIT_CONFIG_NOSYSTEM: '1', HOME: path.dirname(viaExec.cwd), LC_ALL: 'C' }, timeoutMs: 30_000 });
      const p = await nextPrompt();
      assert.notEqual(p.action, 'read');
      assert.ok(p.risk.reasons.some((r) => a.why.test(r)), `the prompt does not say why: ${JSON.stringify(p.risk.reasons)}`);
      await deny(p.id);
      assert.equal((await pending).code, 126);
      assert.equal(viaExec.harmed(), false);

      // The Claude Code hook: a prompt too, and the answer is the human's deny.
      const viaHook = a.setup(tempHome('al-rc-'));
      const hooked = hookDecision(viaHook.cwd, a.cmd, `rc-${a.cmd.length}`);
      const hp = await nextPrompt();
      assert.notEqual(hp.action, 'read');
      await deny(hp.id);
      assert.equal(await hooked, 'deny');
    });
  }

  test('a sample of the attack corpus through the real hook: none is allowed; the plain reads are', async () => {
    autoDeny = true;
    try {
      const cwd = fs.mkdtempSync(path.join(tempHome('al-rc-'), 'w-'));
      // Every 20th attack (40+ commands) and every 5th read (40+), in a fixed order.
      const attacks = ATTACKS.filter((_, i) => i % 20 === 0);
      const reads = PLAIN_READS.filter((_, i) => i % 5 === 0);
      const allowed: string[] = [];
      for (const cmd of attacks) if ((await hookDecision(cwd, cmd, 'rc-sample')) === 'allow') allowed.push(cmd);
      assert.deepEqual(allowed, [], 'attacks the hook allowed without a prompt');
      const before = prompts.length;
      const asked: string[] = [];
      for (const cmd of reads) if ((await hookDecision(cwd, cmd, 'rc-sample')) !== 'allow') asked.push(cmd);
      assert.ok(asked.length / reads.length <= 0.1, `more than 10 % of plain reads prompted: ${asked.join(' | ')}`);
      assert.equal(prompts.length - before, asked.length, 'a read the hook did not allow must have been a prompt (then denied), not an error');
    } finally {
      autoDeny = false;
    }
  });
});
