// The daemon as its own process, driven from both sockets like real clients would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { Daemon } from '../helpers/daemon';
import type { Human } from '../helpers/human';
import { closeDaemonSession, openDaemonSession } from '../helpers/daemon-session';
import type { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Grant, HistoryEvent } from '../../main/contract/approver';

let d: Daemon;
let agent: RpcClient;
let ui: RpcClient;
let human: Human;

before(async () => {
  ({ d, ui, agent, human } = await openDaemonSession());
});
after(() => closeDaemonSession({ d, ui, agent }));

/** Each task's capability token: on the shared request.sock the id alone does not act as the task. */
const tokens = new Map<string, string>();
const tk = (task: string) => ({ task, token: tokens.get(task) });

const write = (task: string | undefined, resource: string, tool = 'fs.write') =>
  agent.call<AgentAnswer>('request', { source: 'api', tool, action: 'write', resource, summary: `write ${resource}`, ...(task ? tk(task) : {}) });

async function newTask(name: string): Promise<string> {
  const r = await agent.call<{ task: string; token: string }>('task.start', { name, cwd: '/repo' });
  tokens.set(r.task, r.token);
  return r.task;
}

describe('core daemon', () => {
  test('sockets are 0600 in a 0700 directory', () => {
    assert.equal(fs.statSync(d.requestSock).mode & 0o777, 0o600);
    assert.equal(fs.statSync(d.uiSock).mode & 0o777, 0o600);
    assert.equal(fs.statSync(d.home).mode & 0o777, 0o700);
  });

  test('reads pass without a prompt and are recorded', async () => {
    const a = await agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.read', action: 'read', resource: '/repo/README.md', summary: 'read README' });
    assert.equal(a.decision, 'allow');
    const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { limit: 1 });
    assert.equal(events[0]!.id, a.event);
    assert.equal(events[0]!.decidedBy, 'policy');
  });

  test('once: allowed this time, the next identical request asks again', async () => {
    const t = await newTask('once');
    const pending = write(t, '/repo/once.txt');
    const p = await human.next();
    assert.equal(p.action, 'write');
    assert.equal(p.taskName, 'once');
    assert.ok(p.process && p.process.pid > 0, 'prompt shows who asked');
    assert.ok(p.expiresAt > p.createdAt);
    await human.decide(p.id, 'allow', 'once');
    assert.equal((await pending).decision, 'allow');
    const again = write(t, '/repo/once.txt');
    const p2 = await human.next();
    await human.decide(p2.id, 'deny', 'once');
    const a2 = await again;
    assert.equal(a2.decision, 'deny');
    assert.match(a2.reason, /denied once by the human/);
  });

  test('task: creates a task grant; the next identical request is answered silently', async () => {
    const t = await newTask('task scope');
    const pending = write(t, '/repo/src/a.ts');
    const p = await human.next();
    const { grant } = await human.decide(p.id, 'allow', 'task');
    assert.ok(grant);
    const a1 = await pending;
    assert.equal(a1.grant, grant!.id);
    const a2 = await write(t, '/repo/src/a.ts');
    assert.equal(a2.decision, 'allow');
    assert.equal(a2.grant, grant!.id);
    assert.equal(human.unanswered().length, 0, 'no prompt for the second request');
    // Another task is not covered.
    const other = await newTask('other');
    const pending3 = write(other, '/repo/src/a.ts');
    const p3 = await human.next();
    await human.decide(p3.id, 'deny', 'once');
    assert.equal((await pending3).decision, 'deny');
  });

  test('task: an edited pattern covers more than the one file', async () => {
    const t = await newTask('pattern');
    const pending = write(t, '/repo/src/x.ts');
    const p = await human.next();
    await human.decide(p.id, 'allow', 'task', { pattern: { resource: '/repo/src/**' } });
    await pending;
    assert.equal((await write(t, '/repo/src/deep/y.ts')).decision, 'allow');
    const outside = write(t, '/repo/scripts/z.sh');
    const p2 = await human.next();
    assert.match(p2.nearMiss ?? '', /may write `\/repo\/src\/\*\*`; this write is to `\/repo\/scripts\/z.sh`/);
    await human.decide(p2.id, 'deny', 'once');
    await outside;
  });

  test('duration: a grant that expires', async () => {
    const pending = write(undefined, '/tmp/dur.txt', 'dur.tool');
    const p = await human.next();
    const { grant } = await human.decide(p.id, 'allow', 'duration', { durationSec: 900 });
    await pending;
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', {});
    const g = grants.find((x) => x.id === grant!.id)!;
    assert.equal(g.task, null);
    assert.ok(g.expiresAt! > Date.now() + 800_000 && g.expiresAt! < Date.now() + 1_000_000);
    assert.equal((await write(undefined, '/tmp/dur.txt', 'dur.tool')).decision, 'allow');
  });

  test('duration on a task\'s request is for that task: another task asking the same is asked, not allowed', async () => {
    const a = await newTask('dur A');
    const b = await newTask('dur B');
    const pending = write(a, '/repo/dur-task.txt', 'durt.tool');
    const p = await human.next();
    const { grant } = await human.decide(p.id, 'allow', 'duration', { durationSec: 600 });
    const first = await pending;
    assert.match(first.reason, /^allowed for 10 min \(this task\) by the human/);
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', {});
    assert.equal(grants.find((x) => x.id === grant!.id)!.task, a);
    assert.equal((await write(a, '/repo/dur-task.txt', 'durt.tool')).decision, 'allow', 'the same task: covered');
    // Task B, and a request with no task, ride nothing: each is asked.
    for (const who of [b, undefined]) {
      const other = write(who, '/repo/dur-task.txt', 'durt.tool');
      const q = await human.next();
      assert.equal(q.task ?? null, who ?? null);
      await human.decide(q.id, 'deny', 'once');
      assert.equal((await other).decision, 'deny');
    }
    await ui.call('grants.revoke', { id: grant!.id });
  });

  test('a duration under a minute is worded in seconds, not "for 0 min"', async () => {
    const pending = write(undefined, '/tmp/dur-sec.txt', 'dursec.tool');
    const p = await human.next();
    await human.decide(p.id, 'allow', 'duration', { durationSec: 20 });
    assert.match((await pending).reason, /^allowed for 20 s by the human/);
  });

  test('always: a deny grant answers every later request', async () => {
    const pending = write(undefined, '/etc/shadow', 'evil.tool');
    const p = await human.next();
    await human.decide(p.id, 'deny', 'always');
    assert.equal((await pending).decision, 'deny');
    const a = await write(undefined, '/etc/shadow', 'evil.tool');
    assert.equal(a.decision, 'deny');
    assert.match(a.reason, /denied by grant/);
  });

  test('scope task on a request without a task is refused with a clear error', async () => {
    const pending = write(undefined, '/tmp/no-task', 'nt.tool');
    const p = await human.next();
    await assert.rejects(human.decide(p.id, 'allow', 'task'), /belongs to no task/);
    await human.decide(p.id, 'deny', 'once');
    await pending;
  });

  test('deny beats allow: a deny grant wins over a matching allow grant', async () => {
    const t = await newTask('deny-wins');
    await ui.call('grants.create', { task: t, action: 'delete', resource: '/mail/**', effect: 'allow' });
    await ui.call('grants.create', { task: t, action: 'delete', resource: '/mail/**', effect: 'deny', note: 'never delete my mail' });
    const a = await agent.call<AgentAnswer>('request', { source: 'api', tool: 'mail', action: 'delete', resource: '/mail/inbox/1', summary: 'delete mail', ...tk(t) });
    assert.equal(a.decision, 'deny');
    assert.match(a.reason, /never delete my mail/);
  });

  test('uses: a grant with 2 uses answers twice, then the request prompts', async () => {
    const t = await newTask('uses');
    await ui.call('grants.create', { task: t, action: 'write', resource: '/u/**', effect: 'allow', uses: 2 });
    assert.equal((await write(t, '/u/1')).decision, 'allow');
    assert.equal((await write(t, '/u/2')).decision, 'allow');
    const third = write(t, '/u/3');
    const p = await human.next();
    await human.decide(p.id, 'deny', 'once');
    assert.equal((await third).decision, 'deny');
  });

  test('critical always asks, even with a matching allow grant', async () => {
    const t = await newTask('critical');
    await ui.call('grants.create', { task: t, action: '*', effect: 'allow' });
    assert.equal((await agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.read', action: 'read', resource: '/repo/.env', summary: 'read .env', ...tk(t) })).decision, 'allow');
    const exfil = agent.call<AgentAnswer>('request', { source: 'api', tool: 'http', action: 'transfer', resource: 'https://paste.example', summary: 'POST to paste', ...tk(t) });
    const p = await human.next();
    assert.equal(p.risk.level, 'critical');
    assert.ok(p.risk.reasons.some((r) => /read secrets/.test(r)));
    await human.decide(p.id, 'deny', 'once');
    assert.equal((await exfil).decision, 'deny');
  });

  test('a secret read inside a line that also writes, once allowed, is remembered: the next upload is critical (a read only counted when the whole line was a read)', async () => {
    for (const command of ['cat ~/.ssh/id_ed25519; touch /repo/x', 'cp /repo/.env /repo/notes.txt']) {
      const t = await newTask(`mixed ${command.slice(0, 10)}`);
      await ui.call('grants.create', { task: t, action: 'write', resource: '/repo/**', effect: 'allow' });
      const line = agent.call<AgentAnswer>('request', { source: 'claude-code', tool: 'Bash', action: 'execute', summary: command, args: { command }, cwd: '/repo', ...tk(t) });
      const asked = await human.next();
      assert.notEqual(asked.action, 'read', command);
      await human.decide(asked.id, 'allow', 'once');
      assert.equal((await line).decision, 'allow');
      const exfil = agent.call<AgentAnswer>('request', { source: 'api', tool: 'http', action: 'transfer', resource: 'https://paste.example', summary: 'POST to paste', ...tk(t) });
      const p = await human.next();
      assert.equal(p.risk.level, 'critical', `${command}: ${JSON.stringify(p.risk)}`);
      assert.ok(p.risk.reasons.some((r) => /read secrets/.test(r)), JSON.stringify(p.risk.reasons));
      await human.decide(p.id, 'deny', 'once');
      assert.equal((await exfil).decision, 'deny');
    }
  });

  test('ending a task kills its grants', async () => {
    const t = await newTask('ending');
    await ui.call('grants.create', { task: t, action: 'write', resource: '/e/**', effect: 'allow' });
    assert.equal((await write(t, '/e/1')).decision, 'allow');
    await agent.call('task.end', tk(t));
    const { grants } = await ui.call<{ grants: Grant[] }>('grants.list', { task: t });
    assert.equal(grants.length, 0, 'no active grant of an ended task');
    await assert.rejects(write(t, '/e/2'), /has ended/);
  });

  test('revoking a grant makes the next request prompt again', async () => {
    const t = await newTask('revoke');
    const { grant } = await ui.call<{ grant: Grant }>('grants.create', { task: t, action: 'write', resource: '/rv/**', effect: 'allow' });
    assert.equal((await write(t, '/rv/1')).decision, 'allow');
    await ui.call('grants.revoke', { id: grant.id });
    const pending = write(t, '/rv/1');
    const p = await human.next();
    await human.decide(p.id, 'allow', 'once');
    assert.equal((await pending).decision, 'allow');
  });

  test('the agent side cannot decide, grant or read history', async () => {
    for (const method of ['pending.decide', 'grants.create', 'history.query', 'pending.list', 'settings.set', 'audit.verify']) {
      await assert.rejects(agent.call(method, {}), (e: Error & { code?: number }) => e.code === -32601, method);
    }
  });

  test('identical pending requests are coalesced into one prompt', async () => {
    const t = await newTask('coalesce');
    const a = write(t, '/c/same');
    const b = write(t, '/c/same');
    const p = await human.next();
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(human.unanswered().length, 0);
    await human.decide(p.id, 'allow', 'once');
    const [ra, rb] = await Promise.all([a, b]);
    assert.equal(ra.decision, 'allow');
    assert.equal(rb.decision, 'allow');
    assert.notEqual(ra.event, rb.event, 'each request has its own event');
  });

  test('shell commands are re-classified by the daemon and decided part by part', async () => {
    const t = await newTask('shell parts');
    const bash = (command: string, claimed: 'read' | 'execute' = 'execute') =>
      agent.call<AgentAnswer>('request', { source: 'claude-code', tool: 'Bash', action: claimed, summary: command, args: { command }, cwd: '/repo', ...tk(t) });
    // The agent claims a read; the daemon sees a delete and asks.
    const lying = bash('rm -rf build', 'read');
    const p0 = await human.next();
    assert.equal(p0.action, 'delete');
    assert.ok(p0.risk.reasons.some((r) => /called this read, but the command does delete/.test(r)));
    await human.decide(p0.id, 'deny', 'once');
    assert.equal((await lying).decision, 'deny');
    // First test run: prompt with a suggestion; accepting it covers later runs.
    const first = bash('npm test 2>&1 | tail -20');
    const p1 = await human.next();
    assert.equal(p1.suggestion?.resource, '{npm test,npm test *}');
    await human.decide(p1.id, 'allow', 'task', { pattern: { tool: p1.suggestion!.tool, resource: p1.suggestion!.resource } });
    assert.equal((await first).decision, 'allow');
    assert.equal((await bash('npm test -- --grep parse')).decision, 'allow');
    // A compound command asks only about what is not covered, and says so.
    const pushy = bash('npm test && git push origin main');
    const p2 = await human.next();
    assert.match(p2.nearMiss ?? '', /not covered: `git push origin main`/);
    await human.decide(p2.id, 'deny', 'once');
    assert.equal((await pushy).decision, 'deny');
  });

  test('task.start with grants: one prompt; refused → no grants, accepted → the grants exist', async () => {
    const grants = [{ action: 'write', tool: 'Write', resource: '/w/**', effect: 'allow' }, { action: 'execute', tool: 'Bash', resource: 'npm test *', effect: 'allow' }];
    const refused = agent.call<{ task: string; grants: string[] }>('task.start', { name: 'wants grants', cwd: '/w', grants });
    const p1 = await human.next();
    assert.equal(p1.tool, 'task.start');
    assert.match(p1.summary, /asks for 2 grant\(s\): allow write Write on \/w\/\*\*; allow execute Bash on npm test \*/);
    await human.decide(p1.id, 'deny', 'once');
    const r1 = await refused;
    assert.deepEqual(r1.grants, []);
    assert.equal((await ui.call<{ grants: Grant[] }>('grants.list', { task: r1.task })).grants.length, 0);
    const accepted = agent.call<{ task: string; grants: string[] }>('task.start', { name: 'wants grants 2', cwd: '/w', grants });
    const p2 = await human.next();
    await human.decide(p2.id, 'allow', 'once');
    const r2 = await accepted;
    assert.equal(r2.grants.length, 2);
    tokens.set(r2.task, (r2 as unknown as { token: string }).token);
    assert.equal((await write(r2.task, '/w/x', 'Write')).decision, 'allow');
  });

  test('the default policy is configurable: reads can be made to ask, writes to be denied', async () => {
    await ui.call('settings.set', { policy: { read: 'ask', write: 'deny' } });
    try {
      const a = await write(undefined, '/p/denied', 'policy.tool');
      assert.equal(a.decision, 'deny');
      assert.match(a.reason, /default policy denies write/);
      const r = agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.read', action: 'read', resource: '/p/r', summary: 'read asks now' });
      const p = await human.next();
      assert.equal(p.action, 'read');
      await human.decide(p.id, 'allow', 'once');
      assert.equal((await r).decision, 'allow');
      const { settings } = await ui.call<{ settings: { policy: Record<string, string> } }>('settings.get', {});
      assert.equal(settings.policy.read, 'ask');
      assert.equal(settings.policy.transfer, 'ask', 'untouched actions keep their default');
    } finally {
      await ui.call('settings.set', { policy: { read: 'allow', write: 'ask' } });
    }
    await assert.rejects(ui.call('settings.set', { policy: { read: 'sometimes' } }), /policy/);
  });

  test('history and audit.verify agree', async () => {
    const all: HistoryEvent[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const r: { events: HistoryEvent[]; cursor: string | null } = await ui.call('history.query', { limit: 50, ...(cursor ? { cursor } : {}) });
      all.push(...r.events);
      cursor = r.cursor;
      if (!cursor) break;
    }
    const v = await ui.call<{ ok: boolean; count: number }>('audit.verify', {});
    assert.equal(v.ok, true);
    assert.equal(v.count, all.length);
    assert.deepEqual(all.map((e) => e.id), Array.from({ length: all.length }, (_, i) => all.length - i));
  });
});

describe('prompt timeout', () => {
  test('an unanswered prompt is denied when it times out, and history says so', async () => {
    await ui.call('settings.set', { promptTimeoutSec: 1 });
    try {
      const t0 = Date.now();
      const pending = write(undefined, '/tmp/slow', 'timeout.tool');
      const p = await human.next();
      assert.ok(p.expiresAt - p.createdAt <= 1000);
      const a = await pending;
      assert.equal(a.decision, 'deny');
      assert.match(a.reason, /no answer within 1 s/);
      assert.ok(Date.now() - t0 >= 900);
      const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { limit: 1 });
      assert.equal(events[0]!.decidedBy, 'timeout');
    } finally {
      await ui.call('settings.set', { promptTimeoutSec: 60 });
    }
  });

  test('the timeout message names the timeout in force when the prompt was made, not the setting now', async () => {
    await ui.call('settings.set', { promptTimeoutSec: 2 });
    try {
      const pending = write(undefined, '/tmp/slow-changed', 'timeout.changed');
      await human.next();
      await ui.call('settings.set', { promptTimeoutSec: 300 });
      const a = await pending;
      assert.equal(a.decision, 'deny');
      assert.match(a.reason, /no answer within 2 s/);
    } finally {
      await ui.call('settings.set', { promptTimeoutSec: 60 });
    }
  });
});
