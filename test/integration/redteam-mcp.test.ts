// MCP requests attacked through names, against the real daemon on request.sock: a tool
// named like an Object.prototype member must be decided and recorded like any other.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Daemon } from '../helpers/daemon';
import type { Human } from '../helpers/human';
import { closeDaemonSession, openDaemonSession } from '../helpers/daemon-session';
import type { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;

before(async () => {
  ({ d, ui, agent, human } = await openDaemonSession());
});
after(() => closeDaemonSession({ d, ui, agent }));

describe('red team: MCP tool names', () => {
  test('a tool named constructor, toString, __proto__ … is prompted, answered and recorded (no Object.prototype "pin")', async () => {
    for (const tool of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const pending = agent.call<AgentAnswer>('request', { source: 'mcp', tool, action: 'write', summary: `call ${tool}` });
      const p = await human.next(10_000);
      assert.equal(p.action, 'write', tool);
      await human.decide(p.id, 'deny');
      const a = await Promise.race([pending, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10_000))]);
      assert.notEqual(a, 'hung', `${tool}: the denied request was never answered`);
      assert.equal((a as AgentAnswer).decision, 'deny', tool);
      assert.ok((a as AgentAnswer).event > 0, `${tool}: recorded`);
    }
  });
});
