// MCP methods other than tools/call (core/classify/mcp-methods.ts, mcp-uri.ts) and how the
// daemon judges them (request-policy.ts): every reading of a file: URI is a resource, a
// network URL is a transfer, odd spellings of a method are told apart from new methods,
// and the agent side can only make such a request riskier.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentRequest } from '../../main/contract/agent';
import type { Grant } from '../../main/contract/approver';
import { GrantIndex } from '../../main/core/grants';
import { clientMethodRule, mcpMethodVerdict, oddSpellingOf } from '../../main/core/classify/mcp-methods';
import { fileUriPaths, uriTarget } from '../../main/core/classify/mcp-uri';
import { RequestPolicy, type PolicyFacts } from '../../main/core/request-policy';
import { DEFAULT_SETTINGS } from '../../main/core/settings';

const CWD = '/work/proj';

test('red team: every spelling of a file: URI yields the path a server may open (localhost, case, no slashes, escapes, .., a host, ~, relative)', () => {
  const rows: [string, string[]][] = [
    ['file:///home/u/.ssh/id_ed25519', ['/home/u/.ssh/id_ed25519']],
    ['file://localhost/home/u/.ssh/id_ed25519', ['/home/u/.ssh/id_ed25519', 'localhost/home/u/.ssh/id_ed25519'].map((p, i) => (i ? `${CWD}/${p}` : p))],
    ['FILE:///etc/passwd', ['/etc/passwd']],
    ['file:/etc/passwd', ['/etc/passwd']],
    ['file:.env', ['/.env', `${CWD}/.env`]],
    ['file:///a/%2e%2e/home/u/.aws/credentials', ['/home/u/.aws/credentials', '/a/%2e%2e/home/u/.aws/credentials', '/a/../home/u/.aws/credentials']],
    ['file:///a/x%2F..%2F.ssh/id', ['/a/x/../.ssh/id', '/a/x%2F..%2F.ssh/id']],
    ['file://~/.ssh/id_rsa', ['/.ssh/id_rsa', '~/.ssh/id_rsa']],
    ['file://evil.example/etc/shadow', ['/etc/shadow', `${CWD}/evil.example/etc/shadow`]],
    ['fi\tle:///etc/passwd', ['/etc/passwd']],
    ['  file:///etc/passwd', ['/etc/passwd']],
  ];
  for (const [uri, want] of rows) {
    const got = fileUriPaths(uri, CWD);
    assert.ok(got, uri);
    for (const p of want) assert.ok(got.includes(p), `${JSON.stringify(uri)}: ${p} missing from ${JSON.stringify(got)}`);
  }
  assert.equal(fileUriPaths('notes://today', CWD), null);
  assert.equal(fileUriPaths('https://x.example/a', CWD), null);
  assert.equal(fileUriPaths('filed:///etc/passwd', CWD), null);
});

test('a URI names what it reaches: a file is its paths (a read), an http(s) resource a transfer to its host, anything else mcp:SERVER:URI', () => {
  assert.deepEqual(uriTarget('file:///work/proj/a.md', 'fs', CWD), { action: 'read', resources: ['/work/proj/a.md'], reasons: [] });
  const web = uriTarget('https://Paste.Example/x?d=SECRET', 'web', CWD);
  assert.equal(web.action, 'transfer');
  assert.deepEqual(web.resources, ['paste.example']);
  assert.deepEqual(uriTarget('postgres-schema://users', 'db', CWD).resources, ['mcp:db:postgres-schema://users']);
  // No scheme at all: a lenient server may take it as a path.
  assert.deepEqual(uriTarget('.env', 'fs', CWD).resources, ['mcp:fs:.env', `${CWD}/.env`]);
  const hosted = uriTarget('file://evil.example/etc/shadow', 'fs', CWD);
  assert.deepEqual(hosted.resources, ['file://evil.example/etc/shadow', '/etc/shadow', `${CWD}/evil.example/etc/shadow`], 'kept whole too: no path grant covers it');
  assert.ok(hosted.reasons.some((r) => /names a host/.test(r.reason)), JSON.stringify(hosted.reasons));
});

test('red team: method names — odd spellings of known methods are told apart from new methods; unknown ones are asked, never passed', () => {
  assert.equal(clientMethodRule('tools/call'), 'tools/call');
  for (const m of ['resources/read', 'resources/subscribe', 'prompts/get', 'custom/doThing', 'resources/write', 'Resources/Read', '']) assert.equal(clientMethodRule(m), 'ask', m);
  for (const m of ['initialize', 'ping', 'tools/list', 'resources/list', 'prompts/list', 'completion/complete', 'logging/setLevel', 'notifications/cancelled']) assert.equal(clientMethodRule(m), 'pass', m);
  for (const [m, is] of [['Resources/Read', 'resources/read'], ['resources/read ', 'resources/read'], [' tools/call', 'tools/call'], ['TOOLS/CALL', 'tools/call'], ['prompts/get\u200b', 'prompts/get'], ['ｒｅｓｏｕｒｃｅｓ/read', 'resources/read']] as const) {
    assert.equal(oddSpellingOf(m), is, JSON.stringify(m));
  }
  assert.equal(oddSpellingOf('resources/read'), null);
  assert.equal(oddSpellingOf('custom/doThing'), null);
  const unknown = mcpMethodVerdict('custom/doThing', { path: '/home/u/.env' }, 'srv', CWD);
  assert.equal(unknown.action, 'other');
  assert.ok(unknown.resources.includes('/home/u/.env'), 'a path in its params is judged too');
});

