// A flood of connections from ANOTHER process (so the test process stays an ordinary,
// separate client): opens `count` connections to a Unix socket, optionally writes `send`
// on each, and reports how many the daemon kept open, how many it closed, and what it said
// to the closed ones. The connections stay open until stop(). Every wait is bounded.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface Flood {
  pid: number;
  /** Connections still open after the settle time. */
  open: number;
  /** Connections the daemon closed. */
  closed: number;
  /** Lines the daemon sent on them, in all. */
  lines: number;
  /** Distinct lines the daemon sent on them (its refusals), the first 20. */
  said: string[];
  /** Sends `text` on every open connection; resolves with the new report after `settleMs`. */
  send(text: string, settleMs?: number): Promise<{ open: number; closed: number; lines: number; said: string[] }>;
  /** Closes every connection and ends the process. */
  stop(): Promise<void>;
}

const SCRIPT = `
const net = require('net');
const [sock, count, first, settle] = [process.argv[1], Number(process.argv[2]), process.argv[3], Number(process.argv[4])];
const conns = []; let closed = 0; let lines = 0; const said = new Set();
const report = () => process.stdout.write(JSON.stringify({ open: conns.filter((c) => !c.destroyed && !c.ended).length, closed, lines, said: [...said].slice(0, 20) }) + '\\n');
let connected = 0; let reported = false;
const firstReport = () => { if (!reported) { reported = true; report(); } };
for (let i = 0; i < count; i++) {
  const c = net.createConnection(sock);
  c.ended = false;
  c.on('error', () => undefined);
  c.buf = '';
  c.on('data', (d) => { c.buf += d.toString('utf8'); const parts = c.buf.split('\\n'); c.buf = parts.pop(); for (const l of parts) { lines++; said.add(l.slice(0, 400)); } });
  c.on('close', () => { c.ended = true; closed++; });
  c.on('connect', () => { if (first) c.write(first); if (++connected === count) setTimeout(firstReport, settle); });
  conns.push(c);
}
setTimeout(firstReport, 20000);
// One command per line: a long one (garbage spam) can arrive in several reads.
let pending = '';
process.stdin.on('data', (d) => {
  pending += d.toString('utf8');
  let i;
  while ((i = pending.indexOf('\\n')) >= 0) {
    const cmd = JSON.parse(pending.slice(0, i));
    pending = pending.slice(i + 1);
    for (const c of conns) if (!c.ended) c.write(cmd.send);
    setTimeout(report, cmd.settle);
  }
});
process.stdin.on('end', () => { for (const c of conns) c.destroy(); process.exit(0); });
`;

export async function floodConnections(sock: string, count: number, opts: { first?: string; settleMs?: number } = {}): Promise<Flood> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['-e', SCRIPT, sock, String(count), opts.first ?? '', String(opts.settleMs ?? 500)]);
  let buf = '';
  const waiters: ((r: { open: number; closed: number; lines: number; said: string[] }) => void)[] = [];
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      waiters.shift()?.(JSON.parse(line) as { open: number; closed: number; lines: number; said: string[] });
    }
  });
  const next = () =>
    new Promise<{ open: number; closed: number; lines: number; said: string[] }>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('the flood process did not report in 30 s')), 30_000);
      waiters.push((r) => {
        clearTimeout(t);
        resolve(r);
      });
    });
  const first = await next();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const flood: Flood = {
    pid: child.pid!,
    ...first,
    async send(text, settleMs = 500) {
      const r = next();
      child.stdin.write(JSON.stringify({ send: text, settle: settleMs }) + '\n');
      return r;
    },
    async stop() {
      child.stdin.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
  return flood;
}
