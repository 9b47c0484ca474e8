// Fuzz: 100,000+ random and mutated agent messages on one connection while a well-behaved
// client on another keeps listing and getting valid signatures. Every well-framed message
// must get exactly one answer (the stream stays in sync), the agent must not crash or hang,
// and memory stays bounded. Deterministic PRNG: a failure names its seed.
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { agentKeyOf, signWith, verifySignature } from '../../main/ssh/key-material';
import { MSG, frame } from '../../main/ssh/protocol';
import { Writer } from '../../main/ssh/wire';
import { RawAgentClient, startTestAgent, type TestAgent } from '../helpers/ssh';
import { prng, type Rng } from '../fuzz/lib';

const FRAMES = 100_000;
const BATCH = 500;
const DEADLINE_MS = 240_000;
const SEED = Number(process.env.AIRLOCK_FUZZ_SEED ?? 0x5eed1234);


let a: TestAgent;
let goodBlob: Buffer;
const GOOD_DATA = Buffer.from('the good client signs this');

before(async () => {
  a = await startTestAgent({
    // Only the good client's exact data is allowed; fuzzed sign requests are denied.
    decide: (req) => ((req.args as { dataBytes?: number }).dataBytes === GOOD_DATA.length && req.resource === 'unknown-data' ? 'allow' : 'deny'),
  });
  const k = await a.agent.keyService.generate({ type: 'ed25519', name: 'good' });
  goodBlob = Buffer.from(k.publicKey.split(' ')[1]!, 'base64');
});
after(async () => {
  await a?.close();
});

function seeds(): Buffer[] {
  const host = agentKeyOf(crypto.generateKeyPairSync('ed25519').privateKey);
  const sid = crypto.randomBytes(32);
  const bind = new Writer().byte(MSG.EXTENSION).string('session-bind@openssh.com').string(host.publicBlob).string(sid).string(signWith(host, sid, 0)).bool(false).toBuffer();
  const edPriv = crypto.generateKeyPairSync('ed25519').privateKey;
  const jwk = edPriv.export({ format: 'jwk' });
  const seed32 = Buffer.from(jwk.d!, 'base64url');
  const pub32 = Buffer.from(jwk.x!, 'base64url');
  const addEd = new Writer().byte(MSG.ADD_IDENTITY).string('ssh-ed25519').string(pub32).string(Buffer.concat([seed32, pub32])).string('fuzz').toBuffer();
  const addEdC = new Writer().byte(MSG.ADD_ID_CONSTRAINED).string('ssh-ed25519').string(pub32).string(Buffer.concat([seed32, pub32])).string('fuzz-c').byte(1).uint32(60).byte(2).toBuffer();
  const login = new Writer().string(sid).byte(50).string('git').string('ssh-connection').string('publickey-hostbound-v00@openssh.com').bool(true).string('ssh-ed25519').string(goodBlob).string(host.publicBlob).toBuffer();
  const sshsig = Buffer.concat([Buffer.from('SSHSIG'), new Writer().string('git').string('').string('sha512').string(crypto.randomBytes(64)).toBuffer()]);
  return [
    Buffer.from([MSG.REQUEST_IDENTITIES]),
    new Writer().byte(MSG.SIGN_REQUEST).string(goodBlob).string(login).uint32(0).toBuffer(),
    new Writer().byte(MSG.SIGN_REQUEST).string(goodBlob).string(sshsig).uint32(4).toBuffer(),
    addEd,
    addEdC,
    new Writer().byte(MSG.REMOVE_IDENTITY).string(new Writer().string('ssh-ed25519').string(pub32).toBuffer()).toBuffer(),
    Buffer.from([MSG.REMOVE_ALL_IDENTITIES]),
    new Writer().byte(MSG.UNLOCK).string('x').toBuffer(),
    new Writer().byte(MSG.EXTENSION).string('query').toBuffer(),
    bind,
    new Writer().byte(MSG.ADD_SMARTCARD_KEY).string('/usr/lib/pkcs11.so').string('1234').toBuffer(),
  ];
}

