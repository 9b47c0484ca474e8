// A login with a key held by an upstream OpenSSH ssh-agent, through Airlock: approved
// first, then signed upstream with the client's session binds replayed (ssh-agent checks
// that the login is for the bound session, so a wrong replay fails the login).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { tempHome, waitFor } from '../helpers/daemon';
import { makeKey, run, startChild, startTestAgent, type TestAgent } from '../helpers/ssh';
import { USER, sshArgs, startSshd, type Sshd } from '../helpers/sshd';

let dir: string;
let up: ReturnType<typeof startChild>;
let sshd: Sshd;
let a: TestAgent;
let knownHosts: string;

before(async () => {
  dir = tempHome('alul-');
  const upSock = path.join(dir, 'up.sock');
  up = startChild('ssh-agent', ['-D', '-a', upSock]);
  await waitFor(() => fs.existsSync(upSock), 'ssh-agent');
  const key = await makeKey(dir, 'upkey', ['-t', 'ecdsa', '-b', '256']);
  assert.equal((await run('ssh-add', [key], { env: { ...process.env, SSH_AUTH_SOCK: upSock } })).code, 0);
  fs.rmSync(key);
  sshd = await startSshd(path.join(dir, 'sshd'));
  fs.writeFileSync(sshd.authorizedKeys, fs.readFileSync(key + '.pub'));
  knownHosts = path.join(dir, 'known_hosts');
  const [t, b64] = sshd.hostKeyPub.split(' ');
  fs.writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${t} ${b64}\n`);
  a = await startTestAgent({ upstream: upSock, knownHostsFiles: [knownHosts] });
});
after(async () => {
  await a?.close();
  await sshd?.stop();
  await up?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('login with an upstream key: asked with the destination, then signed upstream', async () => {
  a.asked.length = 0;
  a.decide = () => 'allow';
  const r = await run('ssh', [...sshArgs(sshd, knownHosts), 'echo via-upstream'], { env: a.env, timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /via-upstream/);
  assert.equal(a.asked.length, 1);
  const { req, ctx } = a.asked[0]!;
  assert.equal(req.resource, `${USER}@127.0.0.1:${sshd.port}`);
  assert.equal((req.args as { keyOrigin?: string }).keyOrigin, 'upstream');
  assert.equal(ctx.ssh?.purpose, 'login');

  a.decide = () => 'deny';
  const denied = await run('ssh', [...sshArgs(sshd, knownHosts), 'true'], { env: a.env, timeoutMs: 30_000 });
  assert.notEqual(denied.code, 0, 'denied: the upstream key is never used');
});
