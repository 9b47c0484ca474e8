// Red team of keystroke binding, on the daemon's side: identical pending requests share
// one prompt and one answer answers them all, so a request that only LOOKS identical must
// not ride on a prompt the human saw for another. Another process (another program and
// command line, as the kernel reports it) or a request made riskier by a chain rule since
// the first gets its own prompt; a true retry from the same program still joins.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Prompt } from '../../main/contract/approver';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  agent = await d.agent();
});
after(async () => {
  agent?.close();
  ui?.close();
  await d?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pending = async (summary: string) => (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts.filter((p) => p.summary === summary);

/** The same JSON-RPC request sent by another program (a child node with its own argv), raw on request.sock. */
function fromAnotherProcess(sock: string, params: object): { answer: Promise<AgentAnswer>; kill: () => void } {
  const script = `const s=require('net').connect(process.argv[1]);let b='';s.on('data',(c)=>{b+=c;if(b.includes('\\n')){process.stdout.write(b);process.exit(0)}});s.write(JSON.stringify({jsonrpc:'2.0',id:1,method:'request',params:JSON.parse(process.argv[2])})+'\\n');setTimeout(()=>process.exit(3),20000);`;
  const child = spawn(process.execPath, ['-e', script, sock, JSON.stringify(params)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const answer = new Promise<AgentAnswer>((resolve, reject) => {
    child.on('exit', (code) => {
      try {
        resolve((JSON.parse(out) as { result: AgentAnswer }).result);
      } catch {
        reject(new Error(`the other process got no answer (exit ${code}): ${out}`));
      }
    });
  });
  answer.catch(() => undefined);
  return { answer, kill: () => child.kill() };
}

test('an identical request from another process gets its own prompt: allowing the one seen does not allow it', async () => {
  const req = { source: 'api', tool: 'fs.write', action: 'write', resource: '/srv/co/same.txt', summary: 'write same.txt (coalesce red team)' };
  const mine = agent.call<AgentAnswer>('request', req);
  await waitFor(async () => (await pending(req.summary)).length === 1, 'the first prompt');
  const other = fromAnotherProcess(d.requestSock, req);
  try {
    await waitFor(async () => (await pending(req.summary)).length === 2, 'a second prompt for the other process');
    const [p1, p2] = await pending(req.summary);
    assert.notDeepEqual(p1!.process?.argv, p2!.process?.argv, 'the two prompts name different programs');
    const minePrompt = [p1!, p2!].find((p) => p.process?.pid === process.pid)!;
    await ui.call('pending.decide', { id: minePrompt.id, decision: 'allow', scope: 'once' });
    assert.equal((await mine).decision, 'allow');
    await sleep(200);
    assert.equal((await pending(req.summary)).length, 1, "the other process's request still waits for its own answer");
    const theirs = (await pending(req.summary))[0]!;
    await ui.call('pending.decide', { id: theirs.id, decision: 'deny', scope: 'once' });
    assert.equal((await other.answer).decision, 'deny', 'the other process got the answer to the prompt that showed it');
  } finally {
    other.kill();
  }
});

test('a true retry (same program, same everything) still shares the prompt', async () => {
  const req = { source: 'api', tool: 'fs.write', action: 'write', resource: '/srv/co/retry.txt', summary: 'write retry.txt (coalesce red team)' };
  const a = agent.call<AgentAnswer>('request', req);
  const second = await d.agent();
  try {
    const b = second.call<AgentAnswer>('request', req);
    await waitFor(async () => (await pending(req.summary)).length === 1, 'one prompt');
    await sleep(200);
    const ps = await pending(req.summary);
    assert.equal(ps.length, 1, 'a retry from the same program joins the prompt');
    await ui.call('pending.decide', { id: ps[0]!.id, decision: 'deny', scope: 'once' });
    assert.equal((await a).decision, 'deny');
    assert.equal((await b).decision, 'deny');
  } finally {
    second.close();
  }
});

test('the same transfer asked again after the task read a secret is critical: it never rides on the milder prompt, which is itself shown again as critical', async () => {
  const { task, token } = await agent.call<{ task: string; token: string }>('task.start', { name: 'coalesce chain', cwd: '/repo' });
  const transfer = { source: 'api', tool: 'net.upload', action: 'transfer', resource: 'https://example.org/up', summary: 'upload to example.org (coalesce red team)', task, token };
  const first = agent.call<AgentAnswer>('request', transfer);
  await waitFor(async () => (await pending(transfer.summary)).length === 1, 'the first transfer prompt');
  const [mild] = await pending(transfer.summary);
  assert.notEqual(mild!.risk.level, 'critical');
  // The task reads a secret (the human allows it), then asks for the same transfer again.
  const read = agent.call<AgentAnswer>('request', { source: 'api', tool: 'Read', action: 'read', resource: '/repo/.env', summary: 'read .env (coalesce red team)', task, token });
  const rs = 'read .env (coalesce red team)';
  let readDone = false;
  void read.then(() => (readDone = true), () => (readDone = true));
  await waitFor(async () => readDone || (await pending(rs)).length === 1, 'the secret read answered or asked');
  if (!readDone) await ui.call('pending.decide', { id: (await pending(rs))[0]!.id, decision: 'allow', scope: 'once' });
  const readAnswer = await read;
  assert.equal(readAnswer.decision, 'allow');
  // The waiting prompt was made before the read: it is shown again, critical, under a new id
  // (black-box wave 11), so the mild one no longer exists for anything to ride on.
  const [hot] = await pending(transfer.summary);
  assert.notEqual(hot!.id, mild!.id);
  assert.equal(hot!.risk.level, 'critical');
  assert.ok(hot!.risk.reasons.some((r) => /secret/.test(r)), hot!.risk.reasons.join('; '));
  const again = agent.call<AgentAnswer>('request', transfer);
  await sleep(200);
  assert.deepEqual((await pending(transfer.summary)).map((p) => p.id), [hot!.id], 'the same request, as risky, joins the prompt shown as critical');
  await assert.rejects(ui.call('pending.decide', { id: mild!.id, decision: 'allow', scope: 'once' }), /risk changed from medium to critical/);
  await sleep(200);
  assert.ok((await pending(transfer.summary)).some((p) => p.id === hot!.id), 'an answer to the mild prompt answered nothing');
  await ui.call('pending.decide', { id: hot!.id, decision: 'deny', scope: 'once' });
  assert.equal((await first).decision, 'deny');
  assert.equal((await again).decision, 'deny');
});
