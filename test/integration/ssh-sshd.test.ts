// Logins through the real daemon (`airlock serve`) to a real sshd on 127.0.0.1: the prompt
// names user@host from known_hosts (plain and hashed), a deny makes ssh fail, an
// allow-for-task lets the task's next login through, and agent forwarding is marked.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Prompt } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import { startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { run, type RunResult } from '../helpers/ssh';
import { USER, sshArgs, startSshd, type Sshd } from '../helpers/sshd';

let d: Daemon;
let ui: RpcClient;
let sshd: Sshd;
let home: string;
let knownHosts: string;
let keyFp: string;
let pubFile: string;
let hostFp: string;

before(async () => {
  home = tempHome('alsd-');
  fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
  knownHosts = path.join(home, '.ssh', 'known_hosts');
  // HOME points the daemon's known_hosts lookup at our file.
  d = await startDaemon({ env: { HOME: home } });
  ui = await d.ui();
  sshd = await startSshd(path.join(home, 'sshd'));
  const { key } = await ui.call<{ key: { publicKey: string; fingerprint: string } }>('keys.generate', { type: 'ed25519', name: 'work' });
  keyFp = key.fingerprint;
  fs.writeFileSync(sshd.authorizedKeys, key.publicKey + '\n');
  pubFile = path.join(home, 'work.pub');
  fs.writeFileSync(pubFile, key.publicKey + '\n');
  const [t, b64] = sshd.hostKeyPub.split(' ');
  fs.writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${t} ${b64}\n`);
  hostFp = (await run('ssh-keygen', ['-lf', path.join(sshd.dir, 'ssh_host_ed25519_key.pub')])).stdout.split(' ')[1]!;
});

after(async () => {
  ui?.close();
  await sshd?.stop();
  await d?.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

const env = (sock?: string): NodeJS.ProcessEnv => ({ ...process.env, HOME: home, SSH_AUTH_SOCK: sock ?? d.agentSock });
const ssh = (cmd: string, opts: { sock?: string; extra?: string[]; knownHosts?: string } = {}): Promise<RunResult> =>
  run('ssh', [...sshArgs(sshd, opts.knownHosts ?? knownHosts, opts.extra), cmd], { env: env(opts.sock), timeoutMs: 30_000 });

async function nextPrompt(seen: Set<string>): Promise<Prompt> {
  let found: Prompt | undefined;
  await waitFor(
    async () => {
      const { prompts } = await ui.call<{ prompts: Prompt[] }>('pending.list', {});
      found = prompts.find((p) => !seen.has(p.id));
      return found !== undefined;
    },
    'a prompt',
    15_000,
    50,
  );
  seen.add(found!.id);
  return found!;
}

const seen = new Set<string>();
const decide = (p: Prompt, decision: 'allow' | 'deny', scope: 'once' | 'task' = 'once') => ui.call('pending.decide', { id: p.id, decision, scope });

test('login prompt names user@host from a plain known_hosts entry; deny makes ssh fail', async () => {
  const login = ssh('echo logged-in');
  const p = await nextPrompt(seen);
  assert.equal(p.source, 'ssh');
  assert.equal(p.tool, 'ssh-sign');
  assert.equal(p.action, 'sign');
  assert.equal(p.resource, `${USER}@127.0.0.1:${sshd.port}`);
  assert.match(p.summary, new RegExp(`^login as ${USER}@127\\.0\\.0\\.1:${sshd.port} with key 'work' \\(SHA256:`));
  assert.equal(p.ssh?.purpose, 'login');
  assert.equal(p.ssh?.user, USER);
  assert.equal(p.ssh?.host, `127.0.0.1:${sshd.port}`);
  assert.equal(p.ssh?.hostKey, hostFp, 'where: the host key from the session bind');
  assert.equal(p.ssh?.fingerprint, keyFp);
  assert.equal(p.ssh?.forwarded, false);
  assert.ok(p.process?.tree.some((n) => n.exe === '/usr/bin/ssh'), 'who: the ssh process');
  await decide(p, 'deny');
  const r = await login;
  assert.notEqual(r.code, 0, 'denied login fails');
  assert.doesNotMatch(r.stdout, /logged-in/);
});

test('allow-for-task on a task socket lets the next login of that task through without a prompt', async () => {
  const agent = await d.agent();
  const started = await agent.call<{ task: string; sshAuthSock: string }>('task.start', { name: 'deploy' });
  agent.close();
  assert.equal(started.sshAuthSock, path.join(d.home, 'tasks', started.task, 'agent.sock'));
  assert.equal(fs.statSync(started.sshAuthSock).mode & 0o777, 0o600);
  const first = ssh('echo first', { sock: started.sshAuthSock });
  const p = await nextPrompt(seen);
  assert.equal(p.task, started.task, 'the request belongs to the task of the socket');
  await decide(p, 'allow', 'task');
  let r = await first;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /first/);

  r = await ssh('echo second', { sock: started.sshAuthSock });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /second/);
  const { prompts } = await ui.call<{ prompts: Prompt[] }>('pending.list', {});
  assert.equal(prompts.length, 0);

  // The same login on the main socket is not covered by the task's grant.
  const other = ssh('echo main');
  const p2 = await nextPrompt(seen);
  assert.equal(p2.task, null);
  await decide(p2, 'deny');
  assert.notEqual((await other).code, 0);

  const ui2 = await d.ui();
  await ui2.call('tasks.end', { task: started.task });
  ui2.close();
  assert.ok(!fs.existsSync(started.sshAuthSock), 'ending the task removes its socket');
});

test('a hashed known_hosts entry is matched against the host in ssh argv', async () => {
  const r0 = await run('ssh-keygen', ['-H', '-f', knownHosts]);
  assert.equal(r0.code, 0, r0.stderr);
  assert.match(fs.readFileSync(knownHosts, 'utf8'), /^\|1\|/);
  const login = ssh('echo hashed');
  const p = await nextPrompt(seen);
  assert.equal(p.resource, `${USER}@127.0.0.1:${sshd.port}`);
  assert.equal((p.args as { hostKnownAs?: string }).hostKnownAs, 'hashed known_hosts entry');
  await decide(p, 'allow');
  const r = await login;
  assert.equal(r.code, 0, r.stderr);
});

test('a host key missing from known_hosts is named by its fingerprint', async () => {
  // ssh itself trusts a file the daemon does not read.
  const own = path.join(home, 'client_known_hosts');
  const [t, b64] = sshd.hostKeyPub.split(' ');
  fs.writeFileSync(own, `[127.0.0.1]:${sshd.port} ${t} ${b64}\n`);
  const saved = fs.readFileSync(knownHosts);
  fs.writeFileSync(knownHosts, '');
  try {
    const login = ssh('true', { knownHosts: own });
    const p = await nextPrompt(seen);
    assert.equal(p.resource, `${USER}@${hostFp}`);
    assert.match(p.summary, /host key not in known_hosts/);
    await decide(p, 'deny');
    await login;
  } finally {
    fs.writeFileSync(knownHosts, saved);
  }
});

test('agent forwarding: a signature requested on the far side is marked forwarded', async () => {
  const msg = path.join(home, 'fwd.txt');
  fs.writeFileSync(msg, 'forwarded\n');
  const remote = `ssh-keygen -Y sign -f ${pubFile} -n fwdtest ${msg}`;
  // A grant that does not allow forwarding does not cover the far side's request.
  await ui.call('grants.create', { source: 'ssh', action: 'sign', resource: 'sshsig:fwdtest', effect: 'allow', note: 'local only' });
  const session = ssh(remote, { extra: ['-A'] });
  const login = await nextPrompt(seen).catch(async (e) => {
    throw new Error(`${(e as Error).message}; ssh said: ${JSON.stringify(await session)}`);
  });
  assert.equal(login.ssh?.purpose, 'login');
  assert.equal(login.ssh?.forwarded, false);
  await decide(login, 'allow');
  const sign = await nextPrompt(seen);
  assert.equal(sign.resource, 'sshsig:fwdtest');
  assert.equal(sign.ssh?.forwarded, true, 'marked as forwarded');
  assert.match(sign.summary, /through a forwarded agent/);
  assert.equal(sign.ssh?.hostKey, hostFp, 'the hop the agent was forwarded to');
  await decide(sign, 'allow');
  const r = await session;
  assert.equal(r.code, 0, r.stderr);
  assert.ok(fs.existsSync(msg + '.sig'));

  // Grants that allow forwarding let the same thing through without a prompt.
  await ui.call('grants.create', { source: 'ssh', action: 'sign', resource: `${USER}@127.0.0.1:${sshd.port}`, effect: 'allow' });
  await ui.call('grants.create', { source: 'ssh', action: 'sign', resource: 'sshsig:fwdtest', effect: 'allow', forwarded: true });
  fs.rmSync(msg + '.sig');
  const again = await ssh(remote, { extra: ['-A'] });
  assert.equal(again.code, 0, again.stderr);
  assert.ok(fs.existsSync(msg + '.sig'));
});
