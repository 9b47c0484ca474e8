// The web UI for MCP and egress prompts and for secrets (issues 14 and 16), against the real
// daemon in Chromium: the MCP SDK client drives the docs' example servers through
// `airlock mcp`; egress prompts come from a real CONNECT on the task's own egress.sock.
// - an MCP prompt says which server and where its action came from; ticking "amount ≤ 40"
//   and "to is alice" makes a task grant with that condition: a smaller payment to alice
//   passes unasked, a larger one asks again and says why; a condition that does not compile
//   is refused with the reason and the prompt stays;
// - "only reads from this server, for this task" from a delete prompt: the delete is denied,
//   reads pass, other writes are denied unasked;
// - an egress prompt shows host, port, address and what the task sent; "Allow this host for
//   this task" opens the tunnel, and the Tasks view lists the destination;
// - Secrets: added through the form, listed by name and hosts, the value never on the page
//   again nor in any answer, removed after a confirmation.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Grant, Prompt } from '../../main/contract/approver';
import { CLI, REPO } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { browserMissing, launchChromium, openUi, startWebDaemon, waitArmed, watchPromptArrivals, type WebDaemon } from '../helpers/web-ui';

const skip = browserMissing();
const EXAMPLES = path.join(REPO, 'docs', 'examples', 'mcp');
const text = (r: unknown) => ((r as { content: { text: string }[] }).content ?? []).map((c) => c.text).join('\n');

async function session(d: WebDaemon, name: string, server: string, state: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--name', name, '--', process.execPath, path.join(EXAMPLES, server), state],
    env: d.env as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  return client;
}

/**
 * Sends a CONNECT on a task's egress.sock; resolves with the proxy's status line and a
 * promise of everything that follows it until the tunnel closes (bounded).
 */
