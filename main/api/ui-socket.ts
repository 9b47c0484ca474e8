// ui.sock: the human side, for `airlock watch`, the CLI and scripts. A thin adapter over
// the ApproverService method table, plus `subscribe` for push notifications.
import type * as net from 'node:net';
import { approverMethods } from '../contract/approver';
import type { ApproverHandlers } from '../core/approver-service';
import type { Broker } from '../core/broker';
import type { NotificationSource } from '../core/ports';
import { createDispatch } from './dispatch';
import { serveJsonRpcLines } from './json-rpc-lines';
import { closeServer, listenPrivate } from './unix-listener';

export async function startUiSocket(
  sockPath: string,
  service: ApproverHandlers & NotificationSource,
  broker: Broker,
): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const dispatchTable = createDispatch(approverMethods, service);
  const server = await listenPrivate(
    sockPath,
    (socket, peer) => {
      sockets.add(socket);
      let unsubscribe: (() => void) | null = null;
      const rpc = serveJsonRpcLines(socket, {
        dispatch: async (method, params) => {
          if (method === 'subscribe') {
            unsubscribe ??= service.subscribe((n) => rpc.notify(n.method, n.params));
            return { subscribed: true };
          }
          return dispatchTable(method, params);
        },
        onReject: (r) =>
          broker.recordRejected({
            source: 'ui.sock',
            tool: r.method ?? '(unparsed)',
            summary: `rejected ${r.method ? `"${r.method}" call` : 'line'} on ui.sock`,
            raw: r.raw,
            reason: r.reason,
            process: peer.process,
          }),
      });
      socket.on('close', () => {
        sockets.delete(socket);
        unsubscribe?.();
      });
    },
    (_socket, cred) =>
      broker.recordRejected({ source: 'ui.sock', tool: '(connect)', summary: 'connection from another user refused', raw: cred, reason: `peer uid ${cred.uid} is not this user` }),
  );
  return {
    close: async () => {
      for (const s of sockets) s.destroy();
      await closeServer(server, sockPath);
    },
  };
}
