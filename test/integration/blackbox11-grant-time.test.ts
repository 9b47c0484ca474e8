// Black-box, eleventh wave: grants made while requests wait. The human says "never" — a deny
// grant with `airlock grants add --deny`, or "deny for this task" on one prompt — while other
// prompts it covers are still on screen. Deny beats allow: those requests are denied by the
// grant at once, as they would be if they came now, so a stray "allow once" on a prompt
// shown before cannot do what the human just forbade. An allow grant answers nothing it was
// not asked about (the human still answers each waiting prompt). Driven through the CLI and
// raw JSON-RPC on request.sock and ui.sock.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '../helpers/daemon';
import { Wire, airlock, closeBlackboxSession, openBlackboxSession, pendingList, waitPending, type BlackboxSession, type RpcMsg } from '../helpers/blackbox';

let s: BlackboxSession;
let agent: Wire;
let env: NodeJS.ProcessEnv;

before(async () => {
  s = await openBlackboxSession('bb11g-');
  agent = await Wire.open(s.d.requestSock);
  env = { ...process.env, AIRLOCK_HOME: s.d.home };
});
after(async () => {
  agent?.close();
  await closeBlackboxSession(s);
});

interface Answer {
  decision: string;
  reason: string;
  event: number;
  grant?: string;
}
const answerOf = async (m: Promise<RpcMsg>): Promise<Answer> => (await m).result as unknown as Answer;
const gone = (id: string, what: string) => waitFor(async () => !(await pendingList(s.ui)).some((p) => p.id === id), what, 10_000);

describe('a deny grant made while requests wait answers those it covers', () => {
  test('airlock grants add --deny while a delete of the mail waits: denied at once by that grant, a late "allow once" decides nothing; a waiting write elsewhere stays', async () => {
    const mail = path.join(s.root, 'Mail');
    fs.mkdirSync(mail);
    fs.writeFileSync(path.join(mail, 'inbox'), 'letters\n');
    const del = agent.call('request', { source: 'api', tool: 'fs.delete', action: 'delete', resource: path.join(mail, 'inbox'), summary: 'bb11 delete inbox' }, 60_000);
    const other = agent.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: path.join(s.root, 'notes.txt'), summary: 'bb11 write notes' }, 60_000);
    const pd = await waitPending(s.ui, (p) => p.summary === 'bb11 delete inbox', 'the delete prompt');
    const pw = await waitPending(s.ui, (p) => p.summary === 'bb11 write notes', 'the write prompt');

    const g = await airlock(['grants', 'add', '-a', 'delete', '--deny', '-r', `${mail}/**`, '--note', 'never delete my mail'], { env });
    assert.equal(g.code, 0, g.stderr);
    await gone(pd.id, 'the delete prompt to be answered by the new deny grant').catch(() => undefined);
    const late = await s.ui.call('pending.decide', { id: pd.id, decision: 'allow', scope: 'once' });
    assert.equal(late.error?.code, -32004, `an allow on the prompt shown before the human's "never" still decided it: ${JSON.stringify(late)}`);
    const a = await answerOf(del);
    assert.equal(a.decision, 'deny');
    assert.match(a.reason, /never delete my mail/);
    assert.ok(a.grant?.startsWith('g_'), `the answer names the deny grant: ${JSON.stringify(a)}`);
    const h = await s.ui.ok<{ events: { id: number; decidedBy: string; grant: string | null }[] }>('history.query', { text: 'bb11 delete inbox', limit: 5 });
    const ev = h.events.find((e) => e.id === a.event);
    assert.deepEqual([ev?.decidedBy, ev?.grant], ['grant', a.grant], JSON.stringify(ev));

    // The write is not the grant's business: still waiting, answered by the human.
    assert.ok((await pendingList(s.ui)).some((p) => p.id === pw.id));
    await s.ui.ok('pending.decide', { id: pw.id, decision: 'allow', scope: 'once' });
    assert.equal((await answerOf(other)).decision, 'allow');
  });

  test('"deny for this task" with a pattern on one prompt denies the task\'s other waiting prompts it covers, and no others', async () => {
    const proj = fs.mkdtempSync(path.join(s.root, 'proj-'));
    const t = await agent.ok<{ task: string; requestSock: string }>('task.start', { name: 'bb11 deny pattern', cwd: proj });
    const own = await Wire.open(t.requestSock);
    try {
      const w = (name: string, dir = proj) => own.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: path.join(dir, 'gen', name), summary: `bb11 write ${name}`, cwd: proj }, 60_000);
      const a = w('a.js');
      const b = w('b.js');
      const c = own.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: path.join(proj, 'src', 'c.ts'), summary: 'bb11 write c.ts', cwd: proj }, 60_000);
      const pa = await waitPending(s.ui, (p) => p.summary === 'bb11 write a.js', 'prompt a');
      const pb = await waitPending(s.ui, (p) => p.summary === 'bb11 write b.js', 'prompt b');
      const pc = await waitPending(s.ui, (p) => p.summary === 'bb11 write c.ts', 'prompt c');
      await s.ui.ok('pending.decide', { id: pa.id, decision: 'deny', scope: 'task', pattern: { resource: `${proj}/gen/**` } });
      assert.equal((await answerOf(a)).decision, 'deny');
      await gone(pb.id, 'prompt b to be answered by the task\'s new deny grant').catch(() => undefined);
      assert.equal((await s.ui.call('pending.decide', { id: pb.id, decision: 'allow', scope: 'once' })).error?.code, -32004, 'b was covered by the deny just made');
      const rb = await answerOf(b);
      assert.equal(rb.decision, 'deny');
      assert.match(rb.reason, /denied by grant/);
      assert.ok((await pendingList(s.ui)).some((p) => p.id === pc.id), 'c (outside the pattern) still waits');
      await s.ui.ok('pending.decide', { id: pc.id, decision: 'deny', scope: 'once' });
      await c;
    } finally {
      own.close();
    }
  });

  test('control: an allow grant made while a request waits answers nothing by itself; the human still answers the prompt', async () => {
    const target = path.join(s.root, 'allow', 'x.txt');
    const r = agent.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: target, summary: 'bb11 write x (allow control)' }, 60_000);
    const p = await waitPending(s.ui, (x) => x.summary === 'bb11 write x (allow control)', 'the prompt');
    const g = await airlock(['grants', 'add', '-a', 'write', '-r', `${path.dirname(target)}/**`], { env });
    assert.equal(g.code, 0, g.stderr);
    await new Promise((res) => setTimeout(res, 300));
    assert.ok((await pendingList(s.ui)).some((x) => x.id === p.id), 'still waiting for the human');
    await s.ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    assert.equal((await answerOf(r)).decision, 'deny');
  });
});
