// SSH wire encoding (RFC 4251 §5): the few primitives the agent protocol is built from.
// The Reader never throws anything but WireError, so a malformed message can be answered
// with FAILURE without guessing what went wrong.

export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}

export class Reader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  byte(): number {
    if (this.pos + 1 > this.buf.length) throw new WireError('truncated byte');
    return this.buf[this.pos++]!;
  }

  bool(): boolean {
    return this.byte() !== 0;
  }

  uint32(): number {
    if (this.pos + 4 > this.buf.length) throw new WireError('truncated uint32');
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  /** A length-prefixed byte string; a view into the message, not a copy. */
  string(): Buffer {
    const len = this.uint32();
    if (len > this.remaining) throw new WireError('string runs past the end of the message');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  /** A UTF-8 string; refuses invalid UTF-8 so names shown to the human are what was sent. */
  text(max = 4096): string {
    const b = this.string();
    if (b.length > max) throw new WireError('text too long');
    const s = b.toString('utf8');
    if (!Buffer.from(s, 'utf8').equals(b)) throw new WireError('text is not valid UTF-8');
    return s;
  }

  /** An mpint as unsigned big-endian bytes without leading zeros (negative ones refused). */
  mpint(): Buffer {
    const b = this.string();
    if (b.length > 0 && (b[0]! & 0x80) !== 0) throw new WireError('negative mpint');
    let i = 0;
    while (i < b.length && b[i] === 0) i++;
    return b.subarray(i);
  }

  rest(): Buffer {
    const out = this.buf.subarray(this.pos);
    this.pos = this.buf.length;
    return out;
  }

  end(): void {
    if (this.remaining !== 0) throw new WireError(`${this.remaining} unexpected trailing bytes`);
  }
}

export class Writer {
  private readonly parts: Buffer[] = [];

  byte(v: number): this {
    this.parts.push(Buffer.from([v & 0xff]));
    return this;
  }

  bool(v: boolean): this {
    return this.byte(v ? 1 : 0);
  }

  uint32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v >>> 0);
    this.parts.push(b);
    return this;
  }

  string(v: Buffer | string): this {
    const b = typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
    this.uint32(b.length);
    this.parts.push(b);
    return this;
  }

  /** Unsigned big-endian magnitude → mpint (a leading zero when the top bit is set). */
  mpint(v: Buffer): this {
    let i = 0;
    while (i < v.length && v[i] === 0) i++;
    const mag = v.subarray(i);
    if (mag.length > 0 && (mag[0]! & 0x80) !== 0) return this.string(Buffer.concat([Buffer.from([0]), mag]));
    return this.string(mag);
  }

  raw(b: Buffer): this {
    this.parts.push(b);
    return this;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

