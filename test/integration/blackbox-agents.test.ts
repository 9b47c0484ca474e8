// Black-box: the ways an agent comes in, as the README and docs/agents.md describe them —
// `airlock hook claude-code` (Claude Code's PreToolUse JSON on stdin, permissionDecision
// out; `ask` with the daemon down; PostToolUse does nothing; `--install` keeps settings,
// exits 65 on a broken settings.json) and `airlock mcp --name NAME -- SERVER` (tools/call
// asks, the action comes from tools/list annotations, a denial is an isError result, the
// proxy exits with the server's code, `--task` that does not exist exits 64 and runs nothing).
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { waitFor, type Daemon } from '../helpers/daemon';
import { AIRLOCK_BIN, Wire, closeBlackboxSession, openBlackboxSession, airlock, waitPending, type Pending } from '../helpers/blackbox';

let d: Daemon;
let ui: Wire;
let root: string;
let env: NodeJS.ProcessEnv;
let work: string;

before(async () => {
  ({ root, d, ui } = await openBlackboxSession('bba-'));
  work = path.join(root, 'proj');
  fs.mkdirSync(path.join(work, 'src'), { recursive: true });
  fs.mkdirSync(path.join(work, 'build'));
  fs.writeFileSync(path.join(work, 'src', 'a.ts'), 'export const a = 1;\n');
  env = { ...process.env, AIRLOCK_HOME: d.home, HOME: path.join(root, 'userhome') };
  fs.mkdirSync(env.HOME!, { mode: 0o700 });
  for (const k of ['AIRLOCK_TASK', 'AIRLOCK_TASK_TOKEN', 'AIRLOCK_REQUEST_SOCK', 'AIRLOCK_HOOK_HOME']) delete env[k];
});
after(() => closeBlackboxSession({ root, d, ui }));

interface HookOut {
  hookSpecificOutput?: { hookEventName?: string; permissionDecision?: string; permissionDecisionReason?: string };
}

function hookInput(tool: string, input: Record<string, unknown>, session = 'bb-session-1', event = 'PreToolUse'): string {
  return JSON.stringify({ session_id: session, transcript_path: path.join(root, 't.jsonl'), cwd: work, hook_event_name: event, tool_name: tool, tool_input: input });
}

async function decide(pred: (p: Pending) => boolean, decision: 'allow' | 'deny', what: string): Promise<Pending> {
  const p = await waitPending(ui, pred, what);
  const r = await ui.call('pending.decide', { id: p.id, decision, scope: 'once' });
  assert.equal(r.error, undefined, JSON.stringify(r));
  return p;
}

test('hook: Read is a read (allowed, recorded); Write asks for file_path — deny comes back as permissionDecision "deny" with the reason', async () => {
  const r = await airlock(['hook', 'claude-code'], { env, cwd: work, input: hookInput('Read', { file_path: path.join(work, 'src/a.ts') }) });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as HookOut;
  assert.equal(out.hookSpecificOutput?.hookEventName, 'PreToolUse');
  assert.equal(out.hookSpecificOutput?.permissionDecision, 'allow');
  const h = await ui.ok<{ events: { source: string; action: string; resource?: unknown }[] }>('history.query', { source: 'claude-code', action: 'read', limit: 5 });
  assert.ok(h.events.some((e) => JSON.stringify(e).includes('src/a.ts')), 'the read is recorded');

  const target = path.join(work, 'src', 'b.ts');
  const w = airlock(['hook', 'claude-code'], { env, cwd: work, input: hookInput('Write', { file_path: target, content: 'x' }) });
  const p = await decide((x) => x.source === 'claude-code' && x.tool === 'Write', 'deny', 'the Write prompt');
  assert.equal(p.action, 'write');
  assert.equal(p.resource, target);
  assert.match(JSON.stringify(p.task), /\S/, 'one session is one task');
  const wr = await w;
  assert.equal(wr.code, 0, wr.stderr);
  const wo = JSON.parse(wr.stdout) as HookOut;
  assert.equal(wo.hookSpecificOutput?.permissionDecision, 'deny');
  assert.match(String(wo.hookSpecificOutput?.permissionDecisionReason), /\S/);
});

