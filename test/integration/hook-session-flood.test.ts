// A flood of new Claude Code session ids through the real daemon and the real hook
// (main/integrations/claude-code/session-files.ts): each new session is a task with its own
// sockets, and a session id is the hook's stdin, so anything that can run the hook can name a
// new one per call. Owners here are real, long-lived processes that run the hook as Claude Code
// does (its parent), so the daemon tells them apart from /proc as it would Claude Code
// processes. Bounded: 16 per owner, 128 in all; never an allow that was not the daemon's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import type { RpcClient } from '../../main/client/rpc-client';
import type { HistoryEvent, Task } from '../../main/contract/approver';
import { SESSION_CAPS } from '../../main/integrations/claude-code/session-files';
import { HOOK_VARIANTS } from '../helpers/native-hook';

// The native hook when this build has one, else the Node hook: both relay to the same daemon code.
const hook = HOOK_VARIANTS.find((v) => v.name === 'native' && !v.skip) ?? HOOK_VARIANTS.find((v) => v.name === 'node')!;

// A stand-in for one Claude Code process: it lives until told to stop and runs the hook as its
// own child (Claude Code's parent role), stdin the call's JSON.
const OWNER = `
const { spawn } = require('node:child_process');
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  const p = spawn(m.cmd, m.args, { env: m.env, cwd: m.cwd });
  let out = '';
  p.stdout.on('data', (b) => (out += b));
  p.stdin.on('error', () => {});
  p.on('close', (code) => process.stdout.write(JSON.stringify({ id: m.id, code, out }) + '\\n'));
  p.stdin.end(m.input);
});
rl.on('close', () => process.exit(0));
`;

type Decision = { permissionDecision: string; permissionDecisionReason: string };

class Owner {
  private buf = '';
  private next = 1;
  private readonly waiting = new Map<number, (r: { code: number; out: string }) => void>();
  readonly exited: Promise<void>;
  constructor(readonly proc: ChildProcessWithoutNullStreams) {
    proc.stdout.on('data', (b: Buffer) => {
      this.buf += b.toString();
      for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
        const m = JSON.parse(this.buf.slice(0, nl)) as { id: number; code: number; out: string };
        this.buf = this.buf.slice(nl + 1);
        this.waiting.get(m.id)?.(m);
        this.waiting.delete(m.id);
      }
    });
    this.exited = new Promise((r) => proc.once('exit', () => r()));
  }
  /** One hook call; bounded. */
  run(input: string): Promise<Decision> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => (this.waiting.delete(id), reject(new Error(`hook call ${id}: no answer`))), 60_000);
      this.waiting.set(id, (r) => {
        clearTimeout(t);
        assert.equal(r.code, 0, r.out);
        resolve((JSON.parse(r.out) as { hookSpecificOutput: Decision }).hookSpecificOutput);
      });
      this.proc.stdin.write(JSON.stringify({ id, cmd: hook.cmd, args: hook.args, env: d.env, cwd: work, input }) + '\n');
    });
  }
  async stop(): Promise<void> {
    this.proc.stdin.end();
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, 5000))]);
    this.proc.kill('SIGKILL');
    await this.exited;
  }
}

let d: Daemon;
let ui: RpcClient;
let human: Human;
let work: string;
let script: string;
const owners: Owner[] = [];

const newOwner = (): Owner => {
  const o = new Owner(spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'pipe'] }));
  o.proc.stderr.resume();
  owners.push(o);
  return o;
};

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  human = await Human.on(ui);
  work = fs.mkdtempSync(path.join(d.home, 'work-'));
  fs.writeFileSync(path.join(work, 'a.txt'), 'a\n');
  script = path.join(d.home, 'owner.js');
  fs.writeFileSync(script, OWNER);
});
after(async () => {
  for (const o of owners) await o.stop();
  ui?.close();
  await d?.stop();
});

/** A session id whose first 8 characters (what the task's name shows) are `tag`, padded. */
const sid = (tag: string) => `${tag.padEnd(8, 'x').slice(0, 8)}-4d1c-9e2b-flood`;
const read = (s: string) => JSON.stringify({ session_id: s, cwd: work, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: path.join(work, 'a.txt') } });
const write = (s: string) => JSON.stringify({ session_id: s, cwd: work, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: path.join(work, 'b.txt'), content: 'b' } });

async function tasksNamed(tag: string): Promise<Task[]> {
  const { tasks } = await ui.call<{ tasks: Task[] }>('tasks.list', { includeEnded: true });
  return tasks.filter((t) => t.name.includes(`(${tag.padEnd(8, 'x').slice(0, 8)})`));
}

/** A task's history rows, newest first. */
async function rowsOf(task: string): Promise<HistoryEvent[]> {
  return (await ui.call<{ events: HistoryEvent[] }>('history.query', { task, limit: 100 })).events;
}

const sessionsDir = () => path.join(d.home, 'claude-code');
const files = (ext: string) => fs.readdirSync(sessionsDir()).filter((n) => n.endsWith(ext));

