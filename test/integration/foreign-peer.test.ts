// Every socket of the daemon refuses a process of another user and records it in history
// (one private-socket module, main/os/private-socket.ts): ui.sock, request.sock, a task's
// request.sock, and the SSH agent's agent.sock and a task's agent socket — the SSH agent
// used to only log it. The file permissions are opened first, so that only the peer-uid
// check stands in the way. Needs root, to run the client as nobody.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, waitFor } from '../helpers/daemon';
import type { HistoryEvent } from '../../main/contract/approver';

/** Connects to `sock` as uid/gid 65534 (nobody), sends a line, and waits for the close. */
function connectAsNobody(sock: string): Promise<{ code: number | null; out: string }> {
  const script = "const s=require('net').connect(process.argv[1]);let o='';s.on('data',d=>o+=d);s.on('error',e=>o+='error '+e.code);s.on('close',()=>{process.stdout.write(o);process.exit(0)});s.write('{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pending.list\"}\\n');setTimeout(()=>{process.stdout.write('timeout '+o);process.exit(3)},5000);";
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['-e', script, sock], { uid: 65534, gid: 65534, env: { PATH: process.env.PATH }, cwd: '/' });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('close', (code) => resolve({ code, out }));
  });
}

test('a process of another user is refused on every socket, and each refusal is in history', { skip: process.getuid?.() !== 0 && 'needs root to run a client as another uid' }, async () => {
  const d = await startDaemon();
  const ui = await d.ui();
  const agent = await d.agent();
  try {
    await waitFor(() => fs.existsSync(d.agentSock), 'agent.sock');
    const task = await agent.call<{ task: string; requestSock: string; sshAuthSock: string }>('task.start', { name: 'foreign' });
    const socks: [string, string][] = [
      ['ui.sock', d.uiSock],
      ['request.sock', d.requestSock],
      ['agent.sock', d.agentSock],
      [`tasks/${task.task}/request.sock`, task.requestSock],
      [path.relative(d.home, task.sshAuthSock), task.sshAuthSock],
    ];
    // Open every directory on the way and every socket: only the uid check is left.
    for (let dir = path.dirname(task.requestSock); dir.startsWith(d.home); dir = path.dirname(dir)) fs.chmodSync(dir, 0o755);
    for (const [, s] of socks) fs.chmodSync(s, 0o777);
    for (const [name, s] of socks) {
      const r = await connectAsNobody(s);
      assert.equal(r.code, 0, `${name}: ${r.out}`);
      assert.doesNotMatch(r.out, /"result"|EACCES/, `${name}: connected and got nothing back (${r.out})`);
    }
    let rows: HistoryEvent[] = [];
    await waitFor(async () => {
      rows = (await ui.call<{ events: HistoryEvent[] }>('history.query', { decision: 'reject', limit: 50 })).events.filter((e) => e.tool === '(connect)');
      return rows.length >= socks.length;
    }, 'the refusals in history');
    assert.deepEqual(rows.map((e) => e.source).sort(), socks.map(([name]) => name).sort());
    for (const e of rows) {
      assert.equal(e.summary, 'connection from another user refused');
      assert.equal(e.reason, 'peer uid 65534 is not this user');
    }
    // Our own uid still works on each of them.
    assert.ok(Array.isArray((await ui.call<{ prompts: unknown[] }>('pending.list', {})).prompts));
  } finally {
    ui.close();
    agent.close();
    await d.stop();
  }
});
