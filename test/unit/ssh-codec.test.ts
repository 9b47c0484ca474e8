// The agent wire codec: framing (split, trickled, over the cap), message parsing for every
// OpenSSH 9 request, FAILURE-worthy malformed input, and ECDSA DER ↔ mpint.
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { test } from 'node:test';
import { derToMpintPair, mpintPairToP1363 } from '../../main/ssh/ecdsa-signature';
import { FrameDecoder, MAX_MESSAGE, MSG, frame, parseMessage } from '../../main/ssh/protocol';
import { Reader, Writer } from '../../main/ssh/wire';

test('frames split across chunks, trickled byte by byte, and many in one chunk', () => {
  const bodies = [Buffer.from([11]), Buffer.from([13, 1, 2, 3]), Buffer.alloc(70_000, 7)];
  const stream = Buffer.concat(bodies.map(frame));
  const whole = new FrameDecoder().push(stream);
  assert.deepEqual(whole.map((f) => (f.kind === 'message' ? f.body : null)), bodies);
  const d = new FrameDecoder();
  const got: Buffer[] = [];
  for (let i = 0; i < stream.length; i++) for (const f of d.push(stream.subarray(i, i + 1))) if (f.kind === 'message') got.push(f.body);
  assert.deepEqual(got, bodies);
  assert.equal(d.pending, 0);
});

test('an over-long frame is reported once, skipped without buffering, and the next frame is intact', () => {
  const d = new FrameDecoder();
  const head = Buffer.alloc(4);
  head.writeUInt32BE(MAX_MESSAGE + 10);
  let out = d.push(Buffer.concat([head, Buffer.alloc(100)]));
  assert.deepEqual(out, [{ kind: 'oversize', length: MAX_MESSAGE + 10 }]);
  assert.equal(d.pending, 0, 'nothing of it is kept');
  out = d.push(Buffer.alloc(MAX_MESSAGE + 10 - 100 - 5));
  assert.equal(out.length, 0);
  out = d.push(Buffer.concat([Buffer.alloc(5), frame(Buffer.from([11]))]));
  assert.equal(out.length, 1);
  assert.equal(out[0]!.kind, 'message');
});

const keyBlob = new Writer().string('ssh-ed25519').string(Buffer.alloc(32, 1)).toBuffer();

test('every request type parses', () => {
  assert.deepEqual(parseMessage(Buffer.from([MSG.REQUEST_IDENTITIES])), { type: 'list' });
  const sign = parseMessage(new Writer().byte(MSG.SIGN_REQUEST).string(keyBlob).string('data').uint32(4).toBuffer());
  assert.equal(sign.type, 'sign');
  assert.equal(sign.type === 'sign' && sign.flags, 4);
  const ed = crypto.generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const pub = Buffer.from(ed.x!, 'base64url');
  const secret = Buffer.concat([Buffer.from(ed.d!, 'base64url'), pub]);
  const add = parseMessage(new Writer().byte(MSG.ADD_ID_CONSTRAINED).string('ssh-ed25519').string(pub).string(secret).string('c').byte(1).uint32(30).byte(2).toBuffer());
  assert.equal(add.type, 'add');
  assert.deepEqual(add.type === 'add' && add.constraints, { lifetimeSec: 30, confirm: true });
  assert.equal(parseMessage(new Writer().byte(MSG.REMOVE_IDENTITY).string(keyBlob).toBuffer()).type, 'remove');
  assert.equal(parseMessage(Buffer.from([MSG.REMOVE_ALL_IDENTITIES])).type, 'removeAll');
  assert.equal(parseMessage(new Writer().byte(MSG.LOCK).string('pw').toBuffer()).type, 'lock');
  assert.equal(parseMessage(new Writer().byte(MSG.UNLOCK).string('pw').toBuffer()).type, 'unlock');
  const ext = parseMessage(new Writer().byte(MSG.EXTENSION).string('session-bind@openssh.com').string('x').toBuffer());
  assert.equal(ext.type === 'extension' && ext.name, 'session-bind@openssh.com');
  assert.equal(parseMessage(new Writer().byte(MSG.ADD_SMARTCARD_KEY).string('id').string('pin').toBuffer()).type, 'unsupported');
  // Constraint extensions (restrict-destination, sk-provider) are not offered: FAILURE, like an unknown one.
  const restricted = parseMessage(new Writer().byte(MSG.ADD_ID_CONSTRAINED).string('ssh-ed25519').string(pub).string(secret).string('c').byte(255).string('restrict-destination-v00@openssh.com').toBuffer());
  assert.equal(restricted.type, 'unsupported');
  assert.equal(parseMessage(new Writer().byte(MSG.ADD_IDENTITY).string('ssh-dss').toBuffer()).type, 'unsupported');
});

