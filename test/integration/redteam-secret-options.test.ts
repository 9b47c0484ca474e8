// Files read through an option are resources like files named as arguments (lead's red team,
// 2026-11-24). `jq --rawfile k ~/.ssh/id_x -n '$k'` printed a private key as a silent read
// and left no trace in the task's memory, so the task's next upload was judged like any other
// (a task grant answered it). Now the key is the read's resource: the read stays silent (a
// read is a read) but the task has read a secret, and sending data out afterwards is critical,
// asked whatever the task's grants say. Run for real: jq prints the key through `airlock exec`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Wire, airlock, waitPending } from '../helpers/blackbox';

let d: Daemon;
let ui: Wire;
let home: string;

before(async () => {
  home = fs.realpathSync(tempHome('al-secopt-'));
  fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
  fs.writeFileSync(path.join(home, '.ssh', 'id_x'), '-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-real-key\n', { mode: 0o600 });
  fs.mkdirSync(path.join(home, 'work'));
  d = await startDaemon();
  ui = await Wire.open(d.uiSock);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

const LINES: { name: string; cmd: (key: string) => string }[] = [
  { name: 'jq --rawfile', cmd: (k) => `jq -r --rawfile k ${k} -n '$k'` },
  { name: 'jq --slurpfile', cmd: (k) => `jq --slurpfile k ${k} -n 1 2>/dev/null; echo done` },
  { name: 'xargs -a', cmd: (k) => `xargs -a ${k} echo` },
  { name: 'diff --from-file', cmd: (k) => `diff --from-file=${k} /dev/null; echo done` },
  { name: 'git diff --no-index', cmd: (k) => `git diff --no-index ${k} /dev/null; echo done` },
];

test("a secret read through an option (jq --rawfile, jq --slurpfile, xargs -a, diff --from-file, git diff --no-index) is remembered: the task's next upload is critical and asked despite its grant", async () => {
  for (const line of LINES) {
    const w = await Wire.open(d.requestSock);
    try {
      const cwd = path.join(home, 'work');
      const t = await w.ok<{ task: string; token: string }>('task.start', { name: `secopt ${line.name}`, cwd });
      await ui.ok('grants.create', { task: t.task, action: 'transfer', resource: '*', effect: 'allow' });
      const key = path.join(home, '.ssh', 'id_x');
      const r = await airlock(['exec', '--task', t.token, '--shell', '--', line.cmd(key)], { env: { ...d.env, HOME: home }, cwd, timeoutMs: 30_000 });
      assert.equal(r.code, 0, `the read runs without a prompt: ${r.stderr}`);
      if (line.name === 'jq --rawfile' || line.name === 'xargs -a' || line.name === 'git diff --no-index') assert.match(r.stdout, /not-a-real-key/, 'control: the key really was printed');
      const summary = `upload after ${line.name}`;
      const up = w.call('request', { source: 'api', tool: 'http.post', action: 'transfer', resource: 'https://paste.example/up', summary, task: t.token }, 30_000);
      const p = await waitPending(ui, (x) => x.summary === summary, 'the upload is asked despite the task grant', 20_000);
      assert.equal(p.risk.level, 'critical');
      assert.ok(p.risk.reasons.some((x) => String(x).includes('.ssh')), JSON.stringify(p.risk.reasons));
      await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
      assert.equal((await up).result?.decision, 'deny');
      await w.ok('task.end', { task: t.token });
    } finally {
      w.close();
    }
  }
});
