// Black-box, wave 15: the agent editing its own guard. The installed Claude Code hook runs one
// program before every tool call (the native client, or Node and the hook's entry file): the
// command line `airlock hook claude-code --install` wrote names it. Replacing, emptying,
// relinking or removing that program switches Airlock off as surely as editing Claude Code's
// settings does (a missing program exits 127, and Claude Code runs the tool on any exit code but
// 2), so README.md's rule for "a write or delete that can switch Airlock off" must hold for it:
// critical, asked every time, whatever grants say. A user whose workspace grant covers the
// folder Airlock is installed in (`~/src/**` with Airlock in `~/src/airlock`) is the case here.
// Nothing is written for real: the hook only decides, and the human here denies.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { Wire, airlock, pendingList, type Pending } from '../helpers/blackbox';
import { installBothHooks } from '../helpers/installed-hooks';

let d: Daemon;
let ui: Wire;
let root: string;
let home: string;
let work: string;
const installed = new Map<string, { cmd: string; program: string }>();

/** Runs the installed command as Claude Code does; resolves with its decision and the prompt, if one came. */
async function hookCall(cmd: string, session: string, tool: string, toolInput: Record<string, unknown>): Promise<{ decision: string; prompt?: Pending }> {
  const input = JSON.stringify({ session_id: session, transcript_path: path.join(root, `${session}.jsonl`), cwd: work, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: toolInput });
  const p = spawn('/bin/sh', ['-c', cmd], { cwd: work, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home } });
  let out = '';
  p.stdout.on('data', (b: Buffer) => (out += b.toString()));
  p.stdin.on('error', () => undefined);
  p.stdin.end(input);
  let done = false;
  const closed = new Promise<number | null>((resolve) => p.on('close', (code) => ((done = true), resolve(code))));
  let prompt: Pending | undefined;
  await waitFor(
    async () => {
      if (done) return true;
      prompt = (await pendingList(ui)).find((x) => x.source === 'claude-code' && JSON.stringify(x).includes(session));
      if (!prompt) prompt = (await pendingList(ui)).find((x) => x.source === 'claude-code');
      return prompt !== undefined;
    },
    `${tool}: a prompt or an answer`,
    30_000,
    50,
  );
  if (prompt) await ui.ok('pending.decide', { id: prompt.id, decision: 'deny', scope: 'once' });
  const code = await closed;
  assert.equal(code, 0, out);
  const o = JSON.parse(out) as { hookSpecificOutput: { permissionDecision: string } };
  return { decision: o.hookSpecificOutput.permissionDecision, prompt };
}

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb15p-'));
  home = path.join(root, 'home');
  work = path.join(root, 'proj');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.mkdirSync(work);
  d = await startDaemon({ home: path.join(root, 'h'), env: { HOME: home } });
  ui = await Wire.open(d.uiSock);
  for (const [name, hook] of await installBothHooks({ home, airlockHome: d.home, cwd: work })) {
    assert.ok(fs.existsSync(hook.program), `${name}: ${hook.program}`);
    installed.set(name, hook);
  }
  // The human's workspace grant covers the folder Airlock is installed in, as `~/src/**` would.
  const top = path.dirname(path.dirname(path.dirname([...installed.values()][0]!.program)));
  for (const action of ['write', 'delete']) {
    const g = await airlock(['grants', 'add', '-a', action, '-r', `${top}/**`, '--note', 'workspace'], { env: d.env });
    assert.equal(g.code, 0, g.stderr);
  }
});
after(async () => {
  ui?.close();
  await d?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

test('the hook program the installed command runs cannot be replaced, emptied, relinked or removed under a workspace grant: critical, asked every time (Write, Edit, Bash cp/ln/sed -i/rm -rf)', async () => {
  assert.ok(installed.size > 0);
  const { cmd } = [...installed.values()][0]!;
  let n = 0;
  for (const [name, { program }] of installed) {
    const dir = path.dirname(program);
    const calls: [string, Record<string, unknown>][] = [
      ['Write', { file_path: program, content: '#!/bin/sh\nexit 0\n' }],
      ['Edit', { file_path: program, old_string: 'a', new_string: 'b' }],
      ['Bash', { command: `cp ${dir}/x.tmp ${program}` }],
      ['Bash', { command: `ln -sf /usr/bin/true ${program}` }],
      ['Bash', { command: `sed -i s/a/b/ ${program}` }],
      ['Bash', { command: `rm -f ${program}` }],
      ['Bash', { command: `rm -rf ${dir}` }],
    ];
    for (const [tool, input] of calls) {
      const r = await hookCall(cmd, `prog-${name}-${n++}`, tool, input);
      assert.ok(r.prompt, `${name} ${tool} ${JSON.stringify(input)}: asked, not decided by the workspace grant (answer: ${r.decision})`);
      assert.equal(r.prompt.risk.level, 'critical', `${name} ${tool} ${JSON.stringify(input)}: ${JSON.stringify(r.prompt.risk)}`);
      assert.ok(r.prompt.risk.reasons.some((x) => /hook program/.test(String(x))), JSON.stringify(r.prompt.risk.reasons));
      assert.equal(r.decision, 'deny');
    }
  }
  // Control: the same grant still covers an ordinary file beside the program, silently.
  const beside = path.join(path.dirname([...installed.values()][0]!.program), 'notes-bb15.txt');
  const c = await hookCall(cmd, 'prog-control', 'Write', { file_path: beside, content: 'x' });
  assert.equal(c.prompt, undefined, JSON.stringify(c.prompt));
  assert.equal(c.decision, 'allow');
});
