// The relay that runs inside a sandbox, in its own (empty) network namespace: it listens
// on 127.0.0.1 on a free port, pipes every connection to the task's egress.sock, and
// starts the command with HTTP_PROXY/HTTPS_PROXY/ALL_PROXY (and the lowercase forms)
// pointing at itself, so curl, git, pip, npm and Python's urllib work unchanged. Node's
// own fetch ignores those variables (Node 20): NODE_OPTIONS loads node-preload.ts's
// file, which routes fetch and the http/https global agents through the proxy.
//
// It is passed to `node -e`, so no file of Airlock's has to be visible in the sandbox:
//   node -e RELAY_SOURCE -- EGRESS_SOCK NODE_PRELOAD|"" CMD [ARGS…]
// It exits with the command's code (or re-raises its signal).

export const RELAY_SOURCE = String.raw`'use strict';
const net = require('net');
const { spawn } = require('child_process');
const [sock, preload, cmd, ...args] = process.argv.slice(1);
// The daemon's proxy lives in the daemon: after a restart this task's egress.sock is gone
// for good (the sandbox sees the old, deleted directory), so the client gets a clear 502
// and the agent's terminal one line saying what to do, instead of a bare reset.
const GONE = 'Airlock egress proxy unreachable: Airlock was restarted or this task ended; restart the task to get a way out again';
let warned = false;
const server = net.createServer((c) => {
  const u = net.connect(sock);
  let up = false;
  const end = () => { c.destroy(); u.destroy(); };
  c.on('error', end); c.on('close', end); u.on('close', () => { if (up) end(); });
  u.on('connect', () => { up = true; c.pipe(u); u.pipe(c); });
  u.on('error', (e) => {
    if (up) return end();
    if (!warned) { warned = true; process.stderr.write('airlock: ' + GONE + ' (' + (e.code || e.message) + ')\n'); }
    c.resume();
    c.end('HTTP/1.1 502 ' + GONE + '\r\nContent-Type: text/plain\r\nContent-Length: ' + Buffer.byteLength(GONE + '\n') + '\r\nConnection: close\r\n\r\n' + GONE + '\n');
  });
});
server.on('error', (e) => { process.stderr.write('airlock relay: ' + e.message + '\n'); process.exit(70); });
server.listen(0, '127.0.0.1', () => {
  const url = 'http://127.0.0.1:' + server.address().port;
  const env = Object.assign({}, process.env);
  for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) env[k] = url;
  for (const k of ['NO_PROXY', 'no_proxy']) delete env[k];
  env.AIRLOCK_EGRESS_PROXY = url;
  if (preload) env.NODE_OPTIONS = ((env.NODE_OPTIONS || '') + ' --require "' + preload + '"').trim();
  let child;
  try {
    child = spawn(cmd, args, { stdio: 'inherit', env });
  } catch (e) {
    process.stderr.write('airlock: cannot run ' + cmd + ': ' + e.message + '\n');
    process.exit(127);
  }
  const sigs = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH'];
  for (const s of sigs) process.on(s, () => { try { child.kill(s); } catch (e) {} });
  child.on('error', (e) => { process.stderr.write('airlock: cannot run ' + cmd + ': ' + e.message + '\n'); process.exit(127); });
  child.on('exit', (code, sig) => {
    server.close();
    if (sig) { for (const s of sigs) process.removeAllListeners(s); process.kill(process.pid, sig); setTimeout(() => process.exit(128), 1000); return; }
    process.exit(code === null ? 1 : code);
  });
});
`;

/** argv (after bwrap's `--`) that runs `inner` behind the relay. */
export function relayArgv(nodePath: string, egressSock: string, nodePreload: string | null, inner: string[]): string[] {
  return [nodePath, '-e', RELAY_SOURCE, '--', egressSock, nodePreload ?? '', ...inner];
}
