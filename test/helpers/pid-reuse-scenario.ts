// Run as pid 1 of a fresh pid namespace (unshare -Urpf --mount-proc), where the test may
// choose the next pid (/proc/sys/kernel/ns_last_pid): process A connects to a private
// socket whose per-process cap is 1, hands its connection to a child and exits; process B,
// given A's pid, then connects twice. Prints one JSON line of what each got.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { closePrivate, listenPrivate } from '../../main/os/private-socket';

const CLIENT = `
const net = require('node:net');
const { spawn } = require('node:child_process');
const [sock, mode] = process.argv.slice(1);
const got = [];
function connect() {
  return new Promise((resolve) => {
    const c = net.connect(sock);
    let text = '';
    c.on('data', (d) => { text += d; if (text.includes('\\n')) resolve({ c, line: text.trim() }); });
    c.on('close', () => resolve({ c, line: text.trim() || 'closed' }));
    c.on('error', () => undefined);
    // Generous: the server answers at once normally; a loaded machine can hold it up.
    setTimeout(() => resolve({ c, line: text.trim() || 'silent' }), 20000);
  });
}
(async () => {
  if (mode === 'handoff') {
    const { c, line } = await connect();
    // The connection lives on in a child after this process exits.
    const child = spawn('sleep', ['20'], { stdio: ['ignore', 'ignore', 'ignore', c], detached: true });
    child.unref();
    process.stdout.write(JSON.stringify({ pid: process.pid, lines: [line] }) + '\\n');
    process.exit(0);
  }
  const a = await connect();
  const b = await connect();
  process.stdout.write(JSON.stringify({ pid: process.pid, lines: [a.line, b.line] }) + '\\n');
  process.exit(0);
})();
`;

function run(sock: string, mode: string): Promise<{ pid: number; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['-e', CLIENT, sock, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', () => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as { pid: number; lines: string[] });
      } catch {
        reject(new Error(`client ${mode} printed ${JSON.stringify(out)}`));
      }
    });
  });
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-pid-reuse-'));
  const sock = path.join(dir, 'run', 'request.sock');
  const server = await listenPrivate(sock, {
    onPeer: (s) => {
      s.on('error', () => undefined);
      s.write('accepted\n');
    },
    onForeign: () => undefined,
    refusal: () => 'refused\n',
    limits: { perSocket: 16, perPeer: 1 },
  });
  const a = await run(sock, 'handoff');
  // B must get A's pid: the next pid after ns_last_pid. A few tries, as this process's own
  // threads may take a pid in between.
  let b: { pid: number; lines: string[] } | undefined;
  for (let i = 0; i < 5 && b?.pid !== a.pid; i++) {
    fs.writeFileSync('/proc/sys/kernel/ns_last_pid', String(a.pid - 1));
    b = await run(sock, 'twice');
  }
  process.stdout.write(JSON.stringify({ a, b }) + '\n');
  await closePrivate(server, sock);
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

void main().catch((e: unknown) => {
  process.stdout.write(JSON.stringify({ error: String(e) }) + '\n');
  process.exit(1);
});
