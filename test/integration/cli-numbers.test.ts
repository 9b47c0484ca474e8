// Numbers typed on the command line are read as decimal digits only: `Number()` took `0x10`
// (16), `1e3`, `' 16 '` and `''` (0), so a typo or a trick read as a real value, and the
// `exec --timeout` limit message said "more than 0" for a value that was too large.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { CLI, startDaemon, type Daemon } from '../helpers/daemon';

let d: Daemon;
before(async () => {
  d = await startDaemon();
});
after(async () => {
  await d?.stop();
});

function airlock(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env: d.env, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('history -n, grants add --uses and serve --port refuse hex, exponents and blanks (exit 64, naming the flag)', () => {
  const cases: Array<[string[], string]> = [
    [['history', '-n', '0x10'], '--limit'],
    [['history', '-n', '1e1'], '--limit'],
    [['history', '-n', ''], '--limit'],
    [['history', '-n', '2000'], '--limit'],
    [['grants', 'add', '-a', 'write', '-r', '/tmp/x/**', '--uses', '0x10'], '--uses'],
    [['grants', 'add', '-a', 'write', '-r', '/tmp/x/**', '--uses', ' 2'], '--uses'],
    [['grants', 'add', '-a', 'write', '-r', '/tmp/x/**', '--uses', '0'], '--uses'],
    [['serve', '--web', '--port', '0x50'], '--port'],
  ];
  for (const [args, flag] of cases) {
    const r = airlock(args);
    assert.equal(r.code, 64, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, new RegExp(`bad ${flag} "`), args.join(' '));
    assert.match(r.err, /a whole number from \d+ to \d+/, args.join(' '));
  }
  // Nothing was granted by the refused `--uses` lines.
  const list = airlock(['grants', 'list', '--json']);
  assert.equal(list.code, 0, list.err);
  assert.doesNotMatch(list.out, /\/tmp\/x\/\*\*/);
});

test('decimal numbers still work: history -n 3, grants add --uses 2', () => {
  const h = airlock(['history', '-n', '3', '--json']);
  assert.equal(h.code, 0, h.err);
  assert.ok(h.out.trim().split('\n').filter(Boolean).length <= 3);
  const g = airlock(['grants', 'add', '-a', 'write', '-r', '/tmp/y/**', '--uses', '2', '--json']);
  assert.equal(g.code, 0, g.err);
  assert.equal((JSON.parse(g.out) as { usesLeft: number }).usesLeft, 2);
});

test('exec --timeout: the message names the real limits; hex is refused; 0.5 is half a second', () => {
  for (const v of ['99999999999', '0x10', '0', '-1', '1e2', 'Infinity']) {
    const r = airlock(['exec', '--timeout', v, '--', 'true']);
    assert.equal(r.code, 64, `${v}: ${r.err}`);
    assert.match(r.err, /bad --timeout ".*": seconds \(600, or 0\.5\), more than 0 and at most 604800 \(7 days\)/, v);
  }
  const grant = airlock(['grants', 'add', '-a', 'execute', '-t', 'exec', '-r', '**', '--source', 'exec', '--json']);
  assert.equal(grant.code, 0, grant.err);
  const started = Date.now();
  const r = spawnSync(process.execPath, [CLI, 'exec', '--timeout', '0.5', '--', 'sleep', '20'], { env: d.env, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 124, r.stderr);
  assert.ok(Date.now() - started < 15_000, 'stopped after half a second, not 20 s');
});
