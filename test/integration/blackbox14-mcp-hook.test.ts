// Black-box, wave 14: the same MCP server reached through Claude Code's hook
// (`mcp__filesystem__…`) instead of `airlock mcp`. The proxy has seen the real
// @modelcontextprotocol/server-filesystem once (so the daemon knows read_multiple_files is
// read-only, as docs/agents.md says), then `airlock hook claude-code` gets Claude Code's
// PreToolUse input on stdin. Promise checked: a deny grant on a directory holds for every
// path an MCP call names, whichever way the call comes (docs/mcp-grants.md).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AIRLOCK_BIN, Wire, airlock, pendingList } from '../helpers/blackbox';
import { REPO, startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';

const FS_SERVER = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

let d: Daemon;
let ui: Wire;
let root: string;

before(async () => {
  d = await startDaemon({ home: path.join(tempHome('bb14h-'), 'h') });
  ui = await Wire.open(d.uiSock);
  root = fs.realpathSync(fs.mkdtempSync(path.join(path.dirname(d.home), 'work-')));
  fs.mkdirSync(path.join(root, 'private'));
  fs.writeFileSync(path.join(root, 'private', 'plan.txt'), 'the plan\n');
  fs.writeFileSync(path.join(root, 'notes.txt'), 'notes\n');
  // One proxy session teaches the daemon the server's annotations (tools/list).
  const p = spawn(process.execPath, [AIRLOCK_BIN, 'mcp', '--name', 'filesystem', '--', process.execPath, FS_SERVER, root], { env: d.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  p.stdout.on('data', (x: Buffer) => (out += x.toString()));
  p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bb14', version: '1' } } }) + '\n');
  p.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) + '\n');
  await waitFor(() => /"id":2[,}]/.test(out), 'tools/list through the proxy', 30_000);
  await new Promise((r) => setTimeout(r, 1000)); // the report to the daemon is sent beside the answer
  p.stdin.end();
  await new Promise((r) => p.once('exit', r));
});
after(async () => {
  ui?.close();
  await d?.stop();
});

/** `airlock hook claude-code` with one PreToolUse input; Claude Code's decision and reason. */
async function hook(tool: string, input: object): Promise<{ decision: string; reason: string }> {
  const r = await airlock(['hook', 'claude-code'], {
    env: d.env,
    cwd: root,
    input: JSON.stringify({ session_id: 'bb14-session', transcript_path: path.join(root, 't.jsonl'), cwd: root, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input }),
    timeoutMs: 60_000,
  });
  const o = JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
  return { decision: o.hookSpecificOutput.permissionDecision, reason: o.hookSpecificOutput.permissionDecisionReason };
}

interface Ev { tool: string; action: string; decision: string; resource: string | null; risk?: { level: string; reasons: string[] } }

describe('MCP calls through the Claude Code hook: every path the call names', () => {
  test('a deny on a directory holds for read_multiple_files and move_file through the hook (paths, source, destination were never looked at: the read was allowed)', async () => {
    const g = (await ui.ok<{ grant: { id: string } }>('grants.create', { source: 'mcp', tool: 'filesystem/*', action: '*', resource: `${root}/private/**`, effect: 'deny', note: 'never the private dir' })).grant.id;
    try {
      // Control: the known read-only tool on a plain file is a read the default policy allows.
      assert.equal((await hook('mcp__filesystem__read_multiple_files', { paths: [path.join(root, 'notes.txt')] })).decision, 'allow');
      const r1 = await hook('mcp__filesystem__read_multiple_files', { paths: [path.join(root, 'notes.txt'), path.join(root, 'private', 'plan.txt')] });
      assert.equal(r1.decision, 'deny', JSON.stringify(r1));
      assert.match(r1.reason, /never the private dir/);
      const r2 = await hook('mcp__filesystem__move_file', { source: 'private/plan.txt', destination: 'plan.txt' });
      assert.equal(r2.decision, 'deny', JSON.stringify(r2));
      const r3 = await hook('mcp__filesystem__read_multiple_files', { paths: ['~/../../' + path.join(root, 'private', 'plan.txt').slice(1)] });
      assert.equal(r3.decision, 'deny', `a ~ path leading into the denied directory: ${JSON.stringify(r3)}`);
      assert.equal((await pendingList(ui)).length, 0);
    } finally {
      await ui.ok('grants.revoke', { id: g });
    }
  });

  test('a key read through read_multiple_files by the hook names the key, and more paths than can be judged are asked', async () => {
    const key = path.join(process.env.HOME ?? '/root', '.ssh', 'id_ed25519');
    await hook('mcp__filesystem__read_multiple_files', { paths: [path.join(root, 'notes.txt'), '~/.ssh/id_ed25519'] });
    const ev = (await ui.ok<{ events: Ev[] }>('history.query', { limit: 50, source: 'mcp' })).events.filter((e) => e.tool === 'filesystem/read_multiple_files');
    const row = ev.find((e) => JSON.stringify(e).includes('.ssh/id_ed25519') && e.resource !== null);
    assert.ok(row, `the key read is recorded with its path: ${JSON.stringify(ev.map((e) => [e.resource, e.decision]))}`);
    assert.ok(JSON.stringify(row).includes(key) || JSON.stringify(row).includes('~/.ssh/id_ed25519'), JSON.stringify(row));
    // 200 distinct paths: past what one request judges. Asked (critical), never a silent read.
    const many = Array.from({ length: 200 }, (_, i) => `${root}/${'./'.repeat(i)}notes.txt`);
    const asked = airlock(['hook', 'claude-code'], {
      env: d.env,
      cwd: root,
      input: JSON.stringify({ session_id: 'bb14-session', transcript_path: path.join(root, 't.jsonl'), cwd: root, hook_event_name: 'PreToolUse', tool_name: 'mcp__filesystem__read_multiple_files', tool_input: { paths: many } }),
      timeoutMs: 60_000,
    });
    let prompt: { id: string; risk: { level: string; reasons: string[] } } | undefined;
    await waitFor(async () => (prompt = (await pendingList(ui)).find((q) => q.tool === 'filesystem/read_multiple_files') as typeof prompt) !== undefined, 'the prompt for 200 paths', 30_000);
    assert.equal(prompt!.risk.level, 'critical');
    assert.ok(prompt!.risk.reasons.some((x) => /too many to judge/.test(x)), prompt!.risk.reasons.join('; '));
    await ui.ok('pending.decide', { id: prompt!.id, decision: 'deny', scope: 'once' });
    const out = JSON.parse((await asked).stdout) as { hookSpecificOutput: { permissionDecision: string } };
    assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
  });
});
