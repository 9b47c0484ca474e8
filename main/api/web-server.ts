// Web mode (`airlock serve --web`): the renderer over HTTP on 127.0.0.1 and the
// ApproverService over a WebSocket (JSON-RPC, one message per frame, notifications
// pushed), for machines without a desktop — reach it from a laptop with
// `ssh -L PORT:127.0.0.1:PORT`. Static files are public (they hold no data); /ws and
// /api/rpc need the token, which is printed in the URL and kept 0600 in Airlock's home
// (main/os/web-state.ts) so an open tab reconnects after a restart.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { approverMethods } from '../contract/approver';
import { LIMITS } from '../contract/common';
import type { NotificationSource, RejectedAttempt } from '../core/ports';
import { CONTENT_TYPES, HARDENING_HEADERS, contentSecurityPolicy } from './csp';
import { createDispatch, type Dispatch, type Handlers } from './dispatch';
import { handleRpcMessage, rateLimited, rejectionRow, type RpcRejection } from './rpc-message';
import { bearerToken, checkHostAndOrigin, newNonce, newToken, tokenMatches, webProof } from './web-guard';
import { isWebProofNonce, WEB_PROOF_CHALLENGE, WEB_PROOF_METHOD } from '../../shared/web-proof';

export interface WebServerOptions {
  /** The built renderer (`$AIRLOCK_OUT/app`). */
  appDir: string;
  service: Handlers<typeof approverMethods> & NotificationSource;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Tried first when `port` is 0 (the last run's port, so an open tab finds the daemon again); a free port if it is taken. */
  preferredPort?: number | null;
  /** The token to require (kept across restarts, main/os/web-state.ts); a new one when absent. */
  token?: string;
  /** Records refused attempts in history (rate-limited here). */
  onReject?(r: RejectedAttempt): void;
}

export interface RunningWebServer {
  port: number;
  token: string;
  /** http://127.0.0.1:PORT/#token=… — print it once (the token is kept 0600 in web.json, never in history). */
  url: string;
  close(): Promise<void>;
}

/** A client that never reads cannot make the daemon buffer without bound. */
const MAX_BUFFERED_OUT = 16 * 1024 * 1024;
/** Sockets still owing their proof (shared/web-proof.ts): at most this many, each for at most PROOF_MS. */
const MAX_UNPROVEN = 32;
const PROOF_MS = 10_000;

export async function startWebServer(opts: WebServerOptions): Promise<RunningWebServer> {
  const token = opts.token ?? newToken();
  const dispatch: Dispatch = createDispatch(approverMethods, opts.service);
  const record = rateLimited(opts.onReject);
  const appDir = path.resolve(opts.appDir);
  let port = 0;
  let csp = contentSecurityPolicy();

  const rejectRpc = { onReject: (r: RpcRejection) => record(rejectionRow('web', 'the web UI', 'message', r)) };

  const baseHeaders = (): Record<string, string> => ({ 'Content-Security-Policy': csp, ...HARDENING_HEADERS });

  function deny(res: http.ServerResponse, status: number, text: string): void {
    res.writeHead(status, { ...baseHeaders(), 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(text + '\n');
  }

  async function serveStatic(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return deny(res, 405, 'method not allowed');
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      // A malformed %-escape is the client's mistake: 400, not an internal error.
      return deny(res, 400, 'bad request: malformed %-escape in the path');
    }
    const rel = pathname === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
    const file = path.resolve(appDir, rel);
    if (file !== appDir && !file.startsWith(appDir + path.sep)) return deny(res, 404, 'not found');
    let body: Buffer;
    try {
      body = await fs.promises.readFile(file);
    } catch {
      if (rel === 'index.html') return deny(res, 503, `the renderer is not built (${appDir} is missing): run npm run build`);
      return deny(res, 404, 'not found');
    }
    const type = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
    // Hashed assets never change; index.html must always be fresh (it names the hashes).
    const cache = rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-store';
    res.writeHead(200, { ...baseHeaders(), 'Content-Type': type, 'Content-Length': body.length, 'Cache-Control': cache });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  async function serveApi(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<void> {
    if (!tokenMatches(token, bearerToken(req.headers.authorization))) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="airlock"');
      return deny(res, 401, 'unauthorized: send Authorization: Bearer <token printed by airlock serve --web>');
    }
    if (pathname !== '/api/rpc') return deny(res, 404, 'not found: the API is POST /api/rpc (one JSON-RPC request)');
    if (req.method !== 'POST') return deny(res, 405, 'method not allowed: POST a JSON-RPC request');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > LIMITS.lineBytes) return deny(res, 413, `request larger than ${LIMITS.lineBytes} bytes refused`);
      chunks.push(c);
    }
    const reply = await handleRpcMessage(Buffer.concat(chunks).toString('utf8'), dispatch, { ...rejectRpc, answerNotificationErrors: true });
    res.writeHead(200, { ...baseHeaders(), 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify(reply ?? { jsonrpc: '2.0', id: null, result: null }));
  }

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const verdict = checkHostAndOrigin(port, req.headers.host, req.headers.origin);
    if (!verdict.ok) return deny(res, verdict.status, verdict.reason);
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    // A plain GET of /ws (not an upgrade) is an API call without the protocol: same token rule.
    const isApi = pathname === '/api' || pathname.startsWith('/api/') || pathname === '/ws';
    (isApi ? serveApi : serveStatic)(req, res, pathname).catch((e: unknown) => {
      if (!res.headersSent) deny(res, 500, `internal error: ${(e as Error).message}`);
      else res.destroy();
    });
  };
  // The same door on [::1]:PORT: a tab at http://localhost:PORT goes there first (Chromium
  // tries ::1 before 127.0.0.1), and if we did not hold it, another user's listener there
  // would serve that tab its own page (reading #token=) or relay it to us while we run.
  const server = http.createServer(onRequest);
  const server6 = http.createServer(onRequest);
  for (const s of [server, server6]) {
    s.headersTimeout = 10_000;
    s.requestTimeout = 30_000;
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: LIMITS.lineBytes });
  const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    const refuse = (status: 401 | 403 | 404, reason: string) => {
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${reason}\n`);
      if (status !== 404) record({ source: 'web', tool: '(connect)', summary: 'web UI connection refused', raw: { host: req.headers.host, origin: req.headers.origin }, reason });
    };
    const verdict = checkHostAndOrigin(port, req.headers.host, req.headers.origin);
    if (!verdict.ok) return refuse(verdict.status, verdict.reason);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/ws') return refuse(404, 'not found');
    // The web UI's tab proves it knows the token without sending it (shared/web-proof.ts);
    // scripts may still send it as ?token=.
    if (url.searchParams.get('auth') === 'proof' && !url.searchParams.has('token')) {
      if (unproven >= MAX_UNPROVEN) return refuse(401, 'too many connections still owing their proof; try again');
      return wss.handleUpgrade(req, socket, head, (ws) => challenge(ws));
    }
    if (!tokenMatches(token, url.searchParams.get('token'))) return refuse(401, 'unauthorized: wrong or missing token');
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws));
  };
  server.on('upgrade', onUpgrade);
  server6.on('upgrade', onUpgrade);

  let unproven = 0;
  /** Challenge, check the client's HMAC, answer with ours; only then is it a session. */
  function challenge(ws: WebSocket): void {
    unproven++;
    const nonce = newNonce();
    let settled = false;
    const settle = () => {
      if (!settled) unproven--;
      settled = true;
      clearTimeout(timer);
    };
    const timer = setTimeout(() => (settle(), ws.close(4401, 'no proof in time')), PROOF_MS);
    ws.on('close', settle);
    ws.on('error', () => ws.terminate());
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: WEB_PROOF_CHALLENGE, params: { nonce, port } }));
    ws.once('message', (data, isBinary) => {
      settle();
      let msg: { id?: unknown; method?: unknown; params?: { nonce?: unknown; proof?: unknown } } = {};
      try {
        msg = isBinary ? {} : (JSON.parse(data.toString()) as typeof msg);
      } catch {
        /* refused below */
      }
      const id = typeof msg.id === 'number' || typeof msg.id === 'string' ? msg.id : null;
      const theirs = msg.params?.nonce;
      const proof = msg.params?.proof;
      const ok = msg.method === WEB_PROOF_METHOD && isWebProofNonce(theirs) && typeof proof === 'string' && tokenMatches(webProof(token, 'client', port, nonce, theirs), proof);
      if (!ok) {
        record({ source: 'web', tool: '(connect)', summary: 'web UI connection refused', raw: { proof: 'wrong or missing' }, reason: 'unauthorized: the proof of the token is wrong' });
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: 'unauthorized: wrong token (open the URL airlock serve --web printed)' } }));
        return ws.close(4401, 'unauthorized');
      }
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: { proof: webProof(token, 'server', port, theirs, nonce) } }));
      serveSocket(ws);
    });
  }

  function serveSocket(ws: WebSocket): void {
    const send = (msg: object) => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > MAX_BUFFERED_OUT) return ws.terminate();
      ws.send(JSON.stringify(msg));
    };
    const unsubscribe = opts.service.subscribe((n) => send({ jsonrpc: '2.0', method: n.method, params: n.params }));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: send text frames' } });
      void handleRpcMessage(data.toString(), dispatch, rejectRpc).then((reply) => reply && send(reply));
    });
    ws.on('close', unsubscribe);
    ws.on('error', () => ws.terminate());
  }

  const listenOn = (srv: http.Server, p: number, host: string) =>
    new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(p, host, () => {
        srv.off('error', reject);
        resolve();
      });
    });
  /** 127.0.0.1:P, then [::1]:P on the same P (skipped only where this machine has no IPv6 loopback, so nobody can listen there either). */
  const listen = async (p: number): Promise<void> => {
    await listenOn(server, p, '127.0.0.1');
    const got = (server.address() as AddressInfo).port;
    try {
      await listenOn(server6, got, '::1');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') return;
      await new Promise<void>((r) => server.close(() => r()));
      throw e; // EADDRINUSE with address '::1': serve says so
    }
  };
  const preferred = !opts.port && opts.preferredPort ? opts.preferredPort : null;
  try {
    await listen(preferred ?? opts.port ?? 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || opts.port) throw e;
    // The last run's port is taken now (or a free port's [::1] twin is): any free one where
    // both are ours (the printed URL says which).
    for (let attempt = 1; ; attempt++) {
      try {
        await listen(0);
        break;
      } catch (again) {
        if ((again as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 8) throw again;
      }
    }
  }
  port = (server.address() as AddressInfo).port;
  csp = contentSecurityPolicy({ connect: [`ws://127.0.0.1:${port}`, `ws://localhost:${port}`] });

  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/#token=${token}`,
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      for (const s of [server, server6]) s.closeAllConnections();
      await Promise.all([server, server6].filter((s) => s.listening).map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
