// A small Node CGI bridge to `git http-backend` (git's own smart-HTTP server), for the
// egress tests: answers 401 unless Authorization is exactly `expectedAuth`.
import { spawn } from 'node:child_process';
import type * as http from 'node:http';

export function gitBackend(projectRoot: string, expectedAuth: string) {
  return (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): boolean => {
    if (req.headers.authorization !== expectedAuth) {
      res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="test"' });
      res.end('no\n');
      return true;
    }
    const u = new URL(req.url ?? '/', 'https://x');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(u.pathname),
        QUERY_STRING: u.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        CONTENT_LENGTH: String(body.length),
        REMOTE_USER: 'test',
        REMOTE_ADDR: '127.0.0.1',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    // git answers a GET without reading its stdin: a closed pipe there is expected.
    cgi.stdin.on('error', () => undefined);
    cgi.stdin.end(body);
    const out: Buffer[] = [];
    cgi.stdout.on('data', (c: Buffer) => out.push(c));
    cgi.on('close', () => {
      const all = Buffer.concat(out);
      const i = all.indexOf('\r\n\r\n');
      const j = i >= 0 ? i : all.indexOf('\n\n');
      const sep = i >= 0 ? 4 : 2;
      const head = all.subarray(0, j).toString('latin1');
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.split(/\r?\n/)) {
        const k = line.indexOf(':');
        if (k < 0) continue;
        const name = line.slice(0, k).trim();
        const value = line.slice(k + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]) || 200;
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.end(all.subarray(j + sep));
    });
    return true;
  };
}
