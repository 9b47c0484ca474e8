// A private Unix socket: 0700 directory, 0600 socket, a live socket of another daemon
// is never stolen, a stale one is replaced, and every peer's uid is checked.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { ProcessInfo } from '../contract/common';
import { ensurePrivateDir } from '../os/paths';
import { peerOf, processInfo } from '../os/peer';
import { removeStaleSocket } from '../os/stale-socket';

export interface Peer {
  connection: string;
  process: ProcessInfo;
}

let connections = 0;

export async function listenPrivate(
  sockPath: string,
  onPeer: (socket: net.Socket, peer: Peer) => void,
  onForeign: (socket: net.Socket, info: { uid: number; pid: number }) => void,
): Promise<net.Server> {
  ensurePrivateDir(path.dirname(sockPath));
  await removeStaleSocket(sockPath, `another Airlock is already serving ${sockPath}; stop it first (or set AIRLOCK_HOME to use another place)`);
  const myUid = process.getuid?.() ?? -1;
  const server = net.createServer((socket) => {
    let cred;
    try {
      cred = peerOf(socket);
    } catch {
      socket.destroy();
      return;
    }
    if (cred.uid !== myUid) {
      onForeign(socket, cred);
      socket.destroy();
      return;
    }
    onPeer(socket, { connection: `c${++connections}`, process: processInfo(cred) });
  });
  const oldMask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(sockPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(oldMask);
  }
  fs.chmodSync(sockPath, 0o600);
  return server;
}

export function closeServer(server: net.Server, sockPath: string): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    try {
      fs.unlinkSync(sockPath);
    } catch {
      // already gone
    }
    setTimeout(resolve, 1000).unref();
  });
}
