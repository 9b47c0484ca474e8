// Ending a task ends its SSH agent socket's connections too (main/ssh/task-sockets.ts): an
// agent that kept a connection to the task's agent.sock open must not go on using the keys
// after the task is over. Real daemon, raw agent protocol on the task's own agent.sock, and
// a real ssh-add on it afterwards: an idle connection and one waiting on a signature prompt
// are both closed at once, the waiting signature is answered "failure" (recorded as a deny
// by the system, never left answerable), the socket file is gone, and nothing new connects.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { waitFor, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { RawAgentClient, run } from '../helpers/ssh';
import { closeDaemonSession, openDaemonSession } from '../helpers/daemon-session';
import type { RpcClient } from '../../main/client/rpc-client';
import type { HistoryEvent, Prompt } from '../../main/contract/approver';

const SSH_AGENT_FAILURE = 5;
const SSH_AGENTC_REQUEST_IDENTITIES = 11;
const SSH_AGENT_IDENTITIES_ANSWER = 12;
const SSH_AGENTC_SIGN_REQUEST = 13;

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;

before(async () => {
  ({ d, ui, agent, human } = await openDaemonSession());
});
after(() => closeDaemonSession({ d, ui, agent }));

function sshString(b: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}

function signRequest(keyBlob: Buffer, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from([SSH_AGENTC_SIGN_REQUEST]), sshString(keyBlob), sshString(data), Buffer.alloc(4)]);
}

test(`task.end closes every connection to the task's agent.sock: an idle one, and one waiting on a signature prompt (answered failure, recorded as the system's deny)`, async () => {
  const { key } = await ui.call<{ key: { fingerprint: string; publicKey: string } }>('keys.generate', { type: 'ed25519', name: 'task end key' });
  const t = await agent.call<{ task: string; token: string; sshAuthSock: string }>('task.start', { name: 'ssh ends with me', cwd: '/repo' });
  assert.ok(fs.statSync(t.sshAuthSock).isSocket());

  const idle = await RawAgentClient.connect(t.sshAuthSock);
  const listed = await idle.request(Buffer.from([SSH_AGENTC_REQUEST_IDENTITIES]));
  assert.equal(listed[0], SSH_AGENT_IDENTITIES_ANSWER, 'the connection works before the end');

  const waiting = await RawAgentClient.connect(t.sshAuthSock);
  const blob = Buffer.from(key.publicKey.split(/\s+/)[1]!, 'base64');
  waiting.send(signRequest(blob, Buffer.from('a session to sign')));
  const p: Prompt = await human.next(20_000);
  assert.equal(p.task, t.task, 'the signature asks as the task');
  assert.equal(p.ssh?.fingerprint, key.fingerprint);

  const t0 = Date.now();
  assert.deepEqual(await agent.call('task.end', { task: t.token }), {});
  // The signature waiting on the human gets a failure (or its connection closes first); never a signature.
  const answer = await waiting.read(5000).catch(() => null);
  if (answer) assert.equal(answer[0], SSH_AGENT_FAILURE, 'a waiting signature is refused when its task ends');
  await waitFor(() => idle.closed && waiting.closed, 'both connections to the task agent.sock to close', 20_000);
  // The promise is "at once": nothing else closes these (no idle timeout on a connection that
  // sent whole frames), and the bound catches a close that waits on something slow. It is
  // milliseconds normally; 15 s is the slack a loaded 2-core CI machine needs.
  assert.ok(Date.now() - t0 < 15_000, `closed in ${Date.now() - t0} ms`);
  assert.equal(fs.existsSync(t.sshAuthSock), false, 'agent.sock is removed');
  await assert.rejects(RawAgentClient.connect(t.sshAuthSock), /ENOENT|ECONNREFUSED/, 'nothing connects after the end');
  const listAfter = await run('ssh-add', ['-l'], { env: { PATH: process.env.PATH, HOME: d.home, SSH_AUTH_SOCK: t.sshAuthSock } });
  assert.equal(listAfter.code, 2, `ssh-add cannot reach the ended task's agent (${listAfter.stderr.trim()})`);

  // The prompt left the queue, and a late "allow" answers nothing.
  const { prompts } = await ui.call<{ prompts: Prompt[] }>('pending.list', {});
  assert.ok(!prompts.some((x) => x.id === p.id), 'the prompt left the queue');
  await assert.rejects(human.decide(p.id, 'allow'), /no pending prompt/);
  await waitFor(async () => {
    const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { task: t.task, source: 'ssh', limit: 20 });
    return events.some((e) => e.action === 'sign' && e.decision === 'deny' && e.decidedBy === 'system');
  }, 'the refused signature to be in history as the system\'s deny', 10_000);
});
