// A private Unix socket speaking line JSON-RPC, with what both request.sock and ui.sock
// need: peer checks, every rejected line or foreign peer recorded, clean shutdown.
import type * as net from 'node:net';
import type { RemoteInfo } from '../contract/common';
import type { RejectedAttempt, RejectionRecorder } from '../core/ports';
import { serveJsonRpcLines } from './json-rpc-lines';
import { rejectionRow } from './rpc-message';
import { RPC } from '../contract/rpc';
import { closePrivate, foreignPeerAttempt, listenPrivate, overCapAttempt, type Peer } from '../os/private-socket';

export interface RpcConnection {
  dispatch(method: string, params: unknown): Promise<unknown>;
  onClose?(): void;
  /** A remote's socket (airlock remote): what it rejects is recorded with the remote, like its requests. */
  remote?: RemoteInfo;
}

export async function startRpcSocket(
  sockPath: string,
  name: string,
  recorder: RejectionRecorder,
  connect: (peer: Peer, notify: (method: string, params: unknown) => void) => RpcConnection,
  opts: { remote?: string } = {},
): Promise<{ close(opts?: { graceful?: boolean }): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  // A connection refused before it was served (another user, over a cap) is still the
  // remote's: history filtered by remote shows every attempt that came through it.
  const refusedOnRemote = (row: RejectedAttempt, pid: number): RejectedAttempt =>
    opts.remote ? { ...row, remote: { name: opts.remote, via: `pid ${pid}, refused at connect` } } : row;
  const server = await listenPrivate(sockPath, {
    onPeer: (socket, peer) => {
      sockets.add(socket);
      let notify: (method: string, params: unknown) => void = () => undefined;
      const conn = connect(peer, (m, p) => notify(m, p));
      const rpc = serveJsonRpcLines(socket, {
        dispatch: (m, p) => conn.dispatch(m, p),
        onReject: (r) =>
          recorder.recordRejected({ ...rejectionRow(name, name, 'line', r, peer.process), connection: peer.connection, ...(conn.remote ? { remote: conn.remote } : {}) }),
      });
      notify = rpc.notify;
      socket.on('close', () => {
        sockets.delete(socket);
        conn.onClose?.();
      });
    },
    onForeign: (cred) => recorder.recordRejected(refusedOnRemote(foreignPeerAttempt(name, cred), cred.pid)),
    // Over a connection cap: one JSON-RPC error (refused before asking, -32001), then closed.
    refusal: (why) => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: RPC.refused, message: why } }) + '\n',
    onRefused: (cred, why) => recorder.recordRejected(refusedOnRemote(overCapAttempt(name, cred, why), cred.pid)),
  });
  return {
    // graceful: a reply being written right now (e.g. to the `task.end` that closes this
    // very socket) is flushed first; the peer gets EOF on the next turn of the loop.
    close: async (opts = {}) => {
      for (const s of sockets) {
        if (!opts.graceful) s.destroy();
        else
          setImmediate(() => {
            s.end();
            setTimeout(() => s.destroy(), 1000).unref();
          });
      }
      await closePrivate(server, sockPath);
    },
  };
}
