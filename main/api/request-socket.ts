// request.sock: the agent side. It can ask and start/end tasks; nothing here decides,
// grants or reads history.
import type * as net from 'node:net';
import { agentMethods } from '../contract/agent';
import type { Broker } from '../core/broker';
import { createDispatch } from './dispatch';
import { serveJsonRpcLines } from './json-rpc-lines';
import { closeServer, listenPrivate } from './unix-listener';

export async function startRequestSocket(sockPath: string, broker: Broker): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = await listenPrivate(
    sockPath,
    (socket, peer) => {
      sockets.add(socket);
      const ctx = { process: peer.process, connection: peer.connection };
      const dispatch = createDispatch(agentMethods, {
        request: (p) => broker.ask(p, ctx),
        'task.start': (p) => broker.startTask(p, ctx),
        'task.end': async (p) => {
          await broker.endTask(p.task);
          return {};
        },
      });
      serveJsonRpcLines(socket, {
        dispatch,
        onReject: (r) =>
          broker.recordRejected({
            source: 'request.sock',
            tool: r.method ?? '(unparsed)',
            summary: `rejected ${r.method ? `"${r.method}" call` : 'line'} on request.sock`,
            raw: r.raw,
            reason: r.reason,
            process: peer.process,
          }),
      });
      socket.on('close', () => {
        sockets.delete(socket);
        broker.dropConnection(peer.connection);
      });
    },
    (_socket, cred) =>
      broker.recordRejected({ source: 'request.sock', tool: '(connect)', summary: 'connection from another user refused', raw: cred, reason: `peer uid ${cred.uid} is not this user` }),
  );
  return {
    close: async () => {
      for (const s of sockets) s.destroy();
      await closeServer(server, sockPath);
    },
  };
}
