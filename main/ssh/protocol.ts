// The SSH agent protocol (draft-ietf-sshm-ssh-agent, as OpenSSH 9 speaks it): framing,
// request parsing and response encoding. Our own codec because ssh2's server side
// mis-frames extension messages. Every parse error becomes a `malformed` message that the
// server answers with FAILURE; framing never depends on a message's contents, so one bad
// message cannot desynchronise the stream.
import { Reader, WireError, Writer } from './wire';

/** OpenSSH's cap (AGENT_MAX_LEN): anything longer is skipped and answered with FAILURE. */
export const MAX_MESSAGE = 256 * 1024;

export const MSG = {
  FAILURE: 5,
  SUCCESS: 6,
  REQUEST_IDENTITIES: 11,
  IDENTITIES_ANSWER: 12,
  SIGN_REQUEST: 13,
  SIGN_RESPONSE: 14,
  ADD_IDENTITY: 17,
  REMOVE_IDENTITY: 18,
  REMOVE_ALL_IDENTITIES: 19,
  ADD_SMARTCARD_KEY: 20,
  REMOVE_SMARTCARD_KEY: 21,
  LOCK: 22,
  UNLOCK: 23,
  ADD_ID_CONSTRAINED: 25,
  ADD_SMARTCARD_KEY_CONSTRAINED: 26,
  EXTENSION: 27,
  EXTENSION_FAILURE: 28,
  EXTENSION_RESPONSE: 29,
} as const;

export const SIGN_FLAGS = { RSA_SHA2_256: 2, RSA_SHA2_512: 4 } as const;

const CONSTRAIN = { LIFETIME: 1, CONFIRM: 2, MAXSIGN: 3, EXTENSION: 255 } as const;

/** Private key fields as ssh-add sends them (OpenSSH sshkey_private_serialize). */
export type WirePrivateKey =
  | { kind: 'ed25519'; publicKey: Buffer; secret: Buffer }
  | { kind: 'ecdsa'; curve: string; point: Buffer; d: Buffer }
  | { kind: 'rsa'; n: Buffer; e: Buffer; d: Buffer; iqmp: Buffer; p: Buffer; q: Buffer };

export interface KeyConstraints {
  lifetimeSec: number | null;
  confirm: boolean;
}

export type AgentMessage =
  | { type: 'list' }
  | { type: 'sign'; keyBlob: Buffer; data: Buffer; flags: number }
  | { type: 'add'; key: WirePrivateKey; comment: string; constraints: KeyConstraints }
  | { type: 'remove'; keyBlob: Buffer }
  | { type: 'removeAll' }
  | { type: 'lock'; passphrase: Buffer }
  | { type: 'unlock'; passphrase: Buffer }
  | { type: 'extension'; name: string; data: Buffer }
  /** Understood but not offered (smartcards, certificates, unknown constraint extensions). */
  | { type: 'unsupported'; code: number; why: string }
  | { type: 'malformed'; code: number | null; why: string };

function readWirePrivateKey(r: Reader): WirePrivateKey {
  const type = r.text(64);
  switch (type) {
    case 'ssh-ed25519': {
      const publicKey = r.string();
      const secret = r.string();
      if (publicKey.length !== 32 || secret.length !== 64) throw new WireError('bad ed25519 key lengths');
      return { kind: 'ed25519', publicKey, secret };
    }
    case 'ecdsa-sha2-nistp256':
    case 'ecdsa-sha2-nistp384':
    case 'ecdsa-sha2-nistp521': {
      const curve = r.text(64);
      if (curve !== type.slice('ecdsa-sha2-'.length)) throw new WireError('ecdsa curve does not match key type');
      return { kind: 'ecdsa', curve, point: r.string(), d: r.mpint() };
    }
    case 'ssh-rsa': {
      const n = r.mpint();
      const e = r.mpint();
      const d = r.mpint();
      const iqmp = r.mpint();
      const p = r.mpint();
      const q = r.mpint();
      return { kind: 'rsa', n, e, d, iqmp, p, q };
    }
    default:
      throw new UnsupportedKey(type);
  }
}

class UnsupportedKey extends Error {
  constructor(readonly keyType: string) {
    super(`key type ${keyType} is not supported`);
  }
}

function readConstraints(r: Reader): KeyConstraints {
  const c: KeyConstraints = { lifetimeSec: null, confirm: false };
  // Each constraint is at least one byte, so this loop is bounded by the message size.
  while (r.remaining > 0) {
    const t = r.byte();
    if (t === CONSTRAIN.LIFETIME) {
      if (c.lifetimeSec !== null) throw new WireError('lifetime given twice');
      c.lifetimeSec = r.uint32();
    } else if (t === CONSTRAIN.CONFIRM) {
      if (c.confirm) throw new WireError('confirm given twice');
      c.confirm = true;
    } else if (t === CONSTRAIN.MAXSIGN || t === CONSTRAIN.EXTENSION) {
      const name = t === CONSTRAIN.EXTENSION ? r.text(256) : 'maxsign';
      throw new UnsupportedKey(`constraint ${name}`);
    } else {
      throw new WireError(`unknown constraint ${t}`);
    }
  }
  return c;
}