describe("a flood of Claude Code session ids through the real daemon and hook", () => {
  test(`one process naming ${SESSION_CAPS.perOwner + 4} new sessions keeps ${SESSION_CAPS.perOwner}: the least recently used make way, their tasks end, one that comes back is a new task`, async () => {
    const a = newOwner();
    const n = SESSION_CAPS.perOwner + 4;
    for (let i = 0; i < n; i++) {
      const out = await a.run(read(sid(`a${i}`)));
      assert.equal(out.permissionDecision, 'allow', out.permissionDecisionReason);
      assert.match(out.permissionDecisionReason, /^Airlock: /);
    }
    assert.equal(files('.task').length, SESSION_CAPS.perOwner);
    assert.equal(files('.owner').length, SESSION_CAPS.perOwner);
    for (let i = 0; i < 4; i++) {
      await waitFor(async () => (await tasksNamed(`a${i}`))[0]?.endedAt != null, `the task of session a${i} to end`);
    }
    for (let i = 4; i < n; i++) assert.equal((await tasksNamed(`a${i}`))[0]?.endedAt, null, `a${i} is still running`);
    // History says who began each session's task (the hook, run by this owner) and why it ended.
    for (let i = 0; i < 4; i++) {
      const rows = await rowsOf((await tasksNamed(`a${i}`))[0]!.id);
      assert.deepEqual(rows.map((e) => e.tool), ['task.end', 'Read', 'task.start'], 'started, its one call, ended');
      const [end, , start] = rows;
      assert.deepEqual([start!.tool, start!.source, start!.decidedBy], ['task.start', 'claude-code', 'policy']);
      assert.ok(start!.process?.tree.some((x) => x.pid === a.proc.pid), 'the start names the Claude Code process (the hook\'s parent)');
      assert.deepEqual([end!.tool, end!.source, end!.decidedBy, (end!.args as { why: string }).why], ['task.end', 'claude-code', 'system', 'made-way']);
      assert.match(end!.reason, /let go to make way for a newer session of the same Claude Code process \(at most 16 per process/);
    }
    // a0 comes back: a new task (the old one stays ended), so its grants are not carried over.
    assert.equal((await a.run(read(sid('a0')))).permissionDecision, 'allow');
    const a0 = await tasksNamed('a0');
    assert.equal(a0.length, 2);
    assert.equal(a0.filter((t) => t.endedAt === null).length, 1);
    assert.equal(files('.task').length, SESSION_CAPS.perOwner);
  });

  test("a process that exits has its sessions let go at the next new session: files removed, tasks ended", async () => {
    const b = newOwner();
    for (let i = 0; i < 3; i++) assert.equal((await b.run(read(sid(`b${i}`)))).permissionDecision, 'allow');
    const before = files('.task').length;
    await b.stop();
    assert.equal((await newOwner().run(read(sid('c0')))).permissionDecision, 'allow');
    assert.equal(files('.task').length, before - 3 + 1);
    for (let i = 0; i < 3; i++) {
      await waitFor(async () => (await tasksNamed(`b${i}`))[0]?.endedAt != null, `the task of session b${i} to end`);
      const [end] = await rowsOf((await tasksNamed(`b${i}`))[0]!.id);
      assert.equal((end!.args as { why: string }).why, 'owner-exited');
      assert.equal(end!.reason, 'its Claude Code session was let go: the Claude Code process it belonged to has exited');
    }
  });

  test(`past ${SESSION_CAPS.total} sessions of running processes a new one is asked with the reason, no task, no prompt; room again once one exits`, async () => {
    // Held now: 16 (first test's owner) + 1 (the last one's). Fill to the cap with live owners.
    const fill: Owner[] = [];
    let held = files('.task').length;
    for (let o = 0; held < SESSION_CAPS.total; o++) {
      const x = newOwner();
      fill.push(x);
      for (let i = 0; i < SESSION_CAPS.perOwner && held < SESSION_CAPS.total; i++, held++) {
        assert.equal((await x.run(read(sid(`f${o.toString(36)}${i.toString(36)}`)))).permissionDecision, 'allow');
      }
    }
    assert.equal(files('.task').length, SESSION_CAPS.total);
    const { tasks: before } = await ui.call<{ tasks: Task[] }>('tasks.list', { includeEnded: true });
    const late = newOwner();
    for (const input of [read(sid('late0')), write(sid('late1'))]) {
      const out = await late.run(input);
      assert.equal(out.permissionDecision, 'ask', out.permissionDecisionReason);
      assert.match(out.permissionDecisionReason, new RegExp(`^Airlock did not start a task for this Claude Code session: ${SESSION_CAPS.total} sessions of processes still running already have one .*asking instead$`));
    }
    const { tasks: afterRefusal } = await ui.call<{ tasks: Task[] }>('tasks.list', { includeEnded: true });
    assert.equal(afterRefusal.length, before.length, 'no task started');
    assert.equal(human.unanswered().length, 0, 'no prompt: the Write never reached the broker');
    assert.equal(files('.task').length, SESSION_CAPS.total, 'nothing more on disk');
    // An owner already in keeps working.
    assert.equal((await fill[0]!.run(read(sid('f00')))).permissionDecision, 'allow');
    // One of them exits: its sessions are let go, and the newcomer gets its task.
    await fill[1]!.stop();
    const out = await late.run(read(sid('late0')));
    assert.equal(out.permissionDecision, 'allow', out.permissionDecisionReason);
    assert.equal((await tasksNamed('late0')).length, 1);
    assert.ok(files('.task').length <= SESSION_CAPS.total);
  });
});
