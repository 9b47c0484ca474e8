// A socket file left by a crashed run would make listen() fail with EADDRINUSE; one that
// still answers belongs to a running daemon and is never taken over; anything that is
// not a socket is never deleted.
import * as fs from 'node:fs';
import * as net from 'node:net';

export function isSocketLive(p: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createConnection(p);
    const done = (v: boolean) => {
      s.destroy();
      resolve(v);
    };
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
    setTimeout(() => done(false), timeoutMs).unref();
  });
}

/** Clears the way for listen(p); throws `busyMessage` when a live server holds `p`. */
export async function removeStaleSocket(p: string, busyMessage: string): Promise<void> {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(p);
  } catch {
    return;
  }
  if (!st.isSocket()) throw new Error(`${p} exists and is not a socket; refusing to replace it`);
  if (await isSocketLive(p)) throw new Error(busyMessage);
  fs.rmSync(p, { force: true });
}
