// OpenSSH's client runs programs its configuration names: `ssh -F FILE` takes options from a
// file the command line does not show (`Match exec "CMD"` runs CMD while the file is read,
// before any connection; ProxyCommand, LocalCommand likewise), and a command after the host
// runs on that host. Both were classified as a transfer to the host, so a task allowed to
// reach hosts (a transfer grant) ran them silently (lead's red team, 2026-11-24). Now: execute,
// asked whatever the task's transfer grants say, the prompt saying why. Run for real with the
// installed ssh; the control shows the planted file really runs.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Wire, airlock, waitPending } from '../helpers/blackbox';
import { run } from '../helpers/run';

let d: Daemon;
let ui: Wire;

before(async () => {
  d = await startDaemon();
  ui = await Wire.open(d.uiSock);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

/** A workspace holding an ssh config whose `Match exec` leaves `pwned` behind. */
function scene(): { cwd: string; pwned: () => boolean } {
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(tempHome('al-sshcfg-'), 'w-')));
  fs.writeFileSync(path.join(cwd, 'cfg'), `Match exec "touch ${path.join(cwd, 'pwned')}"\n  User nobody\n`);
  return { cwd, pwned: () => fs.existsSync(path.join(cwd, 'pwned')) };
}

const CMD = 'ssh -F cfg -o BatchMode=yes -o ConnectTimeout=2 nowhere.invalid true';

test('ssh -F FILE runs what the file names (Match exec): asked as execute despite a transfer grant, and a denial runs nothing', async () => {
  const control = scene();
  await run('bash', ['-c', CMD], { cwd: control.cwd, timeoutMs: 20_000 });
  assert.ok(control.pwned(), 'control: ssh -F did not run the Match exec command, so this test proves nothing');

  const w = await Wire.open(d.requestSock);
  try {
    const s = scene();
    const t = await w.ok<{ task: string; token: string }>('task.start', { name: 'ssh config', cwd: s.cwd });
    await ui.ok('grants.create', { task: t.task, action: 'transfer', resource: '*', effect: 'allow' });
    const pending = airlock(['exec', '--task', t.token, '--shell', '--', CMD], { env: d.env, cwd: s.cwd, timeoutMs: 30_000 });
    const p = await waitPending(ui, (x) => x.summary.includes('ssh -F'), 'ssh -F is asked despite the transfer grant', 20_000);
    assert.equal(p.action, 'execute');
    assert.ok(p.risk.reasons.some((x) => /ssh -F runs a program/.test(String(x))), JSON.stringify(p.risk.reasons));
    await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    assert.equal((await pending).code, 126);
    assert.equal(s.pwned(), false);
    await w.ok('task.end', { task: t.token });
  } finally {
    w.close();
  }
});

test('a command after the host runs there: ssh HOST CMD is execute on that host, not a transfer a host grant covers', async () => {
  const w = await Wire.open(d.requestSock);
  try {
    const s = scene();
    const t = await w.ok<{ task: string; token: string }>('task.start', { name: 'ssh remote command', cwd: s.cwd });
    await ui.ok('grants.create', { task: t.task, action: 'transfer', resource: '*', effect: 'allow' });
    const cmd = 'ssh -o BatchMode=yes -o ConnectTimeout=2 nowhere.invalid rm -rf /srv/data';
    const pending = airlock(['exec', '--task', t.token, '--shell', '--', cmd], { env: d.env, cwd: s.cwd, timeoutMs: 30_000 });
    const p = await waitPending(ui, (x) => x.summary.includes('nowhere.invalid'), 'the remote command is asked despite the transfer grant', 20_000);
    assert.equal(p.action, 'execute');
    assert.ok(p.risk.reasons.some((x) => String(x).includes('runs rm -rf /srv/data on nowhere.invalid')), JSON.stringify(p.risk.reasons));
    await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    assert.equal((await pending).code, 126);
    await w.ok('task.end', { task: t.token });
  } finally {
    w.close();
  }
});
