// Bytes the daemon allocates per granted ed25519 signature, by function (issue 15: the GC part
// of the signature tail). Runs the daemon with --inspect on 127.0.0.1, starts V8's sampling heap
// profiler over the inspector protocol with objects already collected included (garbage is
// what makes scavenges; `node --heap-prof` keeps only what is still alive at exit), sends N
// signatures on one connection, and prints bytes per signature in all and per function.
// Not a bench of its own (no baseline): `node dist/test/bench/heap-sign.js [N] [--cli DIST/main/cli/index.js]`.
import * as http from 'node:http';
import * as path from 'node:path';
import WebSocket from 'ws';
import { RawAgentClient, makeKey } from '../helpers/ssh';
import { startDaemon, tempHome } from '../helpers/daemon';
import { grantSigning, signRequestBody } from './granted-sign';


interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

function getJson(url: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (r) => {
        let body = '';
        r.on('data', (d: Buffer) => (body += d.toString()));
        r.on('end', () => resolve(JSON.parse(body)));
      })
      .on('error', reject);
  });
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 3000);
  const cliAt = process.argv.indexOf('--cli');
  const cli = cliAt > 0 ? path.resolve(process.argv[cliAt + 1]!) : undefined;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const d = await startDaemon({ nodeArgs: [`--inspect=127.0.0.1:${port}`], ...(cli ? { cli } : {}) });
  try {
    const file = await makeKey(tempHome('al-heapk-'), 'ed25519', ['-t', 'ed25519']);
    await grantSigning(d, file, 'profile');
    const body = signRequestBody(file);
    const c = await RawAgentClient.connect(d.agentSock);
    for (let i = 0; i < 300; i++) await c.request(body, 10_000); // warm-up
    const [target] = (await getJson(`http://127.0.0.1:${port}/json/list`)) as { webSocketDebuggerUrl: string }[];
    const ws = new WebSocket(target!.webSocketDebuggerUrl);
    await new Promise((r) => ws.once('open', r));
    let nextId = 0;
    const pending = new Map<number, (result: unknown) => void>();
    ws.on('message', (m: Buffer) => {
      const x = JSON.parse(m.toString()) as { id?: number; result?: unknown };
      if (x.id !== undefined) pending.get(x.id)?.(x.result);
    });
    const call = (method: string, params: object = {}) =>
      new Promise<unknown>((resolve) => {
        const id = ++nextId;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      });
    await call('HeapProfiler.enable');
    await call('HeapProfiler.startSampling', { samplingInterval: 128, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    for (let i = 0; i < n; i++) await c.request(body, 10_000);
    const { profile } = (await call('HeapProfiler.stopSampling')) as { profile: { head: HeapNode } };
    ws.close();
    c.close();
    const byFunction = new Map<string, number>();
    let total = 0;
    const walk = (node: HeapNode): void => {
      const f = node.callFrame;
      const name = `${f.functionName || '(anonymous)'} ${path.basename(f.url)}:${f.lineNumber + 1}`;
      if (node.selfSize) byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
      total += node.selfSize;
      node.children.forEach(walk);
    };
    walk(profile.head);
    process.stdout.write(`${(total / n).toFixed(0)} B allocated per granted signature (n=${n})\n`);
    for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30)) process.stdout.write(`${(bytes / n).toFixed(0).padStart(7)} B  ${name}\n`);
  } finally {
    await d.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
