// Black-box, tenth wave: a hostile agent in a sandbox holds the placeholder for a secret and
// wants the value (docs/egress.md "Secrets": injected only in an allowed TLS request to one
// of the secret's hosts; what that host answers has the value swapped back to the
// placeholder, "so an echoing server cannot hand it to the sandbox"). Real daemon, real
// bwrap sandbox with curl, HTTPS servers on 127.0.0.1 behind a test CA; raw bytes on the
// task's egress.sock where a sandbox adds nothing (test/helpers/egress-client.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { CLI, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { exchange, responseBody, tlsInTunnel } from '../helpers/egress-client';
import { run } from '../helpers/run';
import { makeTestCa, testHttpsServer, type TestCa, type TestHttps } from '../helpers/tls-server';
import type { RpcClient } from '../../main/client/rpc-client';

const hasBwrap = fs.existsSync('/usr/bin/bwrap') || fs.existsSync('/usr/local/bin/bwrap');
const hasTools = ['/usr/bin/curl', '/usr/bin/base64'].every((f) => fs.existsSync(f));
const TOKEN = 'ghp_REAL_bb10_token_0123456789abcdef';
const NAMES = ['api.example.test', 'old.example.test'];

let d: Daemon;
let ui: RpcClient;
let ca: TestCa;
let echo: TestHttps;
/** Every request's headers as the echo server got them (TestHttps.seen keeps Authorization only). */
const echoHeaders: Record<string, string | string[] | undefined>[] = [];
let work: string;
let env: NodeJS.ProcessEnv;

before(async () => {
  ca = makeTestCa(tempHome('bb10-ca-'), NAMES);
  // The secret's own host echoing the credential it got, the way httpbin's /headers, a
  // TRACE or a debug endpoint does: in a header, the status line and a JSON body.
  echo = await testHttpsServer(ca, (req, res) => {
    const a = req.headers.authorization ?? '';
    echoHeaders.push(req.headers);
    res.writeHead(200, `seen ${a}`, { 'X-Seen': a, 'Content-Type': 'application/json' });
    res.end(`${JSON.stringify({ headers: req.headers })}\n`);
    return true;
  });
  d = await startDaemon({
    env: { AIRLOCK_TEST: '1', AIRLOCK_EGRESS_TEST_CA: ca.caFile, AIRLOCK_EGRESS_TEST_HOSTS: NAMES.map((n) => `${n}=127.0.0.1`).join(',') },
  });
  ui = await d.ui();
  const home = tempHome('bb10-h-');
  work = fs.mkdtempSync(path.join(home, 'proj-'));
  fs.copyFileSync(ca.caFile, path.join(work, 'test-ca.pem'));
  env = { ...d.env, HOME: home };
});
after(async () => {
  ui?.close();
  await d?.stop();
  await echo?.close();
});

interface Task {
  task: string;
  token: string;
  sock: string;
  caBundle: string;
  ph: Record<string, string>;
}

async function startTask(name: string, secrets: string[]): Promise<Task> {
  const agent = await d.agent();
  try {
    const r = await agent.call<{ task: string; token: string; egress: { sock: string; caBundle: string; placeholders: Record<string, string> } }>('task.start', { name, cwd: work, secrets });
    await ui.call('grants.create', { task: r.task, source: 'egress', action: 'transfer', resource: `{${NAMES.join(',')}}:*`, effect: 'allow' });
    return { task: r.task, token: r.token, sock: r.egress.sock, caBundle: r.egress.caBundle, ph: r.egress.placeholders };
  } finally {
    agent.close();
  }
}

const skip = (!hasBwrap && 'bwrap is not installed (apt install bubblewrap)') || (!hasTools && 'curl and base64 are needed');

