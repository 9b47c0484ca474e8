// Fuzz target: the SSH agent wire codec, in process (the live agent socket has its own
// 100k-frame fuzz in test/integration/ssh-fuzz.test.ts). Starts from valid messages and
// mutates lengths, types, truncation and splices. Oracles:
//  - parseMessage, parseSessionBind, parseSignedData, verifySignature never throw;
//  - Reader and publicKeyFromBlob, agentKeyFromWire throw nothing but WireError;
//  - FrameDecoder yields the same frames whatever the chunking, and never holds more than
//    one message (plus the chunk in hand);
//  - nothing takes longer than SLOW_MS on one input (a slow parse stalls every approval).
import * as crypto from 'node:crypto';
import { agentKeyFromWire, agentKeyOf, publicKeyFromBlob, signWith, verifySignature } from '../../main/ssh/key-material';
import { FrameDecoder, MAX_MESSAGE, MSG, frame, parseMessage, type Frame } from '../../main/ssh/protocol';
import { parseSessionBind } from '../../main/ssh/session-bind';
import { parseSignedData } from '../../main/ssh/signed-data';
import { Reader, WireError, Writer } from '../../main/ssh/wire';
import { errorText, fuzzLoop, hex, mutateBytes, type FuzzOptions, type FuzzReport, type Rng } from './lib';

export const SLOW_MS = 250;

const MESSAGE_TYPES = new Set(['list', 'sign', 'add', 'remove', 'removeAll', 'lock', 'unlock', 'extension', 'unsupported', 'malformed']);

interface Seeds {
  messages: Buffer[];
  blobs: Buffer[];
  signed: Buffer[];
  binds: Buffer[];
  keyBlob: Buffer;
}

function sshEd25519(): { pub32: Buffer; seed32: Buffer } {
  const jwk = crypto.generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return { pub32: Buffer.from(jwk.x!, 'base64url'), seed32: Buffer.from(jwk.d!, 'base64url') };
}

export function makeSeeds(): Seeds {
  const ed = sshEd25519();
  const host = agentKeyOf(crypto.generateKeyPairSync('ed25519').privateKey);
  const ec = agentKeyOf(crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
  const ecJwk = ec.privateKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(ecJwk.x!, 'base64url'), Buffer.from(ecJwk.y!, 'base64url')]);
  const keyBlob = new Writer().string('ssh-ed25519').string(ed.pub32).toBuffer();
  const sid = crypto.randomBytes(32);
  const bind = new Writer().string(host.publicBlob).string(sid).string(signWith(host, sid, 0)).bool(false).toBuffer();
  const login = new Writer().string(sid).byte(50).string('git').string('ssh-connection').string('publickey-hostbound-v00@openssh.com')
    .bool(true).string('ssh-ed25519').string(keyBlob).string(host.publicBlob).toBuffer();
  const sshsig = Buffer.concat([Buffer.from('SSHSIG'), new Writer().string('git').string('').string('sha512').string(crypto.randomBytes(64)).toBuffer()]);
  const addEd = new Writer().byte(MSG.ADD_IDENTITY).string('ssh-ed25519').string(ed.pub32).string(Buffer.concat([ed.seed32, ed.pub32])).string('fuzz').toBuffer();
  const addEc = new Writer().byte(MSG.ADD_ID_CONSTRAINED).string('ecdsa-sha2-nistp256').string('nistp256').string(point)
    .mpint(Buffer.from(ecJwk.d!, 'base64url')).string('fuzz-ec').byte(1).uint32(60).byte(2).toBuffer();
  // RSA with consistent n = p·q but no real primes: only sizes and arithmetic matter here.
  const rsa = (bytes: number) => {
    const p = crypto.randomBytes(bytes / 2);
    const q = crypto.randomBytes(bytes / 2);
    p[0]! |= 0x80;
    q[0]! |= 0x80;
    p[p.length - 1]! |= 1;
    q[q.length - 1]! |= 1;
    const n = BigInt(`0x${p.toString('hex')}`) * BigInt(`0x${q.toString('hex')}`);
    const nb = Buffer.from(n.toString(16).padStart(bytes * 2, '0'), 'hex');
    return new Writer().byte(MSG.ADD_IDENTITY).string('ssh-rsa').mpint(nb).mpint(Buffer.from([1, 0, 1])).mpint(crypto.randomBytes(bytes - 1))
      .mpint(crypto.randomBytes(bytes / 2 - 1)).mpint(p).mpint(q).string('fuzz-rsa').toBuffer();
  };
  const messages = [
    Buffer.from([MSG.REQUEST_IDENTITIES]),
    new Writer().byte(MSG.SIGN_REQUEST).string(keyBlob).string(login).uint32(0).toBuffer(),
    new Writer().byte(MSG.SIGN_REQUEST).string(keyBlob).string(sshsig).uint32(4).toBuffer(),
    addEd,
    addEc,
    rsa(256),
    new Writer().byte(MSG.REMOVE_IDENTITY).string(keyBlob).toBuffer(),
    Buffer.from([MSG.REMOVE_ALL_IDENTITIES]),
    new Writer().byte(MSG.LOCK).string('pw').toBuffer(),
    new Writer().byte(MSG.UNLOCK).string('pw').toBuffer(),
    new Writer().byte(MSG.EXTENSION).string('query').toBuffer(),
    Buffer.concat([new Writer().byte(MSG.EXTENSION).string('session-bind@openssh.com').toBuffer(), bind]),
    new Writer().byte(MSG.ADD_SMARTCARD_KEY).string('/usr/lib/pkcs11.so').string('1234').toBuffer(),
  ];
  return { messages, blobs: [keyBlob, host.publicBlob, ec.publicBlob], signed: [login, sshsig], binds: [bind], keyBlob };
}