test('hook: Bash goes through the shell classifier (rm -rf is a delete); the same session is the same task', async () => {
  const b = airlock(['hook', 'claude-code'], { env, cwd: work, input: hookInput('Bash', { command: 'rm -rf build' }) });
  const p = await decide((x) => x.source === 'claude-code' && x.tool === 'Bash', 'allow', 'the Bash prompt');
  assert.equal(p.action, 'delete');
  assert.equal(p.resource ?? null, p.resource, 'has a resource');
  const out = JSON.parse((await b).stdout) as HookOut;
  assert.equal(out.hookSpecificOutput?.permissionDecision, 'allow');
  const tasks = await ui.ok<unknown>('tasks.list', {});
  const names = JSON.stringify(tasks);
  // Named `Claude Code <dir> (<session>)`, the session id shortened to its first characters.
  assert.equal(names.split('Claude Code proj (bb-sess').length - 1, 1, `one task for the session: ${names}`);
});

test('hook: WebFetch is a transfer to the host; mcp__server__tool is an MCP call, never a read by its name', async () => {
  const f = airlock(['hook', 'claude-code'], { env, cwd: work, input: hookInput('WebFetch', { url: 'https://example.org/page', prompt: 'read it' }) });
  const p = await decide((x) => x.source === 'claude-code' && x.tool === 'WebFetch', 'deny', 'the WebFetch prompt');
  assert.equal(p.action, 'transfer');
  assert.match(JSON.stringify(p.resource), /example\.org/);
  await f;
  const m = airlock(['hook', 'claude-code'], { env, cwd: work, input: hookInput('mcp__gmail__read_all_and_delete', { q: 'x' }) });
  const mp = await decide((x) => JSON.stringify(x).includes('read_all_and_delete'), 'deny', 'the MCP-by-hook prompt');
  assert.notEqual(mp.action, 'read');
  assert.equal(mp.source, 'mcp');
  await m;
});

test('hook: PostToolUse does nothing (exit 0, no output); garbage on stdin never allows', async () => {
  const post = await airlock(['hook', 'claude-code'], { env, cwd: work, input: hookInput('Write', { file_path: path.join(work, 'x'), content: 'x' }, 'bb-session-1', 'PostToolUse') });
  assert.equal(post.code, 0);
  assert.equal(post.stdout.trim(), '');
  const g = await airlock(['hook', 'claude-code'], { env, cwd: work, input: '{"tool_name": ' });
  assert.doesNotMatch(g.stdout, /"allow"/, `garbage is never allowed: ${g.stdout}`);
  assert.ok(g.code === 0 || g.code === 2, `a clean hook answer (Claude Code reads 0 or 2): ${g.code} ${g.stderr}`);
});

test('hook: with the daemon down it answers "ask" with the reason, so Claude Code shows its own prompt', async () => {
  const down = path.join(root, 'down');
  fs.mkdirSync(down, { mode: 0o700 });
  const r = await airlock(['hook', 'claude-code'], { env: { ...env, AIRLOCK_HOME: down }, cwd: work, input: hookInput('Write', { file_path: path.join(work, 'y'), content: 'y' }) });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as HookOut;
  assert.equal(out.hookSpecificOutput?.permissionDecision, 'ask');
  assert.match(String(out.hookSpecificOutput?.permissionDecisionReason), /Airlock|daemon|serve/i);
});

