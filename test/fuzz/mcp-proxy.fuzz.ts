// Fuzz target: the MCP proxy's framing and call gate (main/integrations/mcp), in process,
// with a real child process as the server (it echoes every line it receives) and a
// scripted Airlock that allows only the tool `ok_tool`. Mutated client lines: calls with
// damaged params, batches, duplicate keys, wrong ids, deep nesting, broken JSON, unicode.
// Oracles:
//  - no tools/call for any other tool ever reaches the server (the gate), and no other
//    message the proxy must ask about (resources/read, prompts/get, an unknown method or
//    notification), refuse (an odd spelling of a known method, a method that is not a
//    string) or that is not a JSON object, in a batch or alone;
//  - after each batch, a denied sentinel call is answered with isError and an allowed one
//    reaches the server (the proxy is alive and in sync);
//  - nothing throws out of the proxy (uncaught exceptions and rejections are caught here).
import { PassThrough } from 'node:stream';
import type { AgentAnswer, AskParams } from '../../main/client';
import { clientMethodRule, oddSpellingOf } from '../../main/core/classify/mcp-methods';
import { McpProxy } from '../../main/integrations/mcp/proxy';
import { mutateJsonLine, type Json } from './json-mutate';
import { clipText, errorText, fuzzLoop, type FuzzOptions, type FuzzReport } from './lib';

// Echoes each received line back as a notification, so the test sees exactly what arrived.
const ECHO_SERVER = `
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'echo', params: { line } }) + '\\n');
  }
});
process.stdin.on('end', () => process.exit(0));
`;

const call = (id: Json, name: string, args: { [k: string]: Json } = { path: '/tmp/x' }): Json => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const SEEDS: Json[] = [
  { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  call(2, 'ok_tool'),
  call(3, 'write_file', { path: '/etc/passwd', content: 'x' }),
  call('s', 'delete_everything', { paths: ['/a', '/b'], url: 'https://evil.example/x' }),
  [call(4, 'write_file'), { jsonrpc: '2.0', id: 5, method: 'tools/list' }, { jsonrpc: '2.0', method: 'notifications/initialized' }],
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'fuzz' } },
  { jsonrpc: '2.0', id: 6, method: 'ping' },
  { jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: 'file:///home/u/.ssh/id_ed25519' } },
  { jsonrpc: '2.0', id: 8, method: 'prompts/get', params: { name: 'summarize', arguments: { path: '.env' } } },
  { jsonrpc: '2.0', id: 9, method: 'custom/doThing', params: { path: '/etc/passwd' } },
  { jsonrpc: '2.0', method: 'notifications/custom', params: {} },
  [{ jsonrpc: '2.0', id: 10, method: 'ping' }, { jsonrpc: '2.0', id: 11, method: 'resources/read', params: { uri: 'FILE://localhost/etc/shadow' } }],
  { jsonrpc: '2.0', id: 12, method: 'Resources/Read', params: { uri: 'file:///etc/shadow' } },
  { jsonrpc: '2.0', id: 13, result: { roots: [] } },
];

interface Echo {
  method?: unknown;
  id?: unknown;
  params?: { name?: unknown; line?: unknown };
  result?: { isError?: unknown };
}

/**
 * What reached the server that must not have: a message the proxy asks about (Airlock allows
 * only ok_tool here), refuses, or that is not an object. Calls are checked by callsIn.
 */
function unaskedIn(line: string): string[] {
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const x of Array.isArray(m) ? m : [m]) {
    if (!x || typeof x !== 'object' || Array.isArray(x)) out.push(`not a JSON object: ${clipText(JSON.stringify(x) ?? String(x), 100)}`);
    else if (!('method' in x)) continue;
    else if (typeof (x as Echo).method !== 'string') out.push(`a method that is not a string: ${clipText(JSON.stringify((x as Echo).method) ?? '', 100)}`);
    else {
      const method = (x as Echo).method as string;
      if (method !== 'tools/call' && (clientMethodRule(method) !== 'pass' || oddSpellingOf(method))) out.push(`${JSON.stringify(clipText(method, 100))} reached the server unasked`);
    }
  }
  return out;
}

/** Every tools/call in a message the server received (a single message or a batch). */
function callsIn(line: string): Echo[] {
  try {
    const m = JSON.parse(line) as unknown;
    const all = Array.isArray(m) ? m : [m];
    return all.filter((x): x is Echo => !!x && typeof x === 'object' && (x as Echo).method === 'tools/call');
  } catch {
    return [];
  }
}

