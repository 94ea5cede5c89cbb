// A seeded PRNG for the corpus generator. Corpora must come out byte-identical on every machine, so
// nothing here may depend on the clock or Math.random, and only arithmetic that IEEE 754 rounds
// exactly (+ - * / and floor) is used: Math.pow/log/exp may differ between V8 builds.

/** sfc32 (Chris Doty-Humphrey's small fast counting generator): 128-bit state, passes PractRand. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next();
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform float in [0, 1); exact, since a 32-bit integer divided by 2^32 is representable. */
  float(): number {
    return this.next() / 4294967296;
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** A uniform integer in [lo, hi], both included. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** True with probability perMille / 1000. */
  chance(perMille: number): boolean {
    return this.int(1000) < perMille;
  }

  /**
   * An index in [0, n) biased towards 0: the minimum of `skew` uniform draws. Used to make a few
   * files "hot" (edited again and again), which is what gives real histories their long delta chains.
   */
  skewed(n: number, skew: number): number {
    let f = this.float();
    for (let i = 1; i < skew; i++) f = Math.min(f, this.float());
    return Math.floor(f * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** A 32-bit seed from a name (FNV-1a), so each corpus has its own stream of choices. */
export function seedFrom(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
