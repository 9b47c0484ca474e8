// Every task's start and end is a history row (tool task.start / task.end), with who did it
// (the peer process of the socket it came through), where (cwd), what name it was given, and
// for an end why; hash-chained like every other row, so `audit verify` covers them. Driven
// as a user does: the `airlock` CLI, request.sock, a task's own socket, ui.sock, the web API.
// Also: ending or revoking twice is an error naming the id, not a second "ended"/"revoked";
// and grants.create refuses a key that is no OpenSSH fingerprint on every adapter.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { CLI } from '../helpers/daemon';
import { startWebDaemon, type WebDaemon } from '../helpers/web-ui';
import { RpcClient, AirlockRpcError } from '../../main/client/rpc-client';
import type { HistoryEvent, Grant } from '../../main/contract/approver';

let d: WebDaemon;
let ui: RpcClient;
let agent: RpcClient;
let work: string;

before(async () => {
  d = await startWebDaemon();
  ui = await d.ui();
  agent = await d.agent();
  work = fs.mkdtempSync(path.join(d.home, 'work-'));
});
after(async () => {
  ui?.close();
  agent?.close();
  await d?.stop();
});

function airlock(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env: d.env, cwd: work, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr, pid: r.pid };
}

/** One JSON-RPC call through the web UI's API (the adapter the browser's calls take). */
async function web(method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const res = await fetch(`${d.origin}/api/rpc`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json', Origin: d.origin },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

async function rowsOf(task: string): Promise<HistoryEvent[]> {
  return (await ui.call<{ events: HistoryEvent[] }>('history.query', { task, limit: 100 })).events;
}

const fingerprint = () => 'SHA256:' + crypto.createHash('sha256').update(crypto.randomBytes(32)).digest('base64').replace(/=+$/, '');

describe('task starts and ends are history rows', () => {
  test('airlock task start / task end: who (the CLI process), where, the name; a second end exits 64 naming the task and records nothing', async () => {
    const start = airlock(['task', 'start', 'fix CI', '--cwd', work, '--json']);
    assert.equal(start.code, 0, start.err);
    const { task } = JSON.parse(start.out) as { task: string };
    const [row, ...more] = await rowsOf(task);
    assert.equal(more.length, 0, 'one row: the start');
    assert.equal(row!.tool, 'task.start');
    assert.equal(row!.source, 'api');
    assert.equal(row!.action, 'other');
    assert.equal(row!.decision, 'allow');
    assert.equal(row!.decidedBy, 'policy');
    assert.equal(row!.cwd, work);
    assert.equal(row!.process?.pid, start.pid, 'the process that started it: the CLI, from the socket');
    assert.ok(row!.process!.argv.includes('start') && row!.process!.argv.includes('fix CI'), row!.process!.argv.join(' '));
    assert.ok(row!.process!.tree.some((n) => n.pid === process.pid), 'its process tree reaches this test, its parent');
    assert.deepEqual((row!.args as { name: string; via: string }).name, 'fix CI');
    assert.match(row!.summary, /^task "fix CI" started through request\.sock by node \(pid \d+\)$/);

    const end = airlock(['task', 'end', task]);
    assert.equal(end.code, 0, end.err);
    assert.equal(end.out, `ended ${task}\n`);
    const rows = await rowsOf(task);
    assert.deepEqual(rows.map((e) => e.tool), ['task.end', 'task.start']);
    const ended = rows[0]!;
    assert.equal(ended.source, 'ui.sock');
    assert.equal(ended.decidedBy, 'human');
    assert.equal(ended.process?.pid, end.pid, 'the process that ended it: the CLI on ui.sock');
    assert.equal(ended.reason, 'ended by the human (ui.sock)');
    assert.deepEqual(ended.args, { name: 'fix CI', why: 'ended', via: 'ui.sock', side: 'human' });
    assert.equal(ended.cwd, work);

    const again = airlock(['task', 'end', task]);
    assert.equal(again.code, 64, again.err);
    assert.equal(again.out, '', 'no "ended" for what had already ended');
    assert.match(again.err, new RegExp(`task ${task} had already ended at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z; nothing changed \\(airlock task list shows the running tasks\\)`));
    assert.equal((await rowsOf(task)).length, 2, 'nothing recorded for the second end');
    const unknown = airlock(['task', 'end', 't_neverexisted']);
    assert.equal(unknown.code, 64);
    assert.match(unknown.err, /no task t_neverexisted \(airlock task list --all shows every task/);
    // The socket methods: -32004 (the task named no longer runs), the same words.
    await assert.rejects(ui.call('tasks.end', { task }), (e: unknown) => e instanceof AirlockRpcError && e.code === -32004 && /had already ended/.test(e.message));
    const viaWeb = await web('tasks.end', { task });
    assert.equal(viaWeb.error?.code, -32004);
  });

  test('filterable: airlock history --tool task.start / task.end, and a full-text search for the name', async () => {
    const a = await agent.call<{ task: string; token: string }>('task.start', { name: 'filter me', cwd: work });
    await agent.call('task.end', { task: a.task, token: a.token });
    const lines = (args: string[]) => {
      const r = airlock(['history', ...args, '--json']);
      assert.equal(r.code, 0, r.err);
      return r.out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as HistoryEvent);
    };
    const starts = lines(['--tool', 'task.start']);
    assert.ok(starts.length >= 2 && starts.every((e) => e.tool === 'task.start'));
    assert.ok(starts.some((e) => e.task === a.task));
    const ends = lines(['--tool', 'task.end', '--task', a.task]);
    assert.deepEqual(ends.map((e) => e.reason), ['ended by its agent (task.end on request.sock)']);
    assert.ok(lines(['--text', 'filter me']).some((e) => e.task === a.task && e.tool === 'task.start'));
    const table = airlock(['history', '--task', a.task]);
    assert.match(table.out, /allow +policy +api +other +low +this machine +task "filter me" ended by node \(pid \d+\): ended by its agent/);
  });

  test("an agent's start and end on request.sock, and an end on the task's own socket: each with the peer process and the socket", async () => {
    const a = await agent.call<{ task: string; token: string; requestSock: string }>('task.start', { name: 'agent task', cwd: work });
    await agent.call('task.end', { task: a.token });
    const [end, start] = await rowsOf(a.task);
    assert.equal(start!.process?.pid, process.pid, 'this test process is the agent');
    assert.equal(end!.process?.pid, process.pid);
    assert.equal(end!.decidedBy, 'policy');
    assert.deepEqual(end!.args, { name: 'agent task', why: 'ended', via: 'request.sock', side: 'agent' });
    assert.ok(!JSON.stringify([start, end]).includes(a.token.split('.')[1]!), 'the token is never recorded');
    // Twice on the agent side: refused (it had ended), nothing recorded.
    await assert.rejects(agent.call('task.end', { task: a.token }), /has ended/);
    assert.equal((await rowsOf(a.task)).length, 2);

    const b = await agent.call<{ task: string; requestSock: string }>('task.start', { name: 'own socket', cwd: work });
    const own = await RpcClient.connect(b.requestSock);
    try {
      await own.call('task.end', {});
    } finally {
      own.close();
    }
    const [ownEnd] = await rowsOf(b.task);
    assert.equal(ownEnd!.tool, 'task.end');
    assert.equal(ownEnd!.process?.pid, process.pid);
    assert.equal(ownEnd!.reason, `ended by its agent (task.end on tasks/${b.task}/request.sock)`);
  });

  test('a task the human starts and ends from the web UI: source web, decided by the human', async () => {
    const r = await web('tasks.start', { name: 'from the web', cwd: work });
    const { task } = r.result as { task: string };
    assert.equal((await web('tasks.end', { task })).error, undefined);
    const [end, start] = await rowsOf(task);
    assert.deepEqual([start!.source, start!.decidedBy, start!.tool], ['web', 'human', 'task.start']);
    assert.deepEqual([end!.source, end!.decidedBy, end!.reason], ['web', 'human', 'ended by the human (web)']);
  });

  test('audit verify covers them: a task.start row edited on disk is named', async () => {
    const a = await agent.call<{ task: string }>('task.start', { name: 'to tamper', cwd: work });
    const [row] = await rowsOf(a.task);
    const ok = airlock(['audit', 'verify']);
    assert.equal(ok.code, 0, ok.err);
    // A copy of the live file (as a user would take one), edited as an attacker with the user's rights would.
    const copy = path.join(d.home, 'copy.db');
    const live = new Database(path.join(d.home, 'airlock.db'), { readonly: true });
    try {
      live.exec(`VACUUM INTO '${copy}'`);
    } finally {
      live.close();
    }
    assert.equal(airlock(['audit', 'verify', '--db', copy]).code, 0, 'the copy verifies as it is');
    const db = new Database(copy);
    db.prepare('UPDATE events SET process = NULL WHERE id = ?').run(row!.id);
    db.close();
    const bad = airlock(['audit', 'verify', '--db', copy]);
    assert.equal(bad.code, 1, bad.err);
    assert.match(bad.err, new RegExp(`TAMPERED: event ${row!.id} was altered`));
  });
});

describe('revoking twice, and SSH key fingerprints', () => {
  test('airlock grants revoke ID twice: the second exits 64 naming the grant and what to run; the socket says -32004', async () => {
    const add = airlock(['grants', 'add', '-a', 'write', '-r', `${work}/**`, '--json']);
    assert.equal(add.code, 0, add.err);
    const g = JSON.parse(add.out) as Grant;
    const first = airlock(['grants', 'revoke', g.id]);
    assert.equal(first.code, 0, first.err);
    assert.equal(first.out, `revoked ${g.id}\n`);
    const second = airlock(['grants', 'revoke', g.id]);
    assert.equal(second.code, 64);
    assert.equal(second.out, '');
    assert.match(second.err, new RegExp(`grant ${g.id} was already revoked at \\d{4}-[\\d-]+T[\\d:.]+Z; nothing changed \\(airlock grants list shows the grants in force\\)`));
    const unknown = airlock(['grants', 'revoke', 'g_neverexisted']);
    assert.equal(unknown.code, 64);
    assert.match(unknown.err, /no grant g_neverexisted \(airlock grants list --all shows every grant/);
    await assert.rejects(ui.call('grants.revoke', { id: g.id }), (e: unknown) => e instanceof AirlockRpcError && e.code === -32004);
    assert.equal((await web('grants.revoke', { id: g.id })).error?.code, -32004);
    // The revocation time is the first one's: the second changed nothing.
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { includeInactive: true });
    const kept = grants.find((x) => x.id === g.id)!;
    assert.ok(kept.revokedAt !== null && second.err.includes(new Date(kept.revokedAt).toISOString()));
  });

  test('grants.create refuses a key that is no OpenSSH SHA256 fingerprint (-32602 naming key) on ui.sock, the web API, the CLI and task.start', async () => {
    const good = fingerprint();
    const bad = [
      'SHA256:abc',
      'MD5:16:27:ac:a5:76:28:2d:36:63:1b:56:4d:eb:df:a6:48',
      good.replace('SHA256:', 'sha256:'),
      good + '=',
      good.slice(0, -1) + 'B', // a 43rd character that cannot end 32 bytes of base64
      good.slice(0, -1),
      ` ${good}`,
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl',
    ];
    const before = (await ui.call<{ grants: Grant[] }>('grants.list', { includeInactive: true })).grants.length;
    for (const key of bad) {
      const spec = { action: 'sign', source: 'ssh', key, effect: 'allow' };
      await assert.rejects(ui.call('grants.create', spec), (e: unknown) => e instanceof AirlockRpcError && e.code === -32602 && /^invalid params: key: must be an SSH key fingerprint/.test(e.message), `ui.sock: ${key}`);
      const w = await web('grants.create', spec);
      assert.equal(w.error?.code, -32602, `web: ${key}`);
      assert.match(w.error!.message, /key: must be an SSH key fingerprint as OpenSSH prints it/);
      await assert.rejects(agent.call('task.start', { name: 'keyed', grants: [{ action: 'sign', key, effect: 'allow' }] }), /grants\.0\.key: must be an SSH key fingerprint/, `task.start: ${key}`);
    }
    const cli = airlock(['grants', 'add', '-a', 'sign', '--key', 'SHA256:nope']);
    assert.equal(cli.code, 64);
    assert.match(cli.err, /key: must be an SSH key fingerprint as OpenSSH prints it: SHA256: and 43 base64 characters/);
    assert.equal((await ui.call<{ grants: Grant[] }>('grants.list', { includeInactive: true })).grants.length, before, 'none was stored');
    // What OpenSSH prints is taken as it is.
    const { grant } = await ui.call<{ grant: Grant }>('grants.create', { action: 'sign', source: 'ssh', key: good, effect: 'allow' });
    assert.equal(grant.key, good);
  });
});
