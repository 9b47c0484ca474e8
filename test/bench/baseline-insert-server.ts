// The honest baseline for a granted decision (issue 15): a process of its own, as the
// daemon is, that reads one JSON line from a Unix socket, commits one hash-chained event
// with Airlock's own Store (same schema, pragmas and chain as the daemon: no SQL here),
// and replies. Everything Airlock adds on top of this is policy: validation, grant
// matching, risk and classification.
//   node baseline-insert-server.js SOCKET DBFILE [group]      prints "ready" when listening
// `group`: the event is staged and answered once the Store's group commit has written it
// (main/store/group-commit.ts: the events of one turn of the event loop in one transaction),
// as the daemon answers. Without it each line is committed alone before its reply
// (Store.appendEvent). The grouped one is the floor for the 32-client rate: what this machine
// can do with the daemon's own commit path and no policy at all.
import * as net from 'node:net';
import { Store, type NewEvent } from '../../main/store';
import type { Action } from '../../main/contract/common';

const [sock, dbFile, mode] = process.argv.slice(2);
if (!sock || !dbFile || (mode !== undefined && mode !== 'group')) {
  process.stderr.write('usage: baseline-insert-server SOCKET DBFILE [group]\n');
  process.exit(2);
}
const store = new Store(dbFile);
const grouped = mode === 'group';

type Line = { id: number; params: { source: string; tool: string; action: Action; resource: string; summary: string } };
const eventOf = ({ params: p }: Line): NewEvent => ({
  ts: Date.now(), task: null, source: p.source, tool: p.tool, action: p.action, resource: p.resource, resources: [p.resource],
  summary: p.summary, args: null, cwd: null, process: null, ssh: null, risk: { level: 'low', reasons: [] },
  decision: 'allow', decidedBy: 'grant', grant: null, scope: null, reason: 'baseline',
});
const reply = (s: net.Socket, m: Line, event: number) =>
  s.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { decision: 'allow', reason: 'baseline', event } }) + '\n');

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
        const m = JSON.parse(line) as Line;
        if (grouped) {
          const ev = store.stageEvent(eventOf(m));
          void store.committed(ev).then(() => reply(s, m, ev.id));
        } else reply(s, m, store.appendEvent(eventOf(m)).id);
      }
    });
    s.on('error', () => undefined);
  })
  .listen(sock, () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  store.close();
  process.exit(0);
});