function mutate(r: Rng, base: Buffer): Buffer {
  const b = Buffer.from(base);
  switch (r.int(7)) {
    case 0: // flip bits
      for (let i = 0, n = 1 + r.int(4); i < n && b.length > 0; i++) b[r.int(b.length)]! ^= 1 << r.int(8);
      return b;
    case 1: // truncate
      return b.subarray(0, r.int(b.length + 1));
    case 2: // append junk
      return Buffer.concat([b, r.bytes(1 + r.int(16))]);
    case 3: // corrupt a 32-bit length somewhere
      if (b.length >= 5) b.writeUInt32BE([0, 1, 0xffffffff, 0x7fffffff, r.int(1 << 30)][r.int(5)]!, 1 + r.int(b.length - 4));
      return b;
    case 4: // random type byte
      b[0] = r.int(256);
      return b;
    case 5: // entirely random
      return r.bytes(r.int(64));
    default: // splice two seeds
      return Buffer.concat([b.subarray(0, r.int(b.length + 1)), r.bytes(r.int(8))]);
  }
}

async function goodClientWorks(good: RawAgentClient): Promise<void> {
  const list = await good.request(Buffer.from([MSG.REQUEST_IDENTITIES]));
  assert.equal(list[0], MSG.IDENTITIES_ANSWER);
  assert.ok(list.includes(goodBlob), 'the good key is listed');
  const resp = await good.request(new Writer().byte(MSG.SIGN_REQUEST).string(goodBlob).string(GOOD_DATA).uint32(0).toBuffer());
  assert.equal(resp[0], MSG.SIGN_RESPONSE, 'good client gets a signature');
  const sig = resp.subarray(5, 5 + resp.readUInt32BE(1));
  assert.ok(verifySignature(goodBlob, sig, GOOD_DATA), 'and it verifies');
}

test(`fuzz: ${FRAMES} mutated frames keep the stream in sync and the good client served (seed ${SEED})`, async () => {
  const r = prng(SEED);
  const base = seeds();
  const fuzz = await RawAgentClient.connect(a.sock);
  const good = await RawAgentClient.connect(a.sock);
  const started = Date.now();
  const rss0 = process.memoryUsage().rss;
  const allowed = new Set<number>([MSG.FAILURE, MSG.SUCCESS, MSG.IDENTITIES_ANSWER, MSG.SIGN_RESPONSE, MSG.EXTENSION_RESPONSE]);
  let sent = 0;
  const counts = new Map<number, number>();
  a.asked.length = 0;
  for (let batch = 0; sent < FRAMES; batch++) {
    assert.ok(Date.now() - started < DEADLINE_MS, `fuzz took longer than ${DEADLINE_MS} ms (at ${sent} frames)`);
    const bodies: Buffer[] = [];
    for (let i = 0; i < BATCH; i++) {
      let body = r.int(10) === 0 ? base[r.int(base.length)]! : mutate(r, base[r.int(base.length)]!);
      // A successful random lock would legitimately change the good client's answers;
      // lock/unlock have their own tests, so the fuzzer sends unlock instead.
      if (body[0] === MSG.LOCK) body = Buffer.concat([Buffer.from([MSG.UNLOCK]), body.subarray(1)]);
      bodies.push(body);
    }
    fuzz.writeRaw(Buffer.concat(bodies.map(frame)));
    for (let i = 0; i < BATCH; i++) {
      const reply = await fuzz.read(10_000);
      assert.ok(allowed.has(reply[0]!), `unexpected reply type ${reply[0]} to ${bodies[i]!.toString('hex').slice(0, 80)}`);
      counts.set(reply[0]!, (counts.get(reply[0]!) ?? 0) + 1);
    }
    sent += BATCH;
    if (batch % 20 === 0) await goodClientWorks(good);
  }
  await goodClientWorks(good);
  // One more exchange on the fuzz connection: still in sync after everything.
  const q = await fuzz.request(new Writer().byte(MSG.EXTENSION).string('query').toBuffer());
  assert.equal(q[0], MSG.EXTENSION_RESPONSE);
  // The fuzzer reached every part of the agent, not just the parse-error path.
  for (const t of [MSG.FAILURE, MSG.SUCCESS, MSG.IDENTITIES_ANSWER, MSG.EXTENSION_RESPONSE]) assert.ok((counts.get(t) ?? 0) > 0, `no reply of type ${t}`);
  assert.ok(a.asked.length > 100, `only ${a.asked.length} fuzzed sign requests reached the asker`);
  const grown = process.memoryUsage().rss - rss0;
  assert.ok(grown < 256 * 1024 * 1024, `memory grew by ${grown} bytes`);
  fuzz.close();
  good.close();
});

