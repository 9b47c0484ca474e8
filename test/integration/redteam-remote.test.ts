// Red team: a hostile agent on a remote server (`airlock remote`), holding only the
// remote's forwarded socket and maybe a leaked token. The point is the daemon's behaviour,
// so the tests connect to the remote's socket file directly, as the far end of `ssh -R`
// would (the real ssh path is test/integration/remote-ssh.test.ts). Each test is one way
// around that was tried: those that got through were fixed, those that held stay as guards.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { waitFor, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { refused } from '../helpers/refused';
import { connectTunnel } from '../helpers/egress-client';
import { closeDaemonSession, openDaemonSession } from '../helpers/daemon-session';
import { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Grant, HistoryEvent, Prompt, Remote, Task } from '../../main/contract/approver';

interface Started {
  task: string;
  token: string;
  grants: string[];
  declined?: number[];
}

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;
/**
 * The prompt `answer` raised, or null once `answer` settled without one. A short wait for a
 * prompt that then counts as "none" misreads a slow daemon on a loaded machine; and this
 * never leaves a waiter behind to take a later test's prompt.
 */
async function promptOrAnswer(answer: Promise<unknown>): Promise<Prompt | null> {
  let settled = false;
  answer.then(() => (settled = true), () => (settled = true));
  await waitFor(() => settled || human.unanswered().length > 0, 'a prompt or the answer');
  return human.unanswered().length > 0 ? human.next() : null;
}
let remoteSock: string;

before(async () => {
  ({ d, ui, agent, human } = await openDaemonSession());
  remoteSock = (await ui.call<{ remote: Remote }>('remotes.add', { name: 'build' })).remote.socket;
});
after(() => closeDaemonSession({ d, ui, agent }));

const onRemote = () => RpcClient.connect(remoteSock);
const del = (extra: Record<string, unknown>) => ({ source: 'api', tool: 'mail', action: 'delete', resource: '/mail/inbox/1', summary: 'delete a mail', ...extra });
const latest = async (n = 20) => (await ui.call<{ events: HistoryEvent[] }>('history.query', { limit: n })).events;

describe('red team: a remote acting as a local task (held)', () => {
  test('a local task\'s id, or its leaked token, on the remote socket: the task\'s local grants never answer; the prompt is marked remote', async () => {
    const local = await agent.call<Started>('task.start', { name: 'local work', cwd: '/repo' });
    await ui.call('grants.create', { task: local.task, action: 'delete', resource: '/mail/**', effect: 'allow' });
    // Locally, the grant answers at once.
    assert.equal((await agent.call<AgentAnswer>('request', del({ task: local.token }))).decision, 'allow');
    const r = await onRemote();
    try {
      await refused(r.call('request', del({ task: local.task })), -32602, 'the id alone');
      await refused(r.call('task.end', { task: local.task }), -32602, 'task.end with the id alone');
      // A leaked token: the request is the task's, but from the remote, so the local grant does not answer.
      const asking = r.call<AgentAnswer>('request', del({ task: local.token }));
      const p = await human.next();
      assert.equal(p.remote?.name, 'build', 'marked remote');
      assert.equal(p.task, local.task);
      await human.decide(p.id, 'deny');
      assert.equal((await asking).decision, 'deny');
      const [ev] = await latest(1);
      assert.equal(ev?.remote?.name, 'build');
      assert.equal(ev?.grant, null);
    } finally {
      r.close();
    }
  });
});

