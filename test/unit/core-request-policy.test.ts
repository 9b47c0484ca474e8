// RequestPolicy on its own: normalise → classify → risk → grants → verdict, table by
// table, with the world given as plain values (no store, no daemon, no clock).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentRequest } from '../../main/contract/agent';
import type { Grant, Settings } from '../../main/contract/approver';
import { RPC, RpcError } from '../../main/contract/rpc';
import { GrantIndex } from '../../main/core/grants';
import type { CommandClassifier, RequestContext } from '../../main/core/ports';
import { RequestPolicy, type PolicyFacts, type Verdict } from '../../main/core/request-policy';
import type { TaskMemory } from '../../main/core/risk';
import { DEFAULT_SETTINGS } from '../../main/core/settings';

const NOW = 1_800_000_000_000;

function grant(p: Partial<Grant>): Grant {
  return {
    id: 'g_1', task: null, source: '*', tool: '*', action: 'write', resource: '/repo/**', key: null, effect: 'allow', expiresAt: null,
    usesLeft: null, forwarded: false, remote: null, note: null, createdAt: NOW - 1000, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null, ...p,
  };
}

interface World {
  grants?: Grant[];
  settings?: Partial<Settings>;
  tasks?: Record<string, { name: string; cwd: string | null; ended?: boolean; token?: string }>;
  mcp?: Record<string, { annotations: Record<string, unknown> | null; description: string | null }>;
  memory?: Record<string, TaskMemory>;
  classifier?: CommandClassifier;
}

function policy(w: World = {}): RequestPolicy {
  const settings = { ...DEFAULT_SETTINGS, ...w.settings, policy: { ...DEFAULT_SETTINGS.policy, ...w.settings?.policy } };
  const tasks = w.tasks ?? {};
  const facts: PolicyFacts = {
    settings: () => settings,
    liveTask: (id) => {
      const t = tasks[id];
      if (!t) throw new RpcError(RPC.invalidParams, `invalid params: task: no task ${id}`);
      if (t.ended) throw new RpcError(RPC.invalidParams, `invalid params: task: task ${id} has ended`);
      return t;
    },
    authorizeTask: (p) => {
      const t = p.task ? tasks[p.task] : undefined;
      if (!t || !p.token || t.token !== p.token) throw new RpcError(RPC.invalidParams, 'invalid params: token: not the token');
      return p.task!;
    },
    mcpTool: (s, t) => w.mcp?.[`${s}/${t}`] ?? null,
    activeGrants: () => new GrantIndex(w.grants ?? []),
    memoryOf: (t) => w.memory?.[t] ?? {},
  };
  return new RequestPolicy(facts, { classifier: w.classifier, now: () => NOW });
}

function req(p: Partial<AgentRequest> = {}): AgentRequest {
  return { source: 'api', tool: 'fs.write', action: 'write', resource: '/repo/a.txt', summary: 'write a.txt', ...p };
}

const brief = (v: Verdict) => (v.kind === 'prompt' ? `prompt${v.nearMiss ? ` (${v.nearMiss})` : ''}` : `${v.decision} by ${v.decidedBy}${v.grant ? ` ${v.grant}` : ''}`);

const rows: { name: string; world?: World; r?: Partial<AgentRequest>; ctx?: RequestContext; expect: RegExp }[] = [
  { name: 'a read is allowed by the default policy', r: { action: 'read', tool: 'fs.read' }, expect: /^allow by policy$/ },
  { name: 'a write with no grant asks the human', expect: /^prompt$/ },
  { name: 'a policy set to deny denies without asking', world: { settings: { policy: { ...DEFAULT_SETTINGS.policy, write: 'deny' } } }, expect: /^deny by policy$/ },
  { name: 'a policy set to allow still asks for a high-risk write (a git hook runs code later)', world: { settings: { policy: { ...DEFAULT_SETTINGS.policy, write: 'allow' } } }, r: { resource: '/repo/.git/hooks/pre-commit' }, expect: /^prompt$/ },
  { name: 'a matching allow grant allows', world: { grants: [grant({})] }, expect: /^allow by grant g_1$/ },
  { name: 'a matching deny grant denies, even beside an allow grant', world: { grants: [grant({}), grant({ id: 'g_2', effect: 'deny' })] }, expect: /^deny by grant g_2$/ },
  { name: 'an allow grant for another resource does not allow, and is named as a near miss', world: { grants: [grant({ resource: '/other/**' })] }, expect: /^prompt \(.+\)$/ },
  { name: 'an allow grant for another action does not allow', world: { grants: [grant({ action: 'read' })] }, expect: /^prompt/ },
  { name: 'an expired grant does not allow', world: { grants: [grant({ expiresAt: NOW - 1 })] }, expect: /^prompt/ },
  { name: 'a grant bound to a task does not allow a request outside it', world: { grants: [grant({ task: 't_1' })] }, expect: /^prompt/ },
  {
    name: 'a grant bound to a task allows that task\'s request (the task of its own socket)',
    world: { grants: [grant({ task: 't_1' })], tasks: { t_1: { name: 'one', cwd: '/repo' } } },
    ctx: { boundTask: 't_1' },
    expect: /^allow by grant g_1$/,
  },
  { name: 'a grant for a remote does not allow the same request made locally', world: { grants: [grant({ remote: 'box' })] }, expect: /^prompt/ },
  { name: 'a grant for a remote allows that remote\'s request', world: { grants: [grant({ remote: 'box' })] }, ctx: { remote: { name: 'box', via: 'ssh box' } }, expect: /^allow by grant g_1$/ },
  {
    name: 'a critical request is never allowed by a grant alone (it reads secrets and sends them out)',
    world: { grants: [grant({ action: 'transfer', resource: '**' })], tasks: { t_1: { name: 'one', cwd: null } }, memory: { t_1: { secretRead: '/home/u/.ssh/id_ed25519' } } },
    r: { action: 'transfer', tool: 'net.post', resource: 'https://example.com/' },
    ctx: { boundTask: 't_1' },
    expect: /^prompt/,
  },
  {
    name: 'a deny grant still denies a critical request',
    world: { grants: [grant({ action: 'transfer', resource: '**', effect: 'deny' })], tasks: { t_1: { name: 'one', cwd: null } }, memory: { t_1: { secretRead: '/home/u/.ssh/id_ed25519' } } },
    r: { action: 'transfer', tool: 'net.post', resource: 'https://example.com/' },
    ctx: { boundTask: 't_1' },
    expect: /^deny by grant g_1$/,
  },
];

