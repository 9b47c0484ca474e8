// Bad input on every documented CLI entry point (README "CLI exit codes", DESIGN.md "CLI"),
// as a user types it: a non-zero exit with the documented code, one clear line on stderr
// that says what to do next, nothing run, and the daemon and its history fine afterwards.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { CLI, startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';

let d: Daemon;
let marker: string;
before(async () => {
  d = await startDaemon();
  marker = path.join(d.home, 'ran');
});
after(async () => {
  await d?.stop();
  fs.rmSync(d.home, { recursive: true, force: true });
});

function airlock(args: string[], env: NodeJS.ProcessEnv = d.env, input = '') {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, input, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const touch = () => ['--', 'touch', marker];

/** [argv, exit code, what stderr must say]. */
const BAD: [string[], number, RegExp][] = [
  [['no-such-command'], 64, /unknown command 'no-such-command'/],
  [['check'], 64, /required option '-a, --action/],
  [['check', '-a', 'fly', '-t', 'x'], 64, /action: .*read.*write/],
  [['check', '-a', 'read', '-t', 'x', '--task', 't_nope'], 64, /no task t_nope/],
  [['exec'], 64, /no command given/],
  [['exec', '--timeout', 'soon', ...touch()], 64, /bad --timeout "soon"/],
  [['exec', '--task', 't_nope', ...touch()], 64, /no task t_nope.*nothing was run/],
  [['exec', '--task', 'bad id!', ...touch()], 64, /task: must be letters/],
  [['exec', '--bogus', ...touch()], 64, /unknown option '--bogus'/],
  [['task', 'start'], 64, /missing required argument 'name'/],
  [['task', 'end', 't_nope'], 64, /no task t_nope/],
  [['grants', 'add'], 64, /required option '-a, --action/],
  [['grants', 'add', '-a', 'write,fly'], 64, /action: must be one of read, write/],
  [['grants', 'add', '-a', 'write', '--expires', 'soon'], 64, /bad duration "soon".*2h/],
  [['grants', 'add', '-a', 'write', '--when', 'args.x <'], 64, /when: does not parse/],
  [['grants', 'add', '-a', 'write', '--task', 't_nope'], 64, /no task t_nope/],
  [['grants', 'revoke'], 64, /missing required argument 'id'/],
  [['grants', 'revoke', 'g_nope'], 64, /no grant g_nope/],
  [['history', '--since', 'banana'], 64, /bad time "banana".*duration like 2h/],
  [['history', '--decision', 'maybe'], 64, /decision: .*allow.*deny/],
  [['history', '--limit', '-3'], 64, /limit/],
  [['history', '--cursor', 'DROP TABLE'], 64, /cursor/],
  [['keys', 'generate'], 64, /missing required argument 'name'/],
  [['keys', 'generate', 'k', '--type', 'dsa'], 64, /--type must be one of ed25519/],
  [['keys', 'import', '/nonexistent/key'], 64, /no key file at \/nonexistent\/key/],
  [['keys', 'remove', 'SHA256:nope'], 64, /no key SHA256:nope/],
  [['mcp'], 64, /no server command/],
  [['mcp', '--name', 'bad name!', '--', 'true'], 64, /bad --name/],
  [['watch', '--bogus'], 64, /unknown option '--bogus'/],
  [['hook', 'no-such-agent'], 64, /unknown command 'no-such-agent'/],
  [['task', 'bogus'], 64, /unknown subcommand/],
  [['grants', 'bogus'], 64, /unknown subcommand/],
  [['audit', 'bogus'], 64, /unknown subcommand/],
  [['audit', 'verify', '--db', '/nonexistent/airlock.db'], 66, /cannot open \/nonexistent\/airlock\.db: it does not exist/],
  [['history', '--db', '/tmp'], 66, /cannot open \/tmp: it is a directory/],
];

test('every documented command with bad input: its exit code and one line saying what is wrong; nothing ran', () => {
  for (const [args, code, says] of BAD) {
    const r = airlock(args);
    const what = `airlock ${args.join(' ')} → ${r.code}\n${r.err}`;
    assert.equal(r.code, code, what);
    assert.match(r.err, says, what);
    assert.ok(r.err.trim().length > 0 && r.err.length < 2000, `a short message: ${what}`);
    assert.doesNotMatch(r.err, /\n\s+at .*\.js:\d+/, `no stack trace: ${what}`);
  }
  assert.ok(!fs.existsSync(marker), 'no bad exec ran its command');
});

test('after all of it the daemon answers, and history verifies', () => {
  const c = airlock(['check', '-a', 'read', '-t', 'contract.cli', '-r', '/etc/hostname', '-s', 'contract cli still fine']);
  assert.equal(c.code, 0, c.err);
  assert.match(c.out, /^allowed: /);
  const v = airlock(['audit', 'verify']);
  assert.equal(v.code, 0, v.err);
  assert.match(v.out, /chain intact/);
});

test('a command group alone does its everyday thing: task/grants/keys/remote/secrets list, audit verifies', () => {
  for (const [args, says] of [
    [['task'], /^(ID +STARTED|no tasks)/],
    [['grants'], /^(ID +EFFECT|no grants)/],
    [['keys'], /^(NAME|no keys)/],
    [['remote'], /^(NAME|no remotes)/],
    [['secrets'], /^(NAME|no secrets)/],
    [['audit'], /chain intact/],
  ] as [string[], RegExp][]) {
    const r = airlock(args);
    assert.equal(r.code, 0, `airlock ${args.join(' ')}: ${r.err}`);
    assert.match(r.out, says, `airlock ${args.join(' ')}: ${r.out}`);
  }
});

test('without a daemon: the commands that need one exit 69 naming the socket and `airlock serve`', () => {
  const env = { ...d.env, AIRLOCK_HOME: tempHome('alcd-') };
  for (const args of [['check', '-a', 'write', '-t', 'x'], ['exec', ...touch()], ['grants', 'list'], ['task', 'list'], ['keys', 'list'], ['task', 'start', 'x']]) {
    const r = airlock(args, env);
    assert.equal(r.code, 69, `airlock ${args.join(' ')}: ${r.err}`);
    assert.match(r.err, /not running at .*\.sock.*airlock serve/);
  }
  assert.ok(!fs.existsSync(marker), 'exec without a daemon ran nothing');
  // The Claude Code hook never fails Claude Code: it answers "ask" so Claude Code prompts.
  const h = airlock(['hook', 'claude-code'], env, JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', cwd: '/tmp', tool_name: 'Write', tool_input: { file_path: '/tmp/x', content: 'x' } }));
  assert.equal(h.code, 0);
  const out = JSON.parse(h.out) as { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } };
  assert.equal(out.hookSpecificOutput.hookEventName, 'PreToolUse');
  assert.equal(out.hookSpecificOutput.permissionDecision, 'ask');
  assert.match(out.hookSpecificOutput.permissionDecisionReason, /not running/);
});

test('history and audit verify before any history exists: 66 (EX_NOINPUT) with or without --db, one line naming the file', () => {
  const home = tempHome('alcn-');
  const env = { ...d.env, AIRLOCK_HOME: home };
  const db = path.join(home, 'airlock.db');
  for (const args of [['history'], ['history', '--db', db], ['audit', 'verify'], ['audit', 'verify', '--db', db]]) {
    const r = airlock(args, env);
    const what = `airlock ${args.join(' ')} → ${r.code}\n${r.err}`;
    assert.equal(r.code, 66, what);
    assert.match(r.err, new RegExp(`^airlock: cannot open ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it does not exist; [^\n]+\n$`), what);
  }
  assert.ok(!fs.existsSync(db), 'reading history created no database');
  fs.rmSync(home, { recursive: true, force: true });
});

test('airlock mcp --task with a task that does not exist (or has ended): 64 at start, the server never started', () => {
  const started = path.join(d.home, 'mcp-server-started');
  const server = ['--', process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(started)}, 'x'); setTimeout(() => {}, 60000)`];
  const t = airlock(['task', 'start', 'mcp-ended', '--json']);
  assert.equal(t.code, 0, t.err);
  const ended = (JSON.parse(t.out) as { task: string }).task;
  assert.equal(airlock(['task', 'end', ended]).code, 0);
  const l = airlock(['task', 'start', 'mcp-live', '--json']);
  assert.equal(l.code, 0, l.err);
  const live = JSON.parse(l.out) as { task: string; token: string };
  for (const [task, says] of [
    ['t_nope', /no task t_nope/],
    [ended, new RegExp(`task ${ended} has ended`)],
    // A live task named by id alone, without its token: refused the same way every call would be.
    [live.task, new RegExp(`acting as task ${live.task} .*needs its token`)],
    // A forged token: its secret is never echoed back.
    [`${live.task}.${'A'.repeat(43)}`, new RegExp(`not the token of task ${live.task}`)],
  ] as [string, RegExp][]) {
    const r = airlock(['mcp', '--task', task, ...server]);
    const what = `airlock mcp --task ${task} → ${r.code}\n${r.err}`;
    assert.equal(r.code, 64, what);
    assert.match(r.err, says, what);
    assert.match(r.err, /the MCP server was not started/, what);
    assert.ok(r.err.split('\n').filter(Boolean).length === 1, `one line: ${what}`);
    assert.doesNotMatch(r.err, /AAAA/, 'no token in the message');
  }
  assert.equal(airlock(['task', 'end', live.task]).code, 0);
  assert.ok(!fs.existsSync(started), 'the MCP server was never run');
});

test('the Claude Code hook with hostile stdin always answers "ask" as PreToolUse JSON, exit 0', () => {
  const inputs = ['', 'garbage', '[]', '{}', '"x"', JSON.stringify({ tool_name: 'Write', tool_input: 'not an object' }), JSON.stringify({ tool_name: 42, tool_input: {} }), '{"tool_name":"Write","tool_input":' + '['.repeat(100_000)];
  for (const input of inputs) {
    const r = airlock(['hook', 'claude-code'], d.env, input);
    assert.equal(r.code, 0, `${input.slice(0, 40)}: ${r.err}`);
    const out = JSON.parse(r.out) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    assert.equal(out.hookSpecificOutput.permissionDecision, 'ask', input.slice(0, 40));
    assert.match(out.hookSpecificOutput.permissionDecisionReason, /Airlock/);
  }
});

test('airlock watch driven through a pipe (not a terminal): one key per line answers, q quits with 0', async () => {
  const watch = spawn(process.execPath, [CLI, 'watch'], { env: d.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  watch.stdout.on('data', (b) => (screen += b));
  const watchExit = new Promise<number | null>((r) => watch.once('exit', (c) => r(c)));
  const check = spawn(process.execPath, [CLI, 'check', '-a', 'write', '-t', 'contract.watch', '-r', path.join(d.home, 'w'), '-s', 'contract: answered through a pipe'], { env: d.env });
  let checkErr = '';
  check.stderr.on('data', (b) => (checkErr += b));
  const checkExit = new Promise<number | null>((r) => check.once('exit', (c) => r(c)));
  try {
    await waitFor(() => screen.includes('contract: answered through a pipe'), 'watch to show the prompt', 20_000, 50);
    // A line of two keys is a burst, never an answer; then past the half-second guard, "o".
    watch.stdin.write('oo\n');
    // The burst holds the guard from when watch read it: wait for watch to say so, then past
    // the half second (a fixed pause from the write could end inside it on a loaded machine).
    await waitFor(() => /ignored 2 keys at once/.test(screen), 'watch to ignore the burst', 30_000, 20);
    await new Promise((r) => setTimeout(r, 800));
    watch.stdin.write('o\n');
    assert.equal(await checkExit, 0, checkErr);
    watch.stdin.write('q\n');
    assert.equal(await watchExit, 0);
  } finally {
    watch.kill('SIGKILL');
    check.kill('SIGKILL');
  }
  const h = airlock(['history', '--json', '--text', 'answered through a pipe']);
  const ev = JSON.parse(h.out.trim().split('\n')[0]!) as { decision: string; decidedBy: string; scope: string };
  assert.deepEqual([ev.decision, ev.decidedBy, ev.scope], ['allow', 'human', 'once']);
});

test('exec as with sudo: without `--`, everything from the command name on is the command\'s (airlock exec ls -d DIR)', () => {
  const r = airlock(['exec', 'ls', '-d', d.home]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.trim(), d.home);
  const sh = airlock(['exec', '--timeout', '30', 'sh', '-c', 'exit 3']);
  assert.equal(sh.code, 3, 'airlock options before the command still apply; the exit code is the command\'s');
});

test('keys import: a .pub file, a directory, an encrypted key without or with a wrong passphrase — 64 and what to do', () => {
  const key = path.join(d.home, 'id_contract');
  assert.equal(spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'pw', '-f', key]).status, 0);
  for (const [args, input, says] of [
    [['keys', 'import', `${key}.pub`], '', /not a private key \(a \.pub file\?\)/],
    [['keys', 'import', d.home], '', /is not a file/],
    [['keys', 'import', key], '', /encrypted: give its passphrase .*--passphrase-stdin/],
    [['keys', 'import', key, '--passphrase-stdin'], 'wrong\n', /wrong passphrase/],
  ] as [string[], string, RegExp][]) {
    const r = airlock(args, d.env, input);
    assert.equal(r.code, 64, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, says);
  }
  const ok = airlock(['keys', 'import', key, '--passphrase-stdin', '--name', 'contract'], d.env, 'pw\n');
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /^imported contract SHA256:/);
});

test('task start without --env: stdout is the id, stderr says how to act as it; with that, exec --task works', () => {
  const r = airlock(['task', 'start', 'contract plain']);
  assert.equal(r.code, 0, r.err);
  const id = r.out.trim();
  assert.match(id, /^t_[\w-]+$/);
  const m = /export AIRLOCK_TASK=(\S+) AIRLOCK_TASK_TOKEN=(\S+)/.exec(r.err);
  assert.ok(m, r.err);
  assert.equal(m[1], id);
  const refused = airlock(['exec', '--task', id, '--', 'true'], { ...d.env, AIRLOCK_TASK_TOKEN: '' });
  assert.equal(refused.code, 64, 'the id alone is refused');
  const ok = airlock(['exec', '--', 'true'], { ...d.env, AIRLOCK_TASK: m[1], AIRLOCK_TASK_TOKEN: m[2] });
  assert.equal(ok.code, 0, ok.err);
  const h = airlock(['history', '--json', '--task', id]);
  assert.match(h.out, /"task":"t_/);
  assert.equal(airlock(['task', 'end', id]).code, 0);
});
