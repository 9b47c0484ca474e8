// A relative working directory was recorded as given and read relative paths against nothing:
// `rm -rf build` sent with `cwd: "proj"` was the resource `build`, which a deny grant on
// `<root>/proj/**` did not cover and history could not place. Now the wire takes only absolute
// directories (-32602 otherwise), and the clients resolve their own: `check --cwd`,
// `task start --cwd`, and the Claude Code hook (against the hook process's directory, where
// Claude Code runs it).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Daemon } from '../helpers/daemon';
import { Wire, airlock, closeBlackboxSession, openBlackboxSession, waitPending } from '../helpers/blackbox';

let d: Daemon;
let ui: Wire;
let root: string;
let env: NodeJS.ProcessEnv;
let work: string;

before(async () => {
  ({ root, d, ui } = await openBlackboxSession('rcwd-'));
  work = path.join(root, 'proj');
  fs.mkdirSync(path.join(work, 'build'), { recursive: true });
  env = { ...process.env, AIRLOCK_HOME: d.home, HOME: path.join(root, 'userhome') };
  fs.mkdirSync(env.HOME!, { mode: 0o700 });
  for (const k of ['AIRLOCK_TASK', 'AIRLOCK_TASK_TOKEN', 'AIRLOCK_REQUEST_SOCK', 'AIRLOCK_HOOK_HOME']) delete env[k];
});
after(() => closeBlackboxSession({ root, d, ui }));

test('request.sock: a relative or empty cwd is refused (-32602 naming cwd), nothing is asked', async () => {
  const agent = await Wire.open(d.requestSock);
  try {
    for (const cwd of ['proj', '.', '', '../proj']) {
      const r = await agent.call('request', { source: 'exec', tool: 'exec', action: 'execute', summary: 'rm -rf build', args: { command: 'rm -rf build' }, cwd });
      assert.equal(r.error?.code, -32602, `${JSON.stringify(cwd)}: ${JSON.stringify(r)}`);
      assert.match(r.error!.message, /cwd/);
      assert.match(r.error!.message, /absolute/);
    }
    const pending = (await ui.ok<{ prompts?: unknown[] } | unknown[]>('pending.list')) as unknown;
    assert.equal((Array.isArray(pending) ? pending : ((pending as { prompts?: unknown[] }).prompts ?? [])).length, 0);
  } finally {
    agent.close();
  }
});

test('check --cwd proj is recorded as the absolute directory, not as given', async () => {
  await ui.ok('grants.create', { action: 'delete', tool: 'rcwd.delete', resource: '**', effect: 'deny', note: 'relative-cwd test' });
  const r = await airlock(['check', '-a', 'delete', '-t', 'rcwd.delete', '--cwd', 'proj', '-r', `${work}/build`, '-s', 'delete build', '--json'], { env, cwd: root });
  assert.equal(r.code, 126, r.stderr + r.stdout);
  const h = await ui.ok<{ events: Array<{ cwd: string | null; decision: string }> }>('history.query', { limit: 1 });
  assert.equal(h.events[0]!.cwd, work);
});

test('hook: Claude Code input with a relative cwd is read against the hook process directory', async () => {
  const input = JSON.stringify({ session_id: 'rcwd-1', transcript_path: path.join(root, 't.jsonl'), cwd: 'proj', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: 'build/out.txt', content: 'x' } });
  const run = airlock(['hook', 'claude-code'], { env, cwd: root, input });
  const p = await waitPending(ui, (x) => x.tool === 'Write', 'the Write prompt');
  assert.ok(JSON.stringify(p.resource).includes(path.join(work, 'build', 'out.txt')), JSON.stringify(p.resource));
  await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
  const r = await run;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /"permissionDecision":\s*"deny"/);
});

test('task start --cwd proj records the absolute directory', async () => {
  const r = await airlock(['task', 'start', 'rcwd', '--cwd', 'proj', '--json'], { env, cwd: root });
  assert.equal(r.code, 0, r.stderr);
  const list = await ui.ok<{ tasks?: Array<{ name: string; cwd: string | null }> } | Array<{ name: string; cwd: string | null }>>('tasks.list');
  const tasks = Array.isArray(list) ? list : (list.tasks ?? []);
  assert.equal(tasks.find((t) => t.name === 'rcwd')?.cwd, work);
});
