// SIGUSR1 makes a Node process open its inspector (127.0.0.1:9229): whoever connects can run
// code in it. The daemon holds the SSH keys and decides; airlock exec waits on a prompt. Neither
// may turn into a debugger any local user can attach to because a signal arrived.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { AIRLOCK_BIN, Wire } from '../helpers/blackbox';
import { startDaemon, tempHome, waitFor } from '../helpers/daemon';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The TCP ports a process listens on, from /proc (no ss needed). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
    if (m) inodes.add(m[1]!);
  }
  const ports: number[] = [];
  for (const f of ['tcp', 'tcp6']) {
    for (const line of fs.readFileSync(`/proc/${pid}/net/${f}`, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && cols[3] === '0A' && inodes.has(cols[9]!)) ports.push(parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

test('SIGUSR1 opens no inspector in the daemon: it keeps deciding and listens on no TCP port', { timeout: 60_000 }, async (t) => {
  const d = await startDaemon({ home: tempHome('usr1-') });
  t.after(() => d.stop());
  const pid = d.proc.pid!;
  assert.deepEqual(listeningPorts(pid), [], 'headless serve listens on no TCP port (control)');
  process.kill(pid, 'SIGUSR1');
  await sleep(500);
  assert.doesNotMatch(d.output(), /Debugger listening/);
  assert.deepEqual(listeningPorts(pid), [], 'no inspector port');
  const agent = await Wire.open(d.requestSock);
  const r = await agent.ok<{ decision: string }>('request', { source: 'api', tool: 'cat', action: 'read', resource: '/etc/hostname', summary: 'read after SIGUSR1' });
  assert.equal(r.decision, 'allow');
  agent.close();
});

test('SIGUSR1 opens no inspector in airlock exec waiting on a prompt', { timeout: 60_000 }, async (t) => {
  const d = await startDaemon({ home: tempHome('usr1e-') });
  t.after(() => d.stop());
  const ui = await Wire.open(d.uiSock);
  t.after(() => ui.close());
  const exec = spawn(process.execPath, [AIRLOCK_BIN, 'exec', '--', 'rm', '-f', path.join(d.home, 'nothing-here')], { env: d.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  exec.stderr.on('data', (b) => (err += b));
  const exited = new Promise<number | null>((r) => exec.on('close', (c) => r(c)));
  let id = '';
  await waitFor(async () => {
    const m = await ui.ok<{ prompts: { id: string }[] }>('pending.list', {});
    id = m.prompts[0]?.id ?? '';
    return id !== '';
  }, 'the exec prompt');
  process.kill(exec.pid!, 'SIGUSR1');
  await sleep(500);
  assert.doesNotMatch(err, /Debugger listening/);
  assert.deepEqual(listeningPorts(exec.pid!), []);
  await ui.ok('pending.decide', { id, decision: 'deny', scope: 'once' });
  assert.equal(await exited, 126, 'still waiting on its prompt after the signal, then denied');
});
