// A seeded random source for table-generating unit tests: the same sequence on every run,
// so a failure names a reproducible case. (The fuzzers use test/fuzz/lib.ts's prng, which
// draws integers and bytes; these tests draw floats.)

/** mulberry32: small, seeded, the same sequence on every run; returns [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}
