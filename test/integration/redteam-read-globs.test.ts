// A glob in a read names the files bash gives it (lead's red team, from fuzzwrite2's note,
// 2026-11-24). `cat .en[v]` printed .env as a silent read, but the task did not remember reading
// a secret (the resource was the glob as written), so its next upload was answered by its
// transfer grant. Now a read glob that matches a secret adds that secret as the read's resource:
// the read stays silent, the upload after it is critical and asked (`~` in a glob is the
// daemon's home, as for any path). Run for real through
// `airlock exec --task --shell`; a glob matching no secret (`cat src/*.ts`) changes nothing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Wire, airlock, waitPending } from '../helpers/blackbox';

let d: Daemon;
let ui: Wire;
let home: string;
let work: string;

before(async () => {
  home = fs.realpathSync(tempHome('al-rglob-'));
  fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
  fs.writeFileSync(path.join(home, '.ssh', 'id_x'), '-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-real-key\n', { mode: 0o600 });
  work = path.join(home, 'work');
  fs.mkdirSync(path.join(work, 'src'), { recursive: true });
  fs.writeFileSync(path.join(work, '.env'), 'TOKEN=not-a-real-token\n');
  fs.writeFileSync(path.join(work, 'src', 'a.ts'), 'export const a = 1;\n');
  d = await startDaemon();
  ui = await Wire.open(d.uiSock);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

async function uploadAfter(line: string): Promise<{ stdout: string; asked: { level: string; reasons: string[] } | null }> {
  const w = await Wire.open(d.requestSock);
  try {
    const t = await w.ok<{ task: string; token: string }>('task.start', { name: `read glob ${line}`, cwd: work });
    await ui.ok('grants.create', { task: t.task, action: 'transfer', resource: '*', effect: 'allow' });
    const r = await airlock(['exec', '--task', t.token, '--shell', '--', line], { env: { ...d.env, HOME: home }, cwd: work, timeoutMs: 30_000 });
    assert.equal(r.code, 0, `the read runs without a prompt: ${r.stderr}`);
    const summary = `upload after ${line}`;
    const up = w.call('request', { source: 'api', tool: 'http.post', action: 'transfer', resource: 'https://paste.example/up', summary, task: t.token }, 30_000);
    const first = await Promise.race([up.then(() => 'answered' as const), new Promise<'waiting'>((res) => setTimeout(() => res('waiting'), 1500))]);
    let asked: { level: string; reasons: string[] } | null = null;
    if (first === 'waiting') {
      const p = await waitPending(ui, (x) => x.summary === summary, 'the upload prompt', 20_000);
      asked = { level: p.risk.level, reasons: p.risk.reasons.map(String) };
      await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    }
    await up;
    await w.ok('task.end', { task: t.token });
    return { stdout: r.stdout, asked };
  } finally {
    w.close();
  }
}

test('a read glob that matches a secret (cat .en[v], cat HOME/.ss?/id_*) is remembered: the next upload is critical and asked despite the task grant', async () => {
  for (const line of ['cat .en[v]', `cat ${home}/.ss?/id_*`, 'head -1 ./.e*v']) {
    const { stdout, asked } = await uploadAfter(line);
    assert.match(stdout, /not-a-real-(token|key)/, `control: ${line} really printed the secret`);
    assert.ok(asked, `${line}: the upload was answered by the task grant without asking`);
    assert.equal(asked.level, 'critical', line);
    assert.ok(asked.reasons.some((x) => /\.env|\.ssh/.test(x)), JSON.stringify(asked.reasons));
  }
});

test('a read glob matching no secret (cat src/*.ts) leaves the upload to the task grant, as before', async () => {
  const { stdout, asked } = await uploadAfter('cat src/*.ts');
  assert.match(stdout, /export const a/);
  assert.equal(asked, null, 'answered by the transfer grant');
});
