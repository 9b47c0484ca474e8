// Which remote an ssh process forwards (airlock remote): the peer of a forwarded agent
// connection is this machine's ssh, and the `-R` it was started with names the remote. Only
// the local end of a reverse forward counts, before the destination; anything else is no remote.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProcessInfo } from '../../main/contract/common';
import { remoteForwardedBy } from '../../main/api/remote-sockets';
import { remoteForwardsOf } from '../../main/ssh/ssh-argv';

const dir = '/run/user/1000/airlock/remotes';
const proc = (argv: string[], exe = '/usr/bin/ssh'): ProcessInfo => ({ pid: 42, uid: 1000, gid: 1000, exe, argv, tree: [] });

test('remoteForwardsOf: -R in every spelling and RemoteForward, before the destination only', () => {
  assert.deepEqual(remoteForwardsOf(['ssh', '-R', 'a:b', '-Rc:d', '-tR', 'e:f', '-o', 'RemoteForward=g h', '-oremoteforward i j', 'host', '-R', 'k:l']), ['a:b', 'c:d', 'e:f', 'g h', 'i j']);
  assert.deepEqual(remoteForwardsOf(['ssh', '-L', 'a:b', '-o', 'LocalForward=c d', 'host']), []);
  assert.deepEqual(remoteForwardsOf(['ssh', '--', '-R', 'a:b']), []);
});

test('remoteForwardedBy: the line remote add prints names its remote; other forwards, ends and programs do not', () => {
  const printed = ['ssh', '-o', 'ExitOnForwardFailure=yes', '-R', `/tmp/airlock-build-0a1b2c3d4e5f.sock:${dir}/build/request.sock`, '-o', `ForwardAgent=${dir}/../agent.sock`, '-t', 'me@build.example.com', 'export …'];
  assert.equal(remoteForwardedBy(proc(printed), dir), 'build');
  assert.equal(remoteForwardedBy(proc(['ssh', '-o', `RemoteForward /tmp/x.sock ${dir}/ci-2/request.sock`, 'h']), dir), 'ci-2');
  // The remote's socket as the server's end, a local forward, after the destination, another file.
  assert.equal(remoteForwardedBy(proc(['ssh', '-R', `${dir}/build/request.sock:/tmp/x.sock`, 'h']), dir), null);
  assert.equal(remoteForwardedBy(proc(['ssh', '-L', `/tmp/x.sock:${dir}/build/request.sock`, 'h']), dir), null);
  assert.equal(remoteForwardedBy(proc(['ssh', 'h', '-R', `/tmp/x.sock:${dir}/build/request.sock`]), dir), null);
  assert.equal(remoteForwardedBy(proc(['ssh', '-R', `/tmp/x.sock:${dir}/build/agent.sock`, 'h']), dir), null);
  assert.equal(remoteForwardedBy(proc(['ssh', '-R', `/tmp/x.sock:${dir}/../build/request.sock`, 'h']), dir), null);
  assert.equal(remoteForwardedBy(proc(['ssh', '-R', `/tmp/x.sock:/elsewhere${dir}/build/request.sock`, 'h']), dir), null);
  // Not ssh: a program naming the path is no forward.
  assert.equal(remoteForwardedBy(proc(['socat', '-R', `/tmp/x.sock:${dir}/build/request.sock`], '/usr/bin/socat'), dir), null);
});