describe('red team: a remote ending or inspecting a task it did not start', () => {
  const liveTask = async (id: string) => (await ui.call<{ tasks: Task[] }>('tasks.list', {})).tasks.find((t) => t.id === id);

  test('a local task\'s leaked token on the remote socket cannot end it or read its network: refused (-32001) saying why, recorded with the task and the remote; the task runs on', async () => {
    const local = await agent.call<Started>('task.start', { name: 'local long job', cwd: '/repo' });
    assert.equal((await liveTask(local.task))?.remote, null, 'started here: recorded as local');
    const r = await onRemote();
    try {
      for (const [method, params] of [
        ['task.end', { task: local.token }],
        ['task.end', { task: local.task, token: local.token }],
        ['task.network', { task: local.token }],
      ] as const) {
        const why = await refused(r.call(method, params), -32001, method);
        assert.match(why, new RegExp(`task ${local.task} was started on this machine`), method);
        assert.match(why, /remote build may end or inspect only tasks started through it/, method);
        assert.match(why, /airlock task end/, `${method}: says what to do instead`);
      }
      assert.ok(await liveTask(local.task), 'the local task is still running');
      // The task still works on this machine.
      assert.equal((await agent.call<{ allowed: boolean }>('task.network', { task: local.token })).allowed, false);
      const rows = (await latest(10)).filter((e) => e.decision === 'reject' && e.task === local.task);
      assert.equal(rows.length, 3, `each attempt is in the task's history: ${JSON.stringify(rows.map((e) => e.summary))}`);
      for (const e of rows) {
        assert.equal(e.remote?.name, 'build', 'recorded with the remote');
        assert.ok(!JSON.stringify(e).includes(local.token.split('.').slice(1).join('.')), 'the token never lands in history');
      }
      // Still possible: the token asks as the task (marked remote; see the test above).
    } finally {
      r.close();
    }
    await agent.call('task.end', { task: local.token });
    assert.equal(await liveTask(local.task), undefined, 'this machine ends it');
  });

  test('a task started through another remote cannot be ended through this one; through its own remote and from this machine it can', async () => {
    const otherSock = (await ui.call<{ remote: Remote }>('remotes.add', { name: 'other' })).remote.socket;
    const other = await RpcClient.connect(otherSock);
    const r = await onRemote();
    try {
      const theirs = await other.call<Started>('task.start', { name: 'their job' });
      assert.equal((await liveTask(theirs.task))?.remote, 'other', 'recorded with the remote it came through');
      const why = await refused(r.call('task.end', { task: theirs.token }), -32001, 'task.end of another remote\'s task');
      assert.match(why, /was started through remote other/);
      await refused(r.call('task.network', { task: theirs.token }), -32001, 'task.network of another remote\'s task');
      assert.ok(await liveTask(theirs.task), 'still running');
      const [ev] = (await latest(5)).filter((e) => e.task === theirs.task && e.decision === 'reject');
      assert.equal(ev?.remote?.name, 'build');
      // Its own remote may end it.
      await other.call('task.end', { task: theirs.token });
      assert.equal(await liveTask(theirs.task), undefined);
      // This machine may end a remote's task it holds the token of (the human's side can anyway).
      const mine = await r.call<Started>('task.start', { name: 'build job' });
      assert.equal((await r.call<{ allowed: boolean }>('task.network', { task: mine.token })).allowed, false, 'a remote inspects its own task');
      await agent.call('task.end', { task: mine.token });
      assert.equal(await liveTask(mine.task), undefined);
    } finally {
      r.close();
      other.close();
      await ui.call('remotes.remove', { name: 'other' });
    }
  });

  test('removing a remote ends the tasks started through it: one added again under the name (perhaps another server) inherits none', async () => {
    const sock = (await ui.call<{ remote: Remote }>('remotes.add', { name: 'leaving' })).remote.socket;
    const c = await RpcClient.connect(sock);
    const t = await c.call<Started>('task.start', { name: 'left behind' });
    c.close();
    const local = await agent.call<Started>('task.start', { name: 'stays' });
    await ui.call('remotes.remove', { name: 'leaving' });
    assert.equal(await liveTask(t.task), undefined, 'the removed remote\'s task ended');
    assert.ok(await liveTask(local.task), 'local tasks are not touched');
    // History says so: started through the remote's socket (marked with the remote), ended because it was removed.
    const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { task: t.task });
    assert.deepEqual(events.map((e) => e.tool), ['task.end', 'task.start']);
    assert.equal(events[1]!.remote?.name, 'leaving');
    assert.equal(events[1]!.summary.startsWith('task "left behind" started through remotes/leaving/request.sock'), true, events[1]!.summary);
    assert.deepEqual([events[0]!.decidedBy, (events[0]!.args as { why: string }).why, events[0]!.reason], ['human', 'remote-removed', 'remote leaving was removed, and its tasks with it']);
    const again = await RpcClient.connect((await ui.call<{ remote: Remote }>('remotes.add', { name: 'leaving' })).remote.socket);
    try {
      await refused(again.call('task.end', { task: t.token }), -32602, 'the old task is gone');
    } finally {
      again.close();
      await ui.call('remotes.remove', { name: 'leaving' });
      await agent.call('task.end', { task: local.token });
    }
  });
});

