// What a hostile agent in a sandbox can send through its egress proxy, byte for byte.
// The relay inside the sandbox (main/integrations/egress/relay.ts) only pipes bytes to the
// task's egress.sock, so talking to egress.sock directly is what any client in the
// sandbox can do, without the cost of a sandbox per attempt. Plus a raw upstream that
// records exactly the bytes it gets (a Node server would parse them for us and hide a
// second Host line or a smuggled request).
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { TestCa } from './tls-server';

/** A connection to egress.sock; `text()` is everything it received (latin1). */
export interface Raw {
  sock: net.Socket;
  text(): string;
  closed(): boolean;
}

function collect(sock: net.Socket): Raw {
  let text = '';
  let closed = false;
  sock.on('data', (b: Buffer) => (text += b.toString('latin1')));
  sock.on('close', () => (closed = true));
  sock.on('error', () => undefined);
  return { sock, text: () => text, closed: () => closed };
}

async function until(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Sends `bytes` on a fresh egress.sock connection; resolves with what came back once it closed (or after `waitMs`). */
export async function rawExchange(sockPath: string, bytes: string, waitMs = 15_000): Promise<string> {
  const sock = net.connect(sockPath);
  const r = collect(sock);
  await new Promise<void>((ok, ko) => sock.once('connect', ok).once('error', ko));
  sock.write(bytes, 'latin1');
  await until(() => r.closed(), 'the proxy to answer and close', waitMs).catch(() => undefined);
  sock.destroy();
  return r.text();
}

/** CONNECT through egress.sock; resolves with the socket once the proxy said 200, or rejects with its answer. */
export async function connectTunnel(sockPath: string, authority: string, timeoutMs = 15_000): Promise<net.Socket> {
  const sock = net.connect(sockPath);
  sock.on('error', () => undefined);
  await new Promise<void>((ok, ko) => sock.once('connect', ok).once('error', ko));
  sock.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  let head = '';
  await new Promise<void>((ok, ko) => {
    const t = setTimeout(() => ko(new Error(`no answer to CONNECT ${authority}`)), timeoutMs);
    const onData = (b: Buffer) => {
      head += b.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      clearTimeout(t);
      sock.off('data', onData);
      if (/^HTTP\/1\.1 200/.test(head)) ok();
      else ko(new Error(head));
    };
    sock.on('data', onData);
  });
  return sock;
}

/** TLS inside a CONNECT tunnel, trusting the task's CA bundle (as the sandbox's clients do). */
export async function tlsInTunnel(sockPath: string, authority: string, servername: string, caBundle: string, alpn?: string[]): Promise<tls.TLSSocket> {
  const socket = await connectTunnel(sockPath, authority);
  const t = tls.connect({ socket, servername, ca: fs.readFileSync(caBundle), ...(alpn ? { ALPNProtocols: alpn } : {}) });
  t.on('error', () => undefined);
  await new Promise<void>((ok, ko) => t.once('secureConnect', ok).once('error', ko));
  return t;
}

/** Writes `bytes` on a socket; resolves with all it received once it closed or `waitMs` passed. */
export async function exchange(sock: net.Socket, bytes: string, waitMs = 3000): Promise<string> {
  const r = collect(sock);
  sock.write(bytes, 'latin1');
  await until(() => r.closed(), 'the other side to close', waitMs).catch(() => undefined);
  sock.destroy();
  return r.text();
}

/** The body of one raw HTTP/1.1 response, chunked encoding undone. */
export function responseBody(raw: string): string {
  const at = raw.indexOf('\r\n\r\n');
  if (at < 0) return '';
  const head = raw.slice(0, at);
  let rest = raw.slice(at + 4);
  if (!/\r\ntransfer-encoding: chunked/i.test(head)) return rest;
  let body = '';
  for (let i = 0; i < 10_000; i++) {
    const nl = rest.indexOf('\r\n');
    const size = nl < 0 ? 0 : parseInt(rest.slice(0, nl), 16);
    if (!size) break;
    body += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
  return body;
}

export interface RawUpstream {
  port: number;
  /** What each connection sent, in full (latin1). */
  got: string[];
  close(): void;
}

/**
 * A server (TLS with the test CA's certificate, or plain) that records every byte and,
 * 300 ms after a header block arrived, answers one `200 ok` and closes: time for anything
 * sent after the first request (a smuggled one) to arrive too.
 */
export async function rawUpstream(ca: TestCa | null): Promise<RawUpstream> {
  const got: string[] = [];
  const sockets = new Set<net.Socket>();
  const onConn = (s: net.Socket) => {
    sockets.add(s);
    const i = got.push('') - 1;
    let answered = false;
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
    s.on('data', (b: Buffer) => {
      got[i] += b.toString('latin1');
      if (answered || !got[i]!.includes('\r\n\r\n')) return;
      answered = true;
      setTimeout(() => s.end('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n'), 300);
    });
  };
  const server = ca ? tls.createServer({ key: ca.key, cert: ca.cert }, onConn) : net.createServer(onConn);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    got,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
