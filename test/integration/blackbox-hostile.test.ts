// Black-box: an agent that lies or sends junk (DESIGN: "The agent is assumed hostile"; every
// agent-side input is hostile, defaults to asking, never crashes). JSON-RPC corner cases
// (notifications unanswered, batches refused, string ids echoed), a socket made world-
// writable still refuses another uid, a command the agent calls a "read" is classified
// again, writes that can switch Airlock off are critical whatever the grants, and junk in
// args (huge, deeply nested, control characters) is recorded capped without harm.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Daemon } from '../helpers/daemon';
import { Wire, closeBlackboxSession, openBlackboxSession, waitPending, type RpcMsg } from '../helpers/blackbox';

let d: Daemon;
let ui: Wire;
let root: string;

before(async () => {
  ({ root, d, ui } = await openBlackboxSession('bbx-'));
});
after(() => closeBlackboxSession({ root, d, ui }));

async function alive(): Promise<void> {
  const w = await Wire.open(d.requestSock);
  try {
    assert.equal((await w.call('no.such.method')).error?.code, -32601, 'the daemon still answers');
  } finally {
    w.close();
  }
}

test('JSON-RPC: a notification is never answered (not even an error); a batch is -32600; a string id comes back as sent', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    w.raw('{"jsonrpc":"2.0","method":"no.such.method"}\n');
    w.raw('{"jsonrpc":"2.0","method":"request","params":{}}\n');
    const s = await w.call('no.such.method', {});
    assert.equal(s.error?.code, -32601);
    assert.equal(w.other.length, 0, `nothing for the notifications: ${JSON.stringify(w.other)}`);
    w.raw('[{"jsonrpc":"2.0","id":1,"method":"no.such.method"}]\n');
    const batch = await w.expectOther((m) => m.error?.code === -32600, 'a -32600 for the batch');
    assert.ok(batch);
    w.raw('{"jsonrpc":"2.0","id":"abc-1","method":"no.such.method"}\n');
    const str = await w.expectOther((m) => m.id === 'abc-1', 'the answer to a string id');
    assert.equal(str.error?.code, -32601);
    w.raw('{"jsonrpc":"1.0","id":5,"method":"no.such.method"}\n');
    const v1 = await w.expectOther((m) => m.id === 5 || (m.error?.code === -32600 && m !== batch), 'an answer to jsonrpc 1.0');
    assert.equal(v1.error?.code, -32600, 'only JSON-RPC 2.0');
  } finally {
    w.close();
  }
});

test('another uid is refused even when the socket and its directory are opened up (peer uid checked on every connection)', async (t) => {
  if (process.getuid?.() !== 0 || spawnSync('setpriv', ['--version']).status !== 0) return t.skip('needs root and setpriv to act as another user');
  const modes = [d.home, d.uiSock, d.requestSock, root].map((p) => [p, fs.statSync(p).mode & 0o777] as const);
  try {
    fs.chmodSync(root, 0o755);
    fs.chmodSync(d.home, 0o755);
    fs.chmodSync(d.uiSock, 0o666);
    fs.chmodSync(d.requestSock, 0o666);
    const py = `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
try:
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"pending.list"}\\n')
    data = s.recv(65536)
    print("GOT:" + data.decode(errors="replace"))
except Exception as e:
    print("ERR:" + type(e).__name__)
`;
    for (const sock of [d.uiSock, d.requestSock]) {
      const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'python3', '-c', py, sock], { encoding: 'utf8', timeout: 15_000 });
      assert.doesNotMatch(r.stdout, /"prompts"|"result"/, `${sock}: another uid got an answer: ${r.stdout} ${r.stderr}`);
    }
  } finally {
    for (const [p, m] of modes) fs.chmodSync(p, m);
  }
  await alive();
});

test('a shell command the agent calls a "read" is classified again: rm -rf is asked about as a delete', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const target = path.join(root, 'precious');
    fs.mkdirSync(target);
    const lie = { source: 'claude-code', tool: 'Bash', action: 'read', resource: 'ls', summary: 'bb just listing', args: { command: `rm -rf ${target}` }, cwd: root };
    const r = w.call('request', lie, 30_000);
    const p = await waitPending(ui, (x) => x.summary === 'bb just listing' || JSON.stringify(x.args).includes(`rm -rf ${target}`), 'a prompt for the disguised delete', 10_000);
    assert.equal(p.action, 'delete');
    await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    assert.equal((await r).result?.decision, 'deny');
  } finally {
    w.close();
  }
});