test('malformed messages are recognised as such (never thrown)', () => {
  const cases: Buffer[] = [
    Buffer.alloc(0),
    Buffer.from([99]),
    Buffer.from([MSG.REQUEST_IDENTITIES, 0]), // trailing byte
    new Writer().byte(MSG.SIGN_REQUEST).string(keyBlob).string('data').toBuffer(), // no flags
    new Writer().byte(MSG.SIGN_REQUEST).uint32(0xffffffff).toBuffer(), // length past the end
    new Writer().byte(MSG.LOCK).toBuffer(),
    new Writer().byte(MSG.ADD_IDENTITY).string('ssh-ed25519').string(Buffer.alloc(31)).string(Buffer.alloc(64)).string('').toBuffer(),
    new Writer().byte(MSG.ADD_ID_CONSTRAINED).string('ssh-ed25519').string(Buffer.alloc(32)).string(Buffer.alloc(64)).string('').byte(7).toBuffer(),
    new Writer().byte(MSG.EXTENSION).string(Buffer.from([0xff, 0xfe])).toBuffer(), // name not UTF-8
  ];
  for (const c of cases) assert.equal(parseMessage(c).type, 'malformed', c.toString('hex'));
});

test('mpint encoding: leading zero for a set top bit, none otherwise, negative refused', () => {
  const w = new Writer().mpint(Buffer.from([0x80, 1])).mpint(Buffer.from([0, 0, 0x7f])).mpint(Buffer.alloc(0)).toBuffer();
  assert.equal(w.toString('hex'), '00000003008001' + '000000017f' + '00000000');
  const r = new Reader(w);
  assert.deepEqual(r.mpint(), Buffer.from([0x80, 1]));
  assert.deepEqual(r.mpint(), Buffer.from([0x7f]));
  assert.deepEqual(r.mpint(), Buffer.alloc(0));
  assert.throws(() => new Reader(new Writer().string(Buffer.from([0x80])).toBuffer()).mpint());
});

test('ECDSA DER → SSH mpint pair, agreeing with the P1363 form for every curve', () => {
  for (const curve of ['P-256', 'P-384', 'P-521']) {
    const width = curve === 'P-521' ? 66 : Number(curve.slice(2)) / 8;
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: curve });
    // Many signatures, so components with a high bit set (DER pads them) and short ones both occur.
    for (let i = 0; i < 40; i++) {
      const data = Buffer.from(`message ${i}`);
      const der = crypto.sign('sha256', data, privateKey);
      const body = derToMpintPair(der);
      const p1363 = mpintPairToP1363(body, width);
      assert.ok(crypto.verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, p1363), `${curve} #${i}`);
      const r = new Reader(body);
      for (const part of [r.string(), r.string()]) {
        assert.ok(part.length <= width + 1);
        if (part.length > 0 && part[0] === 0) assert.ok((part[1]! & 0x80) !== 0, 'a leading zero only before a set top bit');
      }
    }
  }
  assert.throws(() => derToMpintPair(Buffer.from([0x30, 0x03, 0x02, 0x01])));
  assert.throws(() => derToMpintPair(Buffer.from([0x31, 0x00])));
});