/** Reader ops in a random order on a random buffer: only WireError may escape. */
function readerOps(r: Rng, buf: Buffer): void {
  const rd = new Reader(buf);
  for (let i = 0, n = 1 + r.int(12); i < n; i++) {
    switch (r.int(7)) {
      case 0: rd.byte(); break;
      case 1: rd.uint32(); break;
      case 2: rd.string(); break;
      case 3: rd.text(r.int(2) ? 64 : 4096); break;
      case 4: rd.mpint(); break;
      case 5: rd.bool(); break;
      default: rd.end();
    }
  }
}

function framesEqual(a: Frame[], b: Frame[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((f, i) => {
    const g = b[i]!;
    if (f.kind !== g.kind) return false;
    return f.kind === 'message' ? f.body.equals((g as { body: Buffer }).body) : f.length === (g as { length: number }).length;
  });
}

/** A stream of frames (some mutated, some oversize) fed whole vs in random chunks. */
function decoderCheck(r: Rng, seeds: Seeds): string | null {
  const parts: Buffer[] = [];
  for (let i = 0, n = 1 + r.int(6); i < n; i++) {
    const body = mutateBytes(r, r.pick(seeds.messages), seeds.messages);
    if (r.chance(0.1)) {
      // Oversize: a length past the cap followed by some of its bytes.
      const head = Buffer.alloc(4);
      head.writeUInt32BE(MAX_MESSAGE + 1 + r.int(1 << 20));
      parts.push(head, r.bytes(r.int(64)));
    } else parts.push(frame(body));
  }
  const stream = Buffer.concat(parts);
  const whole = new FrameDecoder().push(stream);
  const dec = new FrameDecoder();
  const chunked: Frame[] = [];
  let maxPending = 0;
  let biggestChunk = 0;
  for (let at = 0; at < stream.length; ) {
    const len = 1 + r.int(r.chance(0.5) ? 8 : 512);
    const chunk = stream.subarray(at, at + len);
    biggestChunk = Math.max(biggestChunk, chunk.length);
    chunked.push(...dec.push(chunk));
    maxPending = Math.max(maxPending, dec.pending);
    at += len;
  }
  if (!framesEqual(whole, chunked)) return `chunked decoding gave ${chunked.length} frames, whole gave ${whole.length}`;
  if (maxPending > 4 + MAX_MESSAGE + biggestChunk) return `decoder held ${maxPending} bytes`;
  return null;
}

export async function fuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const seeds = makeSeeds();
  const stats: Record<string, number> = { slowestMs: 0 };
  const count = (k: string) => (stats[k] = (stats[k] ?? 0) + 1);
  const report = await fuzzLoop(opts, 'ssh-codec', (r, _i, fail) => {
    const which = r.int(6);
    const base = which === 3 ? r.pick(seeds.blobs) : which === 4 ? r.pick(seeds.signed) : which === 5 ? r.pick(seeds.binds) : r.pick(seeds.messages);
    const donors = which === 3 ? seeds.blobs : seeds.messages;
    let input = r.chance(0.05) ? Buffer.from(base) : mutateBytes(r, base, donors);
    if (r.chance(0.3)) input = mutateBytes(r, input, donors); // stacked mutations reach deeper
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    try {
      switch (which) {
        case 0:
        case 1: {
          const m = parseMessage(input);
          count(`msg:${m.type}`);
          if (!MESSAGE_TYPES.has(m.type)) fail({ kind: 'wrong answer', message: `parseMessage returned type ${m.type}`, input: hex(input) });
          // What the agent does with an add next: must refuse with WireError, never anything else.
          if (m.type === 'add') {
            try {
              agentKeyFromWire(m.key);
              count('add:accepted');
            } catch (e) {
              if (!(e instanceof WireError)) fail({ kind: `agentKeyFromWire threw ${errorText(e)}`, message: errorText(e), input: hex(input) });
            }
          }
          break;
        }
        case 2: {
          const err = decoderCheck(r, seeds);
          count('decoder');
          if (err) fail({ kind: 'wrong answer', message: `FrameDecoder: ${err}`, input: `seed ${opts.seed}` });
          break;
        }
        case 3:
          try {
            publicKeyFromBlob(input);
            count('blob:ok');
          } catch (e) {
            if (!(e instanceof WireError)) fail({ kind: `publicKeyFromBlob threw ${errorText(e)}`, message: errorText(e), input: hex(input) });
          }
          verifySignature(input, r.pick(seeds.blobs), input);
          break;
        case 4:
          count(`signed:${parseSignedData(input, seeds.keyBlob).purpose}`);
          break;
        default: {
          count(`bind:${parseSessionBind(input).ok}`);
          try {
            readerOps(r, input);
          } catch (e) {
            if (!(e instanceof WireError)) fail({ kind: `Reader threw ${errorText(e)}`, message: errorText(e), input: hex(input) });
          }
        }
      }
    } catch (e) {
      fail({ kind: `threw ${(e as Error)?.name ?? 'non-error'}`, message: errorText(e), input: hex(input) });
    }
    const ms = performance.now() - t0;
    stats.slowestMs = Math.max(stats.slowestMs!, ms);
    if (ms > SLOW_MS) {
      // Wall time includes being descheduled on a loaded machine (CI shares 2 cores): an
      // input that is really slow keeps the CPU busy that long too.
      const cpu = process.cpuUsage(cpu0);
      const cpuMs = (cpu.user + cpu.system) / 1000;
      if (cpuMs > SLOW_MS) fail({ kind: 'slow', message: `one input took ${ms.toFixed(0)} ms, ${cpuMs.toFixed(0)} ms of CPU (limit ${SLOW_MS})`, input: hex(input) });
    }
  });
  report.stats = stats;
  return report;
}
