// main/os/session-owner.ts: the Claude Code process a hook call comes from is the hook's first
// ancestor that is not a shell or a wrapper; a process run by another program has that
// program as its owner, never the program's parent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionOwnerAlive, sessionOwnerOf } from '../../main/os/session-owner';
import { ProcessChain, readChainNode } from '../../main/os/process-chain';

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
    assert.equal(sessionOwnerOf(new ProcessChain(viaShells.pid)), me());
  } finally {
    viaShells.stop();
  }
  const viaNode = await started([process.execPath, '-e', "const c=require('child_process').spawn('sleep',['20']);console.log(c.pid);setTimeout(()=>{},20000)"]);
  try {
    const owner = sessionOwnerOf(new ProcessChain(viaNode.pid));
    assert.notEqual(owner, me(), 'a program between the caller and us is its owner, not us');
    assert.match(owner, /^\d+@\d+$/);
    assert.equal(owner.split('@')[0], String(readChainNode(viaNode.pid)!.ppid));
  } finally {
    viaNode.stop();
  }
  assert.equal(sessionOwnerOf(new ProcessChain(999_999_999)), 'none', 'a process that is gone has no owner');
});

test('a package runner between Claude Code and its hook (npm exec, npx, a script named npx-cli.js) is a wrapper: the owner is what ran it, the same for every call', { skip: hasProc ? false : 'no /proc' }, async () => {
  // npm sets its process title to "npm exec …": a fresh npm per hook call must not be a fresh owner.
  const viaNpm = await started(['npm', 'exec', '--offline', '-c', 'sleep 20 & echo $!; wait']);
  try {
    assert.equal(sessionOwnerOf(new ProcessChain(viaNpm.pid)), me());
  } finally {
    viaNpm.stop();
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-owner-'));
  const cli = path.join(dir, 'npx-cli.js');
  fs.writeFileSync(cli, "const c=require('child_process').spawn('sleep',['20']);console.log(c.pid);setTimeout(()=>{},20000)\n");
  const viaNpx = await started([process.execPath, cli]);
  try {
    assert.equal(sessionOwnerOf(new ProcessChain(viaNpx.pid)), me());
  } finally {
    viaNpx.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // Control: the same script under another name is a program of its own, and so the owner.
  const dir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'al-owner-'));
  const other = path.join(dir2, 'claude.js');
  fs.writeFileSync(other, "const c=require('child_process').spawn('sleep',['20']);console.log(c.pid);setTimeout(()=>{},20000)\n");
  const viaOther = await started([process.execPath, other]);
  try {
    assert.notEqual(sessionOwnerOf(new ProcessChain(viaOther.pid)), me());
  } finally {
    viaOther.stop();
    fs.rmSync(dir2, { recursive: true, force: true });
  }
});

test('an owner is alive while its process runs with the same start time; one that exited, or a reused pid, is not; what cannot be checked counts as alive', { skip: hasProc ? false : 'no /proc' }, async () => {
  assert.equal(sessionOwnerAlive(me()), true);
  const start = readChainNode(process.pid)!.start!;
  assert.equal(sessionOwnerAlive(`${process.pid}@${BigInt(start) + 1n}`), false, 'same pid, another start time: a reused pid');
  assert.equal(sessionOwnerAlive(`${process.pid}@?`), true, 'start time unknown when it was recorded: the pid decides');
  const child = spawn('sleep', ['20'], { stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  const owner = `${child.pid}@${readChainNode(child.pid!)!.start}`;
  assert.equal(sessionOwnerAlive(owner), true);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  assert.equal(sessionOwnerAlive(owner), false, 'exited (and reaped)');
  for (const unknown of ['', 'none', 'x@y', '12', '-1@5']) assert.equal(sessionOwnerAlive(unknown), true, JSON.stringify(unknown));
});
