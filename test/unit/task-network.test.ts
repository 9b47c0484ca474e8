// task.network counts exactly the grants that would answer the task's egress requests. Each
// case puts one grant (or a pair) in force, asks task.network, and decides real egress
// requests of the same task through the policy (as the task's egress proxy sends them), so
// the bit and the decisions are checked against each other, not against a copy of the rules.
// (Red team: it counted every transfer grant of the task or of no task, whatever its
// `forwarded`, `when`, resource or expiry.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentRequest, GrantSpec } from '../../main/contract/agent';
import type { EgressFacts, RequestContext } from '../../main/core/ports';
import { makeParts, T0, type Parts } from './core-parts';

function egress(task: string, host: string, port: number): { req: AgentRequest; ctx: RequestContext } {
  const facts: EgressFacts = { host, port, address: null, method: 'CONNECT', sentBytes: 0, receivedBytes: 0, destinations: 0 };
  return {
    req: { source: 'egress', tool: 'net.connect', action: 'transfer', resource: `${host}:${port}`, summary: `connect to ${host}:${port}`, args: facts, task },
    ctx: { boundTask: task, egress: facts },
  };
}

/** How the policy answers the task's connection: the grant that answered it, or "asked". */
function decided(p: Parts, task: string, host = 'example.com', port = 443): string {
  const { req, ctx } = egress(task, host, port);
  const v = p.policy.decide(req, ctx);
  return v.kind === 'prompt' ? 'asked' : `${v.decision} by ${v.grant ?? v.decidedBy}`;
}

async function setUp() {
  const p = makeParts();
  const t = await p.lifecycle.startTask({ name: 'local job' }, {});
  const other = await p.lifecycle.startTask({ name: 'other job' }, {});
  const remote = await p.lifecycle.startTask({ name: 'remote job' }, { remote: { name: 'build', via: 'ssh me@build (pid 1)' } });
  const grant = (spec: Omit<GrantSpec, 'effect'> & { effect?: 'allow' | 'deny' }) => p.tasks.createGrant({ effect: 'allow', ...spec }, 'human').id;
  const clear = () => {
    for (const g of p.tasks.listGrants({})) p.tasks.revokeGrant(g.id);
  };
  return { p, t: t.task, other: other.task, remote: remote.task, grant, clear };
}

test('task.network: a transfer grant for the task counts, and answers its connections; none: asked', async () => {
  const { p, t, grant, clear } = await setUp();
  try {
    assert.deepEqual(p.tasks.taskNetwork(t), { allowed: false, reason: 'the task holds no transfer grant' });
    assert.equal(decided(p, t), 'asked');
    const g = grant({ action: 'transfer', task: t });
    assert.deepEqual(p.tasks.taskNetwork(t), { allowed: true, reason: `grant ${g} allows transfers` });
    assert.equal(decided(p, t), `allow by ${g}`);
    clear();
    const h = grant({ action: 'transfer', resource: 'example.com:443' });
    assert.deepEqual(p.tasks.taskNetwork(t), { allowed: true, reason: `grant ${h} allows transfers to example.com:443` }, 'a grant for one destination answers that one');
    assert.equal(decided(p, t), `allow by ${h}`);
    assert.equal(decided(p, t, 'other.example', 443), 'asked');
  } finally {
    p.close();
  }
});

test('task.network: an expired grant does not count, even while the grant index is still the one built before it expired', async () => {
  const { p, t, grant } = await setUp();
  try {
    const g = grant({ action: 'transfer', expiresAt: T0 + 60_000 });
    assert.equal(p.tasks.taskNetwork(t).allowed, true);
    assert.equal(decided(p, t), `allow by ${g}`);
    p.clock.now = T0 + 60_000;
    assert.equal(decided(p, t), 'asked', 'the decision: expired');
    assert.deepEqual(p.tasks.taskNetwork(t), { allowed: false, reason: 'the task holds no transfer grant' });
  } finally {
    p.close();
  }
});

test('task.network: an allow grant under a condition is not the network (each connection is asked unless it holds); a deny under one counts', async () => {
  const { p, t, grant, clear } = await setUp();
  try {
    const g = grant({ action: 'transfer', when: 'args.port == 443' });
    const n = p.tasks.taskNetwork(t);
    assert.equal(n.allowed, false);
    assert.match(n.reason, new RegExp(`grant ${g} allows transfers only when .*443.*: each connection is asked unless that holds`));
    assert.equal(decided(p, t, 'example.com', 443), `allow by ${g}`, 'it holds: answered');
    assert.equal(decided(p, t, 'example.com', 80), 'asked', 'it does not: asked');
    clear();
    grant({ action: 'transfer' });
    const d = grant({ action: 'transfer', effect: 'deny', when: 'args.port == 25' });
    assert.deepEqual(p.tasks.taskNetwork(t), { allowed: false, reason: 'a grant denies transfers for this task' });
    assert.equal(decided(p, t, 'mail.example', 25), `deny by ${d}`);
  } finally {
    p.close();
  }
});

