// The Claude Code hook's decision in the daemon (main/integrations/claude-code/hook-service.ts,
// request.sock `hook.claudeCode`), with a stand-in broker door: which task each call is asked
// as, where sessions are kept (per socket: a remote's apart from this machine's; none on a
// task's socket), what reaches the request from the hook's environment, and that every
// failure is an answer that asks. The real daemon runs it in test/integration/hook-*.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import rawFs = require('node:fs');
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentAnswer, AgentRequest } from '../../main/contract/agent';
import { RPC, RpcError } from '../../main/contract/rpc';
import { answerClaudeCodeHook, type HookDesk } from '../../main/integrations/claude-code/hook-service';
import { SESSION_CAPS, touchSession } from '../../main/integrations/claude-code/session-files';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'al-hsvc-'));
let tasks = 0;

interface Seen {
  asked: AgentRequest[];
  started: number;
  refused: { code: number; reason: string }[];
}

function desk(sessionsDir: string | null, opts: { ask?: (r: AgentRequest) => Promise<AgentAnswer>; delayStart?: number } = {}): HookDesk & { seen: Seen } {
  const seen: Seen = { asked: [], started: 0, refused: [] };
  return {
    seen,
    sessionsDir,
    ask: async (r) => {
      seen.asked.push(r);
      return opts.ask ? opts.ask(r) : { decision: 'allow', reason: 'fine', event: 1 };
    },
    startTask: async () => {
      seen.started++;
      const n = ++tasks;
      if (opts.delayStart) await new Promise((r) => setTimeout(r, opts.delayStart));
      return { token: `t_task${n}.${'s'.repeat(43)}` };
    },
    recordRefused: (code, reason) => seen.refused.push({ code, reason }),
  };
}

const call = (sid: string, tool = 'Read', input: Record<string, unknown> = { file_path: '/etc/hostname' }, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ session_id: sid, cwd: '/work/proj', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, ...extra });

