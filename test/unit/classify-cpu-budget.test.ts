// The classifier's budget is CPU time (main/core/classify/cpu-clock.ts): a daemon that is
// descheduled mid-classification (a busy 2-vCPU machine) must not turn an ordinary command into
// "too complex … execute". A child classifies one command in a loop; it is stopped (SIGSTOP)
// for 800 ms, well past the 500 ms budget, three times, almost surely mid-classification. With
// a wall-clock budget the stopped call came back "execute"; every call must stay "delete".
// Control: a command too big to walk still fails closed (the walk's limits, budget included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';

const SHELL = path.join(__dirname, '..', '..', 'main', 'core', 'classify', 'shell.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a classification the OS pauses for longer than the budget is not cut short (the budget is CPU time)', async () => {
  const script = `
    const { classifyShell } = require(${JSON.stringify(SHELL)});
    const cmd = 'ls # a\\\\\\n# b\\\\\\nrm -rf D';
    let n = 0, other = 0;
    // The handler goes in before 'ready': a first call slowed by a loaded machine must not
    // leave SIGUSR2 to its default action (exit without a report).
    process.on('SIGUSR2', () => { process.stdout.write(JSON.stringify({ n, other }) + '\\n'); process.exit(0); });
    process.stdout.write('ready\\n');
    const until = Date.now() + 15000;
    (function loop() {
      // One call per turn of the event loop, so SIGUSR2 is heard between calls even when a
      // loaded machine makes each call slow.
      n++; if (classifyShell(cmd, '/tmp').action !== 'delete') other++;
      if (Date.now() < until) setImmediate(loop); else { process.stdout.write(JSON.stringify({ n, other }) + '\\n'); }
    })();
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    for (let i = 0; i < 100 && !out.includes('ready'); i++) await sleep(50);
    assert.ok(out.includes('ready'), 'the child started');
    await sleep(200);
    for (let round = 0; round < 3; round++) {
      child.kill('SIGSTOP');
      await sleep(800);
      child.kill('SIGCONT');
      await sleep(150);
    }
    child.kill('SIGUSR2');
    await Promise.race([exited, sleep(30_000)]);
  } finally {
    child.kill('SIGKILL');
  }
  const last = out.trim().split('\n').pop()!;
  assert.notEqual(last, 'ready', 'the child did not report within 30 s of SIGUSR2');
  const { n, other } = JSON.parse(last) as { n: number; other: number };
  assert.ok(n > 0, 'the child classified');
  assert.equal(other, 0, `${other} of ${n} classifications were cut short while the process was stopped`);
});

test('control: a command too big to walk completely still fails closed as execute', () => {
  // Thousands of substitutions: more statements than the walk visits (MAX_VISITS), so it stops short.
  const cmd = Array.from({ length: 3000 }, (_, i) => `echo $(echo ${i})`).join('; ');
  const r = classifyShell(cmd, '/tmp');
  assert.equal(r.action, 'execute');
});