describe('red team: a remote teaching this machine', () => {
  test('mcp.tools from a remote is refused: a server cannot make a local agent\'s MCP call a silent read by reporting the tool first', async () => {
    const r = await onRemote();
    try {
      const why = await refused(r.call('mcp.tools', { server: 'mailbox', tools: [{ name: 'tidy_inbox', annotations: { readOnlyHint: true } }] }), -32001, 'mcp.tools from a remote');
      assert.match(why, /refused on the socket of remote build/);
    } finally {
      r.close();
    }
    // The local Claude Code hook's call of that tool (as map.ts sends it) is still asked.
    const asking = agent.call<AgentAnswer>('request', { source: 'mcp', tool: 'mailbox/tidy_inbox', action: 'write', summary: 'MCP mailbox/tidy_inbox {}', args: { arguments: {}, via: 'claude-code' } });
    const p = await human.next(5000).catch(() => null);
    assert.ok(p, `asked, not answered as a read: ${p ? '' : JSON.stringify(await asking)}`);
    assert.notEqual(p.action, 'read');
    await human.decide(p.id, 'deny');
    assert.equal((await asking).decision, 'deny');
  });
});

describe('red team: a remote\'s task and the network', () => {
  test('task.network of a remote\'s task counts only the grants that would answer its connections: a local transfer grant neither answers them nor gives it the network, whoever asks', async () => {
    const r = await onRemote();
    try {
      const t = await r.call<Started & { egress: { sock: string } | null }>('task.start', { name: 'remote net', cwd: '/repo' });
      const local = await ui.call<{ grant: Grant }>('grants.create', { action: 'transfer', resource: '**', effect: 'allow', note: 'this machine may upload' });
      try {
        assert.equal((await r.call<{ allowed: boolean }>('task.network', { task: t.token })).allowed, false, 'a local allow grant does not reach the remote');
        assert.equal((await agent.call<{ allowed: boolean }>('task.network', { task: t.token })).allowed, false, 'asked from this machine: the same answer, the task is the remote\'s');
        // Its connections are the remote's too: the local grant does not answer them (red team:
        // they were decided as this machine's, while task.network counted the remote's grants).
        assert.ok(t.egress, 'this daemon runs an egress proxy');
        const tunnel = connectTunnel(t.egress.sock, 'nowhere.example.test:443').then(() => 'open', (e: Error) => e.message);
        const p = await human.next();
        assert.equal(p.source, 'egress');
        assert.equal(p.task, t.task);
        assert.equal(p.remote?.name, 'build', 'the connection is asked as the remote\'s');
        await human.decide(p.id, 'deny');
        assert.match(await tunnel, /^HTTP\/1\.1 403/);
        const mine = await ui.call<{ grant: Grant }>('grants.create', { task: t.task, action: 'transfer', resource: '**', effect: 'allow', remote: 'build' });
        assert.equal((await r.call<{ allowed: boolean }>('task.network', { task: t.token })).allowed, true, 'a grant for the remote does');
        await ui.call('grants.revoke', { id: mine.grant.id });
      } finally {
        await ui.call('grants.revoke', { id: local.grant.id });
      }
      await r.call('task.end', { task: t.token });
    } finally {
      r.close();
    }
  });
  test('what went through a remote task\'s connection is recorded with the remote, like the prompt that let it out; a local task\'s is not (control)', async () => {
    const upstream = net.createServer((s) => s.end('hello\n'));
    await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
    const port = (upstream.address() as net.AddressInfo).port;
    const r = await onRemote();
    /** Starts a task through `via`, lets one tunnel of it out, and returns its connect and summary events. */
    const throughTunnel = async (via: RpcClient, name: string) => {
      const t = await via.call<Started & { egress: { sock: string } | null }>('task.start', { name, cwd: '/repo' });
      assert.ok(t.egress, 'this daemon runs an egress proxy');
      const tunnel = connectTunnel(t.egress.sock, `127.0.0.1:${port}`);
      const p = await human.next();
      assert.equal(p.task, t.task);
      await human.decide(p.id, 'allow');
      const sock = await tunnel;
      await new Promise<void>((ok) => sock.on('close', () => ok()).resume());
      let summary: HistoryEvent | undefined;
      await waitFor(async () => !!(summary = (await latest(50)).find((e) => e.task === t.task && e.tool === 'net.tunnel')), 'the tunnel\'s summary event');
      const connect = (await latest(50)).find((e) => e.task === t.task && e.tool === 'net.connect');
      await via.call('task.end', { task: t.token });
      return { connect, summary: summary! };
    };
    try {
      const remote = await throughTunnel(r, 'remote tunnel');
      assert.equal(remote.connect?.remote?.name, 'build', 'the connection was asked as the remote\'s');
      // Before, the summary (what was sent and received) had no remote: history by remote missed it.
      assert.equal(remote.summary.remote?.name, 'build', 'what went through it is the remote\'s too');
      assert.match(remote.summary.remote?.via ?? '', /egress proxy of task .* \(started through remote build\)/);
      const local = await throughTunnel(agent, 'local tunnel');
      assert.equal(local.connect?.remote ?? null, null);
      assert.equal(local.summary.remote ?? null, null, 'a local task\'s connection is not marked remote');
    } finally {
      r.close();
      upstream.close();
    }
  });
});