const printed = (r: { exitCode: number; stdoutHex: string }) => {
  assert.equal(r.exitCode, 0);
  const text = Buffer.from(r.stdoutHex, 'hex').toString('utf8');
  return text === '' ? null : (JSON.parse(text) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
};

test('one session is one task, started once even when its first calls come together; kept in the folder of the socket the call came through', async () => {
  const local = desk(path.join(root, 'claude-code'), { delayStart: 50 });
  const outs = await Promise.all(Array.from({ length: 5 }, () => answerClaudeCodeHook({ stdin: call('sess-1') }, local)));
  assert.ok(outs.every((o) => printed(o)?.permissionDecision === 'allow'));
  assert.equal(local.seen.started, 1, 'one task for the session');
  assert.equal(new Set(local.seen.asked.map((r) => r.task)).size, 1);
  assert.equal(fs.readFileSync(path.join(root, 'claude-code', 'sess-1.task'), 'utf8').trim(), local.seen.asked[0]!.task);
  // A remote's socket keeps its own sessions: the same session id there is another task.
  const remote = desk(path.join(root, 'remotes', 'srv', 'claude-code'));
  await answerClaudeCodeHook({ stdin: call('sess-1') }, remote);
  assert.equal(remote.seen.started, 1);
  assert.notEqual(remote.seen.asked[0]!.task, local.seen.asked[0]!.task, "a remote never picks up this machine's session task");
});

test("on a task's own socket no task is started and no session file is kept: every call is that task's", async () => {
  const bound = desk(null);
  printed(await answerClaudeCodeHook({ stdin: call('sess-bound') }, bound));
  assert.equal(bound.seen.started, 0);
  assert.equal(bound.seen.asked[0]!.task, undefined);
});

test('AIRLOCK_TASK (with its token) is the task; an ended session task is replaced once; AIRLOCK_TASK is never replaced', async () => {
  const given = desk(path.join(root, 'cc-given'));
  await answerClaudeCodeHook({ stdin: call('s-given'), task: 't_given', taskToken: `t_given.${'k'.repeat(43)}` }, given);
  assert.equal(given.seen.asked[0]!.task, 't_given');
  assert.equal(given.seen.asked[0]!.token, `t_given.${'k'.repeat(43)}`);
  assert.equal(given.seen.started, 0);
  // Another task's token is not sent beside it.
  await answerClaudeCodeHook({ stdin: call('s-given'), task: 't_given', taskToken: `t_other.${'k'.repeat(43)}` }, given);
  assert.equal(given.seen.asked[1]!.token, undefined);

  let first = true;
  const ended = async (): Promise<AgentAnswer> => {
    if (first) {
      first = false;
      throw new RpcError(RPC.invalidParams, 'invalid params: task: task t_x has ended');
    }
    return { decision: 'deny', reason: 'no', event: 2 };
  };
  const stale = desk(path.join(root, 'cc-stale'), { ask: ended });
  fs.mkdirSync(path.join(root, 'cc-stale'), { recursive: true });
  fs.writeFileSync(path.join(root, 'cc-stale', 's-stale.task'), `t_old.${'o'.repeat(43)}\n`);
  // Its owner: this desk's ("" where callers cannot be told apart); a file of nobody's is never used.
  fs.writeFileSync(path.join(root, 'cc-stale', 's-stale.owner'), '\n');
  const out = printed(await answerClaudeCodeHook({ stdin: call('s-stale') }, stale));
  assert.equal(out?.permissionDecision, 'deny');
  assert.equal(stale.seen.started, 1, 'a new task for the session');
  assert.notEqual(stale.seen.asked[1]!.task, stale.seen.asked[0]!.task);

  first = true;
  const pinned = desk(path.join(root, 'cc-pinned'), { ask: ended });
  const asked = printed(await answerClaudeCodeHook({ stdin: call('s-pinned'), task: 't_x' }, pinned));
  assert.equal(asked?.permissionDecision, 'ask');
  assert.match(asked!.permissionDecisionReason, /could not decide \(invalid params: task: task t_x has ended\)/);
  assert.equal(pinned.seen.started, 0);
});

test("the hook's environment: `~` is its HOME, a relative CLAUDE_CONFIG_DIR is relative to its working directory, a relative HOME is ignored", async () => {
  const d = desk(null);
  await answerClaudeCodeHook({ stdin: call('s-env', 'Write', { file_path: '~/.bashrc', content: 'x' }), home: '/home/agent', cwd: '/work/proj', claudeConfigDir: '../cfg' }, d);
  assert.equal(d.seen.asked[0]!.resource, '/home/agent/.bashrc');
  assert.equal(d.seen.asked[0]!.claudeConfigDir, '/work/cfg');
  await answerClaudeCodeHook({ stdin: call('s-env', 'Write', { file_path: '~/.bashrc', content: 'x' }), home: 'relative', claudeConfigDir: 'cfg' }, d);
  assert.equal(d.seen.asked[1]!.resource, `${os.homedir().replace(/\/+$/, '')}/.bashrc`);
  assert.equal(d.seen.asked[1]!.claudeConfigDir, undefined, 'relative to nothing known: not sent');
});

test('failures are answers: unreadable input asks, an event after the tool prints nothing, a refused request denies, an invalid one asks and is recorded', async () => {
  const d = desk(path.join(root, 'cc-fail'), {
    ask: async (r) => {
      if (r.tool === 'Flood') throw new RpcError(RPC.refused, 'too many prompts');
      return { decision: 'allow', reason: 'x', event: 1 };
    },
  });
  assert.match(printed(await answerClaudeCodeHook({ stdin: 'not json' }, d))!.permissionDecisionReason, /could not read the hook input/);
  assert.equal(printed(await answerClaudeCodeHook({ stdin: call('s-f', 'Write', {}, { hook_event_name: 'PostToolUse' }) }, d)), null);
  const flood = printed(await answerClaudeCodeHook({ stdin: call('s-f', 'Flood') }, d));
  assert.equal(flood?.permissionDecision, 'deny');
  assert.match(flood!.permissionDecisionReason, /^Airlock refused: too many prompts/);
  const bad = printed(await answerClaudeCodeHook({ stdin: call('s-f'), task: 'not a task id!' }, d));
  assert.equal(bad?.permissionDecision, 'ask');
  assert.match(bad!.permissionDecisionReason, /invalid params: task/);
  assert.equal(d.seen.refused.length, 1, 'recorded like the same refusal of `request`');
  assert.equal(d.seen.refused[0]!.code, RPC.invalidParams);
});

test("red team: a session's task is its owner's; another caller naming the session id gets a task of its own, the owner keeps its own", async () => {
  const dir = path.join(root, 'cc-owners');
  let who = 'claude-A';
  const local = { ...desk(dir, { delayStart: 30 }), sessionOwner: () => who };
  // The owner's first calls come together with a stranger's call of the same session id.
  const owner = Array.from({ length: 3 }, () => answerClaudeCodeHook({ stdin: call('sess-own') }, local));
  who = 'stranger';
  const stranger = answerClaudeCodeHook({ stdin: call('sess-own') }, local);
  await Promise.all([...owner, stranger]);
  const [a1, a2, a3, s1] = local.seen.asked.map((r) => r.task);
  assert.equal(a1, a2);
  assert.equal(a1, a3);
  assert.notEqual(s1, a1, "the stranger is not asked as the owner's task");
  assert.equal(local.seen.started, 2);
  // Later: each keeps its own; the session's file stays the owner's.
  who = 'claude-A';
  await answerClaudeCodeHook({ stdin: call('sess-own') }, local);
  who = 'stranger';
  await answerClaudeCodeHook({ stdin: call('sess-own') }, local);
  assert.equal(local.seen.asked[4]!.task, a1);
  assert.equal(local.seen.asked[5]!.task, s1);
  assert.equal(fs.readFileSync(path.join(dir, 'sess-own.task'), 'utf8').trim(), a1);
  assert.equal(fs.readFileSync(path.join(dir, 'sess-own.owner'), 'utf8').trim(), 'claude-A');
  assert.equal(local.seen.started, 2);
});

/** Runs `f` and counts the reads of each file under `dir` it made (the module reads with fs.readFileSync). */
async function readsUnder<T>(dir: string, f: () => Promise<T>): Promise<{ result: T; reads: Map<string, number> }> {
  const reads = new Map<string, number>();
  const original = rawFs.readFileSync;
  rawFs.readFileSync = ((file: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (typeof file === 'string' && file.startsWith(dir)) reads.set(path.basename(file), (reads.get(path.basename(file)) ?? 0) + 1);
    return (original as (...a: unknown[]) => unknown)(file, ...rest);
  }) as typeof rawFs.readFileSync;
  try {
    return { result: await f(), reads };
  } finally {
    rawFs.readFileSync = original;
  }
}

test("each call reads the session's task file once; a stranger whose first call finds the owner's file on disk gets a task of its own, a file of nobody's is nobody's", async () => {
  const dir = path.join(root, 'cc-once');
  let who = 'claude-A';
  const local = { ...desk(dir), sessionOwner: () => who };
  await answerClaudeCodeHook({ stdin: call('s-once') }, local);
  const ownerTask = local.seen.asked[0]!.task;
  assert.ok(ownerTask);
  // The owner again: its task, from one read of the session's task file (and one of its owner file).
  const again = await readsUnder(dir, () => answerClaudeCodeHook({ stdin: call('s-once') }, local));
  assert.equal(printed(again.result)?.permissionDecision, 'allow');
  assert.equal(local.seen.asked[1]!.task, ownerTask);
  assert.deepEqual(Object.fromEntries(again.reads), { 's-once.task': 1, 's-once.owner': 1 });
  // A stranger's FIRST call, with the owner's task already on disk (no start in flight): not the owner's task.
  who = 'stranger';
  const first = await readsUnder(dir, () => answerClaudeCodeHook({ stdin: call('s-once') }, local));
  const strangerTask = local.seen.asked[2]!.task;
  assert.ok(strangerTask);
  assert.notEqual(strangerTask, ownerTask, "a non-owner is never asked as the owner's task");
  assert.equal(printed(first.result)?.permissionDecision, 'allow');
  assert.equal(local.seen.started, 2);
  // Its next call: its own task again, still not the owner's, from one read of the session's
  // file (who claimed it) and one of its own; the session's files stay the owner's.
  const next = await readsUnder(dir, () => answerClaudeCodeHook({ stdin: call('s-once') }, local));
  assert.equal(local.seen.asked[3]!.task, strangerTask);
  assert.equal(next.reads.get('s-once.task'), 1);
  assert.equal([...next.reads.keys()].filter((k) => /^s-once\.[0-9a-f]{32}\.task$/.test(k)).length, 1);
  assert.equal([...next.reads.values()].reduce((a, b) => a + b, 0), 3, 'the session file, its owner file, the caller\'s own file');
  assert.equal(local.seen.started, 2);
  assert.equal(fs.readFileSync(path.join(dir, 's-once.task'), 'utf8').trim(), ownerTask);
  assert.equal(fs.readFileSync(path.join(dir, 's-once.owner'), 'utf8').trim(), 'claude-A');
  // A task file without an owner file (from before owners) is nobody's: not even the caller owning "" gets it.
  fs.writeFileSync(path.join(dir, 's-old.task'), `t_old.${'o'.repeat(43)}\n`);
  who = '';
  await answerClaudeCodeHook({ stdin: call('s-old') }, local);
  assert.notEqual(local.seen.asked[4]!.task, `t_old.${'o'.repeat(43)}`);
  assert.equal(local.seen.started, 3);
});

describe('a flood of new session ids is bounded (session-files.ts makeRoom): never an allow, files on disk capped', () => {
  const taskFiles = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith('.task'));

  test(`one owner keeps at most ${SESSION_CAPS.perOwner} sessions: its least recently used one makes way and its task is ended; another owner's sessions are untouched`, async () => {
    const dir = path.join(root, 'cc-per-owner');
    let who = 'claude-A';
    const ended: string[] = [];
    const whys: string[] = [];
    const local = { ...desk(dir), sessionOwner: () => who, endTask: async (t: string, why: string) => void (ended.push(t), whys.push(why)) };
    who = 'claude-B';
    await answerClaudeCodeHook({ stdin: call('b-only') }, local);
    const bTask = local.seen.asked[0]!.task!;
    who = 'claude-A';
    const n = SESSION_CAPS.perOwner + 4;
    const tasks: string[] = [];
    for (let i = 0; i < n; i++) {
      const out = printed(await answerClaudeCodeHook({ stdin: call(`a-${i}`) }, local));
      assert.equal(out?.permissionDecision, 'allow', 'the stand-in allows: every new session within the cap gets its task');
      tasks.push(local.seen.asked.at(-1)!.task!);
    }
    assert.equal(new Set(tasks).size, n, 'one task per session');
    assert.equal(taskFiles(dir).length, SESSION_CAPS.perOwner + 1, "A's cap, and B's one session");
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(ended, tasks.slice(0, 4), "the four least recently used of A's sessions were let go, and their tasks ended");
    assert.deepEqual(whys, ['made-way', 'made-way', 'made-way', 'made-way'], 'each end says why (its history row)');
    // A let-go session that comes back is a new task (asked again, never its old grants).
    await answerClaudeCodeHook({ stdin: call('a-0') }, local);
    assert.notEqual(local.seen.asked.at(-1)!.task, tasks[0]);
    // The latest session keeps its task; B's session was never touched.
    await answerClaudeCodeHook({ stdin: call(`a-${n - 1}`) }, local);
    assert.equal(local.seen.asked.at(-1)!.task, tasks[n - 1]);
    who = 'claude-B';
    await answerClaudeCodeHook({ stdin: call('b-only') }, local);
    assert.equal(local.seen.asked.at(-1)!.task, bTask);
    assert.ok(!ended.includes(bTask));
  });

  test('the session that makes way is the one used least recently (its file time), not the first one started', async () => {
    const dir = path.join(root, 'cc-lru');
    const local = { ...desk(dir), sessionOwner: () => 'claude-A' };
    for (let i = 0; i < SESSION_CAPS.perOwner; i++) await answerClaudeCodeHook({ stdin: call(`l-${i}`) }, local);
    const first = local.seen.asked[0]!.task;
    // l-0 was used a moment ago, every other one an hour ago.
    const hourAgo = new Date(Date.now() - 3600_000);
    for (let i = 1; i < SESSION_CAPS.perOwner; i++) fs.utimesSync(path.join(dir, `l-${i}.task`), hourAgo, hourAgo);
    touchSession(path.join(dir, 'l-0.task'), Date.now() + 3600_000); // past the once-a-minute throttle
    await answerClaudeCodeHook({ stdin: call('l-new') }, local);
    assert.ok(fs.existsSync(path.join(dir, 'l-0.task')), 'the recently used session stays');
    assert.equal(taskFiles(dir).length, SESSION_CAPS.perOwner);
    await answerClaudeCodeHook({ stdin: call('l-0') }, local);
    assert.equal(local.seen.asked.at(-1)!.task, first);
  });

  test(`past ${SESSION_CAPS.total} sessions of live owners a newcomer is asked with the reason (no task started, recorded), and gets room once an owner has exited`, async () => {
    const dir = path.join(root, 'cc-total');
    let who = '';
    const gone = new Set<string>();
    const ended: string[] = [];
    const whys = new Set<string>();
    const local = { ...desk(dir), sessionOwner: () => who, ownerAlive: (o: string) => !gone.has(o), endTask: async (t: string, why: string) => void (ended.push(t), whys.add(why)) };
    const owners = SESSION_CAPS.total / SESSION_CAPS.perOwner;
    for (let o = 0; o < owners; o++) {
      who = `owner-${o}`;
      for (let i = 0; i < SESSION_CAPS.perOwner; i++) await answerClaudeCodeHook({ stdin: call(`t${o}-${i}`) }, local);
    }
    assert.equal(local.seen.started, SESSION_CAPS.total);
    who = 'newcomer';
    const refused = printed(await answerClaudeCodeHook({ stdin: call('new-1', 'Write', { file_path: '/work/proj/x', content: 'x' }) }, local));
    assert.equal(refused?.permissionDecision, 'ask');
    assert.match(refused!.permissionDecisionReason, new RegExp(`^Airlock did not start a task for this Claude Code session: ${SESSION_CAPS.total} sessions of processes still running already have one .*asking instead$`));
    assert.equal(local.seen.started, SESSION_CAPS.total, 'no task started');
    assert.equal(local.seen.asked.length, SESSION_CAPS.total, 'nothing sent to the broker: no grant can answer it');
    assert.equal(local.seen.refused.length, 1, 'recorded in history');
    assert.equal(taskFiles(dir).length, SESSION_CAPS.total);
    // An owner already in: its own sessions go on (a known session is no new task).
    who = 'owner-3';
    assert.equal(printed(await answerClaudeCodeHook({ stdin: call('t3-5') }, local))?.permissionDecision, 'allow');
    // owner-0 exits: its sessions are let go (files removed, tasks ended) and the newcomer gets room.
    gone.add('owner-0');
    who = 'newcomer';
    assert.equal(printed(await answerClaudeCodeHook({ stdin: call('new-1') }, local))?.permissionDecision, 'allow');
    await new Promise((r) => setImmediate(r));
    assert.equal(ended.length, SESSION_CAPS.perOwner);
    assert.deepEqual([...whys], ['owner-exited'], 'each end says why (its history row)');
    assert.equal(taskFiles(dir).filter((n) => n.startsWith('t0-')).length, 0);
    assert.equal(taskFiles(dir).length, SESSION_CAPS.total - SESSION_CAPS.perOwner + 1);
  });

  test('a burst of new sessions at once from one owner starts at most its cap; the rest are asked', async () => {
    const dir = path.join(root, 'cc-burst');
    const local = { ...desk(dir, { delayStart: 30 }), sessionOwner: () => 'claude-burst' };
    const outs = await Promise.all(Array.from({ length: SESSION_CAPS.perOwner + 6 }, (_, i) => answerClaudeCodeHook({ stdin: call(`burst-${i}`) }, local)));
    const decisions = outs.map((o) => printed(o)?.permissionDecision);
    assert.equal(local.seen.started, SESSION_CAPS.perOwner);
    assert.equal(decisions.filter((x) => x === 'allow').length, SESSION_CAPS.perOwner);
    assert.equal(decisions.filter((x) => x === 'ask').length, 6);
    assert.ok(taskFiles(dir).length <= SESSION_CAPS.perOwner);
  });

  test('stray files (a write that never finished) are removed after a minute; a fresh one is left to its write', async () => {
    const dir = path.join(root, 'cc-stray');
    fs.mkdirSync(dir, { recursive: true });
    const old = new Date(Date.now() - 3600_000);
    for (const n of ['s-old.owner', 's-old.task.123.tmp']) {
      fs.writeFileSync(path.join(dir, n), 'x\n');
      fs.utimesSync(path.join(dir, n), old, old);
    }
    fs.writeFileSync(path.join(dir, 's-fresh.owner'), 'x\n');
    await answerClaudeCodeHook({ stdin: call('s-any') }, { ...desk(dir), sessionOwner: () => 'x' });
    assert.deepEqual(fs.readdirSync(dir).sort(), ['s-any.owner', 's-any.task', 's-fresh.owner']);
  });
});

test('where callers cannot be told apart (owner "", no /proc) the per-process cap does not apply: the folder cap does, its least recently used session making way', async () => {
  const dir = path.join(root, 'cc-noproc');
  const ended: string[] = [];
  const local = { ...desk(dir), endTask: async (t: string) => void ended.push(t) }; // no sessionOwner: ""
  for (let i = 0; i < SESSION_CAPS.perOwner + 8; i++) assert.equal(printed(await answerClaudeCodeHook({ stdin: call(`np-${i}`) }, local))?.permissionDecision, 'allow');
  assert.equal(fs.readdirSync(dir).filter((n) => n.endsWith('.task')).length, SESSION_CAPS.perOwner + 8);
  assert.equal(ended.length, 0);
  const first = local.seen.asked[0]!.task;
  const more = SESSION_CAPS.total - (SESSION_CAPS.perOwner + 8);
  for (let i = 0; i < more + 1; i++) await answerClaudeCodeHook({ stdin: call(`np-more-${i}`) }, local);
  await new Promise((r) => setImmediate(r));
  assert.equal(fs.readdirSync(dir).filter((n) => n.endsWith('.task')).length, SESSION_CAPS.total);
  assert.deepEqual(ended, [first], 'the least recently used made way; no call was refused');
});
