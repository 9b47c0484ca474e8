// Shared by the fuzz targets: a seeded PRNG (a failure names its seed and input, so it
// replays), structure-aware mutators for bytes and text, and a time- and count-bounded
// loop. A target exports `fuzz(opts): Promise<FuzzReport>`; scripts/fuzz.mjs runs them
// for FUZZ_SECONDS each and test/fuzz/*.test.ts runs them for a few seconds in CI.

export interface FuzzOptions {
  seconds: number;
  seed: number;
  /** Progress lines (scripts/fuzz.mjs prints them; tests keep them quiet). */
  log?: (line: string) => void;
  /** Per-input time limit in ms where a target has one (the CI smoke runs relax it). */
  slowMs?: number;
  /** Stop after this many inputs (CI smoke runs: the same inputs on every machine). */
  maxIterations?: number;
}

export interface FuzzFailure {
  /** What broke: "threw TypeError", "hang", "wrong answer", ... */
  kind: string;
  message: string;
  /** The input that did it, printable (hex for bytes, JSON for text). */
  input: string;
}

export interface FuzzReport {
  target: string;
  seed: number;
  iterations: number;
  ms: number;
  failures: FuzzFailure[];
  /** Target-specific counters (answers by kind, slowest input, ...): shows the fuzzer reached the code. */
  stats: Record<string, number>;
}

export type Rng = ReturnType<typeof prng>;

/** xorshift32: fast, deterministic, good enough to pick mutations. */
export function prng(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  const int = (n: number) => (n <= 0 ? 0 : next() % n);
  return {
    int,
    chance: (p: number) => next() / 0x100000000 < p,
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)]!,
    bytes: (n: number) => {
      const b = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) b[i] = next() & 0xff;
      return b;
    },
  };
}

/** Lengths and numbers that break naive code: zero, boundaries, sign bits, the max. */
export const INTERESTING_U32 = [0, 1, 2, 3, 4, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 256 * 1024, 256 * 1024 + 1, 0x7fffffff, 0x80000000, 0xfffffff0, 0xffffffff];

export function mutateBytes(r: Rng, base: Buffer, donors: readonly Buffer[] = []): Buffer {
  const b = Buffer.from(base);
  switch (r.int(9)) {
    case 0: // flip a few bits
      for (let i = 0, n = 1 + r.int(4); i < n && b.length > 0; i++) b[r.int(b.length)]! ^= 1 << r.int(8);
      return b;
    case 1: // truncate
      return b.subarray(0, r.int(b.length + 1));
    case 2: // append junk
      return Buffer.concat([b, r.bytes(1 + r.int(32))]);
    case 3: // an interesting 32-bit value where a length could be
      if (b.length >= 4) b.writeUInt32BE(r.pick(INTERESTING_U32), r.int(b.length - 3));
      return b;
    case 4: // a length prefix that is off by a little
      if (b.length >= 4) {
        const at = r.int(b.length - 3);
        b.writeUInt32BE((b.readUInt32BE(at) + r.pick([-2, -1, 1, 2, 4])) >>> 0, at);
      }
      return b;
    case 5: // splice with another valid input
      if (donors.length) {
        const d = r.pick(donors);
        return Buffer.concat([b.subarray(0, r.int(b.length + 1)), d.subarray(r.int(d.length + 1))]);
      }
      return r.bytes(r.int(64));
    case 6: // duplicate a slice (repeated fields)
      if (b.length) {
        const s = r.int(b.length);
        const e = s + r.int(b.length - s + 1);
        return Buffer.concat([b.subarray(0, e), b.subarray(s, e), b.subarray(e)]);
      }
      return b;
    case 7: // delete a slice
      if (b.length) {
        const s = r.int(b.length);
        return Buffer.concat([b.subarray(0, s), b.subarray(s + 1 + r.int(8))]);
      }
      return b;
    default: // random bytes
      return r.bytes(r.int(96));
  }
}

/** Text that is hard on parsers and on whoever prints it. */
export const NASTY_TEXT = [
  '', ' ', '\n', '\r\n', '\t', '\0', '\u0000\u0001\u001b[31m', '\u202e', '\u200b', '\ufeff', '\ud800', '\udfff', '😀', 'é', 'e\u0301',
  '"', "'", '\\', '`', '$', '${', '$(', ')', '{', '}', '[', ']', '*', '**', '?', '~', '#', '%s%n', '../', '/', '//', '.', 'NaN', 'null',
  'x'.repeat(5000), '9'.repeat(400), '-1', '1e309', '__proto__', 'constructor', 'toString',
];

/** Mutates a string: insertions of nasty text, truncation, duplication, deletion, case. */
export function mutateText(r: Rng, s: string, donors: readonly string[] = []): string {
  const at = r.int(s.length + 1);
  switch (r.int(7)) {
    case 0:
      return s.slice(0, at) + r.pick(NASTY_TEXT) + s.slice(at);
    case 1:
      return s.slice(0, at);
    case 2: {
      const e = at + r.int(s.length - at + 1);
      return s.slice(0, e) + s.slice(at, e).repeat(1 + r.int(3)) + s.slice(e);
    }
    case 3:
      return s.slice(0, at) + s.slice(at + 1 + r.int(8));
    case 4:
      if (donors.length) {
        const d = r.pick(donors);
        return s.slice(0, at) + d.slice(r.int(d.length + 1));
      }
      return s + r.pick(NASTY_TEXT);
    case 5:
      return s.slice(0, at) + String.fromCharCode(r.int(0x10000)) + s.slice(at);
    default:
      return r.chance(0.5) ? s.toUpperCase() : s.split('').reverse().join('');
  }
}

/**
 * Runs `step` until `seconds` pass or `maxIterations` steps ran; stops early after a
 * handful of failures (one bug tends to repeat, and the report must stay readable).
 */
export async function fuzzLoop(
  opts: FuzzOptions,
  target: string,
  step: (r: Rng, i: number, fail: (f: FuzzFailure) => void) => void | Promise<void>,
  maxIterations = 50_000_000,
): Promise<FuzzReport> {
  const r = prng(opts.seed);
  const failures: FuzzFailure[] = [];
  const t0 = Date.now();
  const deadline = t0 + opts.seconds * 1000;
  let nextLog = t0 + 10_000;
  let i = 0;
  const fail = (f: FuzzFailure) => {
    if (failures.length < 20) failures.push(f);
  };
  const cap = Math.min(maxIterations, opts.maxIterations ?? Infinity);
  for (; i < cap && Date.now() < deadline && failures.length < 10; i++) {
    await step(r, i, fail);
    if (opts.log && Date.now() >= nextLog) {
      opts.log(`${target}: ${i + 1} inputs, ${failures.length} failures, ${Math.round((deadline - Date.now()) / 1000)} s left`);
      nextLog += 10_000;
    }
  }
  return { target, seed: opts.seed, iterations: i, ms: Date.now() - t0, failures, stats: {} };
}

export const hex = (b: Buffer, max = 600) => b.subarray(0, max).toString('hex') + (b.length > max ? `…(${b.length} bytes)` : '');
export const clipText = (s: string, max = 600) => JSON.stringify(s.length > max ? s.slice(0, max) + `…(${s.length} chars)` : s);

export function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
