// Black-box, seventh wave: a request too large for request.sock's one line (DESIGN.md: "Lines
// over 1 MiB are refused") must end in a clear refusal, never in a client that waits forever.
// The daemon answers such a line with an error whose id is null (it never read the id), so a
// client that waits for its own id hung: `airlock check` with large resources and `airlock
// exec` with large arguments. (`airlock mcp` cuts large arguments itself and asks; the hook
// answers "ask" past the cap: both were fine.)
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { airlock, closeBlackboxSession, openBlackboxSession, pendingList, Wire, type BlackboxSession } from '../helpers/blackbox';

let s: BlackboxSession;
before(async () => {
  s = await openBlackboxSession('bb7l-');
});
after(() => closeBlackboxSession(s));

const env = (): NodeJS.ProcessEnv => ({ ...process.env, AIRLOCK_HOME: s.d.home });
/** Ten 120 kB words: 1.2 MB in all, each under the kernel's 128 kB limit for one argument. */
const bigWords = (tag: string): string[] => Array.from({ length: 10 }, (_, i) => `/${tag}${i}/${'a'.repeat(120_000)}`);

test('check whose request is over 1 MiB: exit 64 at once with one line naming the limit, not a wait for ever', async () => {
  const args = ['check', '-a', 'write', '-t', 'fs.write', '-s', 'bb7 huge check'];
  for (const r of bigWords('r')) args.push('-r', r);
  const started = Date.now();
  const r = await airlock(args, { env: env(), timeoutMs: 30_000 });
  assert.notEqual(r.code, null, `check hung until it was killed (${Date.now() - started} ms)`);
  assert.equal(r.code, 64, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /1048576/);
  assert.deepEqual(await pendingList(s.ui), [], 'nothing asked');
});

test('exec whose arguments make a request over 1 MiB: exit 64, the command never runs, nothing waits', async () => {
  const marker = path.join(s.root, 'exec-ran');
  const r = await airlock(['exec', '--', 'sh', '-c', `: > '${marker}'`, 'sh', ...bigWords('x')], { env: env(), timeoutMs: 30_000 });
  assert.notEqual(r.code, null, 'exec hung until it was killed');
  assert.equal(r.code, 64, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /nothing was run/);
  assert.equal(fs.existsSync(marker), false);
});

test('a raw client that sends a line over 1 MiB gets an error with id null and the connection stays usable', async () => {
  const w = await Wire.open(s.d.requestSock);
  try {
    w.raw(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'request', params: { source: 'api', tool: 'x', action: 'read', summary: 'a'.repeat(1_100_000) } }) + '\n');
    const e = await w.expectOther((m) => m.id === null && m.error?.code === -32600, 'the id-null error');
    assert.match(e.error!.message, /1048576/);
    const ok = await w.call('request', { source: 'api', tool: 'fs.read', action: 'read', resource: '/etc/hostname', summary: 'bb7 after the long line' });
    assert.equal(ok.result?.decision, 'allow', JSON.stringify(ok));
  } finally {
    w.close();
  }
});
