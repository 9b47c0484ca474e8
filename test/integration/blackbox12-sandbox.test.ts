// Black-box, twelfth wave: can a sandboxed agent reach the human side, or anything that acts
// for the human outside the sandbox? SECURITY.md promises "of Airlock only the task's own
// socket directory bound in, read-only" and "it cannot add, replace or link anything in its
// socket directory". These tests attack that from inside real bwrap: capabilities (the
// tests here run as root, as a person may run Airlock), the human's tmux server (where
// `airlock watch` answers prompts), other programs' sockets in a temp directory shared with
// --ro, and the session's runtime directory. Real daemon, real bwrap, real tmux.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { waitFor } from '../helpers/daemon';
import { airlock, closeBlackboxSession, openBlackboxSession, pendingList, type BlackboxSession } from '../helpers/blackbox';

let s: BlackboxSession;
let proj: string;
const hasBwrap = fs.existsSync('/usr/bin/bwrap') || fs.existsSync('/bin/bwrap');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;

before(async () => {
  s = await openBlackboxSession('bb12s-');
  proj = path.join(s.root, 'proj');
  fs.mkdirSync(proj);
});
after(() => closeBlackboxSession(s));

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, AIRLOCK_HOME: s.d.home, ...extra });

/** Answers "allow once" to every prompt while `p` runs: the human approves whatever the agent asks. */
async function approvingAll<T>(p: Promise<T>): Promise<T> {
  let done = false;
  void p.finally(() => (done = true));
  while (!done) {
    for (const pr of await pendingList(s.ui)) await s.ui.call('pending.decide', { id: pr.id, decision: 'allow', scope: 'once' });
    await new Promise((r) => setTimeout(r, 100));
  }
  return p;
}

function listen(sock: string): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer((c) => (c.on('error', () => undefined), c.end('hello from outside\n')));
    srv.once('error', reject);
    srv.listen(sock, () => resolve(srv));
  });
}

/** Shell text printing "visible P" or "hidden P" for each path (builtins only): a socket is visible when a socket is there to connect to. */
function probe(paths: string[]): string {
  return `for p in ${paths.map((p) => `'${p}'`).join(' ')}; do if test -S "$p" || { test -f "$p" && test -s "$p"; }; then echo "visible $p"; else echo "hidden $p"; fi; done`;
}
/** Shell text that tries to connect to each socket and prints "CONNECTED P" when it could (python3, read-only). */
function connects(socks: string[]): string {
  return `python3 -c 'import socket,sys\nfor p in sys.argv[1:]:\n  s=socket.socket(socket.AF_UNIX)\n  try:\n    s.connect(p); print("CONNECTED "+p)\n  except OSError: pass' ${socks.map((p) => `'${p}'`).join(' ')}`;
}
const visible = (out: string) => out.split('\n').filter((l) => l.startsWith('visible ')).map((l) => l.slice(8));

test('a sandboxed agent holds no capability: it cannot remount a --ro path or its task directory writable and write through (as root, bwrap kept them all)', { skip: !hasBwrap && 'bwrap is not installed' }, async () => {
  const notes = path.join(s.root, 'notes');
  fs.mkdirSync(notes);
  fs.writeFileSync(path.join(notes, 'plan.txt'), 'the human wrote this\n');
  const started = await airlock(['task', 'start', 'bb12 caps', '--json', '--cwd', proj], { env: env() });
  assert.equal(started.code, 0, started.stderr);
  const task = JSON.parse(started.stdout) as { task: string; token: string };
  const taskDir = path.join(s.d.home, 'tasks', task.task);
  fs.writeFileSync(
    path.join(proj, 'attack.sh'),
    [
      'grep CapEff /proc/self/status',
      `mount -o remount,bind,rw '${notes}' 2>/dev/null && echo REMOUNTED-NOTES`,
      `echo changed > '${notes}/plan.txt' 2>/dev/null`,
      `mount -o remount,bind,rw '${taskDir}' 2>/dev/null && echo REMOUNTED-TASK`,
      `echo planted > '${taskDir}/planted' 2>/dev/null`,
      `mount -o remount,bind,rw /etc 2>/dev/null && echo REMOUNTED-ETC`,
      'exit 0',
    ].join('\n'),
  );
  const r = await approvingAll(airlock(['exec', '--sandbox', '--task', task.token, '--ro', notes, '--', 'sh', './attack.sh'], { env: env(), cwd: proj, timeoutMs: 60_000 }));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /CapEff:\s+0+\n/, `no capability inside:\n${r.stdout}`);
  assert.doesNotMatch(r.stdout, /REMOUNTED/, r.stdout);
  assert.equal(fs.readFileSync(path.join(notes, 'plan.txt'), 'utf8'), 'the human wrote this\n', 'the --ro file is unchanged');
  assert.ok(!fs.existsSync(path.join(taskDir, 'planted')), 'nothing planted beside the task sockets');
  await airlock(['task', 'end', task.task], { env: env() });
});

