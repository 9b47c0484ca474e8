// Red team on agent.sock with hand-made agent protocol bytes (draft-miller-ssh-agent):
// frames of length 0 and 2^32-1, slow drips, every message type pipelined in one write,
// many connections at once, huge extension payloads, key blobs that are variants of a
// real one, and an ssh-add RSA key built to make the daemon compute for seconds. The agent
// runs in this process, so a stalled event loop shows as timer lag here.
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { agentKeyFromWire, rsaPrimesAreProbable } from '../../main/ssh/key-material';
import { MSG, parseMessage } from '../../main/ssh/protocol';
import { Reader, Writer } from '../../main/ssh/wire';
import { RawAgentClient, startTestAgent, type TestAgent } from '../helpers/ssh';

let a: TestAgent;
let blob: Buffer;

before(async () => {
  a = await startTestAgent({ decide: () => 'allow' });
  const k = await a.agent.keyService.generate({ type: 'ed25519', name: 'real' });
  blob = Buffer.from(k.publicKey.split(' ')[1]!, 'base64');
});
after(async () => {
  await a?.close();
});

const LIST = Buffer.from([MSG.REQUEST_IDENTITIES]);
const signReq = (keyBlob: Buffer, data: Buffer, flags = 0) => new Writer().byte(MSG.SIGN_REQUEST).string(keyBlob).string(data).uint32(flags).toBuffer();
const withClient = async <T>(f: (c: RawAgentClient) => Promise<T>): Promise<T> => {
  const c = await RawAgentClient.connect(a.sock);
  try {
    return await f(c);
  } finally {
    c.close();
  }
};
/** The longest the event loop went without running a 10 ms timer while `f` ran. */
async function worstLag(f: () => Promise<void>): Promise<number> {
  let last = Date.now();
  let worst = 0;
  const t = setInterval(() => {
    const now = Date.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 10);
  try {
    await f();
  } finally {
    clearInterval(t);
  }
  return worst;
}

describe('framing', () => {
  test('length 0, 2^32-1 and just over the cap: FAILURE, and other connections go on', async () => {
    await withClient(async (c) => {
      c.writeRaw(Buffer.from([0, 0, 0, 0]));
      assert.equal((await c.read())[0], MSG.FAILURE, 'an empty message is a FAILURE');
      assert.equal((await c.request(LIST))[0], MSG.IDENTITIES_ANSWER, 'and the stream is in sync');
      const over = Buffer.alloc(4);
      over.writeUInt32BE(256 * 1024 + 1);
      c.writeRaw(Buffer.concat([over, Buffer.alloc(256 * 1024 + 1, 0x0b)]));
      assert.equal((await c.read())[0], MSG.FAILURE, 'over the cap: one FAILURE, its bytes skipped');
      assert.equal((await c.request(LIST))[0], MSG.IDENTITIES_ANSWER);
      c.writeRaw(Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]));
      assert.equal((await c.read())[0], MSG.FAILURE, '4 GiB announced: answered at once, nothing buffered');
    });
    await withClient(async (c) => assert.equal((await c.request(LIST))[0], MSG.IDENTITIES_ANSWER));
  });

  test('every message type 0..255, pipelined in one write: exactly one answer each, in order, FAILURE for the unknown', async () => {
    await withClient(async (c) => {
      const bodies: Buffer[] = [];
      for (let t = 0; t < 256; t++) bodies.push(Buffer.from([t]));
      const frames = bodies.map((b) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]));
      c.writeRaw(Buffer.concat(frames));
      const answers: number[] = [];
      for (let i = 0; i < 256; i++) answers.push((await c.read(10_000))[0]!);
      assert.equal(answers[MSG.REQUEST_IDENTITIES], MSG.IDENTITIES_ANSWER);
      answers.forEach((x, t) => {
        if (t !== MSG.REQUEST_IDENTITIES) assert.equal(x, MSG.FAILURE, `type ${t} answered ${x}`);
      });
      assert.equal((await c.request(LIST))[0], MSG.IDENTITIES_ANSWER, 'still in sync after 256 answers');
    });
  });

  test('a sign request dripped one byte at a time does not hold up another client', async () => {
    await withClient(async (slow) => {
      const msg = signReq(blob, Buffer.from('SSHSIG-not-really'));
      const full = Buffer.concat([Buffer.alloc(4), msg]);
      full.writeUInt32BE(msg.length);
      for (let i = 0; i < full.length - 1; i++) {
        slow.writeRaw(full.subarray(i, i + 1));
        if (i % 8 === 0) {
          const t0 = Date.now();
          await withClient(async (fast) => assert.equal((await fast.request(LIST))[0], MSG.IDENTITIES_ANSWER));
          // Milliseconds normally. An agent held up by the dripping client would never answer
          // (the drip waits for this answer); the bound has a loaded machine's slack.
          assert.ok(Date.now() - t0 < 10_000, `answered in ${Date.now() - t0} ms`);
        }
      }
      a.asked.length = 0;
      slow.writeRaw(full.subarray(full.length - 1));
      assert.equal((await slow.read())[0], MSG.SIGN_RESPONSE, 'the dripped request is whole and answered');
      assert.equal(a.asked.length, 1, 'and was asked');
    });
  });

  test('100 connections × 40 pipelined lists: every answer arrives; a new client is answered meanwhile', async () => {
    const clients = await Promise.all(Array.from({ length: 100 }, () => RawAgentClient.connect(a.sock)));
    try {
      const burst = Buffer.concat(Array.from({ length: 40 }, () => Buffer.from([0, 0, 0, 1, MSG.REQUEST_IDENTITIES])));
      for (const c of clients) c.writeRaw(burst);
      const t0 = Date.now();
      await withClient(async (fresh) => assert.equal((await fresh.request(LIST, 30_000))[0], MSG.IDENTITIES_ANSWER));
      assert.ok(Date.now() - t0 < 20_000, `answered in ${Date.now() - t0} ms`);
      for (const c of clients) for (let i = 0; i < 40; i++) assert.equal((await c.read(20_000))[0], MSG.IDENTITIES_ANSWER);
    } finally {
      for (const c of clients) c.close();
    }
  });

  test('an unknown extension with a 250 KiB payload and a malformed session-bind: FAILURE; query still answers', async () => {
    await withClient(async (c) => {
      const huge = new Writer().byte(MSG.EXTENSION).string('evil@example.com').raw(crypto.randomBytes(250 * 1024)).toBuffer();
      assert.equal((await c.request(huge))[0], MSG.FAILURE);
      const badBind = new Writer().byte(MSG.EXTENSION).string('session-bind@openssh.com').raw(crypto.randomBytes(200 * 1024)).toBuffer();
      assert.equal((await c.request(badBind))[0], MSG.FAILURE);
      const q = await c.request(new Writer().byte(MSG.EXTENSION).string('query').toBuffer());
      assert.equal(q[0], MSG.EXTENSION_RESPONSE);
    });
  });
});

