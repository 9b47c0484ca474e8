// A 127.0.0.1 listener that counts connections, and a one-line Node probe that tries to
// reach it: how sandbox tests tell "network on" from "network off".
import * as net from 'node:net';

export interface CountingServer {
  port: number;
  connections(): number;
  close(): void;
}

/** Answers every connection with `reply` (or just closes it) and counts them. */
export async function countingServer(reply = ''): Promise<CountingServer> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.end(reply);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as net.AddressInfo).port, connections: () => n, close: () => server.close() };
}

/** `node -e` source that prints `words.on` and exits `exits.on` when it connects, else prints `words.off` and exits `exits.off`. */
export function netProbe(port: number, words: { on: string; off: string }, exits: { on: number; off: number }): string {
  return `require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('${words.on}');process.exit(${exits.on})}).on('error',()=>{console.log('${words.off}');process.exit(${exits.off})})`;
}
