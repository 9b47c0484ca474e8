// One walk up a peer's parents (main/os/process-chain.ts) serves its process tree (peer.ts)
// and its CLAUDE_CONFIG_DIR (claude-config-env.ts): each process's stat is read once, when a
// reader first gets that far, and both readers see the same chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { MAX_ANCESTORS, ProcessChain } from '../../main/os/process-chain';
import { processInfo, processStartTime } from '../../main/os/peer';

test('the chain of this process: itself, then its parents up to init, each read once; the tree read through it is the same as a fresh one', { skip: !fs.existsSync('/proc/self') }, () => {
  const chain = new ProcessChain(process.pid);
  const me = chain.at(0);
  assert.equal(me?.pid, process.pid);
  assert.equal(me?.start, processStartTime(process.pid));
  assert.equal(chain.at(1)?.pid, process.ppid);
  assert.equal(chain.at(0), me, 'kept, not read again');
  // Up to init (or the cap), then nothing.
  let top = 0;
  while (chain.at(top + 1)) top++;
  assert.ok(top < MAX_ANCESTORS);
  assert.ok(chain.at(top)!.pid === 1 || chain.at(top)!.ppid <= 0 || top === MAX_ANCESTORS - 1, JSON.stringify(chain.at(top)));
  assert.equal(chain.at(top + 5), null);
  const cred = { pid: process.pid, uid: process.getuid?.() ?? 0, gid: 0 };
  assert.deepEqual(processInfo(cred, 16, chain), processInfo(cred));
});

test('a chain of no process, or of one gone, is empty; the tree of a gone process is its pid alone', () => {
  assert.equal(new ProcessChain(-1).at(0), null);
  assert.equal(new ProcessChain(0).at(3), null);
  const gone = 2 ** 22 + 12345; // above pid_max's ceiling: no such process
  assert.equal(new ProcessChain(gone).at(0), null);
  if (fs.existsSync('/proc/self')) assert.deepEqual(processInfo({ pid: gone, uid: 0, gid: 0 }).tree, [{ pid: gone, exe: null, argv: [] }]);
});