test('broken framing: random byte streams and huge length prefixes cost nothing and hurt no one', async () => {
  const r = prng(SEED ^ 0xabcdef);
  const good = await RawAgentClient.connect(a.sock);
  for (let i = 0; i < 50; i++) {
    const c = await RawAgentClient.connect(a.sock);
    if (i % 2 === 0) {
      c.writeRaw(r.bytes(1 + r.int(4096)));
    } else {
      // A claimed 4 GiB message is skipped without buffering; the next frame is still answered.
      const head = Buffer.alloc(4);
      head.writeUInt32BE(0xfffffff0);
      c.writeRaw(Buffer.concat([head, r.bytes(1024)]));
      const over = await c.read(5000);
      assert.equal(over[0], MSG.FAILURE, 'over-long message is answered with FAILURE');
    }
    c.close();
  }
  // Over the cap by one byte, sent in full: FAILURE, then the stream is still in sync.
  const c = await RawAgentClient.connect(a.sock);
  const big = Buffer.alloc(256 * 1024 + 1, 0x41);
  big[0] = MSG.REQUEST_IDENTITIES;
  c.writeRaw(frame(big));
  assert.equal((await c.read())[0], MSG.FAILURE);
  assert.equal((await c.request(Buffer.from([MSG.REQUEST_IDENTITIES])))[0], MSG.IDENTITIES_ANSWER);
  // Exactly at the cap is a message like any other (malformed here, so FAILURE).
  const atCap = Buffer.alloc(256 * 1024, 0x41);
  atCap[0] = MSG.REQUEST_IDENTITIES;
  c.writeRaw(frame(atCap));
  assert.equal((await c.read())[0], MSG.FAILURE);
  c.close();
  await goodClientWorks(good);
  good.close();
});


test('a client that writes but never reads is throttled (answers are not buffered without bound), and stays in sync', async () => {
  // An agent of its own: known keys, so the size of each answer is known.
  const own = await startTestAgent();
  await own.agent.keyService.generate({ type: 'ed25519', name: 'one' });
  const c = await RawAgentClient.connect(own.sock);
  c.socket.pause(); // read nothing
  const COUNT = 200_000;
  const one = frame(Buffer.from([MSG.REQUEST_IDENTITIES]));
  // Many small writes, so our unsent backlog shrinks as the agent reads (one big write would
  // count as unsent until the last byte went).
  const chunk = Buffer.concat(Array.from({ length: 1000 }, () => one));
  for (let i = 0; i < COUNT / 1000; i++) c.writeRaw(chunk);
  // Wait until the agent stops taking requests (or has taken them all), bounded.
  let last = -1;
  let stable = 0;
  for (let i = 0; i < 75 && stable < 5 && c.socket.writableLength > 0; i++) {
    await new Promise((r) => setTimeout(r, 200));
    stable = c.socket.writableLength === last ? stable + 1 : 0;
    last = c.socket.writableLength;
  }
  // The agent stopped reading once its answers backed up, so our side still holds requests.
  assert.ok(c.socket.writableLength > 0, 'the agent kept reading although nobody read its answers');
  c.socket.resume();
  for (let i = 0; i < COUNT; i++) {
    const r = await c.read(10_000);
    assert.equal(r[0], MSG.IDENTITIES_ANSWER);
  }
  c.close();
  await own.close();
});
