// ECDSA signatures: Node's crypto speaks DER (SEQUENCE { INTEGER r, INTEGER s }), SSH wants
// the pair as two mpints inside a string (RFC 5656 §3.1.2). Both directions live here.
import { Reader, WireError, Writer } from './wire';

function readDerLength(der: Buffer, pos: number): [number, number] {
  const first = der[pos];
  if (first === undefined) throw new WireError('truncated DER length');
  if (first < 0x80) return [first, pos + 1];
  const n = first & 0x7f;
  if (n === 0 || n > 2) throw new WireError('unsupported DER length');
  let len = 0;
  for (let i = 0; i < n; i++) {
    const b = der[pos + 1 + i];
    if (b === undefined) throw new WireError('truncated DER length');
    len = len * 256 + b;
  }
  return [len, pos + 1 + n];
}

function readDerInteger(der: Buffer, pos: number): [Buffer, number] {
  if (der[pos] !== 0x02) throw new WireError('expected DER INTEGER');
  const [len, start] = readDerLength(der, pos + 1);
  if (start + len > der.length || len === 0) throw new WireError('DER INTEGER runs past the end');
  return [der.subarray(start, start + len), start + len];
}

/** DER ECDSA-Sig-Value → SSH signature body: mpint r || mpint s. */
export function derToMpintPair(der: Buffer): Buffer {
  if (der[0] !== 0x30) throw new WireError('expected DER SEQUENCE');
  const [seqLen, start] = readDerLength(der, 1);
  if (start + seqLen !== der.length) throw new WireError('DER SEQUENCE length mismatch');
  const [r, afterR] = readDerInteger(der, start);
  const [s, afterS] = readDerInteger(der, afterR);
  if (afterS !== der.length) throw new WireError('trailing bytes after DER signature');
  // DER integers are signed; a leading 0x00 only marks them positive. Writer.mpint re-adds it.
  return new Writer().mpint(r).mpint(s).toBuffer();
}

/** SSH mpint r || mpint s → IEEE P1363 r||s of fixed width (what Node verifies with). */
export function mpintPairToP1363(body: Buffer, width: number): Buffer {
  const rd = new Reader(body);
  const r = rd.mpint();
  const s = rd.mpint();
  rd.end();
  if (r.length > width || s.length > width) throw new WireError('ECDSA signature component too long');
  const out = Buffer.alloc(width * 2);
  r.copy(out, width - r.length);
  s.copy(out, 2 * width - s.length);
  return out;
}