describe('sign requests', () => {
  test('key blobs that are variants of a real one (extra byte, cut short, other type, other key) are refused without asking', async () => {
    a.asked.length = 0;
    const r = new Reader(blob);
    r.text();
    const pub = r.string();
    const variants = [
      Buffer.concat([blob, Buffer.from([0])]),
      blob.subarray(0, blob.length - 1),
      new Writer().string('ssh-ed25519').string(Buffer.concat([pub, Buffer.from([0])])).toBuffer(),
      new Writer().string('ssh-ed448').string(pub).toBuffer(),
      new Writer().string('ssh-ed25519').string(crypto.randomBytes(32)).toBuffer(),
      Buffer.alloc(0),
    ];
    await withClient(async (c) => {
      for (const v of variants) assert.equal((await c.request(signReq(v, Buffer.from('x'))))[0], MSG.FAILURE);
    });
    assert.equal(a.asked.length, 0);
  });

  test('unknown flag bits: the prompt names the algorithm that is really used, and the signature is of that algorithm', async () => {
    a.asked.length = 0;
    await withClient(async (c) => {
      const ans = await c.request(signReq(blob, Buffer.from('some data'), 0xffffffff));
      assert.equal(ans[0], MSG.SIGN_RESPONSE);
      const sig = new Reader(new Reader(ans.subarray(1)).string()).text();
      assert.equal(sig, 'ssh-ed25519');
    });
    assert.equal((a.asked[0]!.req.args as { signatureAlgorithm?: string }).signatureAlgorithm, 'ssh-ed25519');
  });
});