test('hook --install: adds a PreToolUse hook (matcher *) and keeps the settings there; again changes nothing; invalid JSON → 65, file untouched', async () => {
  const claude = path.join(env.HOME!, '.claude');
  fs.mkdirSync(claude, { recursive: true });
  const settings = path.join(claude, 'settings.json');
  fs.writeFileSync(settings, JSON.stringify({ model: 'opus', permissions: { allow: ['Bash(ls:*)'] } }, null, 2));
  const i = await airlock(['hook', 'claude-code', '--install'], { env, cwd: work });
  assert.equal(i.code, 0, i.stderr);
  const s = JSON.parse(fs.readFileSync(settings, 'utf8')) as { model: string; permissions: unknown; hooks: { PreToolUse: { matcher: string; hooks: { type: string; command: string }[] }[] } };
  assert.equal(s.model, 'opus');
  assert.deepEqual(s.permissions, { allow: ['Bash(ls:*)'] });
  const entry = s.hooks.PreToolUse.find((e) => e.hooks.some((h) => /airlock|claude-code/.test(h.command)));
  assert.ok(entry, JSON.stringify(s.hooks));
  assert.equal(entry.matcher, '*');
  assert.ok(fs.existsSync(settings + '.airlock-backup'), 'the old file is kept');
  const before = fs.readFileSync(settings, 'utf8');
  assert.equal((await airlock(['hook', 'claude-code', '--install'], { env, cwd: work })).code, 0);
  assert.equal(fs.readFileSync(settings, 'utf8'), before, 'running it again changes nothing');
  // The installed command really works as a hook.
  const cmd = entry.hooks.find((h) => /airlock|claude-code/.test(h.command))!.command;
  const sh = spawn('sh', ['-c', cmd], { env, cwd: work });
  let out = '';
  sh.stdout.on('data', (b) => (out += b.toString()));
  sh.stdin.end(hookInput('Read', { file_path: path.join(work, 'src/a.ts') }, 'bb-session-2'));
  await new Promise((r) => sh.on('close', r));
  assert.equal((JSON.parse(out) as HookOut).hookSpecificOutput?.permissionDecision, 'allow', out);
  fs.writeFileSync(settings, '{ "model": "opus", ');
  const bad = await airlock(['hook', 'claude-code', '--install'], { env, cwd: work });
  assert.equal(bad.code, 65, bad.stderr);
  assert.equal(fs.readFileSync(settings, 'utf8'), '{ "model": "opus", ');
});

// ---- MCP proxy -------------------------------------------------------------------------

const SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const tools = [
  { name: 'read_note', description: 'Read a note', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'write_note', description: 'Write a note', inputSchema: { type: 'object' }, annotations: { readOnlyHint: false } },
  { name: 'delete_note', description: 'Deletes a note for good', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } },
];
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bb', version: '1' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools } });
  else if (m.method === 'tools/call') send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'did ' + m.params.name }] } });
  else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } });
});
rl.on('close', () => process.exit(3));
`;

class McpClient {
  private buf = '';
  private readonly answers = new Map<number, Record<string, unknown>>();
  stderr = '';
  readonly exit: Promise<number | null>;
  constructor(readonly p: ChildProcessWithoutNullStreams) {
    p.stdout.on('data', (b) => {
      this.buf += b.toString();
      for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
        const m = JSON.parse(this.buf.slice(0, nl)) as { id?: number };
        this.buf = this.buf.slice(nl + 1);
        if (typeof m.id === 'number') this.answers.set(m.id, m as Record<string, unknown>);
      }
    });
    p.stderr.on('data', (b) => (this.stderr += b.toString()));
    this.exit = new Promise((r) => p.on('exit', (c) => r(c)));
  }
  send(m: Record<string, unknown>): void {
    this.p.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
  }
  async call(id: number, method: string, params: unknown): Promise<Record<string, unknown>> {
    this.send({ id, method, params });
    await waitFor(() => this.answers.has(id), `the answer to ${method} #${id}`, 20_000);
    return this.answers.get(id)!;
  }
  async start(id: number, method: string, params: unknown): Promise<() => Promise<Record<string, unknown>>> {
    this.send({ id, method, params });
    return async () => {
      await waitFor(() => this.answers.has(id), `the answer to ${method} #${id}`, 20_000);
      return this.answers.get(id)!;
    };
  }
}

