// Black-box, fifth wave: configuration and damaged files, as a user meets them. Every wrong
// value gets one clear line (what is wrong, what to do) and changes nothing; a missing
// `keys/master.secret` beside sealed keys stops `airlock serve` (as a wrong
// AIRLOCK_KEY_PASSPHRASE does) instead of making a new master key that would strand the keys;
// a key sealed under another master key says so; settings persist across restarts; an
// upstream agent set in Settings must be an absolute socket path.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, type Daemon } from '../helpers/daemon';
import { Wire, airlock } from '../helpers/blackbox';
import { run } from '../helpers/ssh';

let root: string;
const env = (home: string): NodeJS.ProcessEnv => ({ ...process.env, AIRLOCK_HOME: home });

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb5c-'));
});
after(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** One line on stderr, no stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line, not:\n${stderr}`);
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  return lines[0]!;
}

test('serve: --port out of range or not a number is a usage error (64); --port or --new-web-token without --web too (they would be ignored)', async () => {
  const home = path.join(root, 'ports');
  for (const bad of ['abc', '70000', '-1', '1.5']) {
    const r = await airlock(['serve', '--web', '--port', bad], { env: env(home), timeoutMs: 15_000 });
    assert.equal(r.code, 64, `--port ${bad}: ${r.stdout}${r.stderr}`);
    assert.match(oneLine(r.stderr), /--port/);
  }
  const p = await airlock(['serve', '--port', '7777'], { env: env(home), timeoutMs: 15_000 });
  assert.equal(p.code, 64, `serve --port without --web must not start a daemon without its web UI: ${p.stdout}${p.stderr}`);
  assert.match(oneLine(p.stderr), /--port.*--web/);
  const n = await airlock(['serve', '--new-web-token'], { env: env(home), timeoutMs: 15_000 });
  assert.equal(n.code, 64, n.stdout + n.stderr);
  assert.match(oneLine(n.stderr), /--new-web-token.*--web/);
  assert.equal(fs.existsSync(path.join(home, 'request.sock')), false, 'nothing was started');
});

test('serve --web --port N with N taken by another program: one line naming the port and what to do, not a socket error code', async () => {
  const busy = net.createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  const port = (busy.address() as net.AddressInfo).port;
  try {
    const r = await airlock(['serve', '--web', '--port', String(port)], { env: env(path.join(root, 'busy')), timeoutMs: 15_000 });
    assert.notEqual(r.code, 0);
    assert.notEqual(r.code, null);
    const line = oneLine(r.stderr);
    assert.ok(line.includes(String(port)), line);
    assert.match(line, /in use.*--port/, `says what to do: ${line}`);
  } finally {
    busy.close();
  }
});

test('serve --upstream given a symbolic link to Airlock\'s own agent.sock (an SSH_AUTH_SOCK pointing here): ignored and said so, ssh-add -l answers at once', async () => {
  const home = path.join(root, 'self-upstream');
  const link = path.join(root, 'my-agent.sock');
  fs.symlinkSync(path.join(home, 'agent.sock'), link);
  const d = await startDaemon({ home, args: ['--upstream', link] });
  try {
    assert.match(d.output(), /ignoring upstream agent .*own socket/, d.output());
    const started = Date.now();
    const l = await run('ssh-add', ['-l'], { env: { ...process.env, SSH_AUTH_SOCK: d.agentSock }, timeoutMs: 20_000 });
    assert.match(l.stdout + l.stderr, /no identities/);
    assert.ok(Date.now() - started < 2000, `listing did not wait on itself: ${Date.now() - started} ms`);
    assert.doesNotMatch(d.output(), /did not answer in time/);
  } finally {
    await d.stop();
  }
});

test('AIRLOCK_HOME that is a file: serve refuses with one line naming it and what to do', async () => {
  const f = path.join(root, 'home-is-a-file');
  fs.writeFileSync(f, 'not a directory\n');
  const r = await airlock(['serve'], { env: env(f), timeoutMs: 15_000 });
  assert.notEqual(r.code, 0);
  assert.notEqual(r.code, null, 'it exits, it does not hang');
  const line = oneLine(r.stderr);
  assert.ok(line.includes(f), line);
  assert.match(line, /not a directory/);
  assert.match(line, /AIRLOCK_HOME/);
  assert.equal(fs.readFileSync(f, 'utf8'), 'not a directory\n', 'left as it was');
});

test('settings: every wrong value is -32602 naming the field and changes nothing; good values persist across a restart', async () => {
  const home = path.join(root, 'settings');
  let d: Daemon = await startDaemon({ home });
  let ui = await Wire.open(d.uiSock);
  try {
    const before = (await ui.ok<{ settings: Record<string, unknown> }>('settings.get')).settings;
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ promptTimeoutSec: 0 }, /promptTimeoutSec/],
      [{ promptTimeoutSec: 'sixty' }, /promptTimeoutSec/],
      [{ promptTimeoutSec: 1e9 }, /promptTimeoutSec/],
      [{ policy: { read: 'maybe' } }, /policy\.read/],
      [{ policy: { launch: 'allow' } }, /policy/],
      [{ maxPendingPerTask: 0 }, /maxPendingPerTask/],
      [{ maxPendingTotal: -1 }, /maxPendingTotal/],
      [{ notifications: 'yes' }, /notifications/],
      [{ mcpToolActions: { 'fs/rm': 'obliterate' } }, /mcpToolActions/],
      [{ upstreamAgent: 'ssh-agent.sock' }, /upstreamAgent/],
      [{ upstreamAgent: '~/.ssh/agent.sock' }, /upstreamAgent/],
      [{ colour: 'blue' }, /colour/],
    ];
    for (const [params, field] of bad) {
      const r = await ui.call('settings.set', params);
      assert.equal(r.error?.code, -32602, `${JSON.stringify(params)}: ${JSON.stringify(r)}`);
      assert.match(r.error!.message, field, `the message names the field: ${r.error!.message}`);
    }
    assert.deepEqual((await ui.ok<{ settings: Record<string, unknown> }>('settings.get')).settings, before, 'nothing changed');
    const sock = path.join(root, 'some-agent.sock');
    await ui.ok('settings.set', { promptTimeoutSec: 42, policy: { read: 'ask' }, upstreamAgent: sock, mcpToolActions: { 'fs/rm': 'delete' } });
    ui.close();
    await d.stop();
    d = await startDaemon({ home });
    ui = await Wire.open(d.uiSock);
    const s = (await ui.ok<{ settings: Record<string, unknown> }>('settings.get')).settings;
    assert.equal(s.promptTimeoutSec, 42);
    assert.equal((s.policy as Record<string, string>).read, 'ask');
    assert.equal(s.upstreamAgent, sock);
    assert.deepEqual(s.mcpToolActions, { 'fs/rm': 'delete' });
    assert.equal((await ui.ok<{ settings: Record<string, unknown> }>('settings.set', { upstreamAgent: null })).settings.upstreamAgent, null, 'null: no upstream');
  } finally {
    ui.close();
    await d.stop();
  }
});

test('keys/master.secret gone while sealed keys remain: serve refuses with one line saying to restore it, makes no new master key; restored, the keys are back', async () => {
  const home = path.join(root, 'keys');
  let d = await startDaemon({ home });
  const g = await airlock(['keys', 'generate', 'precious', '--type', 'ed25519'], { env: env(home) });
  assert.equal(g.code, 0, g.stderr);
  const pub = g.stdout.split('\n').find((l) => l.startsWith('ssh-ed25519 '))!;
  await d.stop();
  const master = path.join(home, 'keys', 'master.secret');
  const kept = path.join(root, 'master.secret.backup');
  fs.renameSync(master, kept);

  const r = await airlock(['serve'], { env: env(home), timeoutMs: 20_000 });
  assert.notEqual(r.code, 0, `serve must not start without the key that opens its keys:\n${r.stdout}${r.stderr}`);
  assert.notEqual(r.code, null);
  const line = oneLine(r.stderr);
  assert.match(line, /master\.secret/);
  assert.match(line, /restore/i);
  assert.equal(fs.existsSync(master), false, 'no new master key was made in its place');

  fs.renameSync(kept, master);
  d = await startDaemon({ home });
  try {
    const l = await run('ssh-add', ['-L'], { env: { ...process.env, SSH_AUTH_SOCK: d.agentSock } });
    assert.match(l.stdout, new RegExp(pub.split(' ')[1]!.replace(/[+/]/g, '\\$&')), 'the stored key is back');
  } finally {
    await d.stop();
  }

  // Replaced by another master key (a restore from the wrong machine): the daemon starts, and
  // says which key does not open and why, in words a user can act on.
  fs.writeFileSync(master, Buffer.alloc(32, 7).toString('base64') + '\n', { mode: 0o600 });
  d = await startDaemon({ home });
  try {
    assert.match(d.output(), /\.key: .*master\.secret.*(restore|aside)/i, d.output());
    assert.doesNotMatch(d.output(), /Unsupported state or unable to authenticate data/, 'not the cipher library\'s words');
  } finally {
    await d.stop();
  }
});