function connectThrough(sock: string, target: string): Promise<{ status: string; rest: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(sock);
    let buf = '';
    let status: string | null = null;
    let closed: (text: string) => void = () => undefined;
    const rest = new Promise<string>((r) => (closed = r));
    const t = setTimeout(() => {
      s.destroy();
      reject(new Error(`no answer to CONNECT ${target} in time`));
    }, 60_000);
    s.on('error', (e) => {
      clearTimeout(t);
      reject(e);
    });
    s.on('data', (c) => {
      buf += c.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (status === null && end >= 0) {
        status = buf.split('\r\n')[0]!;
        buf = buf.slice(end + 4);
        resolve({ status, rest });
      }
    });
    s.on('close', () => {
      clearTimeout(t);
      closed(buf);
    });
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

test('web UI: MCP and egress prompts, conditions, "only reads from this server", destinations and secrets', { skip: skip ?? false, timeout: 180_000 }, async (t) => {
  const d = await startWebDaemon();
  const browser = await launchChromium();
  t.after(async () => {
    await browser.close();
    await d.stop();
  });
  const { page, errors } = await openUi(browser, d);
  await watchPromptArrivals(page);
  const ui = await d.ui();
  const human = await Human.on(await d.ui());
  t.after(() => {
    ui.close();
    human.ui.close();
  });
  const card = (p: Prompt) => page.locator(`[data-prompt-id="${p.id}"]`);

  await t.test('an MCP payment: server and action origin shown; a condition ticked from the arguments becomes the grant', async () => {
    const ledger = path.join(d.home, 'ledger.json');
    const client = await session(d, 'payments', 'payments-server.mjs', ledger);
    try {
      const first = client.callTool({ name: 'pay', arguments: { to: 'alice@example.com', amount: 40, memo: 'rent' } });
      const p = await human.next();
      const c = card(p);
      await c.waitFor();
      assert.equal(await c.getByTestId('mcp-server').textContent(), 'payments');
      assert.equal(await c.getByTestId('action-origin').getAttribute('data-origin'), 'annotation');
      assert.match((await c.getByTestId('action-origin').textContent()) ?? '', /server's annotations/);
      const picker = c.getByTestId('condition-picker');
      assert.match((await picker.textContent()) ?? '', /amount ≤ 40/);
      assert.match((await c.getByTestId('condition-words').textContent()) ?? '', /none: the grant covers every such request/);
      // Parts in argument order: to, amount, memo.
      await c.getByTestId('condition-part-0').check();
      await c.getByTestId('condition-part-1').check();
      assert.equal(await c.getByTestId('condition-text').inputValue(), 'args.to == "alice@example.com" && args.amount <= 40');
      assert.equal((await c.getByTestId('condition-words').textContent())?.trim(), 'In words: to is "alice@example.com" and amount ≤ 40');
      // A condition that does not compile: refused with the reason, the prompt stays.
      await c.getByTestId('condition-text').fill('args.amount <=');
      assert.match((await c.getByTestId('condition-words').textContent()) ?? '', /your own condition/);
      await waitArmed(page, p.id);
      await c.getByTestId('choice-task').click();
      await page.getByTestId('toast').filter({ hasText: /Could not decide/ }).waitFor();
      assert.equal(await c.count(), 1, 'the prompt is still there');
      await c.getByTestId('condition-part-0').check();
      await c.getByTestId('condition-part-1').check();
      await c.getByTestId('choice-task').click();
      assert.ok(!(await first).isError);
      await page.getByTestId('toast').filter({ hasText: /when to is "alice@example.com" and amount ≤ 40/ }).waitFor();
      const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { task: p.task! });
      assert.deepEqual(grants.map((g) => [g.task, g.when]), [[p.task, 'args.to == "alice@example.com" && args.amount <= 40']]);
      const small = await client.callTool({ name: 'pay', arguments: { to: 'alice@example.com', amount: 10 } });
      assert.ok(!small.isError, text(small));
      assert.equal(human.unanswered().length, 0, 'no prompt for a payment the condition covers');
      const big = client.callTool({ name: 'pay', arguments: { to: 'alice@example.com', amount: 400 } });
      const again = await human.next();
      await card(again).getByTestId('near-miss').waitFor();
      assert.match((await card(again).getByTestId('near-miss').textContent()) ?? '', /to is "alice@example.com" and amount ≤ 40/);
      await waitArmed(page, again.id);
      await card(again).getByTestId('choice-deny').click();
      assert.equal((await big).isError, true);
    } finally {
      await client.close();
    }
  });

  await t.test('"only reads from this server, for this task" from a delete prompt', async () => {
    const box = path.join(d.home, 'mailbox.json');
    const client = await session(d, 'mail', 'mail-server.mjs', box);
    try {
      const before = fs.readFileSync(box, 'utf8');
      const del = client.callTool({ name: 'delete_message', arguments: { id: 'm1' } });
      const p = await human.next();
      const c = card(p);
      await c.getByTestId('server-read-only').waitFor();
      assert.match((await c.getByTestId('server-read-only').textContent()) ?? '', /Only reads from “mail”, for this task.*this delete is denied/);
      await waitArmed(page, p.id);
      await c.getByTestId('choice-server-read-only').click();
      const r = await del;
      assert.equal(r.isError, true);
      assert.match(text(r), /only reads from mail for this task/);
      assert.ok(!(await client.callTool({ name: 'list_messages', arguments: {} })).isError);
      const mv = await client.callTool({ name: 'move_message', arguments: { id: 'm1', label: 'TRASH' } });
      assert.equal(mv.isError, true);
      assert.equal(human.unanswered().length, 0);
      assert.equal(fs.readFileSync(box, 'utf8'), before);
      const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { task: p.task! });
      assert.deepEqual(grants.map((g) => `${g.effect} ${g.tool} ${g.task === p.task}`).sort(), ['allow mail/* true', 'deny mail/* true']);
    } finally {
      await client.close();
    }
  });

  await t.test('egress: where, address and what was sent; "Allow this host for this task"; the Tasks view lists the destination', async () => {
    const upstream = net.createServer((s) => s.end('hello from upstream\n'));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    t.after(() => upstream.close());
    const port = (upstream.address() as net.AddressInfo).port;
    const agent = await d.agent();
    let started: { task: string; egress: { sock: string } | null };
    try {
      started = await agent.call('task.start', { name: 'e2e: fetch' });
    } finally {
      agent.close();
    }
    assert.ok(started.egress, 'every task gets an egress proxy');
    const pending = connectThrough(started.egress.sock, `127.0.0.1:${port}`);
    const p = await human.next(20_000);
    assert.equal(p.source, 'egress');
    const c = card(p);
    await c.getByTestId('egress-facts').waitFor();
    assert.equal(await c.getByTestId('egress-host').textContent(), '127.0.0.1');
    assert.equal(await c.getByTestId('egress-port').textContent(), String(port));
    assert.equal(await c.getByTestId('egress-address').textContent(), '127.0.0.1');
    assert.match((await c.getByTestId('egress-sent').textContent()) ?? '', /^0 B out, 0 B in, to \d+ destinations?$/);
    assert.match((await c.getByTestId('choice-task').textContent()) ?? '', /Allow this host for this task/);
    await waitArmed(page, p.id);
    await c.getByTestId('choice-task').click();
    const { status, rest } = await pending;
    assert.match(status, /^HTTP\/1\.1 200/);
    const got = await rest;
    assert.match(got, /hello from upstream/);
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { task: started.task });
    assert.deepEqual(grants.map((g) => [g.source, g.resource, g.task]), [['egress', `127.0.0.1:${port}`, started.task]]);
    await page.getByTestId('nav-tasks').click();
    await page.getByTestId('task-item').filter({ hasText: 'e2e: fetch' }).getByRole('button', { name: 'e2e: fetch' }).click();
    const row = page.locator(`[data-testid=task-destination][data-resource="127.0.0.1:${port}"]`);
    await row.waitFor();
    assert.equal(await row.getByTestId('destination-allowed').textContent(), '1');
    await page.getByTestId('nav-pending').click();
  });

  await t.test('Secrets: add through the form, listed without the value, removed after a confirmation', async () => {
    const VALUE = 'ghp_e2e_secret_value_0123456789';
    await page.getByTestId('nav-secrets').click();
    await page.getByTestId('secrets-empty').waitFor();
    await page.getByTestId('secret-add').click();
    await page.getByTestId('secret-name').fill('GITHUB_TOKEN');
    await page.getByTestId('secret-value').fill(VALUE);
    assert.equal(await page.getByTestId('secret-value').getAttribute('type'), 'password');
    await page.getByTestId('secret-hosts').fill('api.github.com, *.githubusercontent.com');
    await page.getByTestId('secret-headers').fill('Authorization');
    await page.getByTestId('secret-add-submit').click();
    const item = page.locator('[data-testid=secret-item][data-name=GITHUB_TOKEN]');
    await item.waitFor();
    assert.equal(await item.getByTestId('secret-hosts-shown').textContent(), 'api.github.com, *.githubusercontent.com');
    assert.ok(!(await page.content()).includes(VALUE), 'the value is nowhere on the page');
    const inputs = (await page.evaluate(`[...document.querySelectorAll('input')].map((i) => i.value).join('\\n')`)) as string;
    assert.ok(!inputs.includes(VALUE), 'no field holds it either');
    const listed = await ui.call<{ secrets: unknown[] }>('secrets.list', {});
    assert.ok(!JSON.stringify(listed).includes(VALUE));
    assert.deepEqual(listed.secrets.map((s) => (s as { name: string }).name), ['GITHUB_TOKEN']);
    // A bad host is refused with the reason; nothing is stored.
    await page.getByTestId('secret-add').click();
    await page.getByTestId('secret-name').fill('BAD');
    await page.getByTestId('secret-value').fill('x');
    await page.getByTestId('secret-hosts').fill('https://evil/path');
    await page.getByTestId('secret-add-submit').click();
    await page.getByTestId('toast').filter({ hasText: /Could not add the secret/ }).waitFor();
    assert.equal(await page.getByTestId('secret-value').inputValue(), '', 'the value field is emptied even on a refusal');
    await item.getByTestId('secret-remove').click();
    await item.getByTestId('secret-remove-confirm').click();
    await page.getByTestId('secrets-empty').waitFor();
    assert.deepEqual((await ui.call<{ secrets: unknown[] }>('secrets.list', {})).secrets, []);
  });

  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
});
