// TasksAndGrants, TaskLifecycle and the Broker constructed directly over a scratch SQLite
// store: grant and task rules, a task's sockets (fakes that record what was opened), and
// the broker spending a grant's uses. No daemon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentRequest } from '../../main/contract/agent';
import { RPC, RpcError } from '../../main/contract/rpc';
import type { EgressService, TaskEnding, TaskSocketService } from '../../main/core/ports';
import { makeParts, T0, tick, type Parts } from './core-parts';

const HUMAN_END: TaskEnding = { why: 'ended', by: { side: 'human', source: 'ui.sock', via: 'ui.sock' } };

async function withParts(fn: (p: Parts) => Promise<void> | void, opts?: Parameters<typeof makeParts>[0]) {
  const p = makeParts(opts);
  try {
    await fn(p);
  } finally {
    p.close();
  }
}

function fakeSockets(name: string, log: string[]): TaskSocketService & { owners: Map<string, { end(): Promise<void> }> } {
  const owners = new Map<string, { end(): Promise<void> }>();
  return {
    owners,
    async open(task, owner) {
      log.push(`open ${name} ${task}`);
      if (owner) owners.set(task, owner);
      return `/run/${task}/${name}.sock`;
    },
    async close(task) {
      log.push(`close ${name} ${task}`);
    },
  };
}

