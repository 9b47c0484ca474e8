// `airlock task start NAME --sandbox -- AGENT…`: a whole agent as one task under
// bubblewrap: it sees its workspace and its task's own sockets (request.sock, agent.sock),
// not the home directory; network only when the human accepts the task's transfer grant;
// the task ends with the agent and the agent's exit code comes back.
//
// Task binding inside the sandbox (issue 10, item 2), tried as a hostile agent would: a
// request with no task or another task's id is still the task's and obeys its deny
// grants; task.start / task.end of another task fail; the shared request.sock is not there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, REPO, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { countingServer, netProbe } from '../helpers/loopback';
import { Human } from '../helpers/human';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';
import type { HistoryEvent, Task } from '../../main/contract/approver';
import type { AgentAnswer } from '../../main/contract/agent';

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

/** The CLI visible read-only inside (node_modules may be a symlink out of the checkout). */
const RO = ['--ro', REPO, fs.realpathSync(path.join(REPO, 'node_modules'))];
const taskStart = (args: string[], timeoutMs = 30_000) => run(process.execPath, [CLI, 'task', 'start', ...args], { cwd: work, env, timeoutMs });
const execCli = (args: string[], o: { env?: NodeJS.ProcessEnv } = {}) => run(process.execPath, [CLI, 'exec', ...args], { cwd: work, env: o.env ?? env, timeoutMs: 30_000 });

/**
 * What an agent inside runs: each call on a fresh connection to a socket (default: the one
 * AIRLOCK_REQUEST_SOCK names), bounded; prints one JSON array of outcomes.
 */
const PROBE = `const net = require('net');
const calls = JSON.parse(process.argv[2]);
(async () => {
  const out = [];
  for (const [sock, method, params] of calls) {
    const at = sock || process.env.AIRLOCK_REQUEST_SOCK;
    out.push(await new Promise((resolve) => {
      if (!at) return resolve({ connectError: 'no socket' });
      const c = net.connect(at);
      const t = setTimeout(() => { c.destroy(); resolve({ timeout: true }); }, 20000);
      let buf = '';
      c.on('connect', () => c.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) + '\\n'));
      c.on('data', (d) => { buf += d; const i = buf.indexOf('\\n'); if (i >= 0) { clearTimeout(t); c.destroy(); const m = JSON.parse(buf.slice(0, i)); resolve(m.error ? { error: m.error } : { result: m.result }); } });
      c.on('error', (e) => { clearTimeout(t); resolve({ connectError: e.code }); });
    }));
  }
  console.log(JSON.stringify({ sock: process.env.AIRLOCK_REQUEST_SOCK || null, task: process.env.AIRLOCK_TASK || null, token: process.env.AIRLOCK_TASK_TOKEN || null, out }));
})();`;
type Outcome = { result?: AgentAnswer & Record<string, unknown>; error?: { code: number; message: string }; connectError?: string; timeout?: boolean };
type ProbeOut = { sock: string | null; task: string | null; token: string | null; out: Outcome[] };
const parseProbe = (stdout: string): ProbeOut => JSON.parse(stdout.trim().split('\n').pop()!) as ProbeOut;

