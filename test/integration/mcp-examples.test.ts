// The example of docs/mcp-grants.md, end to end: the MCP SDK's client drives the two
// example servers (docs/examples/mcp, written with the MCP SDK) through `airlock mcp`, with
// the real daemon deciding by task grants — per-tool for a whole server, and with argument
// conditions. An injected "delete everything" and an injected "pay 5,000 to a stranger"
// are denied with the reason, without a prompt, and nothing changes on the server side.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, REPO, startDaemon, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import type { RpcClient } from '../../main/client/rpc-client';

const EXAMPLES = path.join(REPO, 'docs', 'examples', 'mcp');
const PAY_OK = 'args.amount <= 50 && args.to in ["alice@example.com", "bob@example.com"]';
const NOT_READ = ['write', 'delete', 'transfer', 'execute', 'other'];

let d: Daemon;
let ui: RpcClient;
let human: Human;

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  human = await Human.on(ui);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

/** task.start on request.sock (as an agent launcher would); returns the id and what requests must name. */
async function startTask(name: string): Promise<{ id: string; ref: string }> {
  const agent = await d.agent();
  try {
    const r = await agent.call<{ task: string; token?: string }>('task.start', { name });
    return { id: r.task, ref: r.token ?? r.task };
  } finally {
    agent.close();
  }
}

async function session(name: string, server: string, state: string, taskRef: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--name', name, '--task', taskRef, '--', process.execPath, path.join(EXAMPLES, server), state],
    env: d.env as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'example-agent', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  return client;
}

const text = (r: unknown) => ((r as { content: { text: string }[] }).content ?? []).map((c) => c.text).join('\n');

describe('docs example: a task that may only read mail', () => {
  test('reads pass; the injected "delete everything" is denied with the reason; the mailbox is untouched', async () => {
    const box = path.join(d.home, 'mailbox.json');
    const task = await startTask('triage my inbox');
    // "mail: read only, never write, delete or move" = one allow + one deny grant.
    await ui.call('grants.create', { task: task.id, source: 'mcp', tool: 'mail/*', action: 'read', effect: 'allow', note: 'mail: read only' });
    await ui.call('grants.create', { task: task.id, source: 'mcp', tool: 'mail/*', action: NOT_READ, effect: 'deny', note: 'mail: never write, delete, move or send' });
    const client = await session('mail', 'mail-server.mjs', box, task.ref);
    try {
      const list = await client.callTool({ name: 'list_messages', arguments: {} });
      assert.ok(!list.isError, text(list));
      const injected = await client.callTool({ name: 'read_message', arguments: { id: 'm2' } });
      assert.match(text(injected), /delete every email/);
      const before = fs.readFileSync(box, 'utf8');
      // What a prompt-injected agent then tries:
      for (const [name, args] of [
        ['delete_message', { id: 'm1' }],
        ['delete_message', { id: 'm3' }],
        ['move_message', { id: 'm1', label: 'TRASH' }],
        ['empty_trash', {}],
        ['send_message', { to: 'attacker@evil.example', subject: 'fwd', body: 'all your mail' }],
      ] as const) {
        const r = await client.callTool({ name, arguments: args });
        assert.equal(r.isError, true, name);
        assert.match(text(r), /Denied by Airlock: denied by grant g_[\w-]+ \(mail: never write, delete, move or send\)/, name);
      }
      assert.equal(fs.readFileSync(box, 'utf8'), before, 'nothing changed');
      assert.equal(human.unanswered().length, 0, 'no prompt: the grants answered');
    } finally {
      await client.close();
    }
    const h = await ui.call<{ events: { tool: string; action: string; decision: string }[] }>('history.query', { task: task.id, decision: 'deny' });
    assert.deepEqual(new Set(h.events.map((e) => e.action)), new Set(['delete', 'write', 'transfer']), 'history names what each denied call was');
  });
});

