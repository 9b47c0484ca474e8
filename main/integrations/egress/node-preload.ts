// Node 20's fetch (undici) and its http/https modules ignore HTTP(S)_PROXY. This file is
// written beside the task's egress.sock and loaded in the sandbox with
// NODE_OPTIONS=--require (see relay.ts): it gives fetch a dispatcher whose connections
// go through the proxy with CONNECT, and does the same for http/https's global agents.
// A refusal surfaces as an error that carries the proxy's reason.

export const NODE_PRELOAD_SOURCE = String.raw`'use strict';
// Airlock egress: route Node's fetch and http/https global agents through the task's proxy.
(function () {
  const proxy = process.env.AIRLOCK_EGRESS_PROXY || process.env.HTTPS_PROXY || process.env.https_proxy;
  if (!proxy) return;
  let p;
  try { p = new URL(proxy); } catch (e) { return; }
  const net = require('net');
  const tls = require('tls');
  function tunnel(host, port, cb) {
    const h = net.isIPv6(host) ? '[' + host + ']' : host;
    const s = net.connect(Number(p.port), p.hostname);
    let buf = Buffer.alloc(0);
    let settled = false;
    const fail = (e) => { if (settled) return; settled = true; s.destroy(); cb(e); };
    const onData = (d) => {
      buf = Buffer.concat([buf, d]);
      const i = buf.indexOf('\r\n\r\n');
      if (i < 0) { if (buf.length > 65536) fail(new Error('airlock egress: malformed proxy answer')); return; }
      const head = buf.subarray(0, i).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3}) ?([^\r\n]*)/.exec(head);
      if (m && m[1] === '200') {
        s.removeListener('data', onData);
        settled = true;
        const rest = buf.subarray(i + 4);
        if (rest.length) s.unshift(rest);
        cb(null, s);
        return;
      }
      // Refused: wait for the body (the reason) and the close.
      s.removeListener('data', onData);
      let body = buf.subarray(i + 4);
      s.on('data', (x) => { if (body.length < 8192) body = Buffer.concat([body, x]); });
      const done = () => fail(new Error('airlock egress proxy refused CONNECT ' + h + ':' + port + ': ' + (m ? m[1] + ' ' + m[2] : head) + (body.length ? ' — ' + body.toString().trim() : '')));
      s.once('close', done);
      setTimeout(done, 2000).unref();
    };
    s.on('data', onData);
    s.once('error', fail);
    s.write('CONNECT ' + h + ':' + port + ' HTTP/1.1\r\nHost: ' + h + ':' + port + '\r\n\r\n');
  }
  function secure(sock, host, servername, cb) {
    const t = tls.connect({ socket: sock, servername: servername || (net.isIP(host) ? undefined : host), ALPNProtocols: ['http/1.1'] });
    t.once('secureConnect', () => cb(null, t));
    t.once('error', (e) => cb(e));
  }
  // fetch: the global dispatcher exists after the first call; an aborted one makes it, offline.
  try {
    const sym = Symbol.for('undici.globalDispatcher.1');
    if (typeof fetch === 'function') {
      fetch('http://127.0.0.1:9/', { signal: AbortSignal.abort() }).catch(() => {});
      const Agent = globalThis[sym] && globalThis[sym].constructor;
      if (Agent) {
        globalThis[sym] = new Agent({
          connect(opts, cb) {
            const https = opts.protocol === 'https:';
            const port = Number(opts.port) || (https ? 443 : 80);
            tunnel(opts.hostname, port, (e, s) => {
              if (e) return cb(e, null);
              if (!https) return cb(null, s);
              secure(s, opts.hostname, opts.servername, (e2, t) => cb(e2 || null, e2 ? null : t));
            });
          },
        });
      }
    }
  } catch (e) { /* leave fetch as it is: without the proxy it cannot reach anything */ }
  try {
    const http = require('http');
    const https = require('https');
    http.globalAgent.createConnection = function (o, cb) {
      tunnel(o.host || 'localhost', Number(o.port) || 80, cb);
    };
    https.globalAgent.createConnection = function (o, cb) {
      tunnel(o.host || 'localhost', Number(o.port) || 443, (e, s) => {
        if (e) return cb(e);
        cb(null, tls.connect(Object.assign({}, o, { socket: s, servername: o.servername || (net.isIP(o.host) ? undefined : o.host) })));
      });
    };
  } catch (e) { /* ignore */ }
})();
`;