describe('blackbox10: a secret\'s value never comes back to the sandbox', { skip }, () => {
  test('an echo of Basic credentials (curl -u, git\'s user:TOKEN@host) hands back the placeholder, not the value (the base64 the proxy made carried the value to the sandbox)', async () => {
    await ui.call('secrets.add', { name: 'GITHUB_TOKEN', value: TOKEN, hosts: ['api.example.test'], headers: ['Authorization'] });
    const t = await startTask('basic echo', ['GITHUB_TOKEN']);
    await ui.call('grants.create', { task: t.task, source: 'exec', action: '*', effect: 'allow' });
    const url = `https://api.example.test:${echo.port}/headers`;
    // The agent decodes every base64 word it got back: header, status line and body.
    const script = [
      `curl -sS -m 20 -D head.txt -o body.txt -u "x-access-token:$GITHUB_TOKEN" ${url}`,
      'cat head.txt body.txt',
      `for w in $(cat head.txt body.txt | tr -c 'A-Za-z0-9+/=' ' '); do printf '%s' "$w" | base64 -d 2>/dev/null; echo; done > decoded.txt`,
      'echo "decoded:"; cat decoded.txt',
    ].join(' && ');
    const r = await run(process.execPath, [CLI, 'exec', '--sandbox', '--task', t.task, '--shell', '--', script], { cwd: work, env: { ...env, AIRLOCK_TASK_TOKEN: t.token }, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const seen = echo.seen.at(-1)?.authorization ?? '';
    assert.equal(Buffer.from(seen.replace(/^Basic /, ''), 'base64').toString(), `x-access-token:${TOKEN}`, 'injected on its own host, inside the Basic credential');
    assert.match(r.stdout, /^HTTP\/1\.1 200 seen Basic /m, r.stdout);
    assert.ok(!r.stdout.includes(TOKEN), `the value reached the sandbox: ${r.stdout}`);
    assert.ok(r.stdout.includes(`x-access-token:${t.ph.GITHUB_TOKEN}`), `the echo decodes to the placeholder: ${r.stdout}`);
    assert.ok(!r.stdout.includes(Buffer.from(`x-access-token:${TOKEN}`).toString('base64')), 'the credential as sent upstream is not in what came back');
  });
});

describe('blackbox10: compression of what a secret\'s host answers', () => {
  test('a secret\'s host that compresses when the request names no encoding (RFC 9110: any coding is then acceptable) is asked for identity, so its echo is swapped back (the header was only dropped, and the gzip body carried the value)', async () => {
    const VALUE = 'gzip_REAL_value_0123456789abcdef';
    await ui.call('secrets.add', { name: 'GZIPPED', value: VALUE, hosts: ['api.example.test'], headers: ['authorization'] });
    const asked: (string | undefined)[] = [];
    // As RFC 9110 §12.5.3 allows: no Accept-Encoding means any coding is acceptable.
    const gz = await testHttpsServer(ca, (req, res) => {
      const ae = req.headers['accept-encoding'];
      asked.push(ae);
      const body = Buffer.from(`{"authorization":${JSON.stringify(req.headers.authorization ?? '')}}\n`);
      if (ae === undefined || /gzip|\*/.test(ae)) {
        res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' });
        res.end(zlib.gzipSync(body));
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(body);
      }
      return true;
    });
    try {
      const t = await startTask('compressing host', ['GZIPPED']);
      const ph = t.ph.GZIPPED!;
      for (const ae of [null, 'gzip, deflate, br']) {
        const s = await tlsInTunnel(t.sock, `api.example.test:${gz.port}`, 'api.example.test', t.caBundle);
        const back = await exchange(s, `GET /me HTTP/1.1\r\nHost: api.example.test:${gz.port}\r\nAuthorization: ${ph}\r\n${ae ? `Accept-Encoding: ${ae}\r\n` : ''}Connection: close\r\n\r\n`);
        assert.match(back, /^HTTP\/1\.1 200/, back);
        const raw = Buffer.from(responseBody(back), 'latin1');
        // The agent undoes whatever encoding came back.
        const body = /\r\ncontent-encoding: gzip\r\n/i.test(back) ? zlib.gunzipSync(raw).toString() : raw.toString();
        assert.ok(!body.includes(VALUE), `the value reached the sandbox (agent asked ${ae ?? 'no encoding'}): ${body}`);
        assert.ok(body.includes(ph), body);
      }
      assert.deepEqual(asked, ['identity', 'identity'], 'the proxy asks the secret\'s host for identity');
    } finally {
      await gz.close();
    }
  });
});

describe('blackbox10: the human narrowing a secret reaches a running task', () => {
  test('a secret replaced with fewer hosts or headers is no longer injected on the removed ones in a task already running (it was, until the task ended)', async () => {
    const VALUE = 'narrow_REAL_value_0123456789';
    await ui.call('secrets.add', { name: 'NARROWED', value: VALUE, hosts: NAMES, headers: ['authorization', 'x-api-key'] });
    const t = await startTask('narrowed while running', ['NARROWED']);
    const ph = t.ph.NARROWED!;
    const once = async (host: string, header: string) => {
      const before = echo.seen.length;
      const s = await tlsInTunnel(t.sock, `${host}:${echo.port}`, host, t.caBundle);
      const back = await exchange(s, `GET /narrow HTTP/1.1\r\nHost: ${host}:${echo.port}\r\n${header}: ${ph}\r\nConnection: close\r\n\r\n`);
      assert.ok(!back.includes(VALUE), `the value came back: ${back}`);
      assert.equal(echo.seen.length, before + 1, `one request reached ${host}`);
      return back;
    };
    // Before: injected on both hosts, in both headers (control).
    await once('old.example.test', 'Authorization');
    assert.equal(echo.seen.at(-1)?.authorization, VALUE);
    // The human keeps the value but takes a host and a header away.
    await ui.call('secrets.add', { name: 'NARROWED', value: VALUE, hosts: ['api.example.test'], headers: ['authorization'] });
    const listed = (await ui.call<{ secrets: { name: string; hosts: string[]; headers: string[] }[] }>('secrets.list', {})).secrets.find((s) => s.name === 'NARROWED');
    assert.deepEqual(listed?.hosts, ['api.example.test']);
    await once('old.example.test', 'Authorization');
    assert.equal(echo.seen.at(-1)?.authorization, ph, 'a host the human took away still got the value');
    await once('api.example.test', 'X-Api-Key');
    assert.equal(echoHeaders.at(-1)?.['x-api-key'], ph, 'a header the human took away still got the value');
    // The host and header that remain still get it (control).
    await once('api.example.test', 'Authorization');
    assert.equal(echo.seen.at(-1)?.authorization, VALUE);
  });
});

describe('blackbox10: a placeholder is recognised wherever it shows up', () => {
  test('another task\'s placeholder sent by this task is recorded as a leak and makes this task critical, to the secret\'s own host too, and is never injected (it went by unseen)', async () => {
    await ui.call('secrets.add', { name: 'SHARED', value: 'shared_REAL_value_0123456789', hosts: ['api.example.test'], headers: ['authorization'] });
    const a = await startTask('placeholder owner', ['SHARED']);
    const b = await startTask('placeholder thief', ['SHARED']);
    const theirs = a.ph.SHARED!;
    const s = await tlsInTunnel(b.sock, `api.example.test:${echo.port}`, 'api.example.test', b.caBundle);
    const back = await exchange(s, `GET /theirs HTTP/1.1\r\nHost: api.example.test:${echo.port}\r\nAuthorization: ${theirs}\r\nConnection: close\r\n\r\n`);
    assert.match(back, /^HTTP\/1\.1 200/, back);
    assert.equal(echo.seen.at(-1)?.authorization, theirs, 'another task\'s placeholder is never injected');
    const leaks = async () =>
      (await ui.call<{ events: { tool: string; summary: string; risk: { level: string } }[] }>('history.query', { task: b.task, limit: 100 })).events.filter((e) => e.tool === 'net.placeholder-leak');
    for (let i = 0; i < 200 && (await leaks()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    const leak = (await leaks())[0];
    assert.ok(leak, 'the other task\'s placeholder in this task\'s request is recorded');
    assert.equal(leak.risk.level, 'critical');
    assert.match(leak.summary, new RegExp(`SHARED of task ${a.task}`), leak.summary);
    // The owner's own use of it is no leak (control).
    const own = await tlsInTunnel(a.sock, `api.example.test:${echo.port}`, 'api.example.test', a.caBundle);
    await exchange(own, `GET /own HTTP/1.1\r\nHost: api.example.test:${echo.port}\r\nAuthorization: ${theirs}\r\nConnection: close\r\n\r\n`);
    assert.equal(echo.seen.at(-1)?.authorization, 'shared_REAL_value_0123456789');
    const ownEvents = (await ui.call<{ events: { tool: string }[] }>('history.query', { task: a.task, limit: 100 })).events;
    assert.ok(!ownEvents.some((e) => e.tool === 'net.placeholder-leak'), 'its own placeholder to its own host is no leak');
  });
});

