// The installed hook connects to request.sock before it has read stdin (issue 15, hook
// start-up: the daemon reads the caller's process tree on accept, in parallel with the hook
// reading its input), and never leaves that connection open: an event that needs no
// decision closes it and the process exits. Played against a listening socket the test owns,
// so the order of events is seen from the daemon's side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const HOOK_BIN = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code', 'bin.js');

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, rej) => (timer = setTimeout(() => rej(new Error(`timed out after ${ms} ms: ${what}`)), ms)))]).finally(() => clearTimeout(timer));
}

async function fakeDaemon(onLine: (line: string, s: net.Socket) => void) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-hookec-'));
  const sock = path.join(dir, 'request.sock');
  const events: string[] = [];
  const lines: string[] = [];
  let connected!: () => void;
  let closed!: () => void;
  const connectedP = new Promise<void>((r) => (connected = r));
  const closedP = new Promise<void>((r) => (closed = r));
  const server = net.createServer((s) => {
    events.push('connect');
    connected();
    let buf = '';
    s.setEncoding('utf8');
    s.on('data', (d: string) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        events.push('request');
        lines.push(buf.slice(0, i));
        onLine(buf.slice(0, i), s);
        buf = buf.slice(i + 1);
      }
    });
    s.on('error', () => {});
    s.on('close', () => {
      events.push('close');
      closed();
    });
  });
  await new Promise<void>((r) => server.listen(sock, r));
  return { dir, sock, events, lines, connectedP, closedP, close: () => server.close() };
}

/** What a daemon answers to hook.claudeCode: the hook's output, as hex (contract/agent.ts HookClaudeCodeResult). */
function hookAnswer(decision: string, reason: string) {
  const out = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: reason } }) + '\n';
  return { exitCode: 0, stdoutHex: Buffer.from(out).toString('hex') };
}

function runHook(env: NodeJS.ProcessEnv) {
  const p = spawn(process.execPath, [HOOK_BIN], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  p.stdout.on('data', (d) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => p.on('exit', (code) => r(code)));
  return { p, exited, out: () => out };
}

const toolCall = (event: string, cwd: string) =>
  JSON.stringify({ session_id: 's-early', transcript_path: '/tmp/t.jsonl', cwd, hook_event_name: event, tool_name: 'Write', tool_input: { file_path: path.join(cwd, 'x.txt'), content: 'x' } });

test('hook: connects before stdin is read; an event after the tool ran closes the connection unused and exits', async () => {
  const f = await fakeDaemon(() => assert.fail('no request expected for PostToolUse'));
  try {
    const h = runHook({ ...process.env, AIRLOCK_REQUEST_SOCK: f.sock, AIRLOCK_HOME: path.join(f.dir, 'home') });
    // stdin is still open and empty: the connection must already be there.
    await within(f.connectedP, 15_000, 'the hook connecting before its input arrived');
    assert.deepEqual(f.events, ['connect']);
    h.p.stdin.end(toolCall('PostToolUse', f.dir));
    assert.equal(await within(h.exited, 15_000, 'the hook exiting'), 0);
    await within(f.closedP, 5_000, 'the unused connection closing');
    assert.deepEqual(f.events, ['connect', 'close']);
    assert.equal(h.out(), '', 'nothing to decide after the tool ran');
  } finally {
    f.close();
  }
});

test('hook: the early connection carries the decision, and input it cannot read still closes it and asks', async () => {
  const f = await fakeDaemon((line, s) => {
    const m = JSON.parse(line) as { id: number; method: string; params: { stdin: string } };
    assert.equal(m.method, 'hook.claudeCode');
    let readable = true;
    try {
      JSON.parse(m.params.stdin);
    } catch {
      readable = false;
    }
    const result = readable ? hookAnswer('deny', 'Airlock: fake daemon says no (event 7)') : hookAnswer('ask', 'Airlock could not read the hook input (stdin is not JSON); asking instead');
    s.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\n');
  });
  try {
    const env = { ...process.env, AIRLOCK_REQUEST_SOCK: f.sock, AIRLOCK_HOME: path.join(f.dir, 'home'), AIRLOCK_TASK: 'tk_fake' };
    const h = runHook(env);
    await within(f.connectedP, 15_000, 'the hook connecting');
    h.p.stdin.end(toolCall('PreToolUse', f.dir));
    assert.equal(await within(h.exited, 15_000, 'the hook exiting'), 0);
    const out = JSON.parse(h.out()) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
    assert.match(out.hookSpecificOutput.permissionDecisionReason, /fake daemon says no \(event 7\)/);
    await within(f.closedP, 5_000, 'the connection closing');
    assert.deepEqual(f.events, ['connect', 'request', 'close'], 'one connection, one request');

    // Input the hook cannot read goes to the daemon as it came (the daemon reads it, and asks).
    const bad = runHook(env);
    bad.p.stdin.end('{"not": "a hook event"');
    assert.equal(await within(bad.exited, 15_000, 'the hook exiting on bad input'), 0);
    assert.equal((JSON.parse(bad.out()) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision, 'ask');
    assert.equal((JSON.parse(f.lines.at(-1)!) as { params: { stdin: string } }).params.stdin, '{"not": "a hook event"');
  } finally {
    f.close();
  }
});

test('hook: no daemon listening: the early connect fails quietly and the hook asks', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-hookec-'));
  const h = runHook({ ...process.env, AIRLOCK_REQUEST_SOCK: path.join(dir, 'none.sock'), AIRLOCK_HOME: path.join(dir, 'home') });
  h.p.stdin.end(toolCall('PreToolUse', dir));
  assert.equal(await within(h.exited, 15_000, 'the hook exiting'), 0);
  const out = JSON.parse(h.out()) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
  assert.equal(out.hookSpecificOutput.permissionDecision, 'ask');
  assert.match(out.hookSpecificOutput.permissionDecisionReason, /not running/);
});

test('hook: stdin that arrives in pieces (a slow writer) is read whole before deciding', async () => {
  // stdin is read with read(2) until end of file: a partial first read must not be taken for all of it.
  const f = await fakeDaemon((line, s) => {
    const m = JSON.parse(line) as { id: number; params: { stdin: string } };
    const tool = (JSON.parse(m.params.stdin) as { tool_name: string }).tool_name;
    s.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: hookAnswer('deny', `saw ${tool}`) }) + '\n');
  });
  try {
    const h = runHook({ ...process.env, AIRLOCK_REQUEST_SOCK: f.sock, AIRLOCK_HOME: path.join(f.dir, 'home'), AIRLOCK_TASK: 'tk_fake' });
    const text = toolCall('PreToolUse', f.dir);
    for (const piece of [text.slice(0, 10), text.slice(10, 60), text.slice(60)]) {
      h.p.stdin.write(piece);
      await new Promise((r) => setTimeout(r, 150));
    }
    h.p.stdin.end();
    assert.equal(await within(h.exited, 15_000, 'the hook exiting'), 0);
    const out = JSON.parse(h.out()) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
    assert.match(out.hookSpecificOutput.permissionDecisionReason, /saw Write/);
  } finally {
    f.close();
  }
});