test("the human's tmux server (airlock watch runs in it) is out of reach: a sandbox working in tmux's temp directory is refused, one sharing it with --ro does not see the socket", { skip: (!hasBwrap || !hasTmux) && 'needs bwrap and tmux' }, async () => {
  // tmux keeps its socket in $TMUX_TMPDIR/tmux-<uid>/ (default /tmp). A private one here.
  const tmp = path.join(s.root, 'tmp');
  fs.mkdirSync(tmp);
  const tenv = env({ TMUX_TMPDIR: tmp, TMPDIR: tmp });
  execFileSync('tmux', ['-L', 'bb12', 'new-session', '-d', '-s', 'human', 'sleep 600'], { env: tenv });
  try {
    const sock = path.join(tmp, `tmux-${process.getuid!()}`, 'bb12');
    await waitFor(() => fs.existsSync(sock), 'the tmux socket');
    const escaped = path.join(s.root, 'escaped');
    // A new tmux window runs its command outside, as the human: a way out of any sandbox.
    const attack = `${probe([sock])}; tmux -L bb12 new-window -d 'touch ${escaped}' 2>/dev/null && echo REACHED; exit 0`;
    // The shared temp directory itself as the workspace: refused before anything is asked.
    const asCwd = await airlock(['exec', '--sandbox', '--', 'sh', '-c', attack], { env: tenv, cwd: tmp, timeoutMs: 60_000 });
    assert.equal(asCwd.code, 64, asCwd.stdout + asCwd.stderr);
    assert.match(asCwd.stderr, /temp directory every program shares/);
    // tmux's own directory as the workspace or a --ro path: refused too.
    const inTmuxDir = await airlock(['exec', '--sandbox', '--', 'sh', '-c', attack], { env: tenv, cwd: path.dirname(sock), timeoutMs: 60_000 });
    assert.equal(inTmuxDir.code, 64, inTmuxDir.stdout + inTmuxDir.stderr);
    const roTmuxDir = await airlock(['exec', '--sandbox', '--ro', path.dirname(sock), '--', 'sh', '-c', attack], { env: tenv, cwd: proj, timeoutMs: 60_000 });
    assert.equal(roTmuxDir.code, 64, roTmuxDir.stdout + roTmuxDir.stderr);
    // Shared read-only (a socket connects through a read-only bind): it runs, the socket is not there.
    const asRo = await approvingAll(airlock(['exec', '--sandbox', '--ro', tmp, '--', 'sh', '-c', attack], { env: tenv, cwd: proj, timeoutMs: 60_000 }));
    assert.equal(asRo.code, 0, asRo.stdout + asRo.stderr);
    assert.deepEqual(visible(asRo.stdout), [], asRo.stdout);
    assert.doesNotMatch(asRo.stdout, /REACHED/);
    assert.ok(!fs.existsSync(escaped), 'tmux ran nothing outside the sandbox');
  } finally {
    spawnSync('tmux', ['-L', 'bb12', 'kill-server'], { env: tenv });
  }
});

