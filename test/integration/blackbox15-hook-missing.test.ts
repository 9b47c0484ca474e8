// Black-box, wave 15: every way the installed hook can fail must end in "ask" or a block, never
// in Claude Code running the tool unasked. Claude Code blocks a PreToolUse call only on exit 2
// (or a decision on stdout): any other failing exit is a "non-blocking error" and the tool runs.
// The installed line ends in `exec '<program>'`; when that program is gone — Airlock moved or
// uninstalled with the hook left in ~/.claude/settings.json, a rebuild under way, an agent that
// got a delete through — /bin/sh exits 127. Simulated here without touching the real build: the
// installed line, word for word, with the program's path pointing where nothing is.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { installBothHooks } from '../helpers/installed-hooks';

let root: string;
let home: string;
const installed = new Map<string, { cmd: string; program: string }>();

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb15m-'));
  home = path.join(root, 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  for (const [name, hook] of await installBothHooks({ home, airlockHome: path.join(root, 'h'), cwd: root })) installed.set(name, hook);
});
after(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

test('installed hook whose program is gone (Airlock moved or uninstalled): "ask" with what to do, exit 0 — never exit 127, which lets Claude Code run the tool (both clients)', () => {
  assert.ok(installed.size > 0);
  const input = JSON.stringify({ session_id: 'gone-1', transcript_path: path.join(root, 't.jsonl'), cwd: root, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf ~/work' } });
  for (const [name, { cmd, program }] of installed) {
    const gone = path.join(root, 'moved-away', path.basename(program));
    const line = cmd.split(program).join(gone);
    assert.notEqual(line, cmd);
    const r = spawnSync('/bin/sh', ['-c', line], { input, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home } });
    assert.equal(r.status, 0, `${name}: exit ${r.status} (${r.stderr.trim()})`);
    const o = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } };
    assert.equal(o.hookSpecificOutput.hookEventName, 'PreToolUse', name);
    assert.equal(o.hookSpecificOutput.permissionDecision, 'ask', name);
    assert.ok(o.hookSpecificOutput.permissionDecisionReason.includes(gone), `${name}: ${o.hookSpecificOutput.permissionDecisionReason}`);
    assert.match(o.hookSpecificOutput.permissionDecisionReason, /airlock hook claude-code --install/, name);
  }
  // Control: the same line with the program in place runs it (no daemon here: its own "ask").
  for (const [name, { cmd }] of installed) {
    const r = spawnSync('/bin/sh', ['-c', cmd], { input, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home } });
    assert.equal(r.status, 0, name);
    assert.match(r.stdout, /daemon is not running/, `${name}: ${r.stdout}`);
  }
});

test('installed Node hook whose code cannot be loaded (a damaged or half-rebuilt bundle): "ask" with the reason, exit 0 — never exit 1, which lets Claude Code run the tool', () => {
  const node = installed.get('node');
  assert.ok(node, 'the Node hook was installed');
  // The hook's entry file, copied beside a bundle that is not JavaScript (as a rebuild cut short
  // leaves it); the installed line, word for word, runs the copy.
  const dir = path.join(root, 'damaged');
  fs.mkdirSync(dir);
  const bin = path.join(dir, 'bin.js');
  fs.copyFileSync(node.program, bin);
  fs.writeFileSync(path.join(dir, 'hook.bundle.js'), '"use strict";\nconst x = {;\n');
  const line = node.cmd.split(node.program).join(bin);
  const input = JSON.stringify({ session_id: 'damaged-1', transcript_path: path.join(root, 't.jsonl'), cwd: root, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf ~/work' } });
  const r = spawnSync('/bin/sh', ['-c', line], { input, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home } });
  assert.equal(r.status, 0, `exit ${r.status} (${r.stderr.trim().split('\n')[0]})`);
  const o = JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
  assert.equal(o.hookSpecificOutput.permissionDecision, 'ask');
  assert.match(o.hookSpecificOutput.permissionDecisionReason, /cannot be loaded/);
});
