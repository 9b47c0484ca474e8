// Red team, recorded: what only a hostile or broken client sends on agent.sock — an
// unknown message type, a forged session-bind, an ssh-add whose private half does not
// match its public half — is answered FAILURE and lands in history as a rejected attempt
// with the process that sent it, never with the bytes (an add carries a private key).
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import type { HistoryEvent } from '../../main/contract/approver';
import { agentKeyOf, signWith } from '../../main/ssh/key-material';
import { MSG } from '../../main/ssh/protocol';
import { Writer } from '../../main/ssh/wire';
import { startDaemon, type Daemon } from '../helpers/daemon';
import { RawAgentClient } from '../helpers/ssh';

let d: Daemon;
before(async () => {
  d = await startDaemon();
});
after(async () => {
  await d?.stop();
});

test('unknown types, forged session-binds and mismatched ssh-add keys are refused and recorded, without key bytes', async () => {
  const host = agentKeyOf(crypto.generateKeyPairSync('ed25519').privateKey);
  const other = agentKeyOf(crypto.generateKeyPairSync('ed25519').privateKey);
  const sid = crypto.randomBytes(32);
  // Signed by another key than the host key it names: a forged bind.
  const forged = new Writer().byte(MSG.EXTENSION).string('session-bind@openssh.com').string(host.publicBlob).string(sid).string(signWith(other, sid, 0)).bool(false).toBuffer();
  const a = crypto.generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const b = crypto.generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const seedB = Buffer.from(b.d!, 'base64url');
  const pubA = Buffer.from(a.x!, 'base64url');
  const mismatched = new Writer().byte(MSG.ADD_IDENTITY).string('ssh-ed25519').string(pubA).string(Buffer.concat([seedB, pubA])).string('mismatch').toBuffer();
  const c = await RawAgentClient.connect(d.agentSock);
  try {
    assert.equal((await c.request(Buffer.from([200, 1, 2, 3])))[0], MSG.FAILURE);
    assert.equal((await c.request(forged))[0], MSG.FAILURE);
    assert.equal((await c.request(mismatched))[0], MSG.FAILURE);
    assert.equal((await c.request(Buffer.from([MSG.REQUEST_IDENTITIES])))[0], MSG.IDENTITIES_ANSWER, 'the connection goes on');
  } finally {
    c.close();
  }
  const ui = await d.ui();
  try {
    const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { decision: 'reject', limit: 50 });
    const ssh = events.filter((e) => e.source === 'ssh' && e.tool === 'ssh-agent');
    const text = JSON.stringify(ssh);
    assert.ok(ssh.some((e) => /type 200/.test(e.summary) && /unknown message type 200/.test(e.reason)), text);
    assert.ok(ssh.some((e) => /session-bind refused/.test(e.summary) && /does not verify/.test(e.reason)), text);
    assert.ok(ssh.some((e) => /ssh-add of a ed25519 key refused/.test(e.summary) && /does not match/.test(e.reason)), text);
    assert.ok(ssh.every((e) => e.decidedBy === 'invalid' && e.process && e.process.pid > 0), 'with who sent it');
    for (const secret of [seedB.toString('hex'), seedB.toString('base64'), b.d!]) assert.ok(!text.includes(secret), 'no private key material in history');
  } finally {
    ui.close();
  }
});
