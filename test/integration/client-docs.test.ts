// The snippets of docs/client.md, run as written against a real daemon: the Python one
// with python3 and nothing but its standard library, the TypeScript one with the
// compiled `airlock/client`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, startDaemon, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';

const DOC = fs.readFileSync(path.join(REPO, 'docs', 'client.md'), 'utf8');
const block = (lang: string) => {
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(DOC);
  assert.ok(m, `no ${lang} block in docs/client.md`);
  return m[1]!;
};
const python = (() => {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let d: Daemon;
let ui: RpcClient;
let human: Human;
let work: string;

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  human = await Human.on(ui);
  work = fs.mkdtempSync(path.join(d.home, 'c-'));
});
after(async () => {
  ui?.close();
  await d?.stop();
});

describe('docs/client.md', () => {
  test('Python (stdlib only): allowed → exits 0; denied → PermissionError with the reason', { skip: !python && 'python3 missing' }, async () => {
    const script = path.join(work, 'ask.py');
    fs.writeFileSync(script, block('python'));
    for (const decision of ['allow', 'deny'] as const) {
      const pending = run('python3', [script], { cwd: work, env: d.env, timeoutMs: 30_000 });
      const p = await human.next(15_000);
      assert.equal(p.tool, 'fs.write');
      assert.equal(p.resource, path.join(fs.realpathSync(work), 'notes.txt'));
      await human.decide(p.id, decision);
      const r = await pending;
      if (decision === 'allow') assert.equal(r.code, 0, r.stderr);
      else {
        assert.equal(r.code, 1);
        assert.match(r.stderr, /PermissionError: denied once by the human/);
      }
    }
  });

  test('TypeScript: askOnce, then a task with ask/endTask', async () => {
    const clientPath = path.join(__dirname, '..', '..', 'main', 'client', 'index.js');
    const code = block('ts')
      .replace(/import \{([^}]+)\} from 'airlock\/client';/, `const {$1} = require(${JSON.stringify(clientPath)});`);
    const pending = run(process.execPath, ['-e', `(async () => {\n${code}\nconsole.log('done', b.decision);\n})().catch((e) => { console.error(e.message); process.exit(1); });`], { cwd: work, env: d.env, timeoutMs: 30_000 });
    const first = await human.next(15_000);
    assert.equal(first.action, 'write');
    await human.decide(first.id, 'allow');
    const second = await human.next(15_000);
    assert.equal(second.tool, 'deploy');
    assert.equal(second.taskName, 'fix CI on repo X');
    await human.decide(second.id, 'deny');
    const r = await pending;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'done deny');
  });
});
