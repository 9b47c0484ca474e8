// Black-box, sixth wave: settings as the human's data. `settings.get`/`settings.set` on
// ui.sock (DESIGN.md), driven with raw JSON-RPC lines: a refused value changes nothing — not
// in memory, not on disk after a restart — and the agent side cannot reach any of it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Wire, airlock } from '../helpers/blackbox';
import { startDaemon, type Daemon } from '../helpers/daemon';

let root: string;
before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb6s-'));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

type SettingsDoc = Record<string, unknown> & { upstreamAgent: string | null; promptTimeoutSec: number; policy: Record<string, string> };

async function settingsOf(ui: Wire): Promise<SettingsDoc> {
  return (await ui.ok<{ settings: SettingsDoc }>('settings.get')).settings;
}

test("settings.set upstreamAgent naming Airlock's own agent.sock (directly, through a link, or a task's socket) is -32602 naming the field, and nothing is kept — not even across a restart", async () => {
  const home = path.join(root, 'own');
  let d: Daemon = await startDaemon({ home });
  let ui = await Wire.open(d.uiSock);
  try {
    const agent = await Wire.open(d.requestSock);
    const t = await agent.ok<{ task: string; sshAuthSock: string }>('task.start', { name: 'bb6 settings task' });
    agent.close();
    const link = path.join(root, 'my-ssh-agent.sock');
    fs.symlinkSync(d.agentSock, link);
    const beforeAll = await settingsOf(ui);
    for (const own of [d.agentSock, link, t.sshAuthSock]) {
      // A good field beside the bad one: the whole patch is refused, as any other bad value is.
      const r = await ui.call('settings.set', { upstreamAgent: own, promptTimeoutSec: 77 });
      assert.equal(r.error?.code, -32602, `${own}: ${JSON.stringify(r)}`);
      assert.match(r.error!.message, /upstreamAgent/, `the message names the field: ${r.error!.message}`);
      assert.match(r.error!.message, /own/, `and says why: ${r.error!.message}`);
      assert.deepEqual(await settingsOf(ui), beforeAll, `${own}: nothing changed`);
    }
    ui.close();
    await d.stop();
    d = await startDaemon({ home });
    ui = await Wire.open(d.uiSock);
    const s = await settingsOf(ui);
    assert.equal(s.upstreamAgent, null, 'the refused value was not written to disk either');
    assert.equal(s.promptTimeoutSec, beforeAll.promptTimeoutSec);
    assert.doesNotMatch(d.output(), /ignoring upstream agent/, 'nothing to ignore at start: it was never stored');
  } finally {
    ui.close();
    await d.stop();
  }
});

test('promptTimeoutSec at its bounds: 1 s denies an unanswered prompt in about a second (recorded as timeout); 0, -1, 3601 and 1.5 are -32602; the value survives a restart', async () => {
  const home = path.join(root, 'timeout');
  let d: Daemon = await startDaemon({ home });
  let ui = await Wire.open(d.uiSock);
  try {
    for (const v of [0, -1, 3601, 1.5, null, true]) {
      const r = await ui.call('settings.set', { promptTimeoutSec: v });
      assert.equal(r.error?.code, -32602, `${String(v)}: ${JSON.stringify(r)}`);
      assert.match(r.error!.message, /promptTimeoutSec/);
    }
    assert.equal((await ui.ok<{ settings: SettingsDoc }>('settings.set', { promptTimeoutSec: 3600 })).settings.promptTimeoutSec, 3600);
    await ui.ok('settings.set', { promptTimeoutSec: 1 });
    const agent = await Wire.open(d.requestSock);
    const t0 = Date.now();
    const r = await agent.ok<{ decision: string; reason: string; event: number }>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/bb6/timeout', summary: 'bb6 one second' }, 20_000);
    const took = Date.now() - t0;
    agent.close();
    assert.equal(r.decision, 'deny');
    assert.ok(took >= 900 && took < 8_000, `denied after ${took} ms`);
    const h = await ui.ok<{ events: { id: number; decidedBy: string; decision: string }[] }>('history.query', { text: 'bb6 one second' });
    assert.equal(h.events[0]?.decidedBy, 'timeout', JSON.stringify(h.events));
    ui.close();
    await d.stop();
    d = await startDaemon({ home });
    ui = await Wire.open(d.uiSock);
    assert.equal((await settingsOf(ui)).promptTimeoutSec, 1, 'kept across a restart');
  } finally {
    ui.close();
    await d.stop();
  }
});

