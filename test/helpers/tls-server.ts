// A test CA (openssl) and an HTTPS server on 127.0.0.1 that records every request it
// gets: which Host, which Authorization. The egress tests point the daemon at this CA
// through AIRLOCK_EGRESS_TEST_CA (honoured only with AIRLOCK_TEST=1).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import type * as net from 'node:net';
import * as path from 'node:path';

export interface TestCa {
  dir: string;
  caFile: string;
  key: string;
  cert: string;
}

/** A CA and one server certificate for `names` (DNS names; 127.0.0.1 is added as an IP). */
export function makeTestCa(dir: string, names: string[]): TestCa {
  const o = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  o('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=airlock egress test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
  o('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', `/CN=${names[0]}`);
  fs.writeFileSync(path.join(dir, 'ext.cnf'), `subjectAltName=${[...names.map((n) => `DNS:${n}`), 'IP:127.0.0.1'].join(',')}\nextendedKeyUsage=serverAuth\n`);
  o('x509', '-req', '-in', 'srv.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'srv.pem', '-days', '2', '-extfile', 'ext.cnf');
  return { dir, caFile: path.join(dir, 'ca.pem'), key: fs.readFileSync(path.join(dir, 'srv.key'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'srv.pem'), 'utf8') };
}

export interface Seen {
  host: string;
  method: string;
  url: string;
  authorization: string | null;
  body: string;
}

export interface TestHttps {
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

/** Answers `ok <host> <path>` (or `handler`'s answer) and records each request. */
export async function testHttpsServer(ca: TestCa, handler?: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, body: Buffer) => boolean): Promise<TestHttps> {
  const seen: Seen[] = [];
  const sockets = new Set<net.Socket>();
  const server = https.createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ host: req.headers.host ?? '', method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization ?? null, body: body.toString('utf8') });
      if (handler && handler(req, res, body)) return;
      res.end(`ok ${req.headers.host} ${req.url}\n`);
    });
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