const write: AgentRequest = { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/a', summary: 'write /repo/a' };

test('grants: a grant for an unknown or ended task, or with a bad condition, is refused with the reason', () =>
  withParts(async (p) => {
    assert.throws(() => p.tasks.createGrant({ action: 'write', effect: 'allow', task: 't_none' }, 'human'), /no task t_none/);
    const t = await p.lifecycle.startTask({ name: 'x' }, {});
    await p.lifecycle.endTask(t.task, HUMAN_END);
    assert.throws(() => p.tasks.createGrant({ action: 'write', effect: 'allow', task: t.task }, 'human'), /has ended/);
    assert.throws(() => p.tasks.createGrant({ action: 'write', effect: 'allow', when: 'args.(' }, 'human'), /invalid params: when/);
    assert.equal(p.tasks.listGrants({ includeInactive: true }).length, 0);
  }));

test('grants: created grants apply at once; revoked ones stop at once; an unknown id is not found', () =>
  withParts(async (p) => {
    const g = p.tasks.createGrant({ action: 'write', effect: 'allow', resource: '/repo/**', when: 'true' }, 'human');
    assert.equal(p.tasks.listGrants({})[0]!.whenText !== undefined, true, 'the UIs get the condition in words');
    assert.equal((await p.broker.ask(write, {})).decision, 'allow');
    p.tasks.revokeGrant(g.id);
    void p.broker.ask(write, {});
    assert.equal(p.queue.list().length, 1, 'revoked: the write asks again');
    assert.throws(() => p.tasks.revokeGrant('g_nope'), (e: unknown) => e instanceof RpcError && e.code === RPC.notFound);
    p.broker.shutdown();
  }));

test('grants: a task-bound grant dies with its task', () =>
  withParts(async (p) => {
    const t = await p.lifecycle.startTask({ name: 'x' }, {});
    p.tasks.createGrant({ action: 'write', effect: 'allow', task: t.task }, 'human');
    assert.equal(p.tasks.activeGrants().all.length, 1);
    await p.lifecycle.endTask(t.task, HUMAN_END);
    assert.equal(p.tasks.activeGrants().all.length, 0);
  }));

test('tasks: the id alone never acts as a task; the token does, and not another task\'s', () =>
  withParts(async (p) => {
    const a = await p.lifecycle.startTask({ name: 'a' }, {});
    const b = await p.lifecycle.startTask({ name: 'b' }, {});
    assert.throws(() => p.tasks.authorizeTask({ task: a.task }), /needs its token/);
    assert.throws(() => p.tasks.authorizeTask({ task: a.task, token: b.token }), /token/);
    assert.equal(p.tasks.authorizeTask({ task: a.task, token: a.token }), a.task);
    assert.equal(p.tasks.authorizeTask({ task: a.token }), a.task);
    assert.throws(() => p.tasks.authorizeTask({}), /required here/);
    assert.throws(() => p.tasks.authorizeTask({ task: 't_unknown' }), /no task t_unknown/);
    await p.lifecycle.endTask(a.task, HUMAN_END);
    assert.throws(() => p.tasks.authorizeTask({ task: a.token }), /has ended/);
  }));

test('tasks: a task\'s SSH keys are those its allow grants name; its network needs a transfer grant and no deny', () =>
  withParts(async (p) => {
    const t = await p.lifecycle.startTask({ name: 'a' }, {});
    assert.equal(p.tasks.keysVisibleTo(t.task), null, 'no key grant: no limit');
    p.tasks.createGrant({ action: 'sign', effect: 'allow', task: t.task, key: 'SHA256:abc' }, 'human');
    assert.deepEqual([...p.tasks.keysVisibleTo(t.task)!], ['SHA256:abc']);
    assert.equal(p.tasks.taskNetwork(t.task).allowed, false);
    p.tasks.createGrant({ action: 'transfer', effect: 'allow', resource: 'example.com:443' }, 'human');
    assert.equal(p.tasks.taskNetwork(t.task).allowed, true);
    p.tasks.createGrant({ action: ['transfer', 'write'], effect: 'deny', task: t.task }, 'human');
    assert.deepEqual(p.tasks.taskNetwork(t.task), { allowed: false, reason: 'a grant denies transfers for this task' });
    assert.throws(() => p.tasks.taskNetwork('t_none'), /no task/);
  }));

test('tasks: an MCP report never turns a tool known as not read-only into a read', () =>
  withParts((p) => {
    assert.deepEqual(p.tasks.learnMcpTools({ server: 'gmail', tools: [{ name: 'send_mail', annotations: { readOnlyHint: false } }] }), { learned: 1, kept: [] });
    assert.deepEqual(p.tasks.learnMcpTools({ server: 'gmail', tools: [{ name: 'send_mail', annotations: { readOnlyHint: true } }] }), { learned: 0, kept: ['send_mail'] });
    assert.deepEqual(p.tasks.mcpTool('gmail', 'send_mail')?.annotations, { readOnlyHint: false });
    // Towards riskier is always learned.
    assert.deepEqual(p.tasks.learnMcpTools({ server: 'gmail', tools: [{ name: 'list', annotations: { readOnlyHint: true } }] }), { learned: 1, kept: [] });
    assert.deepEqual(p.tasks.learnMcpTools({ server: 'gmail', tools: [{ name: 'list', annotations: { readOnlyHint: false } }] }), { learned: 1, kept: [] });
  }));

test('lifecycle: start opens the task\'s sockets and egress; the request socket can end its own task; end closes all', async () => {
  const log: string[] = [];
  const ssh = fakeSockets('agent', log);
  const requests = fakeSockets('request', log);
  const egress: EgressService = {
    async open(task, secrets) {
      log.push(`open egress ${task} ${secrets.join(',')}`);
      return { sock: `/run/${task}/egress.sock`, caBundle: null, nodePreload: '/p.js', placeholders: {} };
    },
    async close(task) {
      log.push(`close egress ${task}`);
    },
    secretNames: () => ['GH'],
  };
  await withParts(
    async (p) => {
      await assert.rejects(p.lifecycle.startTask({ name: 'x', secrets: ['NOPE'] }, {}), /no secret named NOPE/);
      assert.equal(p.tasks.listTasks(true).length, 0, 'nothing is created for a refused start');
      const t = await p.lifecycle.startTask({ name: 'x', secrets: ['GH'] }, {});
      assert.equal(t.sshAuthSock, `/run/${t.task}/agent.sock`);
      assert.equal(t.requestSock, `/run/${t.task}/request.sock`);
      assert.equal(t.egress?.sock, `/run/${t.task}/egress.sock`);
      assert.equal(p.tasks.getTask(t.task)?.sshAuthSock, t.sshAuthSock);
      await requests.owners.get(t.task)!.end();
      assert.deepEqual(log, [`open agent ${t.task}`, `open request ${t.task}`, `open egress ${t.task} GH`, `close request ${t.task}`, `close agent ${t.task}`, `close egress ${t.task}`]);
      assert.notEqual(p.tasks.getTask(t.task)?.endedAt, null);
      await p.lifecycle.endTask(t.task, HUMAN_END);
      assert.equal(log.length, 6, 'ending twice closes nothing twice');
      await assert.rejects(p.lifecycle.endTask('t_none', HUMAN_END), (e: unknown) => e instanceof RpcError && e.code === RPC.notFound);
    },
    { resources: { ssh, requests, egress } },
  );
});

test('lifecycle: a task cannot start tasks; secrets need an egress proxy; grants asked past the caps are refused and recorded', () =>
  withParts(
    async (p) => {
      await assert.rejects(p.lifecycle.startTask({ name: 'y' }, { boundTask: 't_1' }), /a task cannot start other tasks/);
      await assert.rejects(p.lifecycle.startTask({ name: 'y', secrets: ['GH'] }, {}), /runs no egress proxy/);
      await assert.rejects(p.lifecycle.startTask({ name: 'y', grants: [{ action: 'write', effect: 'allow', when: 'args.(' }] }, {}), /grants\.0\.when/);
      const first = p.lifecycle.startTask({ name: 'y', grants: [{ action: 'write', effect: 'allow', resource: '/a' }] }, { connection: 'c1' });
      await tick();
      await assert.rejects(p.lifecycle.startTask({ name: 'z', grants: [{ action: 'write', effect: 'allow', resource: '/b' }] }, { connection: 'c2' }), (e: unknown) => e instanceof RpcError && e.code === RPC.refused);
      const refused = p.store.queryHistory({ limit: 10 }).events.filter((e) => e.decidedBy === 'system');
      assert.equal(refused.length, 1);
      assert.equal(refused[0]!.tool, 'task.start');
      p.queue.decide({ id: p.queue.list()[0]!.id, decision: 'allow', scope: 'once' });
      assert.equal((await first).grants.length, 1);
    },
    { settings: { maxPendingTotal: 1 } },
  ));

test('broker: a grant with one use allows once; the next identical request asks (uses are spent before the answer)', () =>
  withParts(async (p) => {
    p.tasks.createGrant({ action: 'write', effect: 'allow', resource: '/repo/**', uses: 1 }, 'human');
    const [a, b] = [p.broker.ask(write, {}), p.broker.ask(write, {})];
    assert.equal((await a).decision, 'allow');
    await tick();
    assert.equal(p.queue.list().length, 1, 'the second one waits for the human');
    p.queue.decide({ id: p.queue.list()[0]!.id, decision: 'deny', scope: 'once' });
    assert.equal((await b).decision, 'deny');
    assert.equal(p.tasks.listGrants({ includeInactive: true })[0]!.usesLeft, 0);
  }));

test('broker: after shutdown nothing is asked and every open prompt is denied and recorded', () =>
  withParts(async (p) => {
    const waiting = p.broker.ask(write, { connection: 'c' });
    await tick();
    p.broker.shutdown();
    assert.equal((await waiting).reason, 'Airlock stopped before the human answered');
    await assert.rejects(p.broker.ask(write, {}), /shutting down/);
    assert.equal(p.store.queryHistory({ limit: 10 }).events.length, 1);
  }));

test('broker: drained() waits for every ask in flight (a prompt answered meanwhile), and at most its limit', () =>
  withParts(async (p) => {
    const t0 = Date.now();
    await p.broker.drained(5000);
    assert.ok(Date.now() - t0 < 1000, 'nothing in flight: at once');
    const waiting = p.broker.ask(write, { connection: 'c' });
    await tick();
    let drained = false;
    const done = p.broker.drained(10_000).then(() => (drained = true));
    await tick();
    assert.equal(drained, false, 'a prompt is still open');
    p.queue.decide({ id: p.queue.list()[0]!.id, decision: 'deny', scope: 'once' });
    assert.equal((await waiting).decision, 'deny');
    await done;
    assert.ok(Date.now() - t0 < 5000, 'woken by the answer, not by the limit');
    // One that never settles: the limit ends the wait.
    void p.broker.ask(write, { connection: 'c2' });
    await tick();
    const t1 = Date.now();
    await p.broker.drained(150);
    assert.ok(Date.now() - t1 >= 100, 'waited for the limit');
    p.broker.shutdown();
  }));

test('broker: a disconnect withdraws the requester\'s prompts; the clock is the one it was given', () =>
  withParts(async (p) => {
    const a = p.broker.ask(write, { connection: 'c7' });
    await tick();
    p.broker.dropConnection('c7');
    const r = await a;
    assert.equal(r.decision, 'deny');
    assert.equal(p.store.queryHistory({ limit: 1 }).events[0]!.ts, T0);
  }));

test('lifecycle: a start whose history row cannot be written starts no task; an end whose row cannot be written still closes the sockets, then fails', async () => {
  const log: string[] = [];
  await withParts(
    async (p) => {
      const real = p.recorder.recordTask.bind(p.recorder);
      p.recorder.recordTask = () => {
        throw new Error('disk I/O error');
      };
      await assert.rejects(p.lifecycle.startTask({ name: 'unrecorded' }, {}), /disk I\/O error/);
      assert.deepEqual(p.tasks.listTasks(false), [], 'no task runs that history does not know of');
      assert.deepEqual(log, [], 'no socket was opened for it');
      p.recorder.recordTask = real;
      const t = await p.lifecycle.startTask({ name: 'recorded' }, {});
      p.recorder.recordTask = () => {
        throw new Error('disk I/O error');
      };
      await assert.rejects(p.lifecycle.endTask(t.task, HUMAN_END), /disk I\/O error/);
      assert.deepEqual(log.slice(-1), [`close request ${t.task}`], 'its socket closed all the same');
      assert.notEqual(p.tasks.getTask(t.task)?.endedAt, null);
    },
    { resources: { requests: fakeSockets('request', log) } },
  );
});
