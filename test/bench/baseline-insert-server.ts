// The honest baseline for a granted decision (issue 15): a process of its own, as the
// daemon is, that reads one JSON line from a Unix socket, commits one hash-chained event
// with Airlock's own Store (same schema, pragmas and chain as the daemon: no SQL here),
// and replies. Everything Airlock adds on top of this is policy: validation, grant
// matching, risk and classification.
//   node baseline-insert-server.js SOCKET DBFILE      prints "ready" when listening
import * as net from 'node:net';
import { Store } from '../../main/store';
import type { Action } from '../../main/contract/common';

const [sock, dbFile] = process.argv.slice(2);
if (!sock || !dbFile) {
  process.stderr.write('usage: baseline-insert-server SOCKET DBFILE\n');
  process.exit(2);
}
const store = new Store(dbFile);

net
  .createServer((s) => {
    let buf = '';
    s.setEncoding('utf8');
    s.on('data', (d: string) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const m = JSON.parse(line) as { id: number; params: { source: string; tool: string; action: Action; resource: string; summary: string } };
        const p = m.params;
        const ev = store.appendEvent({
          ts: Date.now(), task: null, source: p.source, tool: p.tool, action: p.action, resource: p.resource, resources: [p.resource],
          summary: p.summary, args: null, cwd: null, process: null, ssh: null, risk: { level: 'low', reasons: [] },
          decision: 'allow', decidedBy: 'grant', grant: null, scope: null, reason: 'baseline',
        });
        s.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { decision: 'allow', reason: 'baseline', event: ev.id } }) + '\n');
      }
    });
    s.on('error', () => undefined);
  })
  .listen(sock, () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  store.close();
  process.exit(0);
});