function startProxy(extra: string[] = []): McpClient {
  const server = path.join(root, 'server.js');
  fs.writeFileSync(server, SERVER);
  const p = spawn(process.execPath, [AIRLOCK_BIN, 'mcp', '--name', 'bbnotes', ...extra, '--', process.execPath, server], { env, cwd: work });
  return new McpClient(p);
}

test('mcp: tools/list passes through; a readOnlyHint tool is a read (allowed); other calls ask; a denial is an isError result; exit code is the server\'s', async () => {
  const c = startProxy();
  const init = await c.call(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bb', version: '1' } });
  assert.ok(init.result, JSON.stringify(init));
  c.send({ method: 'notifications/initialized' });
  const list = await c.call(2, 'tools/list', {});
  assert.equal(((list.result as { tools: unknown[] }).tools).length, 3);
  const read = await c.call(3, 'tools/call', { name: 'read_note', arguments: { id: 1 } });
  assert.deepEqual((read.result as { content: unknown }).content, [{ type: 'text', text: 'did read_note' }]);

  const w = await c.start(4, 'tools/call', { name: 'write_note', arguments: { id: 1, text: 'hi' } });
  const p = await decide((x) => x.source === 'mcp' && x.tool === 'bbnotes/write_note', 'deny', 'the write_note prompt');
  assert.equal(p.action, 'write');
  // args: the call's arguments as sent, beside what tools/list said about the tool.
  assert.deepEqual((p.args as { arguments: unknown }).arguments, { id: 1, text: 'hi' });
  assert.match(JSON.stringify(p.task), /\S/, 'the session is a task');
  const wr = await w();
  const res = wr.result as { isError?: boolean; content: { type: string; text: string }[] };
  assert.equal(res.isError, true, JSON.stringify(wr));
  assert.match(res.content[0].text, /den/i);

  const del = await c.start(5, 'tools/call', { name: 'delete_note', arguments: { id: 1 } });
  const dp = await decide((x) => x.source === 'mcp' && x.tool === 'bbnotes/delete_note', 'allow', 'the delete_note prompt');
  assert.equal(dp.action, 'delete', 'its description says it removes something');
  assert.deepEqual(((await del()).result as { content: unknown }).content, [{ type: 'text', text: 'did delete_note' }]);

  // A tool the server never listed: no annotation vouches for it — a write (asks), never a silent read.
  const hidden = await c.start(6, 'tools/call', { name: 'hidden_tool', arguments: {} });
  const hp = await decide((x) => x.source === 'mcp' && x.tool === 'bbnotes/hidden_tool', 'deny', 'the unlisted tool prompt');
  assert.equal(hp.action, 'write');
  assert.equal(((await hidden()).result as { isError?: boolean }).isError, true);

  const tasks = JSON.stringify(await ui.ok('tasks.list', {}));
  assert.match(tasks, /mcp: bbnotes/);
  c.p.stdin.end();
  assert.equal(await c.exit, 3, c.stderr);
  await waitFor(async () => !JSON.stringify(await ui.ok('tasks.list', {})).includes('mcp: bbnotes'), 'the session task to end with the session');
});

test('mcp --task with a task that does not exist exits 64 and never starts the server', async () => {
  const marker = path.join(root, 'server-started');
  const p = spawn(process.execPath, [AIRLOCK_BIN, 'mcp', '--name', 'bbx', '--task', 't_doesnotexist', '--', 'sh', '-c', `touch ${marker}`], { env, cwd: work });
  let err = '';
  p.stderr.on('data', (b) => (err += b.toString()));
  p.stdin.end();
  const code = await new Promise<number | null>((r) => p.on('exit', (c) => r(c)));
  assert.equal(code, 64, err);
  assert.equal(fs.existsSync(marker), false);
});
