// The Claude Code hook and `airlock mcp` give an MCP tool the same action: the proxy
// reports what the real server-filesystem declared in tools/list, the daemon keeps it, and
// the hook's `mcp__fs__…` calls use it. A name alone never makes a read.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, REPO, startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';
import type { Prompt } from '../../main/contract/approver';

const FS_SERVER = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const HOOK_BIN = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code', 'bin.js');

let d: Daemon;
let ui: RpcClient;
let human: Human;
let root: string;

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  human = await Human.on(ui);
  root = fs.realpathSync(fs.mkdtempSync(path.join(d.home, 'fs-')));
  fs.writeFileSync(path.join(root, 'a.txt'), 'a');
});
after(async () => {
  ui?.close();
  await d?.stop();
});

type Decision = 'allow' | 'deny' | 'ask';
async function hook(tool: string, input: Record<string, unknown>): Promise<{ decision: Decision; reason: string }> {
  const raw = JSON.stringify({ session_id: 'agree-0001', cwd: root, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input });
  const r = await run(process.execPath, [HOOK_BIN], { env: d.env, input: raw, timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout).hookSpecificOutput as { permissionDecision: Decision; permissionDecisionReason: string };
  return { decision: o.permissionDecision, reason: o.permissionDecisionReason };
}

async function hookPrompt(tool: string, input: Record<string, unknown>): Promise<Prompt> {
  const pending = hook(tool, input);
  const p = await human.next(15_000);
  await human.decide(p.id, 'deny');
  assert.equal((await pending).decision, 'deny');
  return p;
}

describe('hook and proxy agree on MCP actions', () => {
  test('before any proxy saw the server: never a read by name', async () => {
    const get = await hookPrompt('mcp__fs__read_text_file', { path: path.join(root, 'a.txt') });
    assert.equal(get.action, 'write');
    assert.equal(get.actionOrigin, 'name');
    const del = await hookPrompt('mcp__gmail__get_and_delete_all_mail', {});
    assert.equal(del.action, 'delete', 'mcp__gmail__get_and_delete_all_mail is not a read');
    assert.equal(del.actionOrigin, 'name');
  });

  test('once the proxy has seen the server, the hook gets the proxy\'s actions', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--name', 'fs', '--', process.execPath, FS_SERVER, root],
      env: d.env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'agree', version: '1.0.0' });
    await client.connect(transport);
    const proxyActions: Record<string, string> = {};
    try {
      await client.listTools();
      // The proxy's own decision for a write, as the human sees it.
      const pending = client.callTool({ name: 'write_file', arguments: { path: path.join(root, 'p.txt'), content: 'p' } });
      const p = await human.next(15_000);
      proxyActions.write_file = p.action;
      await human.decide(p.id, 'deny');
      await pending;
    } finally {
      await client.close();
    }
    // The report is asynchronous: wait until the hook's read passes silently.
    await waitFor(async () => (await hook('mcp__fs__read_text_file', { path: path.join(root, 'a.txt') })).decision === 'allow', 'the hook to learn read_text_file', 15_000);
    assert.equal(human.unanswered().length, 0, 'a read through the hook is silent');
    const w = await hookPrompt('mcp__fs__write_file', { path: path.join(root, 'h.txt'), content: 'h' });
    assert.equal(w.action, proxyActions.write_file);
    assert.equal(w.action, 'write');
    assert.equal(w.actionOrigin, 'annotation');
    const m = await hookPrompt('mcp__fs__move_file', { source: path.join(root, 'a.txt'), destination: path.join(root, 'b.txt') });
    assert.equal(m.action, 'write');
    assert.ok(m.risk.reasons.some((r) => /moves or renames/.test(r)));
  });

  test('a forged report cannot turn a known write into a read; a pin still wins', async () => {
    const agent = await d.agent();
    try {
      const r = await agent.call<{ learned: number; kept: string[] }>('mcp.tools', { server: 'fs', tools: [{ name: 'write_file', annotations: { readOnlyHint: true } }] });
      assert.deepEqual(r.kept, ['write_file']);
      // One report naming a tool twice, a write then "read-only": the second entry is kept out too.
      const dup = await agent.call<{ learned: number; kept: string[] }>('mcp.tools', { server: 'dup', tools: [{ name: 'put', annotations: { readOnlyHint: false } }, { name: 'put', annotations: { readOnlyHint: true } }] });
      assert.deepEqual(dup.kept, ['put']);
      assert.equal((await hookPrompt('mcp__dup__put', { v: 1 })).action, 'write');
      // An input field named like the proxy's own fields stays an argument.
      const w = await hookPrompt('mcp__fs__write_file', { path: path.join(root, 'x.txt'), annotations: { readOnlyHint: true } });
      assert.equal(w.action, 'write');
    } finally {
      agent.close();
    }
    await ui.call('settings.set', { mcpToolActions: { 'fs/write_file': 'delete' } });
    try {
      const w = await hookPrompt('mcp__fs__write_file', { path: path.join(root, 'y.txt') });
      assert.equal(w.action, 'delete');
      assert.equal(w.actionOrigin, 'pin');
    } finally {
      await ui.call('settings.set', { mcpToolActions: {} });
    }
  });
});
