// Egress (issue 16): the latency an allowed HTTPS request gains by going through Airlock's
// egress proxy, against the same request made directly, in the same run. Each request is
// what one `curl https://…` does: a new TCP connection, TLS, GET, the whole answer, close.
// - direct: the client connects to the test server on 127.0.0.1;
// - tunnel: through the sandbox relay (RELAY_SOURCE, run as in a sandbox but without bwrap,
//   whose start-up is not per request) → the task's egress.sock → CONNECT allowed by a task
//   grant → the server; TLS end to end, untouched;
// - intercepted: the same, for a task whose secret belongs to that host: the proxy ends TLS
//   with the task's CA, swaps the placeholder for the value, and talks TLS upstream.
// The three are interleaved request by request, so load on a shared machine hits all alike.
//   EGRESS_N=100  shorten a run
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { RELAY_SOURCE } from '../../main/integrations/egress/relay';
import { startDaemon, tempHome } from '../helpers/daemon';
import { makeTestCa, testHttpsServer } from '../helpers/tls-server';
import { fmt, mdTable, nowMs, ratio, summarize, type BenchResult } from './stats';

const N = Number(process.env.EGRESS_N ?? 300);
const WARMUP = 20;
const HOST = 'api.example.test';
const progress = (m: string) => process.stderr.write(`egress: ${m}\n`);

/** GET over a TLS socket with Connection: close; resolves with the whole answer (bounded). */
function get(socket: tls.TLSSocket, port: number, headers = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const t = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer in 10 s'));
    }, 10_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e) => {
      clearTimeout(t);
      reject(e);
    });
    socket.on('close', () => {
      clearTimeout(t);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    socket.write(`GET /bench HTTP/1.1\r\nHost: ${HOST}:${port}\r\n${headers}Connection: close\r\n\r\n`);
  });
}

/** `ca` as a context made once: parsing a bundle with the system store takes ~30 ms, per connection if passed as `ca`. */
function tlsOver(opts: { socket?: net.Socket; port?: number; ca: tls.SecureContext }): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = opts.socket
      ? tls.connect({ socket: opts.socket, servername: HOST, secureContext: opts.ca })
      : tls.connect({ host: '127.0.0.1', port: opts.port!, servername: HOST, secureContext: opts.ca });
    s.once('secureConnect', () => resolve(s));
    s.once('error', reject);
  });
}

/** A CONNECT through the relay's loopback port; resolves with the open tunnel. */
function connectVia(relayPort: number, target: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(relayPort, '127.0.0.1');
    let head = '';
    const onData = (c: Buffer) => {
      head += c.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      s.off('data', onData);
      if (!/^HTTP\/1\.[01] 200/.test(head)) return reject(new Error(`proxy refused: ${head.split('\r\n')[0]}`));
      if (end + 4 < head.length) s.unshift(Buffer.from(head.slice(end + 4), 'latin1'));
      resolve(s);
    };
    s.on('data', onData);
    s.once('error', reject);
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

/** The sandbox relay for a task's egress.sock, outside bwrap; resolves with its port. */
function startRelay(sock: string): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', RELAY_SOURCE, '--', sock, '', process.execPath, '-e', 'process.stdout.write(process.env.AIRLOCK_EGRESS_PROXY + "\\n"); process.stdin.resume()'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /:(\d+)\n/.exec(out);
      if (m) resolve({ port: Number(m[1]), child });
    });
    child.once('exit', (code) => reject(new Error(`relay exited with ${code}`)));
  });
}