test('task.network: grants of another remote, another task, an SSH key or forwarded signing, another tool or source do not count; forwarded without a key only widens', async () => {
  const { p, t, other, grant, clear } = await setUp();
  try {
    const cases: [string, Omit<GrantSpec, 'effect'>][] = [
      ['for a remote (this task is local)', { action: 'transfer', remote: 'build' }],
      ['another task\'s', { action: 'transfer', task: other }],
      ['forwarded SSH signing with a key', { action: '*', forwarded: true, key: 'SHA256:abc' }],
      ['another tool', { action: 'transfer', tool: 'fs.*' }],
      ['another source', { action: 'transfer', source: 'mcp' }],
      ['another action', { action: ['write', 'delete'] }],
    ];
    for (const [what, spec] of cases) {
      grant(spec);
      assert.deepEqual(p.tasks.taskNetwork(t), { allowed: false, reason: 'the task holds no transfer grant' }, what);
      assert.equal(decided(p, t), 'asked', `${what}: the connection is asked too`);
      clear();
    }
    // `forwarded: true` lets a grant also match forwarded SSH requests; a connection is not one.
    const f = grant({ action: 'transfer', forwarded: true });
    assert.equal(p.tasks.taskNetwork(t).allowed, true);
    assert.equal(decided(p, t), `allow by ${f}`);
  } finally {
    p.close();
  }
});

test('task.network: a transfer grant whose resource is no network destination (a path, ~/, a command, a URL) neither gives nor takes the network', async () => {
  const { p, t, grant, clear } = await setUp();
  try {
    for (const resource of ['/repo/**', '~/uploads/*', 'git push *', 'https://example.com/*', 's3://bucket/**']) {
      grant({ action: 'transfer', resource });
      assert.deepEqual(p.tasks.taskNetwork(t), { allowed: false, reason: 'the task holds no transfer grant' }, resource);
      assert.equal(decided(p, t), 'asked', resource);
      clear();
      const a = grant({ action: 'transfer' });
      grant({ action: 'transfer', effect: 'deny', resource });
      assert.deepEqual(p.tasks.taskNetwork(t), { allowed: true, reason: `grant ${a} allows transfers` }, `a deny on ${resource} does not take the network`);
      assert.equal(decided(p, t), `allow by ${a}`, resource);
      clear();
    }
    // A pattern over hosts does count, either way.
    const d = grant({ action: 'transfer', effect: 'deny', resource: '*.evil.example:*' });
    grant({ action: 'transfer' });
    assert.equal(p.tasks.taskNetwork(t).allowed, false);
    assert.equal(decided(p, t, 'x.evil.example', 443), `deny by ${d}`);
  } finally {
    p.close();
  }
});

test('task.network: a task started through a remote counts that remote\'s grants, as its connections are decided; the asker does not change the answer', async () => {
  const { p, remote, t, grant, clear } = await setUp();
  try {
    grant({ action: 'transfer' });
    assert.deepEqual(p.tasks.taskNetwork(remote), { allowed: false, reason: 'the task holds no transfer grant' }, 'a local allow grant does not give a remote\'s task the network');
    const { req, ctx } = egress(remote, 'example.com', 443);
    const v = p.policy.decide(req, ctx);
    assert.equal(v.kind, 'prompt', 'its connection is asked');
    assert.equal(v.req.remote?.name, 'build', 'marked as the remote\'s');
    assert.match(v.req.remote?.via ?? '', /egress proxy of task/);
    assert.equal(decided(p, t), 'allow by ' + p.tasks.listGrants({})[0]!.id, 'the local task\'s connection is answered');
    clear();
    const g = grant({ action: 'transfer', remote: 'build' });
    assert.equal(p.tasks.taskNetwork(remote).allowed, true);
    assert.equal(decided(p, remote), `allow by ${g}`);
    assert.equal(p.tasks.taskNetwork(t).allowed, false, 'and not the local task');
    clear();
    // A deny without a remote denies everywhere, the remote's connections too.
    grant({ action: 'transfer', remote: 'build' });
    const d = grant({ action: 'transfer', effect: 'deny' });
    assert.equal(p.tasks.taskNetwork(remote).allowed, false);
    assert.equal(decided(p, remote), `deny by ${d}`);
  } finally {
    p.close();
  }
});