for (const row of rows) {
  test(`policy: ${row.name}`, () => {
    assert.match(brief(policy(row.world).decide(req(row.r), row.ctx ?? {})), row.expect);
  });
}

test('policy: a grant with a use count is handed back so the broker can spend it', () => {
  const v = policy({ grants: [grant({ usesLeft: 2, note: 'twice' })] }).decide(req(), {});
  assert.equal(v.kind, 'answer');
  assert.deepEqual(v.kind === 'answer' && v.grants?.map((g) => g.id), ['g_1']);
  assert.match(v.kind === 'answer' ? v.reason : '', /allowed by grant g_1 \(twice\)/);
});

test('policy: a task named on a shared socket needs its token; unknown and ended tasks are refused', () => {
  const p = policy({ tasks: { t_1: { name: 'one', cwd: null, token: 'tok' }, t_2: { name: 'two', cwd: null, ended: true, token: 'tok2' } } });
  assert.throws(() => p.decide(req({ task: 't_1' }), {}), /token/);
  assert.throws(() => p.decide(req({ task: 't_1', token: 'nope' as never }), {}), /token/);
  assert.equal(p.decide(req({ task: 't_1', token: 'tok' as never }), {}).req.task, 't_1');
  assert.throws(() => p.decide(req({ task: 't_2', token: 'tok2' as never }), {}), /has ended/);
});

test('policy: on a task\'s own socket the request is that task\'s whatever it claims, and the claim raises risk', () => {
  const p = policy({ tasks: { t_1: { name: 'one', cwd: '/repo' }, t_2: { name: 'two', cwd: null } } });
  const v = p.decide(req({ task: 't_2' }), { boundTask: 't_1' });
  assert.equal(v.req.task, 't_1');
  assert.deepEqual(v.req.taskInfo, { name: 'one', cwd: '/repo' });
  assert.ok(v.risk.reasons.some((r) => /named task t_2, but came through the socket of task t_1/.test(r)), v.risk.reasons.join('; '));
});