export async function run(): Promise<BenchResult> {
  const caDir = tempHome('al-bench-ca-');
  const ca = makeTestCa(caDir, [HOST, 'localhost']);
  const caPem = tls.createSecureContext({ ca: fs.readFileSync(ca.caFile, 'utf8') });
  let secretSeen = 0;
  const server = await testHttpsServer(ca, (req, res) => {
    if (req.headers.authorization === 'Bearer bench-secret-value') secretSeen++;
    res.end('ok\n');
    return true;
  });
  const d = await startDaemon({ env: { AIRLOCK_TEST: '1', AIRLOCK_EGRESS_TEST_CA: ca.caFile, AIRLOCK_EGRESS_TEST_HOSTS: `${HOST}=127.0.0.1` } });
  const relays: ChildProcess[] = [];
  try {
    const ui = await d.ui();
    await ui.call('secrets.add', { name: 'BENCH_TOKEN', value: 'bench-secret-value', hosts: [HOST], headers: ['Authorization'] });
    const agent = await d.agent();
    type Started = { task: string; egress: { sock: string; caBundle: string | null; placeholders: Record<string, string> } };
    const plain = await agent.call<Started>('task.start', { name: 'bench: tunnel' });
    const secret = await agent.call<Started>('task.start', { name: 'bench: intercepted', secrets: ['BENCH_TOKEN'] });
    agent.close();
    for (const t of [plain, secret]) await ui.call('grants.create', { task: t.task, source: 'egress', action: 'transfer', resource: `${HOST}:${server.port}`, effect: 'allow' });
    ui.close();
    const r1 = await startRelay(plain.egress.sock);
    const r2 = await startRelay(secret.egress.sock);
    relays.push(r1.child, r2.child);
    const bundle = tls.createSecureContext({ ca: fs.readFileSync(secret.egress.caBundle!, 'utf8') });
    const placeholder = secret.egress.placeholders.BENCH_TOKEN!;
    const target = `${HOST}:${server.port}`;

    const direct = async () => get(await tlsOver({ port: server.port, ca: caPem }), server.port);
    const tunnel = async () => get(await tlsOver({ socket: await connectVia(r1.port, target), ca: caPem }), server.port);
    const intercepted = async () => get(await tlsOver({ socket: await connectVia(r2.port, target), ca: bundle }), server.port, `Authorization: Bearer ${placeholder}\r\n`);
    const ways = { direct, tunnel, intercepted };
    const samples: Record<keyof typeof ways, number[]> = { direct: [], tunnel: [], intercepted: [] };
    for (let i = 0; i < WARMUP + N; i++) {
      for (const k of Object.keys(ways) as (keyof typeof ways)[]) {
        const t0 = nowMs();
        const answer = await ways[k]();
        const ms = nowMs() - t0;
        if (!/^HTTP\/1\.1 200 /.test(answer) || !/\r\n\r\n(3\r\n)?ok\n/.test(answer)) throw new Error(`${k} request ${i} failed: ${answer.slice(0, 200)}`);
        if (i >= WARMUP) samples[k].push(ms);
      }
      if (i % 100 === 0) progress(`${i} of ${WARMUP + N}`);
    }
    if (secretSeen !== WARMUP + N) throw new Error(`the secret reached the server ${secretSeen} times, not ${WARMUP + N}`);
    const s = { direct: summarize(samples.direct), tunnel: summarize(samples.tunnel), intercepted: summarize(samples.intercepted) };
    const markdown = [
      `One allowed HTTPS GET per new connection (TCP, TLS, request, answer, close), as \`curl https://…\` does; ${N.toLocaleString('en')} of each, interleaved, after ${WARMUP} warm-up rounds. The server is on 127.0.0.1 with its own test CA.`,
      `"Through the proxy" runs the sandbox's relay (without bwrap) → the task's egress.sock → a CONNECT decided by a task grant (recorded in history) → the server.`,
      '',
      mdTable(['path', 'p50', 'p50 − direct', 'p50 ÷ direct', 'p99', 'p99 ÷ direct'], [
        ['direct (baseline)', fmt(s.direct.p50), '—', '1.00×', fmt(s.direct.p99), '1.00×'],
        ['through the proxy, TLS untouched', fmt(s.tunnel.p50), fmt(s.tunnel.p50 - s.direct.p50), ratio(s.tunnel.p50, s.direct.p50), fmt(s.tunnel.p99), ratio(s.tunnel.p99, s.direct.p99)],
        ['through the proxy, secret injected (TLS intercepted with the task CA)', fmt(s.intercepted.p50), fmt(s.intercepted.p50 - s.direct.p50), ratio(s.intercepted.p50, s.direct.p50), fmt(s.intercepted.p99), ratio(s.intercepted.p99, s.direct.p99)],
      ]),
      '',
      'The added latency is one decision round trip (a grant match and a history commit) plus two local hops; interception adds a second TLS handshake and an HTTP parse on each side (the leaf for a host is made once per task, and the upstream trust store is parsed once per task, not per request). Clients here load their CA bundle once, as a long-running agent does; curl loads its bundle once per run.',
    ].join('\n');
    return {
      title: 'Egress proxy: an allowed HTTPS request through the proxy vs direct',
      markdown,
      figures: {
        directP50: s.direct.p50,
        tunnelP50: s.tunnel.p50,
        interceptedP50: s.intercepted.p50,
        tunnelAddedMs: s.tunnel.p50 - s.direct.p50,
        interceptedAddedMs: s.intercepted.p50 - s.direct.p50,
      },
    };
  } finally {
    for (const c of relays) {
      c.stdin?.end();
      c.kill();
    }
    await d.stop();
    await server.close();
    fs.rmSync(d.home, { recursive: true, force: true });
    fs.rmSync(caDir, { recursive: true, force: true });
  }
}