describe('red team: what the human is shown', () => {
  test('task.start from a remote: its grants prompt is marked remote, "anything" still needs its own confirmation, the grants are for the remote only', async () => {
    const r = await onRemote();
    try {
      // Named like a running local task, and asking for a `remote` field it may not set.
      await agent.call<Started>('task.start', { name: 'deploy prod', cwd: '/repo' });
      const starting = r.call<Started>('task.start', {
        name: 'deploy prod',
        cwd: '/repo',
        grants: [
          // `remote: null` would make it a local grant: the socket decides, not the spec.
          { action: 'write', resource: '/repo/**', effect: 'allow', remote: null },
          { action: 'delete', resource: '{**,x}', effect: 'allow' },
        ],
      });
      const p = await human.next();
      assert.equal(p.remote?.name, 'build', 'the grants prompt says it comes from the remote');
      assert.ok(p.risk.reasons.some((x) => x.includes('same name')), JSON.stringify(p.risk.reasons));
      const marks = p.grants ?? [];
      assert.equal(marks[1]?.needsConfirmation, true, 'a blank cheque from a remote needs its own confirmation');
      await human.decide(p.id, 'allow', 'task');
      const t = await starting;
      assert.deepEqual(t.declined, [1], 'the unconfirmed blank cheque is not created');
      const grants = (await ui.call<{ grants: Grant[] }>('grants.list', { task: t.task })).grants;
      assert.equal(grants.length, 1);
      assert.equal(grants[0]?.remote, 'build');
      // The remote's task token used on this machine: the remote's grant does not answer here.
      const here = agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/a', summary: 'w', task: t.token });
      const q = await human.next();
      assert.equal(q.remote, undefined);
      await human.decide(q.id, 'deny');
      assert.equal((await here).decision, 'deny');
      // ...and it does from the remote.
      assert.equal((await r.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/a', summary: 'w', task: t.token })).decision, 'allow');
      await r.call('task.end', { task: t.token });
    } finally {
      r.close();
    }
  });

  test('odd and hostile fields from a remote: a remote field, ssh/egress sources, ui.sock methods in other spellings, huge lines', async () => {
    const r = await onRemote();
    try {
      await refused(r.call('request', del({ remote: { name: 'other', via: 'x' } })), -32602, 'a request naming a remote');
      // ssh/egress as a request's source: asked like any other request, marked remote (never
      // answered as if from a local key or a task's proxy).
      for (const source of ['ssh', 'egress']) {
        const res = r.call<AgentAnswer>('request', del({ source, resource: `/mail/${source}` })).then((a) => a.decision, (e: Error & { code?: number }) => e.code);
        const p = await promptOrAnswer(res);
        if (p) {
          assert.equal(p.remote?.name, 'build', source);
          await human.decide(p.id, 'deny');
          assert.equal(await res, 'deny', source);
        } else assert.equal(await res, -32602, `${source}: neither asked nor refused`);
      }
      for (const m of ['pending.list', 'Pending.list', 'pending.decide ', 'pending/decide', 'grants.create', 'remotes.add', 'remotes.remove', 'subscribe', 'history.query', '__proto__', 'constructor', 'toString']) {
        await refused(r.call(m, {}), -32601, m);
      }
      await refused(r.call('request', del({ summary: 'x'.repeat(200_000) })), -32602, 'a huge field');
      assert.deepEqual((await ui.call<{ remotes: Remote[] }>('remotes.list', {})).remotes.map((x) => x.name), ['build']);
    } finally {
      r.close();
    }
  });

  test('remote names that would escape the remotes directory or read like another are refused, over ui.sock too', async () => {
    const remotesDir = path.dirname(path.dirname(remoteSock));
    for (const name of ['../evil', 'a/b', '.', '..', 'a b', 'bu\u0456ld', 'build\u200b', '-x', 'x'.repeat(33), '', 'build\n', 'Build']) {
      const res = ui.call('remotes.add', { name }).then(() => 'added', (e: Error & { code?: number }) => e.code);
      const got = await res;
      if (name === 'Build') {
        // Case differs only: refused, the prompt label would read as the other remote.
        assert.equal(got, -32602, 'a name differing only in case from an existing remote');
      } else assert.equal(got, -32602, JSON.stringify(name));
    }
    assert.deepEqual(fs.readdirSync(remotesDir), ['build']);
    assert.ok(!fs.existsSync(path.join(path.dirname(remotesDir), 'evil')));
  });
});

describe('red team: a remote going away', () => {
  test('removing a remote while its prompts are open: they are denied and cleared at once, the socket refuses new connections', async () => {
    await ui.call('remotes.add', { name: 'gone' });
    const sock = (await ui.call<{ remotes: Remote[] }>('remotes.list', {})).remotes.find((x) => x.name === 'gone')!.socket;
    const r = await RpcClient.connect(sock);
    const asking = r.call<AgentAnswer>('request', del({ resource: '/mail/gone' })).then((a) => a.decision, () => 'closed');
    const p = await human.next();
    assert.equal(p.remote?.name, 'gone');
    await ui.call('remotes.remove', { name: 'gone' });
    assert.equal((await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.length, 0, 'the prompt is cleared');
    assert.ok(['deny', 'closed'].includes(await asking));
    await refused(human.decide(p.id, 'allow', 'always'), -32004, 'answering the removed remote\'s prompt');
    const ev = (await latest(5)).find((e) => e.resource === '/mail/gone');
    assert.equal(ev?.decision, 'deny');
    assert.equal(ev?.remote?.name, 'gone');
    await assert.rejects(RpcClient.connect(sock, 2000));
    r.close();
  });
});

describe('red team: a remote added again', () => {
  test('a remote removed and added again under the same name (perhaps another server) starts without the old one\'s allow grants; its deny grants stay', async () => {
    const sock = (await ui.call<{ remote: Remote }>('remotes.add', { name: 'again' })).remote.socket;
    const ask = async (resource: string) => {
      const r = await RpcClient.connect(sock);
      try {
        const answer = r.call<AgentAnswer>('request', del({ resource }));
        const p = await promptOrAnswer(answer);
        if (p) await human.decide(p.id, 'deny');
        return { prompted: p !== null, decision: (await answer).decision };
      } finally {
        r.close();
      }
    };
    const asking = RpcClient.connect(sock).then((r) => r.call<AgentAnswer>('request', del({ resource: '/mail/again' })).finally(() => r.close()));
    const p = await human.next();
    assert.equal(p.remote?.name, 'again');
    const { grant } = await human.decide(p.id, 'allow', 'always');
    assert.equal((await asking).decision, 'allow');
    await ui.call('grants.create', { action: 'delete', resource: '/mail/never', effect: 'deny', remote: 'again' });
    assert.deepEqual(await ask('/mail/again'), { prompted: false, decision: 'allow' }, 'the grant answers while the remote is there');
    await ui.call('remotes.remove', { name: 'again' });
    await ui.call('remotes.add', { name: 'again' });
    assert.deepEqual(await ask('/mail/again'), { prompted: true, decision: 'deny' }, 'the old allow grant does not answer the new remote');
    const grants = (await ui.call<{ grants: Grant[] }>('grants.list', { includeInactive: true })).grants.filter((g) => g.remote === 'again');
    assert.notEqual(grants.find((g) => g.id === grant?.id)?.revokedAt ?? null, null, 'revoked with its remote');
    assert.deepEqual(await ask('/mail/never'), { prompted: false, decision: 'deny' }, 'a deny grant stays');
    await ui.call('remotes.remove', { name: 'again' });
  });
});

describe('red team: a remote flooding prompts', () => {
  test('a remote holds at most maxPendingPerConnection prompts across all its connections, so this machine\'s agents are still asked', async () => {
    const before = (await ui.call<{ settings: Record<string, number> }>('settings.get', {})).settings;
    await ui.call('settings.set', { maxPendingPerConnection: 3, maxPendingTotal: 8, maxPendingPerTask: 3 });
    const conns = await Promise.all([0, 1, 2].map(() => onRemote()));
    const answers: Promise<unknown>[] = [];
    try {
      // Three connections of the remote, three prompts each (each within its own connection's cap).
      const outcomes: (string | number)[] = [];
      for (const [i, c] of conns.entries()) {
        for (let j = 0; j < 3; j++) {
          const a = c.call<AgentAnswer>('request', del({ resource: `/mail/flood/${i}/${j}` })).then((x) => x.decision, (e: Error & { code?: number }) => e.code ?? 'closed');
          answers.push(a);
          // Asked (a prompt is open) or answered (refused at once): looked for, not guessed from
          // a 300 ms pause, which a loaded machine can outlast before a refusal.
          let got: string | number | null = null;
          void a.then((x) => (got = x));
          const resource = `/mail/flood/${i}/${j}`;
          await waitFor(async () => got !== null || (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.some((p) => p.resource === resource), `request ${resource} asked or answered`);
          outcomes.push(got ?? 'asked');
        }
      }
      assert.equal(outcomes.filter((o) => o === 'asked').length, 3, `the remote as a whole gets 3 prompts: ${JSON.stringify(outcomes)}`);
      assert.equal(outcomes.filter((o) => o === -32001).length, 6, JSON.stringify(outcomes));
      // This machine is still asked.
      const local = agent.call<AgentAnswer>('request', del({ resource: '/mail/local-after-flood' }));
      const seen = await waitForPrompt((p) => p.resource === '/mail/local-after-flood');
      assert.equal(seen.remote, undefined);
      await human.decide(seen.id, 'deny');
      assert.equal((await local).decision, 'deny');
      const refusedRows = (await latest(30)).filter((e) => e.reason.includes('remote build'));
      assert.ok(refusedRows.length >= 1 && refusedRows.every((e) => e.remote?.name === 'build'), 'refusals are recorded with the remote');
    } finally {
      for (const c of conns) c.close();
      await Promise.allSettled(answers);
      await ui.call('settings.set', { maxPendingPerConnection: before.maxPendingPerConnection, maxPendingTotal: before.maxPendingTotal, maxPendingPerTask: before.maxPendingPerTask });
      // The Human queued the flood's prompts (now denied by the disconnects): drop them.
      while (human.unanswered().length) await human.next(100);
    }
  });
});

describe('red team: a leaked token starving its task', () => {
  test('prompts a remote makes as a local task count apart from the task\'s own: the task\'s agent here is still asked', async () => {
    const before = (await ui.call<{ settings: Record<string, number> }>('settings.get', {})).settings;
    await ui.call('settings.set', { maxPendingPerTask: 2 });
    const local = await agent.call<Started>('task.start', { name: 'starved?' });
    const r = await onRemote();
    const answers: Promise<unknown>[] = [];
    try {
      for (const i of [0, 1]) {
        answers.push(r.call<AgentAnswer>('request', del({ task: local.token, resource: `/mail/leak/${i}` })).catch(() => 'closed'));
        assert.equal((await human.next()).remote?.name, 'build');
      }
      const why = await r.call('request', del({ task: local.token, resource: '/mail/leak/2' })).then(() => 'answered', (e: Error & { code?: number }) => `${e.code} ${e.message}`);
      // The task's own agent on this machine is still asked.
      const mine = agent.call<AgentAnswer>('request', del({ task: local.token, resource: '/mail/mine' }));
      const p = await human.next(5000);
      assert.equal(p.remote, undefined);
      assert.equal(p.resource, '/mail/mine');
      await human.decide(p.id, 'deny');
      assert.equal((await mine).decision, 'deny');
      assert.match(why, /^-32001 .*from remote build/, 'the remote\'s third is refused, saying which share is full');
    } finally {
      r.close();
      await Promise.allSettled(answers);
      await ui.call('settings.set', { maxPendingPerTask: before.maxPendingPerTask });
      await agent.call('task.end', { task: local.token });
    }
  });
});

/** The open prompt matching `pred` (bounded wait), from the list: earlier prompts may be queued in the Human. */
async function waitForPrompt(pred: (p: Prompt) => boolean): Promise<Prompt> {
  for (let i = 0; i < 600; i++) {
    const p = (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.find(pred);
    if (p) return p;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('no such prompt within 30 s');
}

describe('red team: history of a remote', () => {
  test('lines a remote\'s socket rejects are recorded with the remote, like its requests', async () => {
    const r = await onRemote();
    try {
      await refused(r.call('grants.create', { action: '*', effect: 'allow' }), -32601, 'a ui method');
      await refused(r.call('request', { source: 'api' }), -32602, 'a bad request');
      const rejected = (await latest(10)).filter((e) => e.decision === 'reject');
      const mine = rejected.filter((e) => e.source.startsWith('remotes/build'));
      assert.ok(mine.length >= 1, JSON.stringify(rejected.map((e) => e.source)));
      for (const e of mine) assert.equal(e.remote?.name, 'build', `rejected line recorded with its remote: ${e.summary}`);
    } finally {
      r.close();
    }
  });

  test('a connection over the cap on a remote\'s socket is refused and recorded with the remote', async () => {
    const open: net.Socket[] = [];
    try {
      let refusal = '';
      for (let i = 0; i < 140 && !refusal; i++) {
        const s = net.createConnection(remoteSock);
        open.push(s);
        refusal = await new Promise<string>((res) => {
          let got = '';
          s.on('data', (b) => (got += b.toString()));
          s.on('close', () => res(got || 'closed'));
          s.on('error', () => undefined);
          s.on('connect', () => setTimeout(() => res(got), 30));
        });
      }
      assert.match(refusal, /-32001/, 'one connection over the cap is refused');
      let row: HistoryEvent | undefined;
      for (let i = 0; i < 50 && !row; i++) {
        row = (await latest(20)).find((e) => e.tool === '(connect)' && e.source.startsWith('remotes/build'));
        if (!row) await new Promise((res) => setTimeout(res, 100));
      }
      assert.equal(row?.remote?.name, 'build', 'the refusal is recorded with the remote');
    } finally {
      for (const s of open) s.destroy();
    }
  });
});
