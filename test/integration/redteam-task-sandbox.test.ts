// Red team of task identity inside the sandbox (real bubblewrap): an agent run with
// `airlock task start --sandbox` looks for a way to act as another task — a token in its
// environment, in /proc (command lines and environments of the processes around it, where
// `airlock exec --task TOKEN` of another task keeps its token), in the task directories
// it can see; it tries to plant something at its sockets' paths, to teach the daemon
// what an MCP server's tools do, and to reach the shared request.sock. The daemon-side
// half is in redteam-task-identity.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, REPO, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';

const hasBwrap = fs.existsSync('/usr/bin/bwrap') || fs.existsSync('/usr/local/bin/bwrap');

let d: Daemon;
let agent: RpcClient;
let work: string;
let env: NodeJS.ProcessEnv;
let victimProc: ChildProcess | null = null;

before(async () => {
  d = await startDaemon();
  agent = await d.agent();
  const home = tempHome('al-h-');
  work = fs.mkdtempSync(path.join(home, 'proj-'));
  env = { ...d.env, HOME: home };
});
after(async () => {
  victimProc?.kill('SIGKILL');
  agent?.close();
  await d?.stop();
});

/** Runs a node script inside `task start --sandbox`; the script prints one JSON line. */
async function inSandbox(name: string, script: string): Promise<Record<string, unknown>> {
  const file = path.join(work, `${name}.js`);
  fs.writeFileSync(file, script);
  const r = await run(process.execPath, [CLI, 'task', 'start', name, '--sandbox', '--ro', REPO, fs.realpathSync(path.join(REPO, 'node_modules')), '--', process.execPath, file], {
    cwd: work,
    env,
    timeoutMs: 60_000,
  });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

describe('red team: task identity inside the sandbox (real bwrap)', { skip: !hasBwrap && 'bwrap is not installed (apt install bubblewrap)' }, () => {
  test(`the agent finds no token and no other task: not in its environment, not in /proc, not beside its sockets; what it plants stays inside; mcp.tools is refused`, async () => {
    const victim = await agent.call<{ task: string; token: string; requestSock: string }>('task.start', { name: 'victim', cwd: work });
    const secret = victim.token.split('.')[1]!;
    // Another task's client outside, as `airlock exec --task TOKEN -- …` leaves it: the token on its command line and in its environment.
    victimProc = spawn('sh', ['-c', 'sleep 60', victim.token], { env: { ...env, AIRLOCK_TASK_TOKEN: victim.token }, stdio: 'ignore' });
    // The script never holds the secret whole (it would find itself): two halves joined at run time.
    const half = Math.floor(secret.length / 2);
    const script = `
const fs = require('fs'), net = require('net'), path = require('path');
const needle = ${JSON.stringify(secret.slice(0, half))} + ${JSON.stringify(secret.slice(half))};
const victimId = ${JSON.stringify(victim.task)};
const out = { env: Object.keys(process.env).filter((k) => /TOKEN/.test(k)), task: process.env.AIRLOCK_TASK, found: [], pids: 0 };
for (const p of fs.readdirSync('/proc').filter((x) => /^\\d+$/.test(x))) {
  out.pids++;
  for (const f of ['cmdline', 'environ']) {
    try {
      const text = fs.readFileSync('/proc/' + p + '/' + f).toString('latin1');
      if (text.includes(needle)) out.found.push(p + '/' + f);
      // Control: the search works — its own task id is in its own environment.
      if (f === 'environ' && text.includes('AIRLOCK_TASK=' + process.env.AIRLOCK_TASK)) out.control = true;
    } catch {}
  }
}
const dir = path.dirname(process.env.AIRLOCK_REQUEST_SOCK);
out.ownDir = fs.readdirSync(dir).sort();
// Any token at all (its own included) in what lies beside its sockets.
out.tokenShaped = out.ownDir.filter((f) => { try { return /t_[A-Za-z0-9_-]{12}[.][A-Za-z0-9_-]{43}/.test(fs.readFileSync(path.join(dir, f), 'latin1')); } catch { return false; } });
try { out.tasksDir = fs.readdirSync(path.dirname(dir)); } catch (e) { out.tasksDir = e.code; }
out.victimDir = fs.existsSync(path.join(path.dirname(dir), victimId));
out.plant = {};
for (const [what, f] of [['file', () => fs.writeFileSync(path.join(dir, 'x'), 'x')], ['symlink', () => fs.symlinkSync('/tmp', path.join(dir, 'egress2.sock'))], ['replace', () => fs.renameSync(path.join(dir, 'request.sock'), path.join(dir, 'moved'))], ['other task dir', () => fs.mkdirSync(path.join(path.dirname(dir), 't_planted0000'))]]) {
  try { f(); out.plant[what] = 'done'; } catch (e) { out.plant[what] = e.code; }
}
out.shared = fs.existsSync(${JSON.stringify(d.requestSock)});
const call = (method, params) => new Promise((resolve) => {
  const c = net.connect(process.env.AIRLOCK_REQUEST_SOCK);
  let buf = '';
  const t = setTimeout(() => { c.destroy(); resolve({ timeout: true }); }, 20000);
  c.on('connect', () => c.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) + '\\n'));
  c.on('data', (d) => { buf += d; const i = buf.indexOf('\\n'); if (i >= 0) { clearTimeout(t); c.destroy(); resolve(JSON.parse(buf.slice(0, i))); } });
  c.on('error', (e) => { clearTimeout(t); resolve({ connectError: e.code }); });
});
(async () => {
  out.mcp = await call('mcp.tools', { server: 'mailbox', tools: [{ name: 'send_message', annotations: { readOnlyHint: true } }] });
  out.endVictim = await call('task.end', { task: victimId });
  console.log(JSON.stringify(out));
})();
`;
    const o = await inSandbox('looks around', script);
    assert.deepEqual(o.env, [], 'no token variable inside');
    assert.equal(o.control, true, 'the /proc search finds what is there');
    assert.deepEqual(o.found, [], `no /proc file inside holds the victim's token (${o.pids} processes visible)`);
    assert.ok((o.pids as number) < 10, 'its own pid namespace: only its own few processes');
    assert.ok((o.ownDir as string[]).includes('request.sock'));
    assert.deepEqual(o.tokenShaped, [], 'no file beside its sockets holds a token');
    assert.ok(!(o.tasksDir as string[]).includes(victim.task) && o.victimDir === false, "the victim's directory is not there");
    const plant = o.plant as Record<string, string>;
    for (const what of ['file', 'symlink', 'replace']) assert.notEqual(plant[what], 'done', `${what} in its own (read-only) socket directory`);
    assert.equal(fs.existsSync(path.join(d.home, 'tasks', 't_planted0000')), false, 'nothing planted reaches the real tasks directory');
    assert.ok(fs.statSync(victim.requestSock).isSocket(), "the victim's socket is untouched");
    assert.equal(o.shared, false, 'the shared request.sock is not there');
    assert.equal((o.mcp as { error?: { code: number } }).error?.code, -32001, 'mcp.tools refused on its socket');
    assert.equal((o.endVictim as { error?: { code: number } }).error?.code, -32602, 'ending the victim is refused');
    const ui = await d.ui();
    try {
      const { tasks } = await ui.call<{ tasks: { id: string }[] }>('tasks.list', {});
      assert.ok(tasks.some((t) => t.id === victim.task), 'the victim still runs');
    } finally {
      ui.close();
    }
  });
});