/** Parses one message (the bytes after the length prefix). Never throws. */
export function parseMessage(msg: Buffer): AgentMessage {
  if (msg.length === 0) return { type: 'malformed', code: null, why: 'empty message' };
  const code = msg[0]!;
  const r = new Reader(msg.subarray(1));
  try {
    switch (code) {
      case MSG.REQUEST_IDENTITIES:
        r.end();
        return { type: 'list' };
      case MSG.SIGN_REQUEST: {
        const keyBlob = r.string();
        const data = r.string();
        const flags = r.uint32();
        r.end();
        return { type: 'sign', keyBlob, data, flags };
      }
      case MSG.ADD_IDENTITY:
      case MSG.ADD_ID_CONSTRAINED: {
        const key = readWirePrivateKey(r);
        const comment = r.text(4096);
        const constraints = code === MSG.ADD_ID_CONSTRAINED ? readConstraints(r) : { lifetimeSec: null, confirm: false };
        r.end();
        return { type: 'add', key, comment, constraints };
      }
      case MSG.REMOVE_IDENTITY: {
        const keyBlob = r.string();
        r.end();
        return { type: 'remove', keyBlob };
      }
      case MSG.REMOVE_ALL_IDENTITIES:
        r.end();
        return { type: 'removeAll' };
      case MSG.LOCK:
      case MSG.UNLOCK: {
        const passphrase = r.string();
        r.end();
        return { type: code === MSG.LOCK ? 'lock' : 'unlock', passphrase };
      }
      case MSG.EXTENSION: {
        const name = r.text(256);
        return { type: 'extension', name, data: r.rest() };
      }
      case MSG.ADD_SMARTCARD_KEY:
      case MSG.ADD_SMARTCARD_KEY_CONSTRAINED:
      case MSG.REMOVE_SMARTCARD_KEY:
        return { type: 'unsupported', code, why: 'smartcard keys are not supported' };
      default:
        return { type: 'malformed', code, why: `unknown message type ${code}` };
    }
  } catch (e) {
    if (e instanceof UnsupportedKey) return { type: 'unsupported', code, why: e.message };
    if (e instanceof WireError) return { type: 'malformed', code, why: e.message };
    return { type: 'malformed', code, why: 'unparseable message' };
  }
}

/** Length-prefixes a response body. */
export function frame(body: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

export const FAILURE_FRAME = frame(Buffer.from([MSG.FAILURE]));
export const SUCCESS_FRAME = frame(Buffer.from([MSG.SUCCESS]));

export function identitiesAnswer(ids: { blob: Buffer; comment: string }[]): Buffer {
  const w = new Writer().byte(MSG.IDENTITIES_ANSWER).uint32(ids.length);
  for (const id of ids) w.string(id.blob).string(id.comment);
  return frame(w.toBuffer());
}

export function signResponse(signature: Buffer): Buffer {
  return frame(new Writer().byte(MSG.SIGN_RESPONSE).string(signature).toBuffer());
}

export function extensionResponse(name: string, payload: Buffer): Buffer {
  return frame(new Writer().byte(MSG.EXTENSION_RESPONSE).string(name).raw(payload).toBuffer());
}

export type Frame = { kind: 'message'; body: Buffer } | { kind: 'oversize'; length: number };

/**
 * Splits a byte stream into messages. An over-long message is skipped byte for byte (never
 * buffered) and reported once, so the connection stays in sync and memory stays bounded.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private skip = 0;

  push(chunk: Buffer): Frame[] {
    const out: Frame[] = [];
    if (this.skip > 0) {
      const n = Math.min(this.skip, chunk.length);
      this.skip -= n;
      chunk = chunk.subarray(n);
    }
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    // Each iteration consumes at least 4 bytes, so this ends. Chunks are joined only once a
    // whole message is there, so a client trickling bytes cannot make us copy quadratically.
    while (this.skip === 0 && this.buffered >= 4) {
      if (this.chunks[0]!.length < 4) this.chunks = [Buffer.concat(this.chunks)];
      const len = this.chunks[0]!.readUInt32BE(0);
      if (len > MAX_MESSAGE) {
        out.push({ kind: 'oversize', length: len });
        const all = Buffer.concat(this.chunks);
        const n = Math.min(all.length - 4, len);
        this.skip = len - n;
        this.setRest(all.subarray(4 + n));
        continue;
      }
      if (this.buffered < 4 + len) break;
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      out.push({ kind: 'message', body: Buffer.from(all.subarray(4, 4 + len)) });
      this.setRest(all.subarray(4 + len));
    }
    return out;
  }

  /** Bytes held for an incomplete message (for back-pressure). */
  get pending(): number {
    return this.buffered;
  }

  /** True while a message has begun but not ended (held bytes, or an oversize one still being skipped). */
  get midFrame(): boolean {
    return this.buffered > 0 || this.skip > 0;
  }

  private setRest(rest: Buffer): void {
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
  }
}
