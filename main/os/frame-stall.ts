// A connection that has sent part of a frame (half a JSON-RPC line, part of an SSH agent
// message) and then nothing more holds a buffer (up to 1 MiB on request.sock, 256 KiB on
// an agent socket) and a connection slot for as long as it likes. It is closed once no byte
// has arrived for FRAME_STALL_MS while a frame is half-sent. Progress restarts the clock (a
// big request over a slow `ssh -R` link is not cut); a trickle of one byte every few
// seconds is bounded by the connection caps (private-socket.ts), not by this timer.
// A connection with no partial frame is never idle here: a request waiting for the human
// (a prompt open for minutes) has sent its whole frame, so it is never cut.
import type * as net from 'node:net';

/** How long half a frame may wait for its next byte. */
export const FRAME_STALL_MS = 10_000;

export interface StallGuard {
  /** Call after each chunk is framed: true when part of a frame is still buffered. */
  update(midFrame: boolean): void;
}

export function guardFrameStall(socket: net.Socket, onStall: () => void, ms: number = FRAME_STALL_MS): StallGuard {
  let timer: NodeJS.Timeout | null = null;
  const clear = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  socket.once('close', clear);
  return {
    update(midFrame) {
      clear();
      if (!midFrame || socket.destroyed) return;
      timer = setTimeout(() => {
        timer = null;
        if (!socket.destroyed) onStall();
      }, ms);
      timer.unref();
    },
  };
}
