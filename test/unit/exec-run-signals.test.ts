// airlock exec passes on the signals sent to it (main/integrations/exec/run.ts). A signal that
// arrives while the child is being started — after fork, before the line after spawn() — used
// to find no handler and kill exec with the default action, leaving the child running with
// nobody to pass on the next signal or report its exit (seen in CI under load: `kill -TERM`
// right after the child printed "ready"). Here the window is made certain: spawn is wrapped
// so that exec signals itself after the real spawn and before spawn() returns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const RUN = path.join(__dirname, '..', '..', 'main', 'integrations', 'exec', 'run.js');

/** A node process that runs one command through runCommand with spawn wrapped to signal itself. */
function harness(signal: string, command: string): ReturnType<typeof spawnSync> {
  const script = `
    const cp = require('node:child_process');
    const real = cp.spawn;
    cp.spawn = function (...a) {
      const child = real.apply(this, a);
      process.kill(process.pid, ${JSON.stringify(signal)});
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300); // the signal is delivered in here
      return child;
    };
    const { runCommand, exitLike } = require(${JSON.stringify(RUN)});
    runCommand({ file: 'sh', args: ['-c', ${JSON.stringify(command)}], cwd: process.cwd(), env: process.env, stdin: 'ignore' })
      .then((o) => { process.stdout.write(JSON.stringify(o) + '\\n'); exitLike(o); });
  `;
  return spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
}

test('a SIGTERM that arrives while the child is being started is passed on to it, not taken by exec', () => {
  const r = harness('SIGTERM', 'trap "echo got-term; exit 42" TERM; i=0; while [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; exit 3');
  assert.equal(r.signal, null, `exec itself died of ${r.signal}; stdout ${JSON.stringify(r.stdout)}`);
  assert.match(String(r.stdout), /got-term/);
  assert.equal(r.status, 42);
});

test('a SIGHUP in the same window reaches the child too; a child without a trap dies of it, and exec the same way', () => {
  const r = harness('SIGHUP', 'i=0; while [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; exit 3');
  assert.match(String(r.stdout), /"kind":"signal","signal":"SIGHUP"/);
  assert.equal(r.signal, 'SIGHUP');
});
