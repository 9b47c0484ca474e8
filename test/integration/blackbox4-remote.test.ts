// Black-box, fourth wave: docs/remote.md run as written. `airlock remote add NAME HOST`
// prints one ssh line; the user copies it into a shell. This test takes that printed line
// verbatim (only the destination `me@build.example.com` becomes the loopback sshd, with the
// test's key and known_hosts), runs it with /bin/sh, types `airlock exec …` into the login
// shell it opens on the "server", and checks the prompt arrives here marked remote. Also
// the documented options: `--no-agent` leaves the agent forward out, `--server-socket PATH`
// picks the path, each run a fresh unguessable one, and `--json` gives the same plan.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { AIRLOCK_BIN, Wire, airlock, waitPending } from '../helpers/blackbox';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { run } from '../helpers/ssh';
import { startSshdForClient, USER, type Sshd } from '../helpers/sshd';

let d: Daemon;
let home: string;
let ui: Wire;
let sshd: Sshd | undefined;
let clientKey = '';
let knownHosts = '';

before(async () => {
  home = tempHome('bb4r-');
  d = await startDaemon({ home: path.join(home, 'h') });
  ui = await Wire.open(d.uiSock);
  if (!fs.existsSync('/usr/sbin/sshd')) return;
  ({ sshd, clientKey, knownHosts } = await startSshdForClient(path.join(home, 'sshd'), home));
});
after(async () => {
  ui?.close();
  await sshd?.stop();
  await d?.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

const env = () => ({ ...process.env, AIRLOCK_HOME: d.home });

/** The `ssh …` line `airlock remote add` printed. */
function sshLine(stdout: string): string {
  const lines = stdout.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('ssh '));
  assert.equal(lines.length, 1, stdout);
  return lines[0]!;
}

test('remote add: the printed ssh line, pasted into a shell, opens a session whose airlock exec asks here, marked remote', async (t) => {
  if (!sshd) return t.skip('OpenSSH server not installed');
  const added = await airlock(['remote', 'add', 'bb4build', 'me@build.example.com'], { env: env() });
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, new RegExp(`requests from it arrive here on ${d.home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/remotes/bb4build/request\\.sock`));
  const line = sshLine(added.stdout);
  assert.match(line, /-o ExitOnForwardFailure=yes/);
  assert.match(line, new RegExp(`-R /tmp/airlock-bb4build-[0-9a-f]{8,}\\.sock:${d.home}/remotes/bb4build/request\\.sock`));
  assert.match(line, new RegExp(`ForwardAgent=${d.home}/agent\\.sock`));
  // Only the destination changes: the test's sshd, key and known_hosts instead of build.example.com.
  const dest = [
    '-F /dev/null', `-o UserKnownHostsFile=${knownHosts}`, '-o GlobalKnownHostsFile=/dev/null', '-o StrictHostKeyChecking=yes', '-o BatchMode=yes',
    `-i ${clientKey}`, '-o IdentitiesOnly=yes', '-o IdentityAgent=none', `-p ${sshd.port}`, `${USER}@127.0.0.1`,
  ].join(' ');
  assert.ok(line.includes(' me@build.example.com '), line);
  const pasted = line.replace(' me@build.example.com ', ` ${dest} `);
  const marker = path.join(home, `remote-touched-${Date.now()}`);
  // What the user types into the login shell on the server.
  const typed = `${process.execPath} ${AIRLOCK_BIN} exec -- touch ${marker}\necho "exec said $?"\nexit\n`;
  const session = run('/bin/sh', ['-c', pasted], { env: { ...process.env, SSH_AUTH_SOCK: '' }, input: typed, timeoutMs: 90_000 });
  const p = await waitPending(ui, (x) => JSON.stringify(x).includes(marker), 'the prompt of the exec on the server', 60_000);
  assert.ok(JSON.stringify(p).includes('bb4build'), `the prompt names the remote: ${JSON.stringify(p)}`);
  await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
  const r = await session;
  assert.match(r.stdout, /exec said 126/, `${r.stdout}\n${r.stderr}`);
  assert.ok(!fs.existsSync(marker), 'the denied command did not run');
  const { events } = await ui.ok<{ events: { tool: string; decision: string; remote?: unknown; summary: string }[] }>('history.query', { text: path.basename(marker), limit: 5 });
  assert.ok(events.some((e) => e.decision === 'deny' && JSON.stringify(e).includes('bb4build')), `history marks it remote: ${JSON.stringify(events)}`);
});

test('remote add --no-agent leaves the agent forward out; --server-socket picks the path; each plain run is a fresh path; --json gives the same plan', async () => {
  const a = await airlock(['remote', 'add', 'bb4opts', 'me@h.example', '--json'], { env: env() });
  const b = await airlock(['remote', 'add', 'bb4opts', 'me@h.example', '--json'], { env: env() });
  assert.equal(a.code, 0, a.stderr);
  const pa = JSON.parse(a.stdout) as { sshOptions: string[]; env: Record<string, string> };
  const pb = JSON.parse(b.stdout) as { sshOptions: string[]; env: Record<string, string> };
  assert.ok(Array.isArray(pa.sshOptions) && typeof pa.env.AIRLOCK_REQUEST_SOCK === 'string', a.stdout);
  assert.notEqual(pa.env.AIRLOCK_REQUEST_SOCK, pb.env.AIRLOCK_REQUEST_SOCK, 'a fresh socket path per run');
  assert.match(pa.env.AIRLOCK_REQUEST_SOCK!, /^\/tmp\/airlock-bb4opts-[0-9a-f]{8,}\.sock$/);
  assert.ok(pa.sshOptions.join(' ').includes(`${pa.env.AIRLOCK_REQUEST_SOCK}:${d.home}/remotes/bb4opts/request.sock`), pa.sshOptions.join(' '));
  assert.ok(pa.sshOptions.some((o) => o.includes('ForwardAgent=')), 'the agent is forwarded by default');

  const noAgent = await airlock(['remote', 'add', 'bb4opts', 'me@h.example', '--no-agent'], { env: env() });
  assert.equal(noAgent.code, 0, noAgent.stderr);
  assert.doesNotMatch(sshLine(noAgent.stdout), /ForwardAgent/);
  const noAgentJson = JSON.parse((await airlock(['remote', 'add', 'bb4opts', 'me@h.example', '--no-agent', '--json'], { env: env() })).stdout) as { sshOptions: string[] };
  assert.ok(!noAgentJson.sshOptions.some((o) => o.includes('ForwardAgent')), noAgentJson.sshOptions.join(' '));

  const fixed = await airlock(['remote', 'add', 'bb4opts', 'me@h.example', '--server-socket', '/tmp/bb4-fixed.sock'], { env: env() });
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.match(sshLine(fixed.stdout), new RegExp(`-R /tmp/bb4-fixed\\.sock:${d.home}/remotes/bb4opts/request\\.sock`));
  assert.match(fixed.stdout, /AIRLOCK_REQUEST_SOCK=\/tmp\/bb4-fixed\.sock/);

  const list = await airlock(['remote', 'list'], { env: env() });
  assert.equal(list.code, 0);
  assert.match(list.stdout, /bb4opts/);
  const removed = await airlock(['remote', 'remove', 'bb4opts'], { env: env() });
  assert.equal(removed.code, 0, removed.stderr);
  assert.ok(!fs.existsSync(path.join(d.home, 'remotes', 'bb4opts', 'request.sock')), 'the socket is closed and gone');
  assert.doesNotMatch((await airlock(['remote', 'list'], { env: env() })).stdout, /bb4opts/);
});
