// DESIGN.md "Contracts", Paths, driven black-box as a user would: without AIRLOCK_HOME the
// data lives in the platform's app-data dir and the sockets in $XDG_RUNTIME_DIR/airlock (or a
// 0700 dir in the temp dir); directories are 0700 and sockets 0600; every CLI command finds
// the daemon there with the same environment. Only the built CLI and real sockets are used.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { CLI, tempHome, waitFor } from '../helpers/daemon';

const started: ChildProcess[] = [];
const homes: string[] = [];
after(async () => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true });
});

/** An environment with no AIRLOCK_HOME: a fresh HOME, the rest as given. */
function userEnv(root: string, extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: path.join(root, 'home') };
  delete env.AIRLOCK_HOME;
  delete env.XDG_DATA_HOME;
  delete env.SSH_AUTH_SOCK;
  Object.assign(env, extra);
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete env[k];
  fs.mkdirSync(env.HOME!, { recursive: true });
  return env;
}

async function serve(env: NodeJS.ProcessEnv): Promise<{ proc: ChildProcess; out: () => string; stop: () => Promise<number | null> }> {
  const proc = spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(proc);
  let out = '';
  proc.stdout!.on('data', (b) => (out += b));
  proc.stderr!.on('data', (b) => (out += b));
  const exited = new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
  await waitFor(() => /ready/.test(out) || proc.exitCode !== null, `"ready" from airlock serve:\n${out}`, 20_000);
  assert.equal(proc.exitCode, null, out);
  return {
    proc,
    out: () => out,
    stop: async () => {
      proc.kill('SIGTERM');
      return exited;
    },
  };
}

function airlock(args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;

/** One JSON-RPC call on a fresh connection, as any client in any language would make it. */
function rpc(sock: string, method: string, params: unknown): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  return new Promise((resolve, reject) => {
    const s = net.createConnection(sock);
    let buf = '';
    const t = setTimeout(() => (s.destroy(), reject(new Error(`${method}: no answer`))), 15_000);
    s.on('connect', () => s.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) + '\n'));
    s.on('data', (b) => {
      buf += b.toString();
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(t);
      s.end();
      resolve(JSON.parse(buf.slice(0, nl)) as never);
    });
    s.on('error', reject);
  });
}

test('no AIRLOCK_HOME: sockets in $XDG_RUNTIME_DIR/airlock, data in ~/.local/share/airlock, 0700/0600, and the CLI finds them', async () => {
  const root = tempHome('alpx-');
  homes.push(root);
  const runtime = path.join(root, 'run');
  fs.mkdirSync(runtime, { mode: 0o700 });
  const env = userEnv(root, { XDG_RUNTIME_DIR: runtime });
  const d = await serve(env);
  const sockets = path.join(runtime, 'airlock');
  const data = path.join(env.HOME!, '.local', 'share', 'airlock');
  assert.equal(mode(sockets), 0o700);
  assert.equal(mode(data), 0o700);
  for (const s of ['agent.sock', 'request.sock', 'ui.sock']) {
    assert.ok(fs.statSync(path.join(sockets, s)).isSocket(), `${s} in ${sockets}`);
    assert.equal(mode(path.join(sockets, s)), 0o600, s);
    assert.ok(d.out().includes(path.join(sockets, s)), `serve prints where ${s} is`);
  }
  assert.equal(mode(path.join(data, 'airlock.db')), 0o600);
  assert.equal(mode(path.join(data, 'keys')), 0o700);
  assert.ok(!fs.existsSync(path.join(data, 'request.sock')), 'sockets are not in the data dir');

  // The CLI, with the same environment, reaches this daemon and this database.
  const c = airlock(['check', '-a', 'read', '-t', 'contract.read', '-r', '/etc/hostname', '-s', 'contract: default paths'], env);
  assert.equal(c.code, 0, c.err);
  const h = airlock(['history', '--json', '--text', 'default paths'], env);
  assert.equal(h.code, 0, h.err);
  assert.match(h.out, /contract: default paths/);

  // A task's own directory under the socket dir: 0700, its sockets 0600.
  const started = await rpc(path.join(sockets, 'request.sock'), 'task.start', { name: 'contract paths' });
  const task = started.result!.task as string;
  const tdir = path.join(sockets, 'tasks', task);
  assert.equal(mode(path.join(sockets, 'tasks')), 0o700);
  assert.equal(mode(tdir), 0o700);
  assert.equal(started.result!.sshAuthSock, path.join(tdir, 'agent.sock'));
  assert.equal(started.result!.requestSock, path.join(tdir, 'request.sock'));
  for (const s of ['agent.sock', 'request.sock']) assert.equal(mode(path.join(tdir, s)), 0o600, `tasks/<id>/${s}`);

  assert.equal(await d.stop(), 0, d.out());
  // `history` and `audit verify` read the same default database with the daemon stopped.
  const v = airlock(['audit', 'verify'], env);
  assert.equal(v.code, 0, v.err + v.out);
  assert.match(airlock(['history', '--json'], env).out, /contract: default paths/);
});

test('no AIRLOCK_HOME and no XDG_RUNTIME_DIR: sockets in a 0700 airlock-$UID dir in the temp dir; XDG_DATA_HOME is honoured', async () => {
  const root = tempHome('alpt-');
  homes.push(root);
  const tmp = path.join(root, 'tmp');
  const dataHome = path.join(root, 'xdg-data');
  fs.mkdirSync(tmp);
  const env = userEnv(root, { XDG_RUNTIME_DIR: undefined, TMPDIR: tmp, XDG_DATA_HOME: dataHome });
  const d = await serve(env);
  const sockets = path.join(tmp, `airlock-${process.getuid!()}`);
  assert.equal(mode(sockets), 0o700);
  for (const s of ['agent.sock', 'request.sock', 'ui.sock']) assert.equal(mode(path.join(sockets, s)), 0o600, s);
  assert.equal(mode(path.join(dataHome, 'airlock', 'airlock.db')), 0o600);
  const r = await rpc(path.join(sockets, 'ui.sock'), 'audit.verify', {});
  assert.equal(r.result?.ok, true);
  assert.equal(airlock(['task', 'list'], env).code, 0);
  assert.equal(await d.stop(), 0, d.out());
});

test('a socket dir that others can enter is made private again before any socket is created in it', async () => {
  const root = tempHome('alpo-');
  homes.push(root);
  const runtime = path.join(root, 'run');
  fs.mkdirSync(path.join(runtime, 'airlock'), { recursive: true });
  fs.chmodSync(path.join(runtime, 'airlock'), 0o777);
  const env = userEnv(root, { XDG_RUNTIME_DIR: runtime });
  const d = await serve(env);
  assert.equal(mode(path.join(runtime, 'airlock')), 0o700);
  assert.equal(await d.stop(), 0, d.out());
});
