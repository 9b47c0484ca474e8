// The core bench reports each server's CPU per request from /proc (test/bench/proc-cpu.ts,
// issue 15): it must count a process's work (every thread), and say "unknown" rather than a
// number when /proc cannot tell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpuRatio, cpuText, processCpuUs } from '../bench/proc-cpu';

test('proc-cpu: another process’s CPU grows by about the time it spins', { skip: process.platform !== 'linux' }, async () => {
  // A child that spins until it has used 300 ms of CPU by its own count (a loaded machine
  // stretches wall time, not CPU), then waits to be killed: measured from outside, as the bench measures a server.
  const spin = 'const c=()=>{const u=process.cpuUsage();return (u.user+u.system)/1000};while(c()<300);process.stdout.write("spun\\n");setInterval(()=>{},1000)';
  const child = spawn(process.execPath, ['-e', spin], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise((r) => child.stdout!.once('data', r));
    const us = processCpuUs(child.pid);
    // /proc counts in 10 ms ticks; Node's start-up and helper threads only add.
    assert.ok(us >= 280_000, `expected at least 280 ms of CPU, got ${us} µs`);
    assert.ok(us < 5_000_000, `expected well under 5 s of CPU, got ${us} µs`);
    // A process that sleeps uses (almost) nothing more.
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(processCpuUs(child.pid) - us < 100_000);
  } finally {
    child.kill();
  }
});

test('proc-cpu: a process that is not there, or no pid, is NaN and printed as unknown', () => {
  assert.ok(Number.isNaN(processCpuUs(undefined)));
  assert.ok(Number.isNaN(processCpuUs(2 ** 31 - 1)));
  assert.equal(cpuText(NaN), '—');
  assert.equal(cpuText(41.6), '42 µs');
  assert.equal(cpuRatio(80, 40), '2.00×');
  assert.equal(cpuRatio(80, NaN), '—');
  assert.equal(cpuRatio(80, 0), '—');
});