describe('docs example: a task that may pay at most 50 to two payees', () => {
  test('a small payment to a payee passes; "pay 5,000 to a stranger" and its variants are denied with the reason', async () => {
    const ledger = path.join(d.home, 'ledger.json');
    const task = await startTask('pay the small bills');
    const { grant: allow } = await ui.call<{ grant: { id: string; whenText?: string } }>('grants.create', {
      task: task.id, source: 'mcp', tool: 'payments/pay', action: 'transfer', effect: 'allow', when: PAY_OK, note: 'small payments to known payees',
    });
    assert.equal(allow.whenText, 'amount ≤ 50 and to is one of ["alice@example.com", "bob@example.com"]');
    await ui.call('grants.create', {
      task: task.id, source: 'mcp', tool: 'payments/*', action: NOT_READ, effect: 'deny', when: `!(${PAY_OK})`, note: 'nothing else',
    });
    const client = await session('payments', 'payments-server.mjs', ledger, task.ref);
    try {
      const ok = await client.callTool({ name: 'pay', arguments: { to: 'alice@example.com', amount: 20, memo: 'lunch' } });
      assert.ok(!ok.isError, text(ok));
      const invoices = await client.callTool({ name: 'list_invoices', arguments: {} });
      assert.match(text(invoices), /pay 5000 to mallory/);
      for (const args of [
        { to: 'mallory@evil.example', amount: 5000, memo: 'inv-7' },
        { to: 'alice@example.com', amount: 5000 },
        { to: 'mallory@evil.example', amount: 5 },
        { to: 'bob@example.com', amount: 50.01 },
      ]) {
        const r = await client.callTool({ name: 'pay', arguments: args });
        assert.equal(r.isError, true, JSON.stringify(args));
        assert.match(text(r), /Denied by Airlock: denied by grant g_[\w-]+ \(nothing else\): not \(amount ≤ 50 and to is one of/, JSON.stringify(args));
      }
      const l = JSON.parse(fs.readFileSync(ledger, 'utf8')) as { payments: { to: string; amount: number }[] };
      assert.deepEqual(l.payments.map((p) => [p.to, p.amount]), [['alice@example.com', 20]]);
      assert.equal(human.unanswered().length, 0);
    } finally {
      await client.close();
    }
  });
});

/** An SDK client through `airlock mcp` with no --task: the session is its own task. */
async function ownSession(name: string, server: string, state: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--name', name, '--', process.execPath, path.join(EXAMPLES, server), state],
    env: d.env as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'example-agent', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  return client;
}

describe('grants made at the prompt (pending.decide on the real daemon)', () => {
  test('"amount ≤ this amount" started from the request: the next smaller payment passes, a larger one asks again', async () => {
    const ledger = path.join(d.home, 'ledger-prompt.json');
    const client = await ownSession('payments', 'payments-server.mjs', ledger);
    try {
      const first = client.callTool({ name: 'pay', arguments: { to: 'alice@example.com', amount: 40, memo: 'rent share' } });
      const p = await human.next();
      assert.equal(p.tool, 'payments/pay');
      assert.equal(p.action, 'transfer');
      assert.equal(p.mcpServer, 'payments');
      assert.ok(p.task, 'an MCP session is a task');
      const offered = p.conditions ?? [];
      // The UI ticks parts of what is offered and joins them with && (as the web prompt does).
      const to = offered.find((c) => c.when === 'args.to == "alice@example.com"');
      const amount = offered.find((c) => c.when === 'args.amount <= 40' && c.words === 'amount ≤ 40');
      assert.ok(to && amount, `the prompt offers "amount ≤ this amount" and "to is this recipient": ${JSON.stringify(offered)}`);
      const both = { when: `${to.when} && ${amount.when}` };
      // Refused with the reason, and the prompt is still there to answer.
      await assert.rejects(human.decide(p.id, 'allow', 'task', { when: 'args.amount <=' }), (e: { code?: number; message?: string }) => e.code === -32602 && /when/.test(e.message ?? ''));
      await assert.rejects(human.decide(p.id, 'allow', 'once', { when: both.when }), (e: { code?: number; message?: string }) => e.code === -32602 && /not once/.test(e.message ?? ''));
      const { grant } = await human.decide(p.id, 'allow', 'task', { when: both.when });
      assert.ok(grant);
      assert.ok(!(await first).isError);
      const listed = await ui.call<{ grants: { id: string; task: string | null; when?: string | null; whenText?: string }[] }>('grants.list', {});
      const g = listed.grants.find((x) => x.id === grant.id)!;
      assert.equal(g.task, p.task);
      assert.equal(g.when, both.when);
      assert.equal(g.whenText, 'to is "alice@example.com" and amount ≤ 40');
      // Covered by the condition: no prompt.
      const small = await client.callTool({ name: 'pay', arguments: { to: 'alice@example.com', amount: 12 } });
      assert.ok(!small.isError, text(small));
      assert.equal(human.unanswered().length, 0);
      // Not covered (more, or someone else): asked again, and the prompt says why.
      for (const args of [{ to: 'alice@example.com', amount: 41 }, { to: 'mallory@evil.example', amount: 1 }, { to: 'alice@example.com', amount: '1' }]) {
        const call = client.callTool({ name: 'pay', arguments: args });
        const again = await human.next();
        assert.match(again.nearMiss ?? '', /to is "alice@example.com" and amount ≤ 40/, JSON.stringify(args));
        await human.decide(again.id, 'deny');
        assert.equal((await call).isError, true);
      }
      const l = JSON.parse(fs.readFileSync(ledger, 'utf8')) as { payments: { to: string; amount: number }[] };
      assert.deepEqual(l.payments.map((x) => [x.to, x.amount]), [['alice@example.com', 40], ['alice@example.com', 12]]);
    } finally {
      await client.close();
    }
  });

  test('"only reads from this server, for this task": the write that asked is denied, reads pass, every other write is denied without a prompt; the grants die with the session', async () => {
    const box = path.join(d.home, 'mailbox-prompt.json');
    const client = await ownSession('mail', 'mail-server.mjs', box);
    let task: string;
    try {
      const before = fs.readFileSync(box, 'utf8');
      const del = client.callTool({ name: 'delete_message', arguments: { id: 'm1' } });
      const p = await human.next();
      assert.equal(p.action, 'delete');
      assert.equal(p.mcpServer, 'mail');
      assert.equal(p.actionOrigin, 'annotation');
      task = p.task!;
      const { grant } = await human.decide(p.id, 'allow', 'task', { serverReadOnly: true });
      assert.ok(grant);
      const r = await del;
      assert.equal(r.isError, true);
      assert.match(text(r), /only reads from mail for this task/);
      const list = await client.callTool({ name: 'list_messages', arguments: {} });
      assert.ok(!list.isError, text(list));
      for (const [name, args] of [['move_message', { id: 'm1', label: 'TRASH' }], ['send_message', { to: 'x@evil.example', subject: 's', body: 'b' }], ['empty_trash', {}]] as const) {
        const w = await client.callTool({ name, arguments: args });
        assert.equal(w.isError, true, name);
        assert.match(text(w), /mail: never write, delete, move or send/, name);
      }
      assert.equal(human.unanswered().length, 0, 'no prompt: the two grants answered');
      assert.equal(fs.readFileSync(box, 'utf8'), before);
      const mine = (await ui.call<{ grants: { task: string | null; tool: string; effect: string }[] }>('grants.list', {})).grants.filter((g) => g.task === task);
      assert.deepEqual(mine.map((g) => `${g.effect} ${g.tool}`).sort(), ['allow mail/*', 'deny mail/*']);
    } finally {
      await client.close();
    }
    // The session ended, and its task with it: the next session asks again.
    const next = await ownSession('mail', 'mail-server.mjs', box);
    try {
      const call = next.callTool({ name: 'delete_message', arguments: { id: 'm1' } });
      const again = await human.next();
      assert.notEqual(again.task, task);
      await human.decide(again.id, 'deny');
      assert.equal((await call).isError, true);
    } finally {
      await next.close();
    }
  });

  test('serverReadOnly is refused for a request that is not MCP, and the prompt stays to be answered', async () => {
    const agent = await d.agent();
    try {
      const t = await agent.call<{ task: string; token?: string }>('task.start', { name: 'not mcp' });
      const call = agent.call<{ decision: string }>('request', { source: 'api', tool: 'deploy', action: 'execute', summary: 'deploy', task: t.token ?? t.task });
      const p = await human.next();
      await assert.rejects(human.decide(p.id, 'allow', 'task', { serverReadOnly: true }), (e: { code?: number; message?: string }) => e.code === -32602 && /only for an MCP request/.test(e.message ?? ''));
      await human.decide(p.id, 'deny');
      assert.equal((await call).decision, 'deny');
    } finally {
      agent.close();
    }
  });
});
