// An allow grant for a remote that does not exist was created (`grants add --remote nosuch`):
// a typo gave a grant that never applied, and it waited for any server later added under that
// name, which is meant to start with no grants (as after `remote remove`). Now it is refused
// (-32004 on ui.sock, exit 64 from the CLI, nothing stored); a deny may name one ahead of time.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { CLI, startDaemon, type Daemon } from '../helpers/daemon';
import type { RpcClient } from '../../main/client/rpc-client';

let d: Daemon;
let ui: RpcClient;
before(async () => {
  d = await startDaemon();
  ui = await d.ui();
});
after(async () => {
  ui?.close();
  await d?.stop();
});

const airlock = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env: d.env, encoding: 'utf8', timeout: 30_000 });

test('an allow grant for a remote nobody added is refused, naming what to do; a deny may name it ahead', async () => {
  const r = airlock(['grants', 'add', '-a', 'write', '-r', '/srv/**', '--remote', 'nosuch']);
  assert.equal(r.status, 64, r.stderr);
  assert.match(r.stderr, /no remote nosuch: add it first \(airlock remote add nosuch USER@HOST\)/);
  await assert.rejects(ui.call('grants.create', { action: 'write', resource: '/srv/**', effect: 'allow', remote: 'nosuch' }), (e: Error & { code?: number }) => e.code === -32004);
  const { grants } = await ui.call<{ grants: Array<{ remote: string | null; effect: string }> }>('grants.list', {});
  assert.equal(grants.filter((g) => g.remote === 'nosuch').length, 0, 'nothing stored');

  const deny = airlock(['grants', 'add', '-a', 'delete', '--deny', '-r', '/srv/**', '--remote', 'nosuch', '--json']);
  assert.equal(deny.status, 0, deny.stderr);

  await ui.call('remotes.add', { name: 'build' });
  const ok = airlock(['grants', 'add', '-a', 'write', '-r', '/srv/**', '--remote', 'build', '--json']);
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal((JSON.parse(ok.stdout) as { remote: string }).remote, 'build');
});