test("writes that can switch Airlock off are critical: Claude Code's settings.json, Airlock's own database — a wildcard allow does not answer them", async () => {
  const w = await Wire.open(d.requestSock);
  const g = await ui.ok<Record<string, unknown>>('grants.create', { action: '*', resource: '*', effect: 'allow', note: 'bb everything' });
  const gid = (g.id ?? (g.grant as { id?: string }).id) as string;
  try {
    const ordinary = await w.ok<Record<string, unknown>>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/srv/ok.txt', summary: 'bb ordinary' });
    assert.equal(ordinary.decision, 'allow', 'the wildcard grant works on ordinary writes');
    const targets = [path.join(os.homedir(), '.claude', 'settings.json'), path.join(d.home, 'airlock.db')];
    for (const [i, resource] of targets.entries()) {
      const summary = `bb switch off ${i}`;
      const r = w.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource, summary }, 30_000);
      const p = await waitPending(ui, (x) => x.summary === summary, `a prompt for ${resource}`);
      assert.equal(p.risk.level, 'critical', resource);
      await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
      assert.equal((await r).result?.decision, 'deny');
    }
    const rm = w.call('request', { source: 'claude-code', tool: 'Bash', action: 'delete', resource: 'rm -rf ~', summary: 'bb rm home', args: { command: 'rm -rf ~' }, cwd: root }, 30_000);
    const p = await waitPending(ui, (x) => x.summary === 'bb rm home' || JSON.stringify(x.args).includes('rm -rf ~'), 'a prompt for rm -rf ~');
    assert.equal(p.risk.level, 'critical');
    await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    assert.equal((await rm).result?.decision, 'deny');
  } finally {
    await ui.ok('grants.revoke', { id: gid });
    w.close();
  }
});

test('junk in a request — huge args, deep nesting, control characters, a NUL — is answered, recorded capped, and breaks nothing', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    // Nesting deeper than a recursive JSON.stringify can walk (built as text: the client could not stringify it either).
    for (const depth of [5_000, 100_000]) {
      const deep = '['.repeat(depth) + '"bottom"' + ']'.repeat(depth);
      w.raw(`{"jsonrpc":"2.0","id":"deep-${depth}","method":"request","params":{"source":"api","tool":"fs.read","action":"read","resource":"/srv/junk","summary":"bb deep ${depth}","args":{"deep":${deep}}}}\n`);
      const r = await w.expectOther((m) => m.id === `deep-${depth}`, `an answer to the ${depth}-deep args`, 20_000);
      assert.ok(r.result?.decision === 'allow' || (r.error && [-32600, -32602].includes(r.error.code)), `${depth} deep: ${JSON.stringify(r).slice(0, 300)}`);
    }
    await alive();
    const cases: [string, Record<string, unknown>][] = [
      ['bb huge args', { blob: 'A'.repeat(900_000) }],
      ['bb control \u0000 \u001b[2J \u202e chars', { s: '\u0000\u0007\u001b]0;pwned\u0007' }],
    ];
    for (const [summary, args] of cases) {
      const r: RpcMsg = await w.call('request', { source: 'api', tool: 'fs.read', action: 'read', resource: '/srv/junk', summary, args }, 30_000);
      assert.ok(r.result?.decision === 'allow' || r.error, `${summary}: answered (${JSON.stringify(r).slice(0, 200)})`);
      if (r.error) assert.ok([-32600, -32602].includes(r.error.code), `${summary}: ${r.error.code} ${r.error.message}`);
    }
    const h = await ui.ok<{ events: Record<string, unknown>[] }>('history.query', { text: 'bb huge args', limit: 1 });
    if (h.events.length > 0) assert.ok(JSON.stringify(h.events[0]).length < 200_000, 'args are recorded capped');
    // Searching for the odd text is not an internal error either (a NUL once was: FTS5 reads C strings).
    for (const text of ['bb control \u0000', '"', 'NEAR(', '*', 'summary:x', '\u0000']) {
      const q = await ui.call('history.query', { text, limit: 5 });
      assert.equal(q.error, undefined, `history.query text ${JSON.stringify(text)}: ${JSON.stringify(q.error)}`);
    }
    const found = await ui.ok<{ events: { summary: string }[] }>('history.query', { text: 'bb control \u0000 chars', limit: 5 });
    assert.ok(found.events.some((e) => e.summary.startsWith('bb control')), 'and it finds the event');
    const v = await ui.ok<{ ok: boolean }>('audit.verify');
    assert.equal(v.ok, true);
  } finally {
    w.close();
  }
  await alive();
});
