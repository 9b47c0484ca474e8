// Black-box, fourth wave: `airlock secrets` as docs/egress.md ("Secrets") and the README's
// line promise it, run as a user would: the value comes on stdin (never argv), is sealed at
// rest (no file under AIRLOCK_HOME holds it, the database included), no method, list or
// output ever shows it again, a task that names the secret gets a placeholder
// `airlock-placeholder-NAME-<32 hex>` that is random per task, adding a name again replaces
// it, removing it takes it back, and `secrets remove --help` says what remove really does.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Wire, airlock } from '../helpers/blackbox';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';

let d: Daemon;
let ui: Wire;
let agent: Wire;
const VALUE = 'ghp_bb4_SECRET_value_0123456789abcdefXYZ';

before(async () => {
  d = await startDaemon({ home: path.join(tempHome('bb4s-'), 'h') });
  ui = await Wire.open(d.uiSock);
  agent = await Wire.open(d.requestSock);
});
after(async () => {
  agent?.close();
  ui?.close();
  await d?.stop();
});

/** Every file under `dir` whose bytes contain `needle` (the database, its WAL, keys, logs…). */
function filesHolding(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (p: string) => {
    for (const e of fs.readdirSync(p, { withFileTypes: true })) {
      const f = path.join(p, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.isFile() && fs.readFileSync(f).includes(Buffer.from(needle))) hits.push(f);
    }
  };
  walk(dir);
  return hits;
}

test('secrets add reads the value from stdin, seals it (no file holds it), lists name, hosts and header only; a task gets a random placeholder', async () => {
  const env = { ...process.env, AIRLOCK_HOME: d.home };
  // The README's line, as written: echo "$TOKEN" | airlock secrets add GITHUB_TOKEN --host api.github.com --header Authorization
  const added = await airlock(['secrets', 'add', 'GITHUB_TOKEN', '--host', 'api.github.com', '--host', 'github.com', '--header', 'Authorization'], { env, input: `${VALUE}\n` });
  assert.equal(added.code, 0, added.stderr);
  assert.ok(!added.stdout.includes(VALUE) && !added.stderr.includes(VALUE), 'the value is not echoed');
  const listed = await airlock(['secrets', 'list'], { env });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /GITHUB_TOKEN/);
  assert.match(listed.stdout, /api\.github\.com/);
  assert.match(listed.stdout, /Authorization/i);
  assert.ok(!listed.stdout.includes(VALUE));
  const viaUi = JSON.stringify(await ui.ok('secrets.list'));
  assert.match(viaUi, /GITHUB_TOKEN/);
  assert.ok(!viaUi.includes(VALUE), viaUi);
  // Sealed at rest: not in the database, its WAL, or anything else under AIRLOCK_HOME.
  assert.deepEqual(filesHolding(d.home, VALUE), []);
  // Two tasks naming it: each sees its own placeholder, never the value.
  const phs: string[] = [];
  for (const name of ['bb4 secret task 1', 'bb4 secret task 2']) {
    const t = await agent.ok<Record<string, unknown>>('task.start', { name, secrets: ['GITHUB_TOKEN'] });
    const text = JSON.stringify(t);
    assert.ok(!text.includes(VALUE), 'task.start never hands out the value');
    const m = /airlock-placeholder-GITHUB_TOKEN-[0-9a-f]{32}/.exec(text);
    assert.ok(m, `a placeholder of the documented shape: ${text}`);
    phs.push(m[0]);
  }
  assert.notEqual(phs[0], phs[1], 'random per task');
  // Nothing in history holds it either.
  assert.ok(!JSON.stringify(await ui.ok('history.query', { limit: 200 })).includes(VALUE));
});

test('the value never comes from argv; adding a name again replaces it (one entry); remove takes it away, and its help says so', async () => {
  const env = { ...process.env, AIRLOCK_HOME: d.home };
  const argv = await airlock(['secrets', 'add', 'ARGV_SECRET', 'the-value-on-argv', '--host', 'x.example'], { env, input: '' });
  assert.notEqual(argv.code, 0, 'a value on the command line is refused');
  assert.ok(!JSON.stringify(await ui.ok('secrets.list')).includes('ARGV_SECRET'));
  const again = await airlock(['secrets', 'add', 'GITHUB_TOKEN', '--host', 'api.github.com'], { env, input: 'ghp_bb4_second_value\n' });
  assert.equal(again.code, 0, again.stderr);
  const list = JSON.stringify(await ui.ok('secrets.list'));
  assert.equal(list.split('"GITHUB_TOKEN"').length - 1, 1, `one entry after a replace: ${list}`);
  const removed = await airlock(['secrets', 'remove', 'GITHUB_TOKEN'], { env });
  assert.equal(removed.code, 0, removed.stderr);
  assert.doesNotMatch(JSON.stringify(await ui.ok('secrets.list')), /GITHUB_TOKEN/);
  // docs/egress.md: "Removing a secret takes it back at once: a running task's requests carry
  // its placeholder from then on" (egress-redteam proves it); the help must not say otherwise.
  const help = await airlock(['secrets', '--help'], { env });
  assert.doesNotMatch(help.stdout, /keep\s+the\s+value\s+they\s+were\s+started\s+with/);
  assert.match(help.stdout, /remove/);
});

test('a value an HTTP header cannot carry (€, a control character) is refused at add, saying to encode it; nothing is stored', async () => {
  const env = { ...process.env, AIRLOCK_HOME: d.home };
  for (const bad of ['tok€n-value', 'tok\x01en', 'tok\x7fen']) {
    const r = await airlock(['secrets', 'add', 'BAD_VALUE', '--host', 'api.example.com'], { env, input: `${bad}\n` });
    assert.equal(r.code, 64, `${JSON.stringify(bad)}: ${r.stderr}`);
    assert.match(r.stderr, /HTTP header can carry.*base64/);
    assert.ok(!r.stderr.includes(bad), 'the value is not echoed in the error');
  }
  assert.doesNotMatch(JSON.stringify(await ui.ok('secrets.list')), /BAD_VALUE/);
  // Latin-1 and a tab are what a header can carry: accepted.
  const ok = await airlock(['secrets', 'add', 'LATIN1_VALUE', '--host', 'api.example.com'], { env, input: 'caf\u00e9\tvalue\n' });
  assert.equal(ok.code, 0, ok.stderr);
  await airlock(['secrets', 'remove', 'LATIN1_VALUE'], { env });
});