test('the agent side cannot read or change settings, decide, grant or read history: every human-side method on request.sock and on a task socket is -32601, recorded, and changes nothing', async () => {
  const home = path.join(root, 'agent-side');
  const d: Daemon = await startDaemon({ home });
  const ui = await Wire.open(d.uiSock);
  const agent = await Wire.open(d.requestSock);
  try {
    const t = await agent.ok<{ task: string; requestSock: string }>('task.start', { name: 'bb6 hostile task' });
    const ts = await Wire.open(t.requestSock);
    const beforeSettings = await settingsOf(ui);
    const pending = agent.call('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/bb6/held', summary: 'bb6 held write' }, 60_000);
    let promptId = '';
    for (let i = 0; i < 200 && !promptId; i++) {
      const p = await ui.ok<{ prompts: { id: string; resource: string }[] }>('pending.list');
      promptId = p.prompts.find((x) => x.resource === '/bb6/held')?.id ?? '';
      if (!promptId) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(promptId, 'the prompt is waiting');
    const calls: [string, unknown][] = [
      ['settings.get', {}],
      ['settings.set', { policy: { write: 'allow', delete: 'allow', execute: 'allow', transfer: 'allow', sign: 'allow' } }],
      ['settings.set', { promptTimeoutSec: 3600 }],
      ['pending.decide', { id: promptId, decision: 'allow', scope: 'always' }],
      ['pending.list', {}],
      ['grants.create', { action: '*', effect: 'allow' }],
      ['grants.list', {}],
      ['history.query', {}],
      ['audit.verify', {}],
      ['keys.list', {}],
      ['keys.generate', { type: 'ed25519', name: 'agent-made' }],
      ['tasks.end', { task: t.task }],
      ['subscribe', {}],
    ];
    for (const w of [agent, ts]) {
      for (const [method, params] of calls) {
        const r = await w.call(method, params);
        assert.equal(r.error?.code, -32601, `${method} on the agent side: ${JSON.stringify(r)}`);
        assert.equal(r.result, undefined);
      }
    }
    assert.deepEqual(await settingsOf(ui), beforeSettings, 'settings unchanged');
    assert.equal((await ui.ok<{ grants: unknown[] }>('grants.list')).grants.length, 0, 'no grant made');
    assert.equal((await ui.ok<{ keys: unknown[] }>('keys.list')).keys.length, 0, 'no key made');
    const still = await ui.ok<{ prompts: { id: string }[] }>('pending.list');
    assert.ok(still.prompts.some((p) => p.id === promptId), 'the prompt still waits for the human');
    await ui.ok('pending.decide', { id: promptId, decision: 'deny', scope: 'once' });
    assert.equal(((await pending).result as { decision: string }).decision, 'deny');
    const rejected = await ui.ok<{ events: { decision: string; summary: string }[] }>('history.query', { decision: 'reject', limit: 100 });
    assert.ok(rejected.events.filter((e) => /settings\.set/.test(e.summary)).length >= 4, `each refused call is recorded: ${JSON.stringify(rejected.events.map((e) => e.summary))}`);
    ts.close();
    // The CLI has no way in either without ui.sock: `airlock history` reads the file, never request.sock.
    const env = { ...process.env, AIRLOCK_HOME: home };
    const cli = await airlock(['history', '--decision', 'reject', '--json', '-n', '1000'], { env });
    assert.equal(cli.code, 0, cli.stderr);
  } finally {
    agent.close();
    ui.close();
    await d.stop();
  }
});
