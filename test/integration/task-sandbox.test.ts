// `airlock task start NAME --sandbox -- AGENT…`: a whole agent as one task under
// bubblewrap: it sees its workspace, request.sock and its task's SSH socket, not the
// home directory; network only when the human accepts the task's transfer grant; the
// task ends with the agent and the agent's exit code comes back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, REPO, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { countingServer, netProbe } from '../helpers/loopback';
import { Human } from '../helpers/human';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';
import type { Task } from '../../main/contract/approver';

const hasBwrap = fs.existsSync('/usr/bin/bwrap') || fs.existsSync('/usr/local/bin/bwrap');

let d: Daemon;
let ui: RpcClient;
let human: Human;
let home: string;
let work: string;
let env: NodeJS.ProcessEnv;

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  human = await Human.on(ui);
  home = tempHome('al-h-');
  fs.mkdirSync(path.join(home, '.ssh'));
  fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'FAKE KEY\n');
  work = fs.mkdtempSync(path.join(home, 'proj-'));
  env = { ...d.env, HOME: home };
});
after(async () => {
  ui?.close();
  await d?.stop();
});

const taskStart = (args: string[], timeoutMs = 30_000) => run(process.execPath, [CLI, 'task', 'start', ...args], { cwd: work, env, timeoutMs });

describe('airlock task start --sandbox -- AGENT', { skip: !hasBwrap && 'bwrap is not installed (apt install bubblewrap)' }, () => {
  test('the agent runs as the task, sandboxed; the task ends with it; its exit code comes back', async () => {
    const script = [
      'echo "task=$AIRLOCK_TASK"',
      'test -S "$SSH_AUTH_SOCK" && echo ssh-socket-visible',
      `cat ${path.join(home, '.ssh', 'id_ed25519')} 2>/dev/null || echo no-home`,
      'echo agent-wrote > out.txt',
      'exit 3',
    ].join('\n');
    const r = await taskStart(['agent run', '--sandbox', '--', 'sh', '-c', script]);
    assert.equal(r.code, 3, r.stderr);
    const task = /task=(\S+)/.exec(r.stdout)?.[1];
    assert.ok(task && task.startsWith('t'), r.stdout);
    assert.match(r.stdout, /ssh-socket-visible/);
    assert.match(r.stdout, /no-home/);
    assert.doesNotMatch(r.stdout, /FAKE KEY/);
    assert.equal(fs.readFileSync(path.join(work, 'out.txt'), 'utf8'), 'agent-wrote\n');
    assert.match(r.stderr, new RegExp(`task ${task} started in a sandbox \\(network off\\)`));
    const { tasks } = await ui.call<{ tasks: Task[] }>('tasks.list', { includeEnded: true });
    const t = tasks.find((x) => x.id === task);
    assert.equal(t?.name, 'agent run');
    assert.ok(t?.endedAt, 'the task ended with the agent');
  });

  test('inside, the agent asks through request.sock and its requests belong to the task', async () => {
    const marker = path.join(work, 'asked.txt');
    const pending = taskStart(['asking agent', '--sandbox', '--ro', REPO, '--', process.execPath, CLI, 'exec', '--', 'touch', marker]);
    const p = await human.next(15_000);
    assert.equal(p.taskName, 'asking agent');
    assert.equal(p.action, 'write');
    await human.decide(p.id, 'allow');
    const r = await pending;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(fs.existsSync(marker));
  });

  test('network only when the human accepts the task\'s transfer grant', async () => {
    const server = await countingServer();
    const probe = netProbe(server.port, { on: 'net-on', off: 'net-off' }, { on: 0, off: 0 });
    try {
      for (const decision of ['deny', 'allow'] as const) {
        const pending = taskStart([`net ${decision}`, '--sandbox', '--network', '--', process.execPath, '-e', probe]);
        const p = await human.next(15_000);
        assert.equal(p.tool, 'task.start');
        assert.match(p.summary, /allow transfer/);
        await human.decide(p.id, decision);
        const r = await pending;
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout.trim(), decision === 'allow' ? 'net-on' : 'net-off');
      }
      assert.equal(server.connections(), 1);
    } finally {
      server.close();
    }
  });

  test('without bwrap: a clear error, no task, nothing run', async () => {
    const before = (await ui.call<{ tasks: Task[] }>('tasks.list', { includeEnded: true })).tasks.length;
    const r = await run(process.execPath, [CLI, 'task', 'start', 'x', '--sandbox', '--', 'touch', path.join(work, 'nope')], { cwd: work, env: { ...env, PATH: '/nonexistent' }, timeoutMs: 30_000 });
    assert.equal(r.code, 69);
    assert.match(r.stderr, /needs bubblewrap/);
    assert.equal(fs.existsSync(path.join(work, 'nope')), false);
    assert.equal((await ui.call<{ tasks: Task[] }>('tasks.list', { includeEnded: true })).tasks.length, before);
  });
});
