// `airlock mcp` between the SDK's real Client (StdioClientTransport) and the real
// @modelcontextprotocol/server-filesystem, with the real daemon deciding.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, REPO, startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import type { RpcClient } from '../../main/client/rpc-client';

const FS_SERVER = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

let d: Daemon;
let ui: RpcClient;
let human: Human;
let root: string;

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  human = await Human.on(ui);
  root = fs.realpathSync(fs.mkdtempSync(path.join(d.home, 'fs-')));
  fs.writeFileSync(path.join(root, 'hello.txt'), 'hello from disk\n');
});
after(async () => {
  ui?.close();
  await d?.stop();
});

async function connect(extra: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--name', 'fs', ...extra, '--', process.execPath, FS_SERVER, root],
    env: d.env as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'airlock-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const text = (r: unknown) => ((r as { content: { type: string; text: string }[] }).content ?? []).map((c) => c.text).join('\n');

describe('MCP proxy with server-filesystem (real daemon, real SDK client)', () => {
  let client: Client;
  before(async () => {
    client = await connect();
    await client.listTools();
  });
  after(async () => {
    await client?.close();
  });

  test('tools/list passes through untouched', async () => {
    const { tools } = await client.listTools();
    const write = tools.find((t) => t.name === 'write_file');
    assert.ok(write, tools.map((t) => t.name).join(','));
    assert.equal(write.annotations?.destructiveHint, true);
  });

  test('reading passes without a prompt', async () => {
    const r = await client.callTool({ name: 'read_text_file', arguments: { path: path.join(root, 'hello.txt') } });
    assert.ok(!r.isError, text(r));
    assert.match(text(r), /hello from disk/);
    assert.equal(human.unanswered().length, 0);
  });

  test('write_file prompts; a denial is an isError result with the reason and no file', async () => {
    const file = path.join(root, 'denied.txt');
    const pending = client.callTool({ name: 'write_file', arguments: { path: file, content: 'nope' } });
    const p = await human.next(15_000);
    assert.equal(p.source, 'mcp');
    assert.equal(p.tool, 'fs/write_file');
    assert.equal(p.action, 'write', 'destructiveHint on a write raises the risk; it does not make a delete');
    assert.equal(p.actionOrigin, 'annotation');
    assert.ok(p.risk.reasons.some((r) => /destructive/.test(r)), p.risk.reasons.join('; '));
    assert.equal(p.resource, file);
    await human.decide(p.id, 'deny');
    const r = await pending;
    assert.equal(r.isError, true);
    assert.match(text(r), /Denied by Airlock: denied once by the human/);
    assert.equal(fs.existsSync(file), false);
  });

  test('allowed once: the write reaches the server', async () => {
    const file = path.join(root, 'once.txt');
    const pending = client.callTool({ name: 'write_file', arguments: { path: file, content: 'once' } });
    const p = await human.next(15_000);
    await human.decide(p.id, 'allow');
    const r = await pending;
    assert.ok(!r.isError, text(r));
    assert.equal(fs.readFileSync(file, 'utf8'), 'once');
  });

  test('write_file is a write, and a write grant covers it', async () => {
    const { grant } = await ui.call<{ grant: { id: string } }>('grants.create', { action: 'write', source: 'mcp', tool: 'fs/*', resource: `${root}/**`, effect: 'allow' });
    try {
      const file = path.join(root, 'granted.txt');
      const r = await client.callTool({ name: 'write_file', arguments: { path: file, content: 'granted' } });
      assert.ok(!r.isError, text(r));
      assert.equal(fs.readFileSync(file, 'utf8'), 'granted');
      assert.equal(human.unanswered().length, 0, 'no prompt');
    } finally {
      await ui.call('grants.revoke', { id: grant.id });
    }
  });

  test('move_file is shown honestly: a write whose source disappears', async () => {
    fs.writeFileSync(path.join(root, 'from.txt'), 'm');
    const pending = client.callTool({ name: 'move_file', arguments: { source: path.join(root, 'from.txt'), destination: path.join(root, 'to.txt') } });
    const p = await human.next(15_000);
    assert.equal(p.action, 'write');
    assert.deepEqual(p.resources, [path.join(root, 'from.txt'), path.join(root, 'to.txt')]);
    assert.ok(p.risk.reasons.some((r) => /moves or renames/.test(r)), p.risk.reasons.join('; '));
    await human.decide(p.id, 'deny');
    assert.equal((await pending).isError, true);
    assert.ok(fs.existsSync(path.join(root, 'from.txt')));
  });

  test('the mcpToolActions setting overrides the annotations', async () => {
    await ui.call('settings.set', { mcpToolActions: { 'fs/list_directory': 'write' } });
    try {
      const pending = client.callTool({ name: 'list_directory', arguments: { path: root } });
      const p = await human.next(15_000);
      assert.equal(p.action, 'write');
      assert.equal(p.actionOrigin, 'pin');
      await human.decide(p.id, 'allow');
      assert.ok(!(await pending).isError);
    } finally {
      await ui.call('settings.set', { mcpToolActions: {} });
    }
  });
});

describe('MCP proxy sessions are tasks', () => {
  test('"allow for this task" works for the session and dies with it', async () => {
    const tasksBefore = (await ui.call<{ tasks: { id: string }[] }>('tasks.list', {})).tasks.map((t) => t.id);
    const client = await connect();
    let task: string;
    try {
      await client.listTools();
      const first = client.callTool({ name: 'write_file', arguments: { path: path.join(root, 's1.txt'), content: '1' } });
      const p = await human.next(15_000);
      assert.ok(p.task, 'the prompt belongs to the session task');
      assert.equal(p.taskName, 'mcp: fs');
      task = p.task!;
      assert.ok(!tasksBefore.includes(task));
      await human.decide(p.id, 'allow', 'task', { pattern: { resource: `${root}/**` } });
      assert.ok(!(await first).isError);
      const second = await client.callTool({ name: 'write_file', arguments: { path: path.join(root, 's2.txt'), content: '2' } });
      assert.ok(!second.isError, text(second));
      assert.equal(human.unanswered().length, 0, 'no prompt for the second write');
    } finally {
      await client.close();
    }
    await waitFor(async () => {
      const all = (await ui.call<{ tasks: { id: string; endedAt: number | null }[] }>('tasks.list', { includeEnded: true })).tasks;
      return all.find((t) => t.id === task)?.endedAt != null;
    }, 'the session task to end with the session', 15_000);
    // A new session is a new task: the grant died with the old one.
    const again = await connect();
    try {
      await again.listTools();
      const third = again.callTool({ name: 'write_file', arguments: { path: path.join(root, 's3.txt'), content: '3' } });
      const p = await human.next(15_000);
      assert.notEqual(p.task, task);
      await human.decide(p.id, 'deny');
      assert.equal((await third).isError, true);
    } finally {
      await again.close();
    }
  });

  test('a request with no task offers no task scope: pending.decide with scope task is -32602, never a hang', async () => {
    const agent = await d.agent();
    try {
      const pending = agent.call<{ decision: string }>('request', { source: 'mcp', tool: 'fs/write_file', action: 'write', summary: 'no task', args: { arguments: { path: '/x' }, annotations: {} } });
      const p = await human.next(15_000);
      assert.equal(p.task, null);
      await assert.rejects(human.decide(p.id, 'allow', 'task'), (e: { code?: number; message?: string }) => e.code === -32602 && /belongs to no task/.test(e.message ?? ''));
      await human.decide(p.id, 'deny');
      assert.equal((await pending).decision, 'deny');
    } finally {
      agent.close();
    }
  });

  test('--task joins an existing task (and leaves it running); allow-for-task lets the next write through without a prompt', async () => {
    const agent = await d.agent();
    const { task, token } = await agent.call<{ task: string; token: string }>('task.start', { name: 'mcp writes', cwd: root });
    agent.close();
    // The token, not the id, acts as the task on the shared request.sock.
    const client = await connect(['--task', token]);
    try {
      await client.listTools();
      const first = client.callTool({ name: 'write_file', arguments: { path: path.join(root, 'a.txt'), content: 'a' } });
      const p = await human.next(15_000);
      assert.equal(p.task, task);
      await human.decide(p.id, 'allow', 'task', { pattern: { resource: `${root}/**` } });
      assert.ok(!(await first).isError);
      const second = await client.callTool({ name: 'write_file', arguments: { path: path.join(root, 'b.txt'), content: 'b' } });
      assert.ok(!second.isError, text(second));
      assert.equal(fs.readFileSync(path.join(root, 'b.txt'), 'utf8'), 'b');
      assert.equal(human.unanswered().length, 0, 'no prompt for the second write');
    } finally {
      await client.close();
    }
    await new Promise((r) => setTimeout(r, 300));
    const t = (await ui.call<{ tasks: { id: string; endedAt: number | null }[] }>('tasks.list', { includeEnded: true })).tasks.find((x) => x.id === task);
    assert.equal(t?.endedAt, null, 'a joined task is not ended by the proxy');
  });
});

/** A tiny stdio server for framing and exit-code tests: echoes requests, exits on a ping with params.quit (a method the proxy passes unasked). */
const ECHO_SERVER = `
let buf='';
process.stdin.on('data',d=>{buf+=d;let i;while((i=buf.indexOf('\\n'))>=0){const l=buf.slice(0,i);buf=buf.slice(i+1);
 let m;try{m=JSON.parse(l)}catch{console.log(JSON.stringify({jsonrpc:'2.0',id:null,error:{code:-32700,message:'server saw garbage'}}));continue}
 if(m.method==='notifications/roots/list_changed')process.exit(5);
 if(m.method==='tools/list'){console.log(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{tools:[{name:'rm',annotations:{destructiveHint:true}},{name:'look',annotations:{readOnlyHint:true}}]}}));continue}
 if(m.id!==undefined)console.log(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{echo:m.method,params:m.params}}));}});
process.stdin.on('end',()=>process.exit(3));
`;

describe('MCP proxy framing, hostile input and exit codes', () => {
  function proxy() {
    const p = spawn(process.execPath, [CLI, 'mcp', '--name', 'echo', '--', process.execPath, '-e', ECHO_SERVER], { env: d.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: Record<string, unknown>[] = [];
    let buf = '';
    let err = '';
    p.stdout.on('data', (x) => {
      buf += x.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
    });
    p.stderr.on('data', (x) => (err += x.toString()));
    const exit = new Promise<number | null>((r) => p.once('exit', (c) => r(c)));
    return { p, lines, exit, err: () => err, send: (s: string) => p.stdin.write(s) };
  }

  test('garbage, oversize lines and bad calls are answered; the proxy keeps going and exits with the server code', async () => {
    const x = proxy();
    x.send('this is not json\n');
    x.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}\n');
    x.send('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"rm"}}\n');
    x.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rm"}}\n'.replace('"rm"', `"${'x'.repeat(10)}"`).replace('{"name"', `{"pad":"${'p'.repeat(5 * 1024 * 1024)}","name"`));
    x.send('\n\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    x.send('{"jsonrpc":"2.0","id":4,"method":"tools/list"}\n');
    await waitFor(() => x.lines.some((l) => l.id === 4), 'tools/list answer', 15_000);
    // A read-only tool (by annotation) passes without a prompt and reaches the server.
    x.send('{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"look","arguments":{"path":"/etc/hostname"}}}\n');
    await waitFor(() => x.lines.some((l) => l.id === 'r1'), 'look answer', 15_000);
    assert.deepEqual((x.lines.find((l) => l.id === 'r1') as { result: { echo: string } }).result.echo, 'tools/call');
    assert.equal((x.lines.find((l) => l.id === null && (l.error as { code: number })?.code === -32700) as object | undefined) !== undefined, true, 'parse error answered');
    assert.equal(((x.lines.find((l) => l.id === 1) as { error: { code: number } }).error.code), -32602);
    assert.ok(x.lines.some((l) => l.id === null && (l.error as { code: number })?.code === -32600), 'oversize refused');
    assert.equal((x.lines.find((l) => l.id === 3) as { result: { echo: string } }).result.echo, 'ping');
    assert.ok(!x.lines.some((l) => (l.result as { echo?: string } | undefined)?.echo === 'tools/call' && l.id !== 'r1'), 'no unchecked call reached the server');
    assert.match(x.err(), /without an id/);
    x.send('{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}\n');
    assert.equal(await x.exit, 5);
  });

  test('a call the client cancelled while the human decided is withdrawn from the queue and never forwarded', async () => {
    const x = proxy();
    x.send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n');
    await waitFor(() => x.lines.some((l) => l.id === 1), 'tools/list answer', 15_000);
    x.send('{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"rm","arguments":{"path":"/tmp/x"}}}\n');
    const p = await human.next(15_000);
    assert.equal(p.tool, 'echo/rm');
    assert.equal(p.action, 'delete', 'a delete is shown as one: its name says it removes, and it is destructive');
    assert.equal(p.actionOrigin, 'annotation');
    x.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user gave up"}}\n');
    // The proxy takes its input lines in order: once a ping sent after the cancellation is
    // answered, it has read the cancellation (a fixed pause could be too short on a loaded
    // machine, and a decision that came first would rightly be forwarded).
    x.send('{"jsonrpc":"2.0","id":"after-cancel","method":"ping"}\n');
    await waitFor(() => x.lines.some((l) => l.id === 'after-cancel'), 'the ping after the cancellation', 30_000);
    // The cancelled call's prompt is withdrawn (blackbox4-mcp): a late allow finds nothing.
    await waitFor(async () => !(await ui.call<{ prompts: { id: string }[] }>('pending.list')).prompts.some((q) => q.id === p.id), 'the prompt to be withdrawn', 15_000);
    await assert.rejects(human.decide(p.id, 'allow'), /no pending prompt/);
    x.send('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await waitFor(() => x.lines.some((l) => l.id === 2), 'ping answer', 15_000);
    assert.ok(!x.lines.some((l) => l.id === 'c1'), JSON.stringify(x.lines));
    x.send('{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}\n');
    assert.equal(await x.exit, 5);
  });

  test('a destructive call with the daemon gone is denied, never forwarded', async () => {
    const p = spawn(process.execPath, [CLI, 'mcp', '--name', 'echo', '--', process.execPath, '-e', ECHO_SERVER], { env: { ...d.env, AIRLOCK_HOME: path.join(d.home, 'nowhere') }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (x) => (out += x.toString()));
    p.stdin.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n');
    p.stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rm","arguments":{"path":"/x"}}}\n');
    await waitFor(() => out.includes('"id":2'), 'the denial', 15_000);
    const m = JSON.parse(out.split('\n').find((l) => l.includes('"id":2'))!);
    assert.equal(m.result.isError, true);
    assert.match(m.result.content[0].text, /could not be asked/);
    p.stdin.end();
    assert.equal(await new Promise((r) => p.once('exit', (c) => r(c))), 3, 'server exit code (stdin closed → 3)');
  });
});
