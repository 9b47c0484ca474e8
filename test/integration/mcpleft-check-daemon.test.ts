// `airlock check` and the Claude Code hooks in front of a daemon that misbehaves: a socket the
// test owns at request.sock answers a line that is not JSON, an answer to another id, an
// answer that is not a decision, nothing at all, or closes the connection mid-prompt. Scripts
// rely on the documented exit codes (README.md "CLI exit codes"): each case must end, within a
// bound, with one line on stderr and a code that is not 0 (never "allowed"), no stack trace;
// the hooks must answer "ask" at once, not after their 590 s wait.
import assert from 'node:assert/strict';
import type * as net from 'node:net';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { airlock } from '../helpers/blackbox';
import { fakeDaemon } from '../helpers/fake-daemon';
import { HOOK_VARIANTS } from '../helpers/native-hook';
import { run } from '../helpers/run';

const idOf = (line: string) => (JSON.parse(line) as { id: number }).id;
const answer = (id: unknown, result: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n';
const allow = { decision: 'allow', reason: 'a fake says yes', event: 1 };

/** What each misbehaving daemon does with the first request line. */
const CASES: [string, (line: string, s: net.Socket) => void, RegExp][] = [
  ['a line that is not JSON', (_l, s) => s.write('this is not json\n'), /not JSON/],
  ['an allow for an id the client never sent', (l, s) => s.write(answer(idOf(l) + 7, allow)), /an id this client never sent/],
  ['an allow for a string id', (_l, s) => s.write(answer('1', allow)), /an id this client never sent/],
  ['a JSON line that is not an object', (_l, s) => s.write('[1,2]\n'), /not a JSON-RPC message/],
  ['a result of null', (l, s) => s.write(answer(idOf(l), null)), /not a decision/],
  ['an allow with no reason and no event', (l, s) => s.write(answer(idOf(l), { decision: 'allow' })), /not a decision/],
  ['a decision that is neither allow nor deny', (l, s) => s.write(answer(idOf(l), { decision: 'yes', reason: 'x', event: 1 })), /not a decision/],
  ['the connection closed mid-prompt', (_l, s) => s.end(), /connection to the Airlock daemon closed/],
  ['half an allow, then closed', (l, s) => s.end(answer(idOf(l), allow).slice(0, 30)), /connection to the Airlock daemon closed/],
];

const envFor = (sock: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, AIRLOCK_REQUEST_SOCK: sock, AIRLOCK_HOME: path.join(path.dirname(sock), 'home') };
  for (const k of ['AIRLOCK_HOOK_HOME', 'AIRLOCK_HOOK_REPLY_TIMEOUT_MS', 'AIRLOCK_TASK', 'AIRLOCK_TASK_TOKEN', 'CLAUDE_CONFIG_DIR']) delete env[k];
  return env;
};

/** One line on stderr, no stack trace, the code given. */
function assertOneLine(r: { code: number | null; stdout: string; stderr: string }, code: number, reason: RegExp, what = ''): void {
  assert.equal(r.code, code, `${what}: exit ${r.code}; stderr: ${r.stderr}`);
  assert.equal(r.stdout, '', `${what}: nothing on stdout (a script reading it must not see "allowed")`);
  assert.match(r.stderr, /^airlock: [^\n]*\n$/, `${what}: one line: ${r.stderr}`);
  assert.doesNotMatch(r.stderr, /\bat [\w.<>]+ \(|internal error/, `${what}: no stack trace`);
  assert.match(r.stderr, reason, what);
}

describe('airlock check against a daemon that misbehaves', () => {
  test('check: a daemon that answers a line that is not JSON, another id, something that is not a decision, or closes mid-prompt → exit 69 at once with one line, never allowed', async () => {
    for (const [what, reply, reason] of CASES) {
      const f = await fakeDaemon(reply);
      try {
        const t0 = Date.now();
        const r = await airlock(['check', '-a', 'write', '-t', 'fs.write', '-r', '/tmp/x', '-s', 'write x'], { env: envFor(f.sock), timeoutMs: 15_000 });
        assertOneLine(r, 69, reason, what);
        assert.match(r.stderr, /not allowed/, what);
        assert.ok(Date.now() - t0 < 10_000, `${what}: it ended at once, not after a wait (${Date.now() - t0} ms)`);
        assert.equal(f.lines.length, 1, `${what}: one request was sent`);
      } finally {
        f.close();
      }
    }
  });

  test('check: a daemon that never answers → --timeout ends it with 126 and withdraws the prompt (closes the connection)', async () => {
    let closedAfter = -1;
    const t0 = Date.now();
    const f = await fakeDaemon((_l, s) => s.on('close', () => (closedAfter = Date.now() - t0)));
    try {
      const r = await airlock(['check', '--timeout', '1.5', '-a', 'write', '-t', 'fs.write', '-r', '/tmp/x'], { env: envFor(f.sock), timeoutMs: 15_000 });
      assertOneLine(r, 126, /no answer in 1\.5 s \(--timeout\): not allowed; the prompt was withdrawn/);
      assert.ok(Date.now() - t0 >= 1400, 'it waited for the timeout');
      assert.ok(closedAfter >= 1400, `the connection was closed when it gave up (${closedAfter} ms)`);
      const bad = await airlock(['check', '--timeout', '1e3', '-a', 'write', '-t', 'fs.write'], { env: envFor(f.sock) });
      assertOneLine(bad, 64, /bad --timeout "1e3": seconds/);
    } finally {
      f.close();
    }
  });

  test('check: the real answer still reads as before (a fake allow and a fake deny, well formed)', async () => {
    const f = await fakeDaemon((l, s) => s.write(answer(idOf(l), l.includes('/tmp/ok') ? allow : { decision: 'deny', reason: 'denied by the fake', event: 2 })));
    try {
      const ok = await airlock(['check', '-a', 'write', '-t', 'fs.write', '-r', '/tmp/ok'], { env: envFor(f.sock) });
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(ok.stdout, 'allowed: a fake says yes (event 1)\n');
      const no = await airlock(['check', '-a', 'write', '-t', 'fs.write', '-r', '/tmp/no'], { env: envFor(f.sock) });
      assertOneLine(no, 126, /^airlock: denied by the fake \(event 2\)\n$/);
    } finally {
      f.close();
    }
  });
});

describe('the Claude Code hooks against a daemon that misbehaves', () => {
  const call = (cwd: string) => JSON.stringify({ session_id: 's-mcpleft', transcript_path: '/tmp/t.jsonl', cwd, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: path.join(cwd, 'x.txt'), content: 'x' } });
  test('both hooks: a daemon that answers a line that is not JSON or another id → ask at once (not after the 590 s wait), never allow', async () => {
    for (const h of HOOK_VARIANTS.filter((v) => !v.skip)) {
      for (const [what, reply] of CASES.slice(0, 4)) {
        const f = await fakeDaemon(reply);
        try {
          const t0 = Date.now();
          const r = await run(h.cmd, h.args, { env: envFor(f.sock), input: call(f.dir), timeoutMs: 20_000 });
          assert.equal(r.code, 0, `${h.name}, ${what}: ${r.stderr}`);
          const out = (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
          assert.equal(out.permissionDecision, 'ask', `${h.name}, ${what}: ${out.permissionDecisionReason}`);
          assert.match(out.permissionDecisionReason, /^Airlock could not decide \(/);
          assert.ok(Date.now() - t0 < 10_000, `${h.name}, ${what}: at once, not after the reply timeout (${Date.now() - t0} ms)`);
        } finally {
          f.close();
        }
      }
    }
  });
});
