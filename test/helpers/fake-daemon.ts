// A socket the test owns in the daemon's place, in a private directory (so every client's
// socket-trust check accepts it): what a client sends, and what it does with each kind of
// answer — garbage, another id, silence, a close half way — is seen from the daemon's side.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export interface FakeDaemon {
  dir: string;
  /** `<dir>/request.sock`. */
  sock: string;
  /** Every line the clients sent, in order. */
  lines: string[];
  connections: () => number;
  close(): void;
}

/** Listens at `<private dir>/request.sock`, calling `reply` with each line a client sends. */
export async function fakeDaemon(reply: (line: string, s: net.Socket) => void): Promise<FakeDaemon> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-fake-'));
  const sock = path.join(dir, 'request.sock');
  const lines: string[] = [];
  const open = new Set<net.Socket>();
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    open.add(s);
    s.on('close', () => open.delete(s));
    let buf = Buffer.alloc(0);
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a)) {
        const line = buf.subarray(0, i).toString('utf8');
        buf = buf.subarray(i + 1);
        lines.push(line);
        reply(line, s);
      }
    });
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(sock, r));
  return {
    dir,
    sock,
    lines,
    connections: () => n,
    close: () => {
      // A client left waiting (a fake that never answers) must not keep the test's process alive.
      for (const s of open) s.destroy();
      server.close();
    },
  };
}