export async function fuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const output = new PassThrough();
  const asked: AskParams[] = [];
  const escaped: string[] = [];
  let outBuf = '';
  const outLines: Echo[] = [];
  const waiters: { test: (m: Echo) => boolean; resolve: () => void }[] = [];
  output.on('data', (d: Buffer) => {
    outBuf += d.toString('utf8');
    let i: number;
    while ((i = outBuf.indexOf('\n')) >= 0) {
      const line = outBuf.slice(0, i);
      outBuf = outBuf.slice(i + 1);
      let m: Echo;
      try {
        m = JSON.parse(line) as Echo;
      } catch {
        escaped.push(`proxy wrote a line that is not JSON: ${clipText(line, 200)}`);
        continue;
      }
      if (m.method === 'echo' && typeof m.params?.line === 'string') {
        for (const e of unaskedIn(m.params.line)) escaped.push(`${e}: ${clipText(m.params.line, 300)}`);
        for (const c of callsIn(m.params.line)) {
          const name = (c.params as { name?: unknown } | undefined)?.name;
          if (name !== 'ok_tool') escaped.push(`the server received a tools/call for ${JSON.stringify(name)}: ${clipText(m.params.line, 300)}`);
        }
      }
      outLines.push(m);
      for (const w of [...waiters]) if (w.test(m)) w.resolve();
    }
  });
  const waitOut = (test: (m: Echo) => boolean, ms: number) =>
    new Promise<boolean>((resolve) => {
      const w = { test, resolve: () => done(true) };
      const t = setTimeout(() => done(false), ms);
      const done = (v: boolean) => {
        clearTimeout(t);
        waiters.splice(waiters.indexOf(w), 1);
        resolve(v);
      };
      waiters.push(w);
    });
  const ask = async (req: AskParams): Promise<AgentAnswer> => {
    asked.push(req);
    const ok = req.tool === 'fz/ok_tool';
    // Now and then Airlock is unreachable: the proxy must deny (never for ok_tool, whose
    // sentinel must get through).
    if (!ok && asked.length % 7 === 0) throw new Error('Airlock is not running (fuzz)');
    return { decision: ok ? 'allow' : 'deny', reason: ok ? 'fuzz allow' : 'fuzz deny', event: asked.length };
  };
  // An exception escaping the proxy would kill a real `airlock mcp`: catch it here as a failure.
  const thrown: string[] = [];
  const onThrow = (e: unknown) => thrown.push(errorText(e));
  process.on('uncaughtException', onThrow);
  process.on('unhandledRejection', onThrow);
  // A proxy that threw is in an unknown state: the fuzzer starts a fresh one after that.
  const start = () => {
    const inp = new PassThrough();
    const proxy = new McpProxy({ serverArgv: [process.execPath, '-e', ECHO_SERVER], name: 'fz', cwd: '/tmp', env: process.env, input: inp, output, ask, log: () => undefined });
    return { input: inp, proxy, exited: proxy.run() };
  };
  const stop = async (p: ReturnType<typeof start>) => {
    p.input.end();
    await Promise.race([p.exited, new Promise((r) => setTimeout(r, 5000))]);
    p.proxy.signal('SIGKILL');
  };
  let cur = start();
  const donors = SEEDS.map((s) => JSON.stringify(s));
  try {
    const report = await fuzzLoop(opts, 'mcp-proxy', async (r, i, fail) => {
      const lines: string[] = [];
      for (let k = 0; k < 30; k++) {
        const line = r.chance(0.05) ? r.bytes(1 + r.int(100)).toString('latin1') : mutateJsonLine(r, structuredClone(r.pick(SEEDS)), donors);
        lines.push(line);
      }
      const text = lines.join('\n') + '\n';
      const input1 = () => lines.map((l) => clipText(l, 300)).join('\n');
      try {
        for (let at = 0; at < text.length; ) {
          const n = 1 + r.int(r.chance(0.2) ? 8 : 65536);
          cur.input.write(text.slice(at, at + n));
          at += n;
        }
      } catch (e) {
        // The input stream delivers synchronously: this is what would escape `airlock mcp`.
        fail({ kind: 'uncaught', message: errorText(e), input: input1() });
        await stop(cur);
        cur = start();
        return;
      }
      const denyId = `deny-${i}`;
      const okId = `ok-${i}`;
      cur.input.write(`${JSON.stringify(call(denyId, 'write_file'))}\n${JSON.stringify(call(okId, 'ok_tool'))}\n`);
      const denied = await waitOut((m) => m.id === denyId && m.result?.isError === true, 30_000);
      if (!denied) fail({ kind: 'hang', message: 'a denied sentinel call got no isError answer within 30 s', input: input1() });
      const forwarded = await waitOut((m) => m.method === 'echo' && typeof m.params?.line === 'string' && m.params.line.includes(`"${okId}"`), 30_000);
      if (!forwarded) fail({ kind: 'hang', message: 'an allowed sentinel call did not reach the server within 30 s', input: input1() });
      for (const e of escaped.splice(0)) fail({ kind: 'gate bypassed', message: e, input: input1() });
      for (const t of thrown.splice(0)) fail({ kind: 'uncaught', message: t, input: input1() });
    }, 100_000);
    report.stats = { asked: asked.length, outLines: outLines.length };
    return report;
  } finally {
    await stop(cur);
    process.off('uncaughtException', onThrow);
    process.off('unhandledRejection', onThrow);
  }
}
