// Fronting another agent (OpenSSH's, a hardware-key agent, another vault's): its keys are
// listed beside ours and it signs only after the same approval as our own keys. One short
// connection per operation; the client connection's session binds are replayed first so
// the upstream agent's own destination constraints still see where the signature goes.
import * as net from 'node:net';
import { FrameDecoder, MSG, frame } from './protocol';
import type { SessionBind } from './session-bind';
import { Reader, Writer } from './wire';

const TIMEOUT_MS = 5000;
const MAX_UPSTREAM_KEYS = 1024;

export interface UpstreamIdentity {
  blob: Buffer;
  comment: string;
}

class AgentConnection {
  private readonly decoder = new FrameDecoder();
  private waiting: { resolve(b: Buffer): void; reject(e: Error): void } | null = null;
  private failed: Error | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      for (const f of this.decoder.push(d)) {
        const w = this.waiting;
        this.waiting = null;
        if (!w) continue;
        if (f.kind === 'message') w.resolve(f.body);
        else w.reject(new Error('upstream agent sent an over-long message'));
      }
    });
    const fail = (e: Error) => {
      this.failed ??= e;
      this.waiting?.reject(e);
      this.waiting = null;
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('upstream agent closed the connection')));
  }

  static open(path: string): Promise<AgentConnection> {
    return new Promise((resolve, reject) => {
      const s = net.createConnection(path);
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error(`upstream agent at ${path} did not accept the connection`));
      }, TIMEOUT_MS);
      s.once('connect', () => {
        clearTimeout(timer);
        resolve(new AgentConnection(s));
      });
      s.once('error', (e) => {
        clearTimeout(timer);
        reject(new Error(`cannot reach the upstream agent at ${path}: ${e.message}`));
      });
    });
  }

  request(body: Buffer): Promise<Buffer> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        reject(new Error('upstream agent did not answer in time'));
        this.socket.destroy();
      }, TIMEOUT_MS);
      this.waiting = {
        resolve: (b) => {
          clearTimeout(timer);
          resolve(b);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.socket.write(frame(body));
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

export class Upstream {
  constructor(readonly path: string) {}

  private async with<T>(fn: (c: AgentConnection) => Promise<T>): Promise<T> {
    const c = await AgentConnection.open(this.path);
    try {
      return await fn(c);
    } finally {
      c.close();
    }
  }

  private inflight: Promise<UpstreamIdentity[]> | null = null;

  /**
   * Concurrent callers share one request. Besides saving work, this bounds a loop (an
   * upstream that fronts us back): the nested list waits on the first and the timeout ends both.
   */
  list(): Promise<UpstreamIdentity[]> {
    this.inflight ??= this.listNow().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async listNow(): Promise<UpstreamIdentity[]> {
    return this.with(async (c) => {
      const body = await c.request(Buffer.from([MSG.REQUEST_IDENTITIES]));
      const r = new Reader(body);
      if (r.byte() !== MSG.IDENTITIES_ANSWER) throw new Error('upstream agent refused to list keys');
      const n = r.uint32();
      const out: UpstreamIdentity[] = [];
      for (let i = 0; i < n && i < MAX_UPSTREAM_KEYS; i++) {
        out.push({ blob: Buffer.from(r.string()), comment: r.text(4096) });
      }
      return out;
    });
  }

  /** Returns the signature blob, or null when the upstream agent refuses. */
  async sign(keyBlob: Buffer, data: Buffer, flags: number, binds: SessionBind[]): Promise<Buffer | null> {
    return this.with(async (c) => {
      for (const b of binds) {
        // The bind was verified by us; the upstream verifies it again itself. Its answer does
        // not matter for agents that do not know the extension.
        await c.request(
          new Writer()
            .byte(MSG.EXTENSION)
            .string('session-bind@openssh.com')
            .string(b.hostKey)
            .string(b.sessionId)
            .string(b.signature)
            .bool(b.forwarding)
            .toBuffer(),
        );
      }
      const body = await c.request(new Writer().byte(MSG.SIGN_REQUEST).string(keyBlob).string(data).uint32(flags).toBuffer());
      const r = new Reader(body);
      if (r.byte() !== MSG.SIGN_RESPONSE) return null;
      return Buffer.from(r.string());
    });
  }

  async remove(keyBlob: Buffer): Promise<boolean> {
    return this.with(async (c) => {
      const body = await c.request(new Writer().byte(MSG.REMOVE_IDENTITY).string(keyBlob).toBuffer());
      return body[0] === MSG.SUCCESS;
    });
  }
}

/** The upstream in use; swapped when the `upstreamAgent` setting changes at run time. */
export class UpstreamSlot {
  current: Upstream | null;
  constructor(path: string | null | undefined) {
    this.current = path ? new Upstream(path) : null;
  }
  set(path: string | null): void {
    this.current = path ? new Upstream(path) : null;
  }
}