test('hook: stdin over 8 MiB is not read on: the hook asks, sends no request and closes the connection', async () => {
  const f = await fakeDaemon(() => assert.fail('no request expected for oversized input'));
  try {
    const h = runHook({ ...process.env, AIRLOCK_REQUEST_SOCK: f.sock, AIRLOCK_HOME: path.join(f.dir, 'home'), AIRLOCK_TASK: 'tk_fake' });
    h.p.stdin.on('error', () => undefined); // EPIPE once the hook stops reading
    const head = toolCall('PreToolUse', f.dir).slice(0, -2);
    h.p.stdin.end(`${head},"pad":"${'x'.repeat(9 * 1024 * 1024)}"}}`);
    assert.equal(await within(h.exited, 15_000, 'the hook exiting'), 0);
    const out = JSON.parse(h.out()) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    assert.equal(out.hookSpecificOutput.permissionDecision, 'ask');
    assert.match(out.hookSpecificOutput.permissionDecisionReason, /stdin larger than 8388608 bytes/);
    await within(f.closedP, 5_000, 'the connection closing');
    assert.deepEqual(f.events, ['connect', 'close']);
  } finally {
    f.close();
  }
});

test("hook: input that arrives after the client's 5 s connect timeout still gets the daemon's answer, not \"not running\"", async () => {
  // The hook connects, then blocks reading stdin: the timer that expires meanwhile must not
  // beat the connect the kernel already completed (test/unit/rpc-client-connect.test.ts).
  const f = await fakeDaemon((line, s) => {
    const m = JSON.parse(line) as { id: number };
    s.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: hookAnswer('deny', 'Airlock: fake daemon says no (event 9)') }) + '\n');
  });
  try {
    const h = runHook({ ...process.env, AIRLOCK_REQUEST_SOCK: f.sock, AIRLOCK_HOME: path.join(f.dir, 'home'), AIRLOCK_TASK: 'tk_fake' });
    await within(f.connectedP, 15_000, 'the hook connecting');
    await new Promise((r) => setTimeout(r, 5_600));
    h.p.stdin.end(toolCall('PreToolUse', f.dir));
    assert.equal(await within(h.exited, 15_000, 'the hook exiting'), 0);
    const out = JSON.parse(h.out()) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    assert.equal(out.hookSpecificOutput.permissionDecision, 'deny', out.hookSpecificOutput.permissionDecisionReason);
    assert.match(out.hookSpecificOutput.permissionDecisionReason, /fake daemon says no \(event 9\)/);
  } finally {
    f.close();
  }
});
