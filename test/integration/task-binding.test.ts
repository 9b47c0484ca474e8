// Task binding (issue 10, item 2; docs/task-binding.md), tried the way a hostile agent
// would: on the shared request.sock a task id alone never acts as the task (its token
// does); a task's own tasks/<id>/request.sock makes everything the task's, whatever it
// claims, and cannot start tasks or end/ask about other tasks. The sandbox half of these
// checks is in task-sandbox.test.ts (real bubblewrap).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitFor, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { closeDaemonSession, openDaemonSession } from '../helpers/daemon-session';
import { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import type { HistoryEvent, Task } from '../../main/contract/approver';

interface Started {
  task: string;
  token: string;
  requestSock: string;
  sshAuthSock: string | null;
}

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;

before(async () => {
  ({ d, ui, agent, human } = await openDaemonSession());
});
after(() => closeDaemonSession({ d, ui, agent }));

const start = (name: string) => agent.call<Started>('task.start', { name, cwd: '/repo' });
const del = (extra: Record<string, unknown>) => ({ source: 'api', tool: 'mail', action: 'delete', resource: '/mail/inbox/1', summary: 'delete a mail', ...extra });

describe('the shared request.sock: the id alone never acts as a task', () => {
  test(`task.start returns a 256-bit token and the path of the task's own request.sock (0600 in a 0700 directory)`, async () => {
    const t = await start('tokens');
    assert.match(t.token, /^t_[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{43}$/, 'the task id, a dot, 32 random bytes');
    assert.equal(t.token.split('.')[0], t.task);
    assert.equal(t.requestSock, path.join(d.home, 'tasks', t.task, 'request.sock'));
    assert.equal(path.dirname(t.requestSock), path.dirname(t.sshAuthSock!), 'beside its agent.sock');
    assert.ok(fs.statSync(t.requestSock).isSocket());
    assert.equal(fs.statSync(t.requestSock).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(t.requestSock)).mode & 0o777, 0o700);
    const other = await start('tokens 2');
    assert.notEqual(other.token.split('.')[1], t.token.split('.')[1]);
    // The token is not readable back from the human side either.
    const { tasks } = await ui.call<{ tasks: Task[] }>('tasks.list', {});
    assert.ok(!JSON.stringify(tasks).includes(t.token.split('.')[1]!));
  });

  test('a request, task.end and task.network naming a task by id only are refused with what to send', async () => {
    const t = await start('id only');
    for (const [method, params] of [
      ['request', del({ task: t.task })],
      ['task.end', { task: t.task }],
      ['task.network', { task: t.task }],
    ] as const) {
      await assert.rejects(agent.call(method, params), (e: Error & { code?: number }) => {
        assert.equal(e.code, -32602, method);
        assert.match(e.message, /acting as task .* needs its token — send "token" .* beside "task", or the token itself as "task"/);
        return true;
      });
    }
    const { tasks } = await ui.call<{ tasks: Task[] }>('tasks.list', {});
    assert.ok(tasks.some((x) => x.id === t.task), 'task.end without the token ended nothing');
  });

  test(`a wrong token, or another task's token, is refused; the right one works beside "task" or as "task"`, async () => {
    const t = await start('right token');
    const u = await start('other token');
    const forged = `${t.task}.${'A'.repeat(43)}`;
    await assert.rejects(agent.call('request', del({ task: t.task, token: forged })), /not the token of task/);
    await assert.rejects(agent.call('request', del({ task: forged })), /not the token of task/);
    await assert.rejects(agent.call('request', del({ task: t.task, token: u.token })), /not a token of task/);
    await assert.rejects(agent.call('request', del({ task: u.token, token: t.token })), /different one/);
    // With its token, the request is the task's: a deny grant of the task answers it at once.
    await ui.call('grants.create', { task: t.task, action: 'delete', resource: '/mail/**', effect: 'deny', note: 'never delete my mail' });
    for (const claim of [{ task: t.task, token: t.token }, { task: t.token }, { token: t.token }]) {
      const a = await agent.call<AgentAnswer>('request', del(claim));
      assert.equal(a.decision, 'deny', JSON.stringify(claim));
      assert.match(a.reason, /never delete my mail/);
      assert.equal(a.task, t.task);
    }
    assert.deepEqual(await agent.call('task.network', { task: t.token }), { allowed: false, reason: 'the task holds no transfer grant' });
    assert.deepEqual(await agent.call('task.end', { task: t.task, token: t.token }), {});
    await assert.rejects(agent.call('request', del({ task: t.token })), /has ended/);
    assert.equal(human.unanswered().length, 0, 'nothing was asked');
  });

  test('a token never lands in history, even in a rejected line', async () => {
    const t = await start('redacted');
    // Rejected (unknown field), so the raw line is recorded.
    await assert.rejects(agent.call('request', { ...del({ task: t.token }), bogus: 1 }), /bogus/);
    await assert.rejects(agent.call('task.end', { task: t.task, token: t.token, bogus: 1 }), /bogus/);
    const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { decision: 'reject', limit: 10 });
    const text = JSON.stringify(events);
    assert.ok(text.includes(t.task), 'the rejected lines are there');
    assert.ok(!text.includes(t.token.split('.')[1]!), 'but not the token');
    assert.match(text, /token redacted|<redacted>/);
  });

  test(`a restart keeps a running task's token working and its id alone refused; leftover task sockets are removed`, async () => {
    const t = await start('survives a restart');
    await d.stop();
    // A leftover of a crashed run (kill -9 leaves its task sockets behind).
    fs.mkdirSync(path.join(d.home, 'tasks', 't_leftover'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(d.home, 'tasks', 't_leftover', 'request.sock'), '');
    d = await d.restart();
    agent.close();
    ui.close();
    agent = await d.agent();
    ui = await d.ui();
    human = await Human.on(ui);
    assert.equal(fs.existsSync(path.join(d.home, 'tasks', 't_leftover')), false, 'leftovers removed at start-up');
    assert.equal(fs.existsSync(t.requestSock), false, 'no socket of the last run survives');
    await assert.rejects(agent.call('request', del({ task: t.task })), /needs its token/);
    await ui.call('grants.create', { task: t.task, action: 'delete', resource: '/mail/**', effect: 'deny' });
    assert.equal((await agent.call<AgentAnswer>('request', del({ task: t.token }))).decision, 'deny');
  });
});

describe("a task's own request.sock: everything there is the task's", () => {
  test(`no task, another task's id, or another task's token: still this task's, and its deny grants answer`, async () => {
    const t = await start('bound');
    const u = await start('other, permissive');
    await ui.call('grants.create', { task: t.task, action: 'delete', resource: '/mail/**', effect: 'deny', note: 'bound task: never delete mail' });
    await ui.call('grants.create', { task: u.task, action: 'delete', resource: '/mail/**', effect: 'allow' });
    const own = await RpcClient.connect(t.requestSock);
    try {
      for (const claim of [{}, { task: u.task }, { task: u.token }, { task: u.task, token: u.token }]) {
        const a = await own.call<AgentAnswer>('request', del(claim));
        assert.equal(a.decision, 'deny', JSON.stringify(claim));
        assert.match(a.reason, /bound task: never delete mail/);
        assert.equal(a.task, t.task);
      }
      const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { task: u.task, limit: 10 });
      assert.deepEqual(events.map((e) => e.tool), ['task.start'], 'nothing was counted as the other task (its own start is its only row)');
      // What it claimed is shown to the human (risk reasons), never honoured.
      const asking = own.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/x', summary: 'write x', task: u.task });
      const p = await human.next();
      assert.equal(p.task, t.task);
      assert.ok(p.risk.reasons.some((r) => r.includes(`named task ${u.task}`) && r.includes(`socket of task ${t.task}`)), JSON.stringify(p.risk));
      await human.decide(p.id, 'deny');
      assert.equal((await asking).decision, 'deny');
    } finally {
      own.close();
    }
  });

  test('it cannot start a task, nor end or ask about another task; it may end itself, and then its socket is gone', async () => {
    const t = await start('confined');
    const u = await start('neighbour');
    const own = await RpcClient.connect(t.requestSock);
    try {
      await assert.rejects(own.call('task.start', { name: 'escape' }), (e: Error & { code?: number }) => {
        assert.equal(e.code, -32001);
        assert.match(e.message, /task\.start is refused on the socket of task .*: a task cannot start other tasks/);
        return true;
      });
      for (const m of ['task.end', 'task.network']) {
        await assert.rejects(own.call(m, { task: u.task }), /this socket belongs to task/, m);
        await assert.rejects(own.call(m, { task: u.token }), /this socket belongs to task/, m);
      }
      const { tasks } = await ui.call<{ tasks: Task[] }>('tasks.list', {});
      assert.ok(tasks.some((x) => x.id === u.task), 'the neighbour still runs');
      assert.equal(tasks.filter((x) => x.name === 'escape').length, 0, 'no task was started');
      assert.deepEqual(await own.call('task.network', {}), { allowed: false, reason: 'the task holds no transfer grant' });
      assert.deepEqual(await own.call('task.end', {}), {}, 'ending itself is allowed and answered');
      await waitFor(() => !fs.existsSync(t.requestSock), 'the task socket to go');
      await assert.rejects(RpcClient.connect(t.requestSock, 2000));
      const after = await ui.call<{ tasks: Task[] }>('tasks.list', { includeEnded: true });
      assert.ok(after.tasks.find((x) => x.id === t.task)?.endedAt, 'ended');
    } finally {
      own.close();
    }
  });

  test('ending a task from outside removes its socket directory', async () => {
    const t = await start('ended outside');
    await ui.call('tasks.end', { task: t.task });
    await waitFor(() => !fs.existsSync(path.dirname(t.requestSock)), 'tasks/<id>/ to go');
  });
});
