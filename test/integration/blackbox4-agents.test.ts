// Black-box, fourth wave: the agent-facing promises of docs/client.md, docs/command-wrapper.md
// and the README's exec line that earlier waves did not run.
// - client.md's socket lookup: with neither AIRLOCK_HOME nor XDG_RUNTIME_DIR the daemon and
//   every client (the Python snippet, airlock/client, airlock check) meet at
//   `<tmpdir>/airlock-<uid>/request.sock`, and the tmpdir is TMPDIR's when it is set.
// - airlock/client: isDaemonUnavailable tells "not running" from a refused call; the client
//   adds AIRLOCK_TASK_TOKEN only for the task it belongs to.
// - command-wrapper.md with `--args "--task $AIRLOCK_TASK"`: the command is that task's, a
//   denial exits 126 with the documented line.
// - README: "as with sudo, `--` is optional: airlock's options come first".
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AIRLOCK_BIN, Wire, airlock, waitPending } from '../helpers/blackbox';
import { REPO, startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { run } from '../helpers/ssh';

const CLIENT = path.join(__dirname, '..', '..', 'main', 'client', 'index.js');
const clientDoc = fs.readFileSync(path.join(REPO, 'docs', 'client.md'), 'utf8');
/** The Python function `airlock_socket` and `airlock_ask` of docs/client.md, as printed there. */
const pythonDefs = (() => {
  const block = /```python\n([\s\S]*?)```/.exec(clientDoc)![1]!;
  return block.slice(0, block.indexOf('allowed, reason = airlock_ask('));
})();

let d: Daemon;
let ui: Wire;
let agent: Wire;

before(async () => {
  d = await startDaemon({ home: path.join(tempHome('bb4a-'), 'h') });
  ui = await Wire.open(d.uiSock);
  agent = await Wire.open(d.requestSock);
});
after(async () => {
  agent?.close();
  ui?.close();
  await d?.stop();
});

describe('docs/client.md: where the socket is, without AIRLOCK_HOME', () => {
  test('with neither AIRLOCK_HOME nor XDG_RUNTIME_DIR the daemon, the Python snippet, airlock/client and airlock check meet at <TMPDIR>/airlock-<uid>/request.sock', async () => {
    const root = fs.realpathSync(tempHome('bb4t-'));
    const tmp = path.join(root, 'tmp');
    fs.mkdirSync(tmp, { mode: 0o700 });
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: path.join(root, 'home'), TMPDIR: tmp };
    fs.mkdirSync(env.HOME!, { mode: 0o700 });
    delete env.AIRLOCK_HOME;
    delete env.XDG_RUNTIME_DIR;
    delete env.AIRLOCK_REQUEST_SOCK;
    delete env.SSH_AUTH_SOCK;
    const expected = path.join(tmp, `airlock-${os.userInfo().uid}`, 'request.sock');
    let out = '';
    const daemon: ChildProcess = spawn(process.execPath, [AIRLOCK_BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    daemon.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    daemon.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    try {
      await waitFor(() => /ready/.test(out) || daemon.exitCode !== null, 'the daemon to be ready', 30_000);
      assert.ok(fs.existsSync(expected), `the daemon listens at ${expected}:\n${out}`);
      assert.equal(fs.statSync(path.dirname(expected)).mode & 0o777, 0o700);
      // Python, as printed in docs/client.md.
      const py = await run('python3', ['-c', `${pythonDefs}\nprint(airlock_socket())\nprint(airlock_ask("cat", "read", "bb4 read through the tmpdir socket", resource="/etc/hostname"))`], { env, timeoutMs: 30_000 });
      assert.equal(py.code, 0, py.stderr);
      assert.equal(py.stdout.split('\n')[0], expected);
      assert.match(py.stdout, /\(True, /);
      // airlock/client's default.
      const ts = await run(process.execPath, ['-e', `const c=require(${JSON.stringify(CLIENT)});console.log(c.defaultRequestSocket());c.askOnce({source:'api',tool:'cat',action:'read',resource:'/etc/hostname',summary:'bb4 ts read'}).then(a=>console.log(a.decision),e=>{console.error(e.message);process.exit(1)})`], { env, timeoutMs: 30_000 });
      assert.equal(ts.code, 0, ts.stderr);
      assert.deepEqual(ts.stdout.trim().split('\n'), [expected, 'allow']);
      const check = await airlock(['check', '-a', 'read', '-t', 'cat', '-r', '/etc/hostname', '-s', 'bb4 check read'], { env });
      assert.equal(check.code, 0, check.stderr);
    } finally {
      daemon.kill('SIGTERM');
      await Promise.race([new Promise((r) => daemon.once('exit', r)), new Promise((r) => setTimeout(r, 5000))]);
      if (daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL');
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('airlock/client as docs/client.md describes it', () => {
  test('isDaemonUnavailable: true when nothing listens, false for a call the daemon refused', async () => {
    const script = `
const c = require(${JSON.stringify(CLIENT)});
(async () => {
  const out = {};
  try { await c.askOnce({source:'api',tool:'x',action:'read',summary:'s'}, ${JSON.stringify(path.join(d.home, 'nobody-here.sock'))}); out.down = 'answered'; }
  catch (e) { out.down = c.isDaemonUnavailable(e); }
  try { await c.askOnce({source:'api',tool:'x',action:'bogus',summary:'s'}, ${JSON.stringify(d.requestSock)}); out.refused = 'answered'; }
  catch (e) { out.refused = c.isDaemonUnavailable(e); out.message = e.message; }
  console.log(JSON.stringify(out));
})();`;
    const r = await run(process.execPath, ['-e', script], { env: d.env, timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { down: unknown; refused: unknown; message: string };
    assert.equal(out.down, true);
    assert.equal(out.refused, false, out.message);
    assert.match(out.message, /action/);
  });

  test('the client adds AIRLOCK_TASK_TOKEN only beside its own task: another task id alone is refused, never acted as', async () => {
    const a = await agent.ok<{ task: string; token: string }>('task.start', { name: 'bb4 client task A' });
    const b = await agent.ok<{ task: string; token: string }>('task.start', { name: 'bb4 client task B' });
    const script = (task: string) => `
const c = require(${JSON.stringify(CLIENT)});
c.AirlockClient.connect().then(async (cl) => {
  try { const r = await cl.ask({source:'api',tool:'cat',action:'read',resource:'/etc/hostname',summary:'bb4 token read',task:${JSON.stringify(task)}}); console.log(JSON.stringify({ok: r.decision, task: r.task})); }
  catch (e) { console.log(JSON.stringify({err: e.message})); }
  cl.close();
});`;
    const env = { ...d.env, AIRLOCK_TASK: a.task, AIRLOCK_TASK_TOKEN: a.token };
    const own = JSON.parse((await run(process.execPath, ['-e', script(a.task)], { env, timeoutMs: 30_000 })).stdout) as { ok?: string; task?: string; err?: string };
    assert.equal(own.ok, 'allow', JSON.stringify(own));
    const other = JSON.parse((await run(process.execPath, ['-e', script(b.task)], { env, timeoutMs: 30_000 })).stdout) as { ok?: string; err?: string };
    assert.match(other.err ?? `answered: ${JSON.stringify(other)}`, /token/);
    const { events } = await ui.ok<{ events: { task: string | null; summary: string }[] }>('history.query', { text: 'bb4 token read', limit: 10 });
    assert.ok(events.some((e) => e.task === a.task));
    assert.ok(!events.some((e) => e.task === b.task), 'nothing was recorded as task B');
  });
});

describe('docs/command-wrapper.md and the README exec line', () => {
  test('the template with --args "--task $AIRLOCK_TASK": the command is asked as that task; denied → 126 and the documented line; allowed → it runs', async () => {
    const t = await agent.ok<{ task: string; token: string }>('task.start', { name: 'bb4 wrapper task' });
    const env = { ...d.env, AIRLOCK_TASK: t.task, AIRLOCK_TASK_TOKEN: t.token, PATH: `${path.dirname(AIRLOCK_BIN)}:${process.env.PATH}` };
    // Printed by a shell where $AIRLOCK_TASK is set, as the doc writes it.
    const printed = await run('/bin/sh', ['-c', `${process.execPath} ${AIRLOCK_BIN} hook command-wrapper --args "--task $AIRLOCK_TASK"`], { env, timeoutMs: 30_000 });
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, new RegExp(`exec airlock exec --task ${t.task} --stdin-command <<'AIRLOCK_COMMAND_7f3a9c'`));
    const work = fs.realpathSync(tempHome('bb4w-'));
    for (const decision of ['deny', 'allow'] as const) {
      const file = path.join(work, `made-${decision}`);
      const command = `touch '${file}' && echo "made it: $((40 + 2))"`;
      const script = printed.stdout.replace('{command}', command);
      const ran = run('/bin/sh', ['-c', script], { env, cwd: work, timeoutMs: 60_000 });
      const p = await waitPending(ui, (x) => JSON.stringify(x.args ?? '').includes(`made-${decision}`), `the ${decision} prompt`, 30_000);
      assert.equal(p.task, t.task, 'the wrapped command belongs to the task');
      assert.equal((p.args as { command?: string }).command, command, 'the command as sent, quotes and $(( )) untouched');
      await ui.ok('pending.decide', { id: p.id, decision, scope: 'once' });
      const r = await ran;
      if (decision === 'deny') {
        assert.equal(r.code, 126);
        assert.match(r.stderr, /^airlock: denied once by the human \(event \d+\)\n$/);
        assert.ok(!fs.existsSync(file));
      } else {
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, 'made it: 42\n');
        assert.ok(fs.existsSync(file));
      }
    }
    fs.rmSync(work, { recursive: true, force: true });
  });

  test('airlock exec without --: airlock\'s options come first, everything after the command is the command\'s', async () => {
    const r = await airlock(['exec', 'echo', '--task', 'nope', '--shell', '-x'], { env: d.env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '--task nope --shell -x\n');
    const t = await airlock(['exec', '--timeout', '20', 'printf', '%s|', 'a', '--', 'b'], { env: d.env });
    assert.equal(t.code, 0, t.stderr);
    assert.equal(t.stdout, 'a|--|b|');
  });
});
