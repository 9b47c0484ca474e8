// One task's egress proxy: the only way out of its sandbox. It speaks plain HTTP proxy
// (CONNECT host:port, and absolute-form `GET http://host/…`) on the task's egress.sock;
// the relay inside the sandbox (relay.ts) forwards each connection there.
//
// Every connection (and every plain HTTP request) is a `transfer` request of source
// `egress`, tool `net.connect`, resource `host:port`, decided by grants or by the human
// like any other. HTTPS is tunnelled untouched, except to hosts that carry a secret the
// task uses: there the proxy terminates TLS with the task's own CA (task-ca.ts), swaps
// the placeholder for the real value, and talks TLS upstream, verified against the
// system store (trust.ts). What went through is recorded when a connection ends.
//
// Built on node:http (its CONNECT support), node:tls and @peculiar/x509: mockttp and
// http-mitm-proxy would bring a much larger surface (and their own CA handling) for the
// few hundred lines this needs; see docs/egress.md.
// Over 400 lines on purpose: one connection's life (ask, connect, tunnel or terminate TLS,
// inject, account, record) is one piece of state; target.ts, placeholders.ts and
// secret-store.ts hold the parts that stand alone.
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { AgentAnswer } from '../../contract/agent';
import type { ProcessInfo } from '../../contract/common';
import { EGRESS_TOOL } from '../../contract/constants';
import type { EgressCore, EgressFacts, EgressRecord } from '../../core/ports';
import { requestHopHeaders, responseHopHeaders } from './hop-headers';
import { injectHeader, placeholdersIn, ReplaceStream, secretsForHost, StreamScanner, type TaskSecret } from './placeholders';
import { secretHostMatches } from './secret-store';
import type { Resolver } from './resolve';
import type { TaskCa } from './task-ca';
import { canonicalAddress, hostHeaderOf, localAddressKind, parseAbsoluteUrl, parseAuthority, resourceOf, type Target } from './target';

export interface ProxyPeer {
  connection: string;
  process?: ProcessInfo;
}

export interface EgressProxyOptions {
  task: string;
  core: EgressCore;
  resolver: Resolver;
  secrets: TaskSecret[];
  /** Present when the task uses secrets: terminates TLS to their hosts. */
  ca: TaskCa | null;
  /** PEM of the CAs trusted upstream when the proxy itself talks TLS. */
  upstreamCa: string;
  connectTimeoutMs?: number;
  /** Most connections open at once for this task (the rest get 503). */
  maxConnections?: number;
  /**
   * Where this task may still send this secret: the hosts and headers the store holds for it
   * now, or null when the human removed it (injected no more, even in a running task, and
   * even once a secret of the same name is added again). Headers `[]`: any header.
   */
  currentScope?: (secret: TaskSecret) => { hosts: readonly string[]; headers: readonly string[] } | null;
  /** The placeholders of the other running tasks, read at each request: one sent by this task is a leak too (never injected). */
  foreign?: () => readonly { task: string; name: string; placeholder: string }[];
  /** Airlock's own TCP listeners on this machine (the web UI), read at each decision. */
  ownListeners?: () => readonly { port: number; what: string }[];
}


interface Tunnel {
  target: Target;
  address: string;
  connectEvent: number;
  peer: ProxyPeer;
}

/** A status line reason phrase is one short line of visible ASCII. */
function phrase(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
}

