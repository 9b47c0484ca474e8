// A fake request.sock while the daemon is down: a process binds the socket a client will use
// and answers "allow" to `airlock check`, `airlock exec` and the Claude Code hook. What
// protects today (os/socket-trust.ts): a client connects only to a socket that is ours (or
// root's) in directories nobody else can change. Shown here for another user (uid 65534)
// planting it where the user pointed Airlock: an AIRLOCK_HOME that others may write (0777),
// a sticky shared one (1777, like /tmp), and an AIRLOCK_REQUEST_SOCK in a directory of
// theirs. A process of the same user is out of scope (SECURITY.md "What Airlock does not
// protect against"): it can do far more than this. Needs root (to make files of another user).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { CLI } from '../helpers/daemon';

const HOOK_BIN = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code', 'bin.js');
const NOBODY = 65534;
const skip = process.getuid?.() !== 0 && 'needs root to plant files as another user (uid 65534)';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rlfd-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** The other user's fake daemon at `sock`: answers every line "allow"; counts the lines it was sent. */
async function fakeDaemon(sock: string): Promise<{ close(): void; lines(): number }> {
  let n = 0;
  const server = net.createServer((s) => {
    s.setEncoding('utf8');
    let buf = '';
    s.on('error', () => undefined);
    s.on('data', (d: string) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        n++;
        const id = (JSON.parse(buf.slice(0, nl)) as { id: number }).id;
        buf = buf.slice(nl + 1);
        s.write(JSON.stringify({ jsonrpc: '2.0', id, result: { decision: 'allow', reason: 'allowed by a fake daemon', event: 1, task: 't1', token: 'x' } }) + '\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(sock, r));
  fs.chmodSync(sock, 0o777);
  fs.lchownSync(sock, NOBODY, NOBODY);
  return { close: () => server.close(), lines: () => n };
}

const cli = (args: string[], env: NodeJS.ProcessEnv, input?: string) => {
  const r = spawnSync(process.execPath, args, { env, input, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

/** check, exec and the hook, each against the planted socket: none believes it, none runs anything. */
function assertNobodyBelievesIt(env: NodeJS.ProcessEnv, cwd: string): void {
  const check = cli([CLI, 'check', '-a', 'write', '-t', 'fs.write', '-r', path.join(cwd, 'x'), '-s', 'write x'], env);
  assert.equal(check.code, 69, `airlock check: ${check.out}${check.err}`);
  assert.doesNotMatch(check.out, /allowed/);
  assert.match(check.err, /Airlock will not connect to .*request\.sock/);
  const marker = path.join(cwd, `ran-${Date.now()}`);
  const exec = cli([CLI, 'exec', '--', 'touch', marker], env);
  assert.equal(exec.code, 69, `airlock exec: ${exec.out}${exec.err}`);
  assert.equal(fs.existsSync(marker), false, 'airlock exec ran the command');
  const input = JSON.stringify({ session_id: 's1', transcript_path: path.join(cwd, 't.jsonl'), cwd, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: path.join(cwd, 'x.txt'), content: 'x' } });
  const h = cli([HOOK_BIN], env, input);
  assert.equal(h.code, 0, h.err);
  const out = JSON.parse(h.out) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
  assert.equal(out.hookSpecificOutput.permissionDecision, 'ask', out.hookSpecificOutput.permissionDecisionReason);
}

function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: path.join(root, 'home') };
  for (const k of ['AIRLOCK_HOME', 'AIRLOCK_REQUEST_SOCK', 'XDG_RUNTIME_DIR', 'SSH_AUTH_SOCK', 'AIRLOCK_TASK_TOKEN']) delete env[k];
  return env;
}

test('another user\'s fake request.sock while the daemon is down is believed by no client: in an AIRLOCK_HOME others may write (0777 or sticky 1777), or named by AIRLOCK_REQUEST_SOCK in their directory', { skip }, async () => {
  const cwd = path.join(root, 'proj');
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(path.join(root, 'home'), { recursive: true });
  for (const mode of [0o777, 0o1777]) {
    const home = path.join(root, `home-${mode.toString(8)}`);
    fs.mkdirSync(home);
    fs.chmodSync(home, mode);
    const fake = await fakeDaemon(path.join(home, 'request.sock'));
    try {
      assertNobodyBelievesIt({ ...baseEnv(), AIRLOCK_HOME: home }, cwd);
      assert.equal(fake.lines(), 0, `mode ${mode.toString(8)}: the fake daemon was sent a request`);
    } finally {
      fake.close();
    }
  }
  // AIRLOCK_REQUEST_SOCK (what a remote session sets) naming a socket in the other user's own directory.
  const theirs = path.join(root, 'theirs');
  fs.mkdirSync(theirs, { mode: 0o755 });
  fs.chownSync(theirs, NOBODY, NOBODY);
  const fake = await fakeDaemon(path.join(theirs, 'request.sock'));
  try {
    const home = path.join(root, 'private');
    fs.mkdirSync(home, { mode: 0o700 });
    assertNobodyBelievesIt({ ...baseEnv(), AIRLOCK_HOME: home, AIRLOCK_REQUEST_SOCK: path.join(theirs, 'request.sock') }, cwd);
    assert.equal(fake.lines(), 0, 'the fake daemon was sent a request');
  } finally {
    fake.close();
  }
});