test('--ro of a shared temp directory (/tmp, $TMPDIR): sockets and named pipes other programs keep there (a top-level socket, an ssh-agent directory, a command pipe) are hidden when the sandbox starts; plain files stay shared', { skip: !hasBwrap && 'bwrap is not installed' }, async () => {
  // A temp directory of its own, named by TMPDIR (every shared temp directory is treated
  // alike, sandbox-sockets.ts): the machine's /tmp can hold more than a sandbox start may
  // look through, and then the start is refused (fail closed), which this test is not about.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bb12t-'));
  const tag = `bb12-${process.pid}`;
  const top = path.join(tmp, `${tag}.sock`);
  const agentDir = path.join(tmp, `ssh-${tag}`);
  const plain = path.join(tmp, `${tag}.txt`);
  fs.mkdirSync(agentDir, { mode: 0o700 });
  const agentSock = path.join(agentDir, 'agent.1234');
  const servers = [await listen(top), await listen(agentSock)];
  fs.writeFileSync(plain, 'shared\n');
  // A named pipe a program reads commands from (mpv --input-file): it opens for writing through a read-only bind.
  const fifo = path.join(tmp, `${tag}.fifo`);
  execFileSync('mkfifo', [fifo]);
  try {
    const r = await approvingAll(airlock(['exec', '--sandbox', '--ro', tmp, '--', 'sh', '-c', `${probe([top, agentSock, plain])}; ${connects([top, agentSock])}; if test -p '${fifo}'; then echo "FIFO visible"; fi`], { env: env({ TMPDIR: tmp }), cwd: proj, timeoutMs: 120_000 }));
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(visible(r.stdout), [plain], `only the plain file is visible:\n${r.stdout}`);
    assert.doesNotMatch(r.stdout, /CONNECTED/, r.stdout);
    assert.doesNotMatch(r.stdout, /FIFO visible/, r.stdout);
  } finally {
    fs.rmSync(fifo, { force: true });
    for (const srv of servers) srv.close();
    fs.rmSync(agentDir, { recursive: true, force: true });
    fs.rmSync(top, { force: true });
    fs.rmSync(plain, { force: true });
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("the session's runtime directory (D-Bus, Wayland, the systemd user manager) never goes in: hidden inside a shared directory, refused as a --ro path or working directory", { skip: !hasBwrap && 'bwrap is not installed' }, async () => {
  const shared = path.join(s.root, 'shared');
  const run = path.join(shared, 'run');
  fs.mkdirSync(run, { recursive: true, mode: 0o700 });
  const bus = path.join(run, 'bus');
  const srv = await listen(bus);
  const xenv = env({ XDG_RUNTIME_DIR: run });
  try {
    const hidden = await approvingAll(airlock(['exec', '--sandbox', '--ro', shared, '--', 'sh', '-c', `${probe([bus])}; ${connects([bus])}`], { env: xenv, cwd: proj, timeoutMs: 60_000 }));
    assert.equal(hidden.code, 0, hidden.stdout + hidden.stderr);
    assert.deepEqual(visible(hidden.stdout), [], hidden.stdout);
    assert.doesNotMatch(hidden.stdout, /CONNECTED/, hidden.stdout);
    const ro = await airlock(['exec', '--sandbox', '--ro', run, '--', 'sh', '-c', probe([bus])], { env: xenv, cwd: proj, timeoutMs: 60_000 });
    assert.equal(ro.code, 64, ro.stdout + ro.stderr);
    assert.deepEqual(visible(ro.stdout), []);
    const cwd = await airlock(['exec', '--sandbox', '--', 'sh', '-c', probe([bus])], { env: xenv, cwd: run, timeoutMs: 60_000 });
    assert.equal(cwd.code, 64, cwd.stdout + cwd.stderr);
  } finally {
    srv.close();
  }
});

test("held: a sandboxed agent cannot type into the human's terminal: TIOCSTI on the terminal it was started from is refused (new session, no capability of the first user namespace), so nothing waits for the human's shell to run", { skip: (!hasBwrap || !hasTmux) && 'needs bwrap and tmux' }, async () => {
  const out = path.join(proj, 'tiocsti.txt');
  fs.writeFileSync(
    path.join(proj, 'type.py'),
    ['import fcntl, termios', 'try:', "    for ch in b'echo PWNED':", '        fcntl.ioctl(0, termios.TIOCSTI, bytes([ch]))', "    r = 'injected'", 'except OSError as e:', "    r = 'refused %d' % e.errno", `open('${out}', 'w').write(r)`].join('\n'),
  );
  const session = `bb12t-${process.pid}`;
  // The human's terminal: a tmux pane running the sandboxed command, then a shell that would read what was typed.
  const cmd = `cd '${proj}' && AIRLOCK_HOME='${s.d.home}' '${process.execPath}' '${path.join(__dirname, '..', '..', '..', 'bin', 'airlock')}' exec --sandbox -- python3 type.py; sleep 60`;
  execFileSync('tmux', ['-L', session, 'new-session', '-d', '-s', session, '-x', '100', '-y', '20', 'sh', '-c', cmd]);
  try {
    await approvingAll(waitFor(() => fs.existsSync(out), 'the agent to try', 60_000));
    assert.match(fs.readFileSync(out, 'utf8'), /^refused/, 'TIOCSTI must fail inside the sandbox');
    const pane = execFileSync('tmux', ['-L', session, 'capture-pane', '-p', '-t', session], { encoding: 'utf8' });
    assert.doesNotMatch(pane, /echo PWNED/, pane);
  } finally {
    spawnSync('tmux', ['-L', session, 'kill-server']);
  }
});