test('red team: params that cannot be judged are refused: no URI, a URI longer than can be judged whole, a prompt with no name', () => {
  assert.match(mcpMethodVerdict('resources/read', {}, 'fs').refuse ?? '', /needs params.uri/);
  assert.match(mcpMethodVerdict('resources/read', { uri: 42 }, 'fs').refuse ?? '', /needs params.uri/);
  // A path cut to fit could drop the secret at its end.
  assert.match(mcpMethodVerdict('resources/read', { uri: `file:///work/${'a/'.repeat(3000)}../../.ssh/id_rsa` }, 'fs').refuse ?? '', /longer than/);
  assert.match(mcpMethodVerdict('prompts/get', { arguments: {} }, 'fs').refuse ?? '', /needs params.name/);
  // Extra fields a lenient server might read instead of the URI are judged too.
  assert.ok(mcpMethodVerdict('resources/read', { uri: 'file:///work/proj/a', path: '/home/u/.ssh/id_rsa' }, 'fs', CWD).resources.includes('/home/u/.ssh/id_rsa'));
});

function policy(grants: Grant[] = [], mcp: Record<string, { annotations: Record<string, unknown> | null; description: string | null }> = {}): RequestPolicy {
  const facts: PolicyFacts = {
    settings: () => DEFAULT_SETTINGS,
    liveTask: () => ({ name: 't', cwd: CWD }),
    authorizeTask: () => 't',
    mcpTool: (s, t) => mcp[`${s}/${t}`] ?? null,
    activeGrants: () => new GrantIndex(grants),
    memoryOf: () => ({}),
  };
  return new RequestPolicy(facts);
}
const ctx = { process: null, ssh: null } as unknown as Parameters<RequestPolicy['normalize']>[1];
const mcpReq = (p: Partial<AgentRequest>): AgentRequest => ({ source: 'mcp', tool: 'fs/resources/read', action: 'read', summary: 's', cwd: CWD, ...p });

test('red team: the daemon derives a resources/read from its URI; the proxy\'s word only adds (a claimed read of an https URL is a transfer; a claimed resource cannot replace the URI\'s path)', () => {
  const p = policy();
  const web = p.normalize(mcpReq({ resource: '/work/proj/ok', args: { method: 'resources/read', arguments: { uri: 'https://paste.example/?k=SECRET' } } }), ctx);
  assert.equal(web.action, 'transfer');
  assert.ok(web.resources.includes('paste.example') && web.resources.includes('/work/proj/ok'), JSON.stringify(web.resources));
  const key = p.normalize(mcpReq({ resource: '/work/proj/ok', args: { method: 'resources/read', arguments: { uri: 'FILE://localhost/home/u/.ssh/id_rsa' } } }), ctx);
  assert.ok(key.resources.includes('/home/u/.ssh/id_rsa'), JSON.stringify(key.resources));
  const v = p.evaluate(key);
  assert.ok(v.risk.reasons.some((r) => /\.ssh/.test(r)), v.risk.reasons.join('; '));
  // A claimed execute stays an execute.
  assert.equal(p.normalize(mcpReq({ action: 'execute', args: { method: 'resources/read', arguments: { uri: 'file:///work/proj/a' } } }), ctx).action, 'execute');
  // Without a URI the request cannot be judged: other (asked), never a read.
  assert.equal(p.normalize(mcpReq({ args: { method: 'resources/read', arguments: {} } }), ctx).action, 'other');
});

test('red team: a server tool named resources/read is a tool call (no args.method), judged by its annotations and name, never as a resource read', () => {
  const p = policy([], { 'fs/resources/read': { annotations: { destructiveHint: true }, description: 'deletes things' } });
  const call = p.normalize(mcpReq({ args: { arguments: { path: '/work/proj/a' }, annotations: { destructiveHint: true }, description: 'deletes things' } }), ctx);
  assert.equal(call.action, 'delete');
  // args.method that does not match the label is not a method request either.
  const lie = p.normalize(mcpReq({ tool: 'fs/delete_everything', args: { method: 'resources/read', arguments: { uri: 'file:///work/proj/a' } } }), ctx);
  assert.equal(lie.action, 'delete');
});

test('grants cover MCP method requests by their label: a deny on fs/resources/read and a path denies the read of that path however the URI spells it', () => {
  const deny: Grant = {
    id: 'g_d', task: null, source: 'mcp', tool: 'fs/resources/read', action: 'read', resource: '/home/u/.ssh/**', key: null, effect: 'deny', expiresAt: null,
    usesLeft: null, forwarded: false, remote: null, note: null, createdAt: 0, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null,
  };
  const p = policy([deny]);
  for (const uri of ['file:///home/u/.ssh/id_rsa', 'file://localhost/home/u/.ssh/id_rsa', 'FILE:/home/u/.ssh/id_rsa', 'file:///home/u/%2essh/id_rsa', 'file:///tmp/%2e%2e/home/u/.ssh/id_rsa']) {
    const v = p.decide(mcpReq({ args: { method: 'resources/read', arguments: { uri } } }), ctx);
    assert.equal(v.kind === 'answer' && v.decision, 'deny', uri);
  }
  const ok = p.decide(mcpReq({ args: { method: 'resources/read', arguments: { uri: 'file:///work/proj/README.md' } } }), ctx);
  assert.equal(ok.kind === 'answer' && ok.decision, 'allow');
});