/** An ssh-add RSA message whose arithmetic is consistent (n = p·q, e·d ≡ 1, iqmp) but whose p and q are not prime. */
function compositeRsaAdd(bits: number): Buffer {
  const modInv = (x: bigint, m: bigint): bigint => {
    let [r0, r1, s0, s1] = [m, ((x % m) + m) % m, 0n, 1n];
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1] = [r1, r0 - q * r1];
      [s0, s1] = [s1, s0 - q * s1];
    }
    if (r0 !== 1n) throw new Error('not invertible');
    return ((s0 % m) + m) % m;
  };
  const gcd = (x: bigint, y: bigint): bigint => (y === 0n ? x : gcd(y, x % y));
  const big = (b: Buffer) => BigInt(`0x${b.toString('hex')}`);
  const buf = (n: bigint) => {
    const h = n.toString(16);
    return Buffer.from(h.length % 2 ? `0${h}` : h, 'hex');
  };
  for (let attempt = 0; attempt < 200; attempt++) {
    const half = bits / 16;
    const pb = crypto.randomBytes(half);
    const qb = crypto.randomBytes(half);
    pb[0]! |= 0xc0;
    qb[0]! |= 0xc0;
    pb[half - 1]! |= 1;
    qb[half - 1]! |= 1;
    const p = big(pb);
    const q = big(qb);
    const e = 65537n;
    const l = ((p - 1n) * (q - 1n)) / gcd(p - 1n, q - 1n);
    if (gcd(e, l) !== 1n || gcd(p, q) !== 1n) continue;
    const d = modInv(e, l);
    const iqmp = modInv(q, p);
    return new Writer().byte(MSG.ADD_IDENTITY).string('ssh-rsa').mpint(buf(p * q)).mpint(buf(e)).mpint(buf(d)).mpint(buf(iqmp)).mpint(buf(p)).mpint(buf(q)).string('composite').toBuffer();
  }
  throw new Error('no composite key in 200 attempts');
}

describe('ssh-add of hostile RSA keys', () => {
  test('a 16384-bit key with composite p and q: refused, and the event loop never stalls (it took ~5 s of signing before)', async () => {
    const msg = compositeRsaAdd(16384);
    const parsed = parseMessage(msg);
    assert.equal(parsed.type, 'add');
    if (parsed.type !== 'add') return;
    // The arithmetic alone is consistent: only the primality check tells it apart.
    assert.doesNotThrow(() => agentKeyFromWire(parsed.key));
    assert.equal(await rsaPrimesAreProbable(parsed.key), false);
    let answer = -1;
    const lag = await worstLag(() => withClient(async (c) => void (answer = (await c.request(msg, 30_000))[0]!)));
    assert.equal(answer, MSG.FAILURE);
    assert.ok(lag < 1000, `the event loop stalled for ${lag} ms`);
    assert.doesNotMatch((await withClient((c) => c.request(LIST))).toString('latin1'), /composite/);
  });

  test('the same arithmetic with a wrong d or iqmp is refused at once, before any prime check', () => {
    const parsed = parseMessage(compositeRsaAdd(2048));
    if (parsed.type !== 'add' || parsed.key.kind !== 'rsa') throw new Error('setup');
    const k = parsed.key;
    const bump = (b: Buffer) => {
      const c = Buffer.from(b);
      c[c.length - 1]! ^= 2;
      return c;
    };
    assert.throws(() => agentKeyFromWire({ ...k, d: bump(k.d) }), /inconsistent RSA key/);
    assert.throws(() => agentKeyFromWire({ ...k, iqmp: bump(k.iqmp) }), /inconsistent RSA key/);
  });

  test('a real RSA key still passes both checks and signs', async () => {
    const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const j = privateKey.export({ format: 'jwk' });
    const b = (s: string | undefined) => Buffer.from(s!, 'base64url');
    const msg = new Writer().byte(MSG.ADD_IDENTITY).string('ssh-rsa').mpint(b(j.n)).mpint(b(j.e)).mpint(b(j.d)).mpint(b(j.qi)).mpint(b(j.p)).mpint(b(j.q)).string('real-rsa').toBuffer();
    await withClient(async (c) => {
      assert.equal((await c.request(msg, 30_000))[0], MSG.SUCCESS);
      const pubBlob = new Writer().string('ssh-rsa').mpint(b(j.e)).mpint(b(j.n)).toBuffer();
      const ans = await c.request(signReq(pubBlob, Buffer.from('hello'), 4));
      assert.equal(ans[0], MSG.SIGN_RESPONSE);
      const sig = new Reader(new Reader(ans.subarray(1)).string());
      assert.equal(sig.text(), 'rsa-sha2-512');
      assert.ok(crypto.verify('sha512', Buffer.from('hello'), privateKey, sig.string()));
      assert.equal((await c.request(new Writer().byte(MSG.REMOVE_IDENTITY).string(pubBlob).toBuffer()))[0], MSG.SUCCESS);
    });
  });
});