interface Started {
  task: string;
  token: string;
  requestSock: string;
  sshAuthSock: string | null;
}

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
    assert.match(r.stderr, new RegExp(`task ${task} started in a sandbox \\(network through the egress proxy: every new destination asks\\)`));
    const { tasks } = await ui.call<{ tasks: Task[] }>('tasks.list', { includeEnded: true });
    const t = tasks.find((x) => x.id === task);
    assert.equal(t?.name, 'agent run');
    assert.ok(t?.endedAt, 'the task ended with the agent');
  });

  test('inside, the agent asks through request.sock and its requests belong to the task', async () => {
    const marker = path.join(work, 'asked.txt');
    const pending = taskStart(['asking agent', '--sandbox', ...RO, '--', process.execPath, CLI, 'exec', '--', 'touch', marker]);
    const p = await human.next(15_000);
    assert.equal(p.taskName, 'asking agent');
    assert.equal(p.action, 'write');
    await human.decide(p.id, 'allow');
    const r = await pending;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(fs.existsSync(marker));
  });

  test('--network: the accepted transfer grant covers the egress proxy but not this machine, which asks; refused, each destination asks; never a direct connection', async () => {
    const server = await countingServer('HTTP/1.0 200 OK\r\nContent-Length: 6\r\n\r\nnet-on');
    const probe = netProbe(server.port, { on: 'direct-on', off: 'direct-off' }, { on: 0, off: 0 });
    const script = `${JSON.stringify(process.execPath)} -e ${JSON.stringify(probe)}; curl -fsS -m 20 http://127.0.0.1:${server.port}/ || echo net-off`;
    try {
      for (const decision of ['deny', 'allow'] as const) {
        const pending = taskStart([`net ${decision}`, '--sandbox', '--network', '--', 'sh', '-c', script]);
        const p = await human.next(15_000);
        assert.equal(p.tool, 'task.start');
        assert.match(p.summary, /allow transfer/);
        // The transfer grant is a wildcard (any host): it is created only when confirmed.
        await human.decide(p.id, decision, 'once', decision === 'allow' ? { confirmGrants: [0] } : {});
        // Without the grant the destination is a prompt of its own; the human says no. With
        // it, this machine (127.0.0.1) still asks: a wildcard grant reaches hosts, not
        // loopback or the local network (test/integration/egress-redteam.test.ts).
        const dest = await human.next(15_000);
        assert.equal(dest.source, 'egress');
        if (decision === 'allow') {
          assert.match(dest.nearMiss ?? '', /covers any host, not this machine \(loopback\)/);
          assert.ok(dest.risk.reasons.some((x) => /loopback/.test(x)), JSON.stringify(dest.risk));
        }
        await human.decide(dest.id, decision);
        const r = await pending;
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /direct-off/);
        assert.match(r.stdout, decision === 'allow' ? /net-on/ : /net-off/);
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

describe('task binding inside the sandbox (real bwrap)', { skip: !hasBwrap && 'bwrap is not installed (apt install bubblewrap)' }, () => {
  const del = (extra: Record<string, unknown>) => ({ source: 'api', tool: 'mail', action: 'delete', resource: '/mail/inbox/7', summary: 'delete mail 7', ...extra });
  let probeFile: string;
  let agent: RpcClient;
  before(async () => {
    probeFile = path.join(work, 'probe.js');
    fs.writeFileSync(probeFile, PROBE);
    agent = await d.agent();
  });
  after(() => agent?.close());

  /** exec --sandbox --task REF -- node probe.js CALLS, the human allowing the command itself. */
  async function probeIn(taskRef: string, calls: [string | null, string, unknown][], o: { env?: NodeJS.ProcessEnv } = {}) {
    const pending = execCli(['--sandbox', '--task', taskRef, '--', process.execPath, probeFile, JSON.stringify(calls)], o);
    const p = await human.next(15_000);
    assert.equal(p.tool, 'exec', `the one prompt is for the command itself, got ${p.summary}`);
    await human.decide(p.id, 'allow');
    const r = await pending;
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(human.unanswered(), [], 'nothing inside reached the human');
    return { r, prompt: p, probe: parseProbe(r.stdout) };
  }

  test("inside exec --sandbox --task T, a request with no task or another task's id is still T's and obeys T's deny grants", async () => {
    const t = await agent.call<Started>('task.start', { name: 'sandboxed T', cwd: work });
    const u = await agent.call<Started>('task.start', { name: 'permissive U', cwd: work });
    const deny = await ui.call<{ grant: { id: string } }>('grants.create', { task: t.task, action: 'delete', resource: '/mail/**', effect: 'deny', note: 'T never deletes mail' });
    await ui.call('grants.create', { task: u.task, action: 'delete', resource: '/mail/**', effect: 'allow' });
    await ui.call('grants.create', { action: 'delete', resource: '/mail/**', effect: 'allow', note: 'a grant of no task' });
    const claims = [{}, { task: u.task }, { task: u.token }, { task: u.task, token: u.token }];
    const { prompt, probe } = await probeIn(t.token, claims.map((c) => [null, 'request', del(c)]));
    assert.equal(prompt.task, t.task, 'the command itself was asked as T');
    assert.equal(probe.sock, t.requestSock, "AIRLOCK_REQUEST_SOCK inside is T's own socket");
    assert.equal(probe.task, t.task);
    assert.equal(probe.token, null, 'the token is not passed in');
    probe.out.forEach((o, i) => {
      assert.equal(o.result?.decision, 'deny', `${JSON.stringify(claims[i])} → ${JSON.stringify(o)}`);
      assert.equal(o.result?.grant, deny.grant.id);
      assert.equal(o.result?.task, t.task);
    });
    const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { task: u.task, limit: 10 });
    // U's history holds only its own start (made outside, by `agent`): nothing the sandbox sent counted as U.
    assert.deepEqual(events.map((e) => e.tool), ['task.start'], 'nothing counted as U');
  });

  test('inside, task.start and task.end / task.network of another task fail; the shared request.sock and ui.sock are not there', async () => {
    const t = await agent.call<Started>('task.start', { name: 'confined T', cwd: work });
    const u = await agent.call<Started>('task.start', { name: 'neighbour U', cwd: work });
    const { probe } = await probeIn(t.token, [
      [null, 'task.start', { name: 'escape from the sandbox' }],
      [null, 'task.end', { task: u.task }],
      [null, 'task.end', { task: u.token }],
      [null, 'task.network', { task: u.task }],
      [d.requestSock, 'request', del({})],
      [d.requestSock, 'task.start', { name: 'escape via the shared socket' }],
      [d.uiSock, 'tasks.end', { task: u.task }],
    ]);
    const [start, end1, end2, net, shared, sharedStart, uiEnd] = probe.out;
    assert.equal(start!.error?.code, -32001, JSON.stringify(start));
    assert.match(start!.error!.message, /a task cannot start other tasks/);
    for (const o of [end1, end2, net]) assert.match(o!.error?.message ?? '', /this socket belongs to task/, JSON.stringify(o));
    for (const o of [shared, sharedStart, uiEnd]) assert.equal(o!.connectError, 'ENOENT', JSON.stringify(o));
    const { tasks } = await ui.call<{ tasks: Task[] }>('tasks.list', {});
    assert.ok(tasks.some((x) => x.id === u.task), 'U still runs');
    assert.ok(tasks.some((x) => x.id === t.task), 'T still runs');
    assert.ok(!tasks.some((x) => /escape/.test(x.name)), 'no task was started from inside');
    // Only T's socket directory is there: no other task's, no database.
    const ls = await execCli(['--sandbox', '--task', t.token, '--', 'ls', '-a', d.home, path.join(d.home, 'tasks')]);
    const seen = ls.stdout.split(/\s+/).filter(Boolean);
    assert.ok(seen.includes(t.task), ls.stdout + ls.stderr);
    assert.ok(!seen.includes(u.task) && !seen.includes('request.sock') && !seen.includes('ui.sock') && !seen.includes('airlock.db'), ls.stdout);
  });

  test('the shared socket refuses a task id without its token and accepts it with the token', async () => {
    const t = await agent.call<Started>('task.start', { name: 'token at the door', cwd: work });
    const marker = path.join(work, 'ran-without-token');
    const idOnly = await execCli(['--sandbox', '--task', t.task, '--', 'touch', marker]);
    assert.equal(idOnly.code, 64, idOnly.stderr);
    assert.match(idOnly.stderr, /needs its token/);
    assert.equal(fs.existsSync(marker), false, 'nothing ran');
    assert.deepEqual(human.unanswered(), []);
    // The id with AIRLOCK_TASK_TOKEN (what `task start --env` exports) works, as does the token itself.
    for (const [ref, extra] of [[t.task, { AIRLOCK_TASK_TOKEN: t.token }], [t.token, {}]] as const) {
      const pending = execCli(['--sandbox', '--task', ref, '--', process.execPath, probeFile, '[]'], { env: { ...env, ...extra } });
      const p = await human.next(15_000);
      assert.equal(p.task, t.task);
      await human.decide(p.id, 'allow');
      const r = await pending;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(parseProbe(r.stdout).sock, t.requestSock);
    }
  });

  test('task start --sandbox: the agent is bound to its own socket and cannot start another task', async () => {
    const ask = { source: 'api', tool: 'boxes', action: 'delete', resource: '/boxes/1', summary: 'delete box 1 (no task named)' };
    const script = `${process.execPath} ${probeFile} '${JSON.stringify([[null, 'request', ask], [null, 'task.start', { name: 'nested' }]])}'; ${process.execPath} ${CLI} task start nested-by-cli; echo "cli-exit=$?"`;
    const pending = taskStart(['bound agent', '--sandbox', ...RO, '--', 'sh', '-c', script]);
    const p = await human.next(15_000);
    assert.equal(p.taskName, 'bound agent', 'the request with no task is the task\'s');
    await human.decide(p.id, 'deny');
    const r = await pending;
    assert.equal(r.code, 0, r.stderr);
    const probe = parseProbe(r.stdout.split('\n').find((l) => l.startsWith('{'))!);
    assert.match(probe.sock ?? '', /\/tasks\/t_[^/]+\/request\.sock$/);
    assert.equal(probe.out[0]!.result?.decision, 'deny');
    assert.equal(probe.out[1]!.error?.code, -32001);
    assert.match(r.stdout, /cli-exit=64/);
    assert.match(r.stderr, /a task cannot start other tasks/);
    const { tasks } = await ui.call<{ tasks: Task[] }>('tasks.list', { includeEnded: true });
    assert.ok(!tasks.some((x) => x.name.startsWith('nested')), 'no nested task');
  });
});