function refuseRaw(sock: net.Socket, status: number, reason: string, body: string, event?: number): void {
  if (sock.destroyed) return;
  const text = `${body}\n`;
  sock.end(
    `HTTP/1.1 ${status} ${phrase(reason)}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
      `${event !== undefined ? `X-Airlock-Event: ${event}\r\n` : ''}Connection: close\r\n\r\n${text}`,
  );
}

function refuseRes(res: http.ServerResponse, status: number, reason: string, body: string, event?: number): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = `${body}\n`;
  res.writeHead(status, phrase(reason), {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    Connection: 'close',
    ...(event !== undefined ? { 'X-Airlock-Event': String(event) } : {}),
  });
  res.end(text);
}

/** What came in, readable in a history row: at most 300 bytes, control and non-ASCII bytes as '.'. */
function shown(raw: Buffer | string): string {
  const text = typeof raw === 'string' ? raw.slice(0, 300) : raw.subarray(0, 300).toString('latin1');
  return text.replace(/[^\x20-\x7e\r\n]/g, '.');
}

/** The request line and Host of a parsed request, for a history row. */
function requestText(req: http.IncomingMessage): string {
  return `${req.method ?? '?'} ${req.url ?? ''} HTTP/${req.httpVersion}\r\nHost: ${req.headers.host ?? ''}`;
}

/**
 * Headers rebuilt from what a peer sent, in an object without a prototype: in a plain one a
 * header named `constructor`, `toString` or `__proto__` found Object.prototype's member as
 * an earlier value of itself, so the source of those functions went upstream (and to the
 * sandbox) beside what was sent, and `__proto__` was lost.
 */
function headerMap(init: http.OutgoingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.assign(Object.create(null) as http.OutgoingHttpHeaders, init);
}

function headerBytes(h: http.IncomingHttpHeaders | http.OutgoingHttpHeaders): number {
  let n = 0;
  for (const [k, v] of Object.entries(h)) n += k.length + 4 + (Array.isArray(v) ? v.join(', ').length : String(v ?? '').length);
  return n;
}

export class EgressProxy {
  private readonly front = http.createServer();
  private readonly inner = http.createServer();
  private readonly peers = new WeakMap<net.Socket, ProxyPeer>();
  private readonly tunnels = new WeakMap<net.Socket, Tunnel>();
  private readonly open = new Set<net.Socket>();
  /** Client connections a decision let through (a tunnel, a plain request): what cut() closes. */
  private readonly through = new Set<net.Socket>();
  private sent = 0;
  private received = 0;
  private readonly destinations = new Set<string>();
  private closed = false;
  /**
   * The upstream trust store as one TLS context, made on first use and kept: passing `ca`
   * per request parses the whole system store (~150 certificates) every time, which cost
   * ~60 ms per intercepted request (test/bench/egress.bench.ts).
   */
  private upstreamContext: tls.SecureContext | null = null;

  constructor(private readonly o: EgressProxyOptions) {
    for (const s of [this.front, this.inner]) {
      // A prompt can take minutes: the request is complete, the answer is what waits.
      s.requestTimeout = 0;
      s.headersTimeout = 60_000;
      s.keepAliveTimeout = 5_000;
      s.on('clientError', (e: NodeJS.ErrnoException & { rawPacket?: Buffer }, sock: net.Socket) => {
        // A parser error is something the agent sent (another protocol, a framing trick): recorded.
        if (typeof e.code === 'string' && e.code.startsWith('HPE_')) {
          const tunnel = this.tunnels.get(sock);
          this.refused(this.peers.get(sock) ?? tunnel?.peer, `a malformed request (${e.code})${tunnel ? ` inside the tunnel to ${tunnel.target.resource}` : ''}`, e.rawPacket ?? '', e.message, tunnel?.target);
        }
        refuseRaw(sock, 400, 'Bad Request', 'airlock egress: malformed request');
      });
    }
    this.front.on('connect', (req: http.IncomingMessage, sock: net.Socket, head: Buffer) => {
      this.onConnect(req, sock, head).catch((e: unknown) => refuseRaw(sock, 502, 'Bad Gateway', `airlock egress: ${(e as Error).message}`));
    });
    this.front.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      this.onPlain(req, res).catch((e: unknown) => refuseRes(res, 502, 'Bad Gateway', `airlock egress: ${(e as Error).message}`));
    });
    this.inner.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      this.onInner(req, res).catch((e: unknown) => refuseRes(res, 502, 'Bad Gateway', `airlock egress: ${(e as Error).message}`));
    });
    this.inner.on('connect', (req: http.IncomingMessage, sock: net.Socket) => {
      const tunnel = this.tunnels.get(req.socket) ?? this.tunnels.get(sock);
      this.refused(tunnel?.peer, `a CONNECT inside the tunnel to ${tunnel?.target.resource ?? '?'}`, requestText(req), 'CONNECT inside a tunnel is not supported', tunnel?.target);
      refuseRaw(sock, 405, 'Method Not Allowed', 'airlock egress: CONNECT inside a tunnel is not supported');
    });
  }

  /** This task's placeholders (no values): what another task's proxy recognises as a leak. */
  placeholders(): { name: string; placeholder: string }[] {
    return this.o.secrets.map((s) => ({ name: s.name, placeholder: s.placeholder }));
  }

  /**
   * Placeholders this task may not send anywhere: its secrets but `except`, and every other
   * running task's (named `NAME of task ID`). Each task's placeholder is its own, so one that
   * shows up in another task's traffic came from that task (a shared file, a message); it
   * went by unseen, even to the secret's own host. Only ever scanned for, never injected.
   */
  private notHere(except: readonly TaskSecret[] = []): TaskSecret[] {
    const foreign = (this.o.foreign?.() ?? []).map((f) => ({ name: `${f.name} of task ${f.task}`, hosts: [], headers: [], value: '', placeholder: f.placeholder }));
    return [...this.o.secrets.filter((s) => !except.includes(s)), ...foreign];
  }

  /** What the task sent and received so far (bytes), and to how many destinations. */
  totals(): { sent: number; received: number; destinations: number } {
    return { sent: this.sent, received: this.received, destinations: this.destinations.size };
  }

  /** A connection from the task's relay (peer uid already checked by the listener). */
  accept(sock: net.Socket, peer: ProxyPeer): void {
    if (this.closed) {
      sock.destroy();
      return;
    }
    if (this.open.size >= (this.o.maxConnections ?? 256)) {
      refuseRaw(sock, 503, 'Too Many Connections', `airlock egress: this task already has ${this.open.size} connections open`);
      return;
    }
    this.track(sock);
    this.peers.set(sock, peer);
    sock.on('close', () => this.o.core.dropConnection(peer.connection));
    this.front.emit('connection', sock);
  }

  /**
   * Closes every connection an earlier decision let through, leaving those still waiting for
   * one: the task just read a secret, so each transfer from now on is critical and asked
   * (risk.ts), and a tunnel opened before must not carry the secret out unasked. Returns how
   * many were closed; what each carried is recorded as usual.
   */
  cut(): number {
    const n = this.through.size;
    for (const s of [...this.through]) s.destroy();
    this.through.clear();
    return n;
  }

  /** Closes every tunnel and request of the task at once. */
  close(): void {
    this.closed = true;
    for (const s of this.open) s.destroy();
    this.open.clear();
  }

  private letThrough(s: net.Socket): void {
    this.through.add(s);
    s.once('close', () => this.through.delete(s));
  }

  private track(s: net.Socket): void {
    this.open.add(s);
    s.once('close', () => this.open.delete(s));
    s.on('error', () => s.destroy());
  }

  private facts(t: Target, method: string, address: string | null): EgressFacts {
    const local = address ? localAddressKind(address) : null;
    const secrets = secretsForHost(this.o.secrets, t.host).map((s) => s.name);
    // Any address of this machine may reach a listener on 127.0.0.1 (0.0.0.0 does, on Linux).
    const own = local?.startsWith('this machine') ? this.o.ownListeners?.().find((l) => l.port === t.port) : undefined;
    return {
      host: t.host,
      port: t.port,
      address,
      method,
      sentBytes: this.sent,
      receivedBytes: this.received,
      destinations: this.destinations.size,
      ...(local ? { local } : {}),
      ...(own ? { airlock: `${own.what} (this machine, port ${own.port})` } : {}),
      ...(secrets.length ? { secrets } : {}),
    };
  }

  /** Asks the core; an error (task ended, flood control) is a denial with its message. */
  private async ask(t: Target, method: string, path: string | null, address: string | null, peer: ProxyPeer, resolvedFromDns = false): Promise<AgentAnswer & { address: string | null }> {
    const f = this.facts(t, method, address);
    // A name that DNS answered with a local address is asked as that address: a grant for
    // the name (made when no address was known) does not cover it, one for the address does.
    const resource = resolvedFromDns && address ? resourceOf(canonicalAddress(address), t.port) : t.resource;
    const where = `${t.resource}${path && path !== '/' ? path.slice(0, 200) : ''}`;
    const sent = this.sent < 1024 ? `${this.sent} B` : `${(this.sent / 1024).toFixed(1)} KiB`;
    const summary =
      (resolvedFromDns && address
        ? `${method === 'CONNECT' ? 'connect to' : method} ${resource}: DNS answered ${address} for ${where}, which is ${f.local ?? 'not public'}`
        : `${method === 'CONNECT' ? 'connect to' : method} ${where}${address && address !== t.host ? ` (${address})` : address ? '' : ' (address resolved once allowed)'}`) +
      `${f.secrets ? `; would inject ${f.secrets.join(', ')}` : ''} — the task has sent ${sent} to ${this.destinations.size} destination(s) so far`;
    try {
      const a = await this.o.core.ask(
        {
          source: 'egress',
          tool: EGRESS_TOOL,
          action: 'transfer',
          resource,
          summary: summary.slice(0, 2000),
          args: { ...f, ...(path !== null ? { path: path.slice(0, 2048) } : {}) },
          task: this.o.task,
        },
        { boundTask: this.o.task, connection: peer.connection, ...(peer.process ? { process: peer.process } : {}), egress: f },
      );
      return { ...a, address };
    } catch (e) {
      return { decision: 'deny', reason: (e as Error).message, event: -1, address };
    }
  }

  /**
   * Decide, then resolve. A name resolved only after it was allowed that turns out to
   * reach this machine or the local network is asked again, as the address (DNS
   * rebinding: `allowed.example` answering 127.0.0.1). It used to be asked with the
   * name's resource, so the grant that had just allowed the name ("this host for this
   * task", made before any address was known) allowed the local address too, unseen.
   */
  private async decide(t: Target, method: string, path: string | null, peer: ProxyPeer): Promise<{ ok: true; address: string; event: number } | { ok: false; status: number; reason: string; body: string; event?: number }> {
    const known = this.o.resolver.known(t.host);
    this.destinations.add(t.resource);
    const a = await this.ask(t, method, path, known, peer);
    const denied = (x: AgentAnswer) => ({
      ok: false as const,
      status: 403,
      reason: `Denied by Airlock: ${x.reason}`,
      body: `airlock egress: ${method} ${t.resource} was denied: ${x.reason}${x.event >= 0 ? ` (event ${x.event})` : ''}`,
      ...(x.event >= 0 ? { event: x.event } : {}),
    });
    if (a.decision !== 'allow') return denied(a);
    let address = known;
    if (!address) {
      try {
        address = await this.o.resolver.resolve(t.host);
      } catch (e) {
        return { ok: false, status: 502, reason: 'Cannot Resolve', body: `airlock egress: cannot resolve ${t.host}: ${(e as Error).message}` };
      }
      if (localAddressKind(address)) {
        const again = await this.ask(t, method, path, address, peer, true);
        if (again.decision !== 'allow') return denied(again);
        return { ok: true, address, event: again.event };
      }
    }
    return { ok: true, address, event: a.event };
  }

  private connectUpstream(address: string, port: number): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const up = net.connect({ host: address, port });
      const timer = setTimeout(() => {
        up.destroy();
        reject(new Error(`connecting to ${resourceOf(address, port)} timed out`));
      }, this.o.connectTimeoutMs ?? 10_000);
      up.once('connect', () => {
        clearTimeout(timer);
        resolve(up);
      });
      up.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  }

  private leak(t: Target, names: string[], where: string, peer: ProxyPeer): void {
    for (const secret of names) this.o.core.recordPlaceholderLeak({ task: this.o.task, secret, host: t.host, port: t.port, where, ...(peer.process ? { process: peer.process } : {}) });
  }

  /**
   * A request refused before anything was sent or asked (malformed, not a proxy request, a
   * framing trick, another Host inside a secret's tunnel): a rejected attempt of the task in
   * history, with what it was. It used to leave no trace, so a human never saw that the
   * agent had tried. Through the rejection recorder, which coalesces a flood of them.
   */
  private refused(peer: ProxyPeer | undefined, what: string, request: Buffer | string, reason: string, t?: { host: string; port: number }): void {
    try {
      this.o.core.recordRejected({
        source: 'egress',
        tool: EGRESS_TOOL,
        summary: `refused before anything was sent: ${what}`,
        raw: { request: shown(request), ...(t ? { host: t.host, port: t.port } : {}) },
        reason,
        task: this.o.task,
        ...(peer ? { connection: peer.connection } : {}),
        ...(peer?.process ? { process: peer.process } : {}),
      });
    } catch {
      // The store is closing (daemon shutdown): the connection is gone either way.
    }
  }

  private record(r: Omit<EgressRecord, 'task'>): void {
    try {
      this.o.core.recordEgress({ task: this.o.task, ...r });
    } catch {
      // The store is closing (daemon shutdown): the tunnel is gone either way.
    }
  }

  // ---- CONNECT ------------------------------------------------------------------------

  private async onConnect(req: http.IncomingMessage, sock: net.Socket, head: Buffer): Promise<void> {
    const peer = this.peers.get(sock) ?? { connection: 'egress' };
    const t = parseAuthority(req.url ?? '');
    if (!t) {
      this.refused(peer, `CONNECT to ${JSON.stringify((req.url ?? '').slice(0, 100))}, which is not host:port`, requestText(req), 'CONNECT needs host:port');
      return refuseRaw(sock, 400, 'Bad Request', `airlock egress: CONNECT needs host:port, not ${JSON.stringify((req.url ?? '').slice(0, 100))}`);
    }
    const d = await this.decide(t, 'CONNECT', null, peer);
    if (!d.ok) return refuseRaw(sock, d.status, d.reason, d.body, d.event);
    if (sock.destroyed) return;
    this.letThrough(sock);
    const intercept = this.o.ca !== null && secretsForHost(this.o.secrets, t.host).length > 0;
    if (intercept) return this.interceptTunnel(sock, head, { target: t, address: d.address, connectEvent: d.event, peer });
    let up: net.Socket;
    try {
      up = await this.connectUpstream(d.address, t.port);
    } catch (e) {
      return refuseRaw(sock, 502, 'Bad Gateway', `airlock egress: cannot connect to ${t.resource} (${d.address}): ${(e as Error).message}`, d.event);
    }
    this.track(up);
    let out = 0;
    let inn = 0;
    // Placeholders are visible in a tunnel only when what it carries is not TLS; look anyway.
    const scan = new StreamScanner(this.notHere().map((s) => ({ name: s.name, text: s.placeholder })));
    sock.on('data', (c: Buffer) => {
      out += c.length;
      this.sent += c.length;
      const found = scan.feed(c);
      if (found.length) this.leak(t, found, 'inside a tunnel', peer);
    });
    up.on('data', (c: Buffer) => {
      inn += c.length;
      this.received += c.length;
    });
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      sock.destroy();
      up.destroy();
      this.record({ kind: 'tunnel', method: 'CONNECT', host: t.host, port: t.port, address: d.address, path: null, status: null, bytesOut: out, bytesIn: inn, injected: [], connectEvent: d.event, ...(peer.process ? { process: peer.process } : {}) });
    };
    sock.once('close', finish);
    up.once('close', finish);
    sock.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) {
      out += head.length;
      this.sent += head.length;
      const found = scan.feed(head);
      if (found.length) this.leak(t, found, 'inside a tunnel', peer);
      up.write(head);
    }
    sock.pipe(up);
    up.pipe(sock);
  }

  /** TLS (or plain HTTP) to a host that carries a secret: terminate it here and serve it with `inner`. */
  private interceptTunnel(sock: net.Socket, head: Buffer, tunnel: Tunnel): void {
    sock.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const start = (first: Buffer) => {
      sock.pause();
      if (first.length) sock.unshift(first);
      if (first[0] === 0x16) {
        this.o
          .ca!.contextFor(tunnel.target.host)
          .then((secureContext) => {
            const t = new tls.TLSSocket(sock, { isServer: true, secureContext, ALPNProtocols: ['http/1.1'] });
            this.track(t);
            this.tunnels.set(t, tunnel);
            t.on('close', () => sock.destroy());
            this.inner.emit('connection', t);
          })
          .catch(() => sock.destroy());
      } else {
        // Plain HTTP inside CONNECT: seen (and recorded) like TLS, never given a secret.
        this.tunnels.set(sock, tunnel);
        this.inner.emit('connection', sock);
        sock.resume();
      }
    };
    if (head.length) start(head);
    else sock.once('data', (c: Buffer) => start(c));
  }

  /**
   * The task's secrets that may go to `host` now, each with the headers it may go in (null:
   * any). Taken at each request from the store, so the human's changes reach a running task:
   * removing a secret takes it back at once, like revoking a grant (its placeholder is then
   * sent as it is; to its own host that is no leak either); a remove followed by a new add
   * under the same name is a new secret, which reaches tasks started after it, never this
   * one again (the store compares lineages). Replacing it with fewer hosts or headers
   * narrows a running task at once (it kept injecting on the hosts taken away until it
   * ended); more hosts or headers reach tasks started after the change.
   */
  private injectable(forHost: readonly TaskSecret[], host: string): { secret: TaskSecret; headers: string[] | null }[] {
    const out: { secret: TaskSecret; headers: string[] | null }[] = [];
    for (const secret of forHost) {
      const now = this.o.currentScope ? this.o.currentScope(secret) : { hosts: secret.hosts, headers: secret.headers };
      if (!now || !now.hosts.some((h) => secretHostMatches(h, host))) continue;
      const had = secret.headers.length ? secret.headers : null;
      const has = now.headers.length ? now.headers.map((h) => h.toLowerCase()) : null;
      out.push({ secret, headers: had && has ? had.filter((h) => has.includes(h)) : (had ?? has) });
    }
    return out;
  }

  private async onInner(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const tunnel = this.tunnels.get(req.socket);
    if (!tunnel) return refuseRes(res, 500, 'Internal Error', 'airlock egress: lost the tunnel');
    const t = tunnel.target;
    const path = req.url ?? '/';
    if (!path.startsWith('/')) {
      this.refused(tunnel.peer, `a request for ${JSON.stringify(path.slice(0, 200))} inside the tunnel to ${t.resource} (not origin-form)`, requestText(req), 'expected an origin-form request inside the tunnel', t);
      return refuseRes(res, 400, 'Bad Request', 'airlock egress: expected an origin-form request inside the tunnel');
    }
    // The Host must be the host the human allowed: another name on the same server (or
    // CDN) is another destination, and must not receive the secret (domain fronting).
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    const okHost = [t.host, t.resource, `${t.host}:${t.port}`].map((x) => x.toLowerCase());
    if (!okHost.includes(hostHeader) && !(net.isIPv6(t.host) && hostHeader === `[${t.host}]`)) {
      const leaked = placeholdersIn(JSON.stringify(req.headers) + path, this.notHere());
      if (leaked.length) this.leak({ ...t, host: hostHeader || t.host }, leaked, 'a Host header that differs from the tunnel', tunnel.peer);
      this.refused(tunnel.peer, `Host ${JSON.stringify(hostHeader.slice(0, 100))} inside the tunnel to ${t.resource} (another destination)`, requestText(req), 'the Host must name the tunnel\'s host (domain fronting)', t);
      return refuseRes(res, 421, 'Misdirected Request', `airlock egress: this tunnel was allowed to ${t.resource}; Host ${JSON.stringify(hostHeader.slice(0, 100))} is another destination`);
    }
    const isTls = req.socket instanceof tls.TLSSocket;
    const forHost = isTls ? secretsForHost(this.o.secrets, t.host) : [];
    const mine = this.injectable(forHost, t.host);
    const others = this.notHere(forHost);
    const injected = new Set<string>();
    const echoes: { from: string; to: string }[] = [];
    // Exactly one Host goes upstream, the one checked above: a second `Host:` line (Node's
    // parser keeps both, req.headers only the first) would reach the server beside the
    // secret, and a front end that reads the last one routes it to another name.
    // Identity encoding from a secret's host, so an echoed value can be swapped back. Asked
    // for, not only the agent's Accept-Encoding dropped: a request naming no encoding accepts
    // any (RFC 9110 §12.5.3), and a server that then compressed its echo handed the value over.
    const headers = headerMap({ Host: req.headers.host, ...(isTls ? { 'Accept-Encoding': 'identity' } : {}) });
    // Hop-by-hop headers, those the request's Connection names included, are dropped before
    // any injection (hop-headers.ts): a secret never goes into a header that is not forwarded.
    const hop = requestHopHeaders(req.rawHeaders);
    if ('refused' in hop) {
      this.refused(tunnel.peer, `${req.method ?? '?'} ${path.slice(0, 200)} inside the tunnel to ${t.resource}: ${hop.refused}`, requestText(req), hop.refused, t);
      return refuseRes(res, 400, 'Bad Request', `airlock egress: ${hop.refused}`);
    }
    const leaks = new Set<string>();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      const lower = name.toLowerCase();
      let value = req.rawHeaders[i + 1]!;
      for (const n of placeholdersIn(name, others)) leaks.add(n);
      if (hop.drop(lower) || lower === 'host') continue;
      if (lower === 'accept-encoding' && isTls) continue;
      for (const n of placeholdersIn(value, others)) leaks.add(n);
      const eligible = mine.filter((m) => m.headers === null || m.headers.includes(lower)).map((m) => m.secret);
      if (eligible.length) {
        const r = injectHeader(value, eligible);
        value = r.value;
        for (const n of r.injected) injected.add(n);
        echoes.push(...r.echoes);
      }
      const prev = headers[name];
      headers[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [String(prev), value];
    }
    for (const n of placeholdersIn(path, others)) leaks.add(n);
    if (leaks.size) this.leak(t, [...leaks], 'in the request line or headers', tunnel.peer);
    // What the host answers is swapped back for every secret of the task (not only those
    // injected now: the server may hold one from an earlier request), and for each form of
    // the value this request carried that the proxy made itself (a Basic credential).
    const swap = [...(isTls ? this.o.secrets : []).map((x) => ({ from: x.value, to: x.placeholder })), ...echoes];
    await this.forward(req, res, { t, address: tunnel.address, tls: isTls, path, headers, injected: [...injected], swap, others, connectEvent: tunnel.connectEvent, peer: tunnel.peer });
  }

  // ---- plain HTTP (absolute-form) ---------------------------------------------------------

  private async onPlain(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const peer = this.peers.get(req.socket) ?? { connection: 'egress' };
    const t = parseAbsoluteUrl(req.url ?? '');
    if (!t) {
      this.refused(peer, `${req.method ?? '?'} ${JSON.stringify((req.url ?? '').slice(0, 200))}, not a proxy request (absolute-form http://… or CONNECT)`, requestText(req), 'not an absolute-form http:// request');
      return refuseRes(res, 400, 'Bad Request', "airlock egress: this is Airlock's egress proxy; send absolute-form requests (http://host/path) or CONNECT host:port");
    }
    // A malformed Connection list is refused before anyone is asked about it.
    const hop = requestHopHeaders(req.rawHeaders);
    if ('refused' in hop) {
      this.refused(peer, `${req.method ?? '?'} ${t.resource}${t.path.slice(0, 200)}: ${hop.refused}`, requestText(req), hop.refused, t);
      return refuseRes(res, 400, 'Bad Request', `airlock egress: ${hop.refused}`);
    }
    const d = await this.decide(t, req.method ?? 'GET', t.path, peer);
    if (!d.ok) return refuseRes(res, d.status, d.reason, d.body, d.event);
    this.letThrough(req.socket);
    // The Host is the one of the allowed URL, whatever the request says (RFC 9112 §3.2.2: a
    // proxy generates it from the target): another name on the same address is another
    // destination, which nobody allowed.
    const headers = headerMap({ Host: hostHeaderOf(t, 80) });
    const leaks = new Set<string>();
    const others = this.notHere();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      for (const n of placeholdersIn(name, others)) leaks.add(n);
      if (hop.drop(name.toLowerCase()) || name.toLowerCase() === 'host') continue;
      for (const n of placeholdersIn(req.rawHeaders[i + 1]!, others)) leaks.add(n);
      const prev = headers[name];
      headers[name] = prev === undefined ? req.rawHeaders[i + 1]! : Array.isArray(prev) ? [...prev, req.rawHeaders[i + 1]!] : [String(prev), req.rawHeaders[i + 1]!];
    }
    for (const n of placeholdersIn(t.path, others)) leaks.add(n);
    // A secret never travels in clear text, not even to its own host: plain HTTP gets none.
    if (leaks.size) this.leak(t, [...leaks], 'in a plain-HTTP request line or headers', peer);
    await this.forward(req, res, { t, address: d.address, tls: false, path: t.path, headers, injected: [], swap: [], others, connectEvent: d.event, peer });
  }

  private forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    f: { t: Target; address: string; tls: boolean; path: string; headers: http.OutgoingHttpHeaders; injected: string[]; swap: { from: string; to: string }[]; others: TaskSecret[]; connectEvent: number; peer: ProxyPeer },
  ): Promise<void> {
    return new Promise((resolve) => {
      let out = headerBytes(f.headers) + f.path.length;
      let inn = 0;
      let status: number | null = null;
      let error: string | undefined;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        this.sent += out;
        this.received += inn;
        this.record({ kind: 'request', method: req.method ?? 'GET', host: f.t.host, port: f.t.port, address: f.address, path: f.path.slice(0, 2048), status, bytesOut: out, bytesIn: inn, injected: f.injected, connectEvent: f.connectEvent, ...(error ? { error } : {}), ...(f.peer.process ? { process: f.peer.process } : {}) });
        resolve();
      };
      const lookup: net.LookupFunction = (_h, opts, cb) => {
        const family = net.isIPv6(f.address) ? 6 : 4;
        if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: f.address, family }]);
        else cb(null, f.address, family);
      };
      // The body keeps its framing: a chunked request whose Transfer-Encoding (a hop header)
      // were dropped would go out as a GET with bare bytes after it, which the server reads
      // as a second request the proxy never saw (request smuggling). Node re-chunks it.
      if (req.headers['transfer-encoding'] !== undefined && req.headers['content-length'] === undefined) f.headers['Transfer-Encoding'] = 'chunked';
      const common = { host: f.t.host, port: f.t.port, method: req.method, path: f.path, headers: f.headers, setHost: false, lookup, agent: false as const, timeout: 60_000 };
      let up: http.ClientRequest;
      try {
        up = f.tls
          ? https.request({
              ...common,
              servername: net.isIP(f.t.host) ? undefined : f.t.host,
              // Handed on to tls.connect (agent: false); @types/node leaves it out of RequestOptions.
              ...({ secureContext: (this.upstreamContext ??= tls.createSecureContext({ ca: this.o.upstreamCa })) } as https.RequestOptions),
            })
          : http.request(common);
      } catch (e) {
        // A request Node will not build (a header it refuses) is still an attempt: recorded
        // as one that never left, not only answered 502.
        error = `not sent: ${(e as Error).message}`;
        refuseRes(res, 502, 'Bad Gateway', `airlock egress: ${req.method} ${f.t.resource}: ${error}`);
        req.resume();
        return finish();
      }
      up.on('timeout', () => up.destroy(new Error('the upstream server did not answer within 60 s')));
      up.on('error', (e) => {
        if (done) return;
        error = e.message;
        if (!res.headersSent) refuseRes(res, 502, 'Bad Gateway', `airlock egress: ${req.method} ${f.t.resource}: ${e.message}`);
        else res.destroy();
        finish();
      });
      up.on('response', (ur) => {
        status = ur.statusCode ?? null;
        inn += headerBytes(ur.headers);
        // What the upstream answers is as hostile as what the agent sends: a status Node's
        // client parses but its server refuses to write (099, 000) threw out of this handler
        // and took the daemon down, with every task's way out and every prompt.
        const bad = (why: string) => {
          error = why;
          ur.resume();
          refuseRes(res, 502, 'Bad Gateway', `airlock egress: ${req.method} ${f.t.resource}: ${why}`);
          finish();
          up.destroy();
        };
        if (status === null || status < 100 || status > 999) return bad(`invalid status ${status ?? '(none)'} from the upstream server`);
        // What the secret's own host answers: the value becomes the placeholder again.
        const pairs = f.swap.filter((p) => p.from.length > 0);
        const swap = pairs.map((p) => ({ from: Buffer.from(p.from), to: Buffer.from(p.to) }));
        const back = (text: string) => pairs.reduce((v, p) => v.split(p.from).join(p.to), text);
        const outHeaders = headerMap({});
        const dropped = responseHopHeaders(ur.rawHeaders);
        for (let i = 0; i < ur.rawHeaders.length; i += 2) {
          const name = ur.rawHeaders[i]!;
          if (dropped(name.toLowerCase())) continue;
          if (swap.length && name.toLowerCase() === 'content-length') continue;
          const v = back(ur.rawHeaders[i + 1]!);
          const prev = outHeaders[name];
          outHeaders[name] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [String(prev), v];
        }
        const statusMessage = back(ur.statusMessage ?? '');
        try {
          res.writeHead(status, statusMessage, outHeaders);
        } catch (e) {
          return bad(`the upstream server's answer cannot be passed on: ${(e as Error).message}`);
        }
        ur.on('data', (c: Buffer) => (inn += c.length));
        const body = swap.length ? ur.pipe(new ReplaceStream(swap)) : ur;
        body.pipe(res);
        ur.on('error', (e) => {
          error = e.message;
          res.destroy();
          finish();
        });
        res.on('finish', finish);
        res.on('close', finish);
      });
      const scan = new StreamScanner(f.others.map((s) => ({ name: s.name, text: s.placeholder })));
      req.on('data', (c: Buffer) => {
        out += c.length;
        const found = scan.feed(c);
        if (found.length) this.leak(f.t, found, 'in a request body', f.peer);
      });
      req.pipe(up);
      req.on('aborted', () => up.destroy());
    });
  }
}
