// Black-box, wave 15: the installed Claude Code hook must answer before Claude Code gives up on
// it. Claude Code waits 600 s for a PreToolUse hook and then lets the tool run (a hook that
// times out is a non-blocking error), so every way the hook can stall must end in "ask" inside
// that budget. Written from README.md and docs/agents.md: `airlock hook claude-code --install`
// (native, and `--install --node`) into a private HOME, the command it wrote run with
// `/bin/sh -c` as Claude Code runs it, `airlock serve` as a child process.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, type Daemon } from '../helpers/daemon';
import { Wire } from '../helpers/blackbox';
import { installBothHooks } from '../helpers/installed-hooks';

let d: Daemon;
let ui: Wire;
let root: string;
let home: string;
let work: string;
const cmds = new Map<string, string>();

interface Answer {
  code: number | null;
  out: string;
  ms: number;
}

/**
 * Runs a hook command line as Claude Code does (`/bin/sh -c`, the JSON on stdin), but writes
 * stdin and closes it only after `closeAfterMs` (never, when null). Bounded by `killMs`.
 */
function runHook(cmd: string, input: string, closeAfterMs: number | null, killMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const p = spawn('/bin/sh', ['-c', cmd], { cwd: work, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home } });
    let out = '';
    p.stdout.on('data', (b: Buffer) => (out += b.toString()));
    p.stdin.on('error', () => undefined);
    p.stdin.write(input);
    const closer = closeAfterMs === null ? undefined : setTimeout(() => p.stdin.end(), closeAfterMs);
    const killer = setTimeout(() => p.kill('SIGKILL'), killMs);
    p.on('close', (code) => {
      clearTimeout(killer);
      if (closer) clearTimeout(closer);
      p.stdin.destroy();
      resolve({ code, out, ms: Date.now() - t0 });
    });
  });
}

const call = (session: string, tool: string, toolInput: Record<string, unknown>) =>
  JSON.stringify({ session_id: session, transcript_path: path.join(root, `${session}.jsonl`), cwd: work, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: toolInput });

function decisionOf(a: Answer): { decision?: string; reason?: string } {
  assert.equal(a.code, 0, `the hook exits 0 (Claude Code lets the tool run on any other code but 2): ${a.code} ${a.out}`);
  const o = JSON.parse(a.out) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
  return { decision: o.hookSpecificOutput?.permissionDecision, reason: o.hookSpecificOutput?.permissionDecisionReason };
}

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb15d-'));
  home = path.join(root, 'home');
  work = path.join(root, 'proj');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.mkdirSync(work);
  d = await startDaemon({ home: path.join(root, 'h'), env: { HOME: home } });
  ui = await Wire.open(d.uiSock);
  for (const [name, { cmd }] of await installBothHooks({ home, airlockHome: d.home, cwd: work })) cmds.set(name, cmd);
});
after(async () => {
  ui?.close();
  await d?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

test('installed hook: a stdin that is never closed gets "ask" within 30 s, never a hang until Claude Code gives up (both clients)', async () => {
  assert.ok(cmds.size > 0);
  // Both at once: each waits out the hook's own 30 s stdin limit.
  const runs = [...cmds].map(async ([name, cmd]) => {
    const a = await runHook(cmd, call(`never-closed-${name}`, 'Bash', { command: 'ls' }), null, 50_000);
    assert.notEqual(a.out, '', `${name}: the hook answered before it was killed (${a.ms} ms)`);
    const o = decisionOf(a);
    assert.equal(o.decision, 'ask', `${name}: ${a.out}`);
    assert.match(String(o.reason), /stdin did not end within 30 s/, name);
    assert.ok(a.ms < 45_000, `${name}: answered after ${a.ms} ms`);
  });
  await Promise.all(runs);
});

test('installed hook: the wait for the human counts from the start, so a slow stdin cannot push the answer past the budget (both clients)', async () => {
  // The budget is AIRLOCK_HOOK_REPLY_TIMEOUT_MS (tests only: the installed line unsets it, so it
  // is taken out of the unset list here) instead of 590 s; the proportions are the same.
  const runs = [...cmds].map(async ([name, installed]) => {
    const cmd = `export AIRLOCK_HOOK_REPLY_TIMEOUT_MS=6000; ${installed.replace(' AIRLOCK_HOOK_REPLY_TIMEOUT_MS', '')}`;
    assert.notEqual(cmd.indexOf('unset'), -1);
    const file = path.join(work, `slow-${name}.txt`);
    // A Write asks the human, who never answers here (the prompt's own timeout is 60 s).
    const a = await runHook(cmd, call(`slow-stdin-${name}`, 'Write', { file_path: file, content: 'x' }), 4_000, 30_000);
    const o = decisionOf(a);
    assert.equal(o.decision, 'ask', `${name}: ${a.out}`);
    assert.match(String(o.reason), /no answer from the Airlock daemon in 6 s/, name);
    // Old: 4 s of stdin, then 6 s more for the answer (10 s). Now: 6 s in all.
    assert.ok(a.ms < 8_500, `${name}: answered after ${a.ms} ms, past the 6 s budget counted from the start`);
  });
  await Promise.all(runs);
});