test('policy: only the egress proxy speaks for source egress, and it always says so', () => {
  const p = policy();
  assert.throws(() => p.decide(req({ source: 'egress', action: 'transfer', tool: 'net.connect' }), {}), /egress requests come only from the task's egress proxy/);
  const facts = { host: 'example.com', port: 443, address: null, method: 'CONNECT', sentBytes: 0, receivedBytes: 0, destinations: 0 };
  assert.throws(() => p.decide(req(), { egress: facts }), /egress/);
  assert.equal(p.decide(req({ source: 'egress', action: 'transfer', tool: 'net.connect', resource: 'example.com:443' }), { egress: facts }).kind, 'prompt');
});

test('policy: a wildcard over hosts does not reach this machine or the local network through the egress proxy; a grant naming it does', () => {
  const facts = (host: string, local?: string) => ({ host, port: 8080, address: host, method: 'CONNECT', sentBytes: 0, receivedBytes: 0, destinations: 0, ...(local ? { local } : {}) });
  const ask = (grants: Grant[], host: string, local?: string) =>
    brief(policy({ grants }).decide(req({ source: 'egress', action: 'transfer', tool: 'net.connect', resource: `${host.includes(':') ? `[${host}]` : host}:8080` }), { egress: facts(host, local) }));
  const g = (resource: string, id = 'g_1') => grant({ id, source: 'egress', action: 'transfer', resource });
  // Not local: every spelling of a wildcard covers it, as before.
  for (const r of ['*', '**', '*:8080', '*.example.com:*']) assert.match(ask([g(r)], 'api.example.com'), /^allow by grant g_1$/, r);
  // Local: a wildcard stops short, and says so; the human is asked.
  for (const r of ['*', '**', '*:8080', '*:*', '*.0.0.1:*']) {
    assert.match(ask([g(r)], '127.0.0.1', 'this machine (loopback)'), /^prompt \(grant g_1 .* covers any host, not this machine \(loopback\): asked; a grant naming 127\.0\.0\.1:8080 would cover it\)$/, r);
  }
  assert.match(ask([g('*')], '::ffff:7f00:1', 'this machine (loopback)'), /^prompt/);
  // A grant that names the host covers it, also beside a wildcard that does not.
  for (const r of ['127.0.0.1:8080', '127.0.0.1:*', '{localhost:1,127.0.0.1:8080}']) assert.match(ask([g(r)], '127.0.0.1', 'this machine (loopback)'), /^allow by grant g_1$/, r);
  assert.match(ask([g('*'), g('127.0.0.1:*', 'g_2')], '127.0.0.1', 'this machine (loopback)'), /^allow by grant g_2$/);
  assert.match(ask([g('\\[::ffff:7f00:1\\]:8080')], '::ffff:7f00:1', 'this machine (loopback)'), /^allow by grant g_1$/);
  // A deny still denies.
  assert.match(ask([g('*'), grant({ id: 'g_3', source: 'egress', action: 'transfer', resource: '*', effect: 'deny' })], '127.0.0.1', 'this machine (loopback)'), /^deny by grant g_3$/);
});

test('policy: the daemon re-classifies shell text; the caller\'s action is never trusted downwards', () => {
  const classifier: CommandClassifier = () => ({ action: 'delete', resources: ['/repo/build'], parts: [{ command: 'rm -rf build', action: 'delete', resources: ['/repo/build'] }], riskReasons: [] });
  const v = policy({ classifier }).decide(req({ source: 'exec', tool: 'exec', action: 'read', resource: undefined, args: { command: 'rm -rf build' } }), {});
  assert.equal(v.req.action, 'delete');
  assert.deepEqual(v.req.resources, ['/repo/build']);
  assert.ok(v.risk.reasons.some((r) => /called this read, but the command does delete/.test(r)));
  assert.equal(v.kind, 'prompt');
});

test('policy: grants covering every part of a command allow it; one uncovered part asks, naming it', () => {
  const classifier: CommandClassifier = () => ({
    action: 'write', resources: ['/repo/a', '/etc/b'],
    parts: [{ command: 'touch a', action: 'write', resources: ['/repo/a'] }, { command: 'touch /etc/b', action: 'write', resources: ['/etc/b'] }],
    riskReasons: [],
  });
  const ask = (grants: Grant[]) => policy({ classifier, grants }).decide(req({ source: 'exec', tool: 'exec', resource: undefined, args: { command: 'touch a; touch /etc/b' } }), {});
  assert.match(brief(ask([grant({ resource: '/repo/**' })])), /^prompt \(the rest of this command is allowed; not covered: `touch \/etc\/b`\)$/);
  assert.match(brief(ask([grant({ resource: '/repo/**' }), grant({ id: 'g_2', resource: '/etc/**' })])), /^allow by grant g_1/);
});

test('policy: an MCP call\'s action: the human\'s pin, else the server\'s annotations, else never a read by name', () => {
  const mcp = (w: World, args?: unknown) => policy(w).decide(req({ source: 'mcp', tool: 'docs/get_page', action: 'read', resource: undefined, args }), {}).req;
  const byName = mcp({});
  assert.equal(byName.action, 'write');
  assert.equal(byName.actionOrigin, 'name');
  const learned = mcp({ mcp: { 'docs/get_page': { annotations: { readOnlyHint: true }, description: null } } });
  assert.equal(learned.action, 'read');
  assert.equal(learned.actionOrigin, 'annotation');
  const sent = mcp({}, { annotations: { readOnlyHint: true } });
  assert.equal(sent.action, 'read');
  const pinned = mcp({ settings: { mcpToolActions: { 'docs/get_page': 'delete' } }, mcp: { 'docs/get_page': { annotations: { readOnlyHint: true }, description: null } } });
  assert.equal(pinned.action, 'delete');
  assert.equal(pinned.actionOrigin, 'pin');
  // A tool named like an Object.prototype member is not a pin.
  assert.equal(policy().decide(req({ source: 'mcp', tool: 'constructor', action: 'write' }), {}).req.actionOrigin, undefined);
});

test('policy: deciding has no effect on the world it was given', () => {
  const g = grant({ usesLeft: 1 });
  const p = policy({ grants: [g] });
  p.decide(req(), {});
  p.decide(req(), {});
  assert.equal(g.usesLeft, 1);
  assert.equal(g.lastUsedAt, null);
});
