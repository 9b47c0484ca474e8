// A deny grant attacked with other spellings of the same path, against the real daemon
// through request.sock: `//`, `/./`, `x/..`, a trailing slash or dot, the directory itself.
// The kernel opens the same file for each, so the deny must hold for each (an allow on the
// parent directory is there to be walked around to).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import type { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let W: string;
let deny: string;

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  agent = await d.agent();
  W = fs.realpathSync(tempHome('al-rp-'));
  fs.mkdirSync(path.join(W, 'private'), { recursive: true });
  fs.mkdirSync(path.join(W, 'sub'), { recursive: true });
  await ui.call('grants.create', { action: 'write', resource: `${W}/**`, effect: 'allow' });
  // A spelling the deny misses would be asked: time out fast rather than pass as a slow deny.
  await ui.call('settings.set', { promptTimeoutSec: 5 });
  deny = (await ui.call<{ grant: { id: string } }>('grants.create', { action: 'write', resource: `${W}/private/**`, effect: 'deny', note: 'never write private/' })).grant.id;
});
after(async () => {
  agent?.close();
  ui?.close();
  await d?.stop();
});

const write = (resource: string) => agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource, summary: `write ${resource}` });

describe('red team: a deny grant and other spellings of the same path', () => {
  test('control: the allow covers a plain file, the deny denies private/x', async () => {
    assert.equal((await write(`${W}/a.txt`)).decision, 'allow');
    assert.equal((await write(`${W}/private/x`)).grant, deny);
  });

  test('//, /./, sub/.., a trailing slash or dot, and the directory itself are denied too', async () => {
    for (const spelled of [`${W}//private/x`, `${W}/./private/x`, `${W}/private/./x`, `${W}/sub/../private/x`, `${W}/private/x/`, `${W}/private/x/.`, `${W}/private`, `${W}/private/`, `${W}/nosuchdir/../private/x`]) {
      const a = await write(spelled);
      // Denied by the grant at once — not asked and left to time out.
      assert.equal(a.decision, 'deny', `${spelled}: ${JSON.stringify(a)}`);
      assert.equal(a.grant, deny, `${spelled}: ${JSON.stringify(a)}`);
    }
  });
});
