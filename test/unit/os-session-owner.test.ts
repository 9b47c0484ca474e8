// main/os/session-owner.ts: the Claude Code process a hook call comes from is the hook's first
// ancestor that is not a shell or a wrapper; a process run by another program has that
// program as its owner, never the program's parent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { sessionOwnerOf } from '../../main/os/session-owner';
import { readChainNode } from '../../main/os/process-chain';

const hasProc = fs.existsSync('/proc/self');
const me = () => `${process.pid}@${readChainNode(process.pid)!.start}`;

/** Runs argv, reads the pid it prints first, returns it with a way to stop the whole group. */
function started(argv: string[]): Promise<{ pid: number; stop(): void }> {
  return new Promise((resolve, reject) => {
    const p = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    let out = '';
    p.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /^(\d+)\n/.exec(out);
      if (m) resolve({ pid: Number(m[1]), stop: () => process.kill(-p.pid!, 'SIGKILL') });
    });
    p.on('error', reject);
    setTimeout(() => reject(new Error('no pid printed')), 10_000).unref();
  });
}

test('through sh -c, env and timeout, the owner is the program that ran the shell; a program in between is the owner itself', { skip: hasProc ? false : 'no /proc' }, async () => {
  const viaShells = await started(['/bin/sh', '-c', 'timeout 20 env sleep 20 & echo $!; wait']);
  try {
    // sleep ← timeout ← sh ← this test's process (sh ran detached: still our child)
    assert.equal(sessionOwnerOf(viaShells.pid), me());
  } finally {
    viaShells.stop();
  }
  const viaNode = await started([process.execPath, '-e', "const c=require('child_process').spawn('sleep',['20']);console.log(c.pid);setTimeout(()=>{},20000)"]);
  try {
    const owner = sessionOwnerOf(viaNode.pid);
    assert.notEqual(owner, me(), 'a program between the caller and us is its owner, not us');
    assert.match(owner, /^\d+@\d+$/);
    assert.equal(owner.split('@')[0], String(readChainNode(viaNode.pid)!.ppid));
  } finally {
    viaNode.stop();
  }
  assert.equal(sessionOwnerOf(999_999_999), 'none', 'a process that is gone has no owner');
});
