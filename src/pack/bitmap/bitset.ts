// An uncompressed bitset over Uint32Array words: bit i lives in words[i >>> 5] at (i & 31). The
// word count is always even, so two 32-bit words line up with one 64-bit EWAH word (low half
// first). Set operations work in place and grow the left operand as needed; iteration peels the
// lowest set bit of each word, so sparse sets cost little more than their population.

export class Bitset {
  words: Uint32Array;

  constructor(bits = 0) {
    this.words = new Uint32Array(wordsFor(bits));
  }

  /** Wraps existing words (length is rounded up to an even count by copying if needed). */
  static fromWords(words: Uint32Array): Bitset {
    const b = new Bitset(0);
    b.words = words.length % 2 === 0 ? words : grow(words, words.length + 1);
    return b;
  }

  /** Number of bits the current words can hold without growing. */
  get capacity(): number {
    return this.words.length * 32;
  }

  has(i: number): boolean {
    const w = i >>> 5;
    return w < this.words.length && (this.words[w]! & (1 << (i & 31))) !== 0;
  }

  add(i: number): void {
    const w = i >>> 5;
    if (w >= this.words.length) this.words = grow(this.words, w + 1);
    this.words[w]! |= 1 << (i & 31);
  }

  or(other: Bitset): this {
    const o = other.words;
    if (o.length > this.words.length) this.words = grow(this.words, o.length);
    const a = this.words;
    for (let i = 0; i < o.length; i++) a[i]! |= o[i]!;
    return this;
  }

  and(other: Bitset): this {
    const a = this.words, o = other.words;
    const n = Math.min(a.length, o.length);
    for (let i = 0; i < n; i++) a[i]! &= o[i]!;
    a.fill(0, n);
    return this;
  }

  andNot(other: Bitset): this {
    const a = this.words, o = other.words;
    const n = Math.min(a.length, o.length);
    for (let i = 0; i < n; i++) a[i]! &= ~o[i]!;
    return this;
  }

  xor(other: Bitset): this {
    const o = other.words;
    if (o.length > this.words.length) this.words = grow(this.words, o.length);
    const a = this.words;
    for (let i = 0; i < o.length; i++) a[i]! ^= o[i]!;
    return this;
  }

  clone(): Bitset {
    return Bitset.fromWords(this.words.slice());
  }

  /** Population count. */
  count(): number {
    const a = this.words;
    let n = 0;
    for (let i = 0; i < a.length; i++) n += popcount(a[i]!);
    return n;
  }

  /** Population count of this AND other, without building it. */
  countAnd(other: Bitset): number {
    const a = this.words, b = other.words;
    const len = Math.min(a.length, b.length);
    let n = 0;
    for (let i = 0; i < len; i++) n += popcount(a[i]! & b[i]!);
    return n;
  }

  isEmpty(): boolean {
    const a = this.words;
    for (let i = 0; i < a.length; i++) if (a[i] !== 0) return false;
    return true;
  }

  /** Highest set bit, or -1 when empty. */
  last(): number {
    const a = this.words;
    for (let i = a.length - 1; i >= 0; i--) {
      if (a[i] !== 0) return i * 32 + 31 - Math.clz32(a[i]!);
    }
    return -1;
  }

  /** Same bits set; trailing zero words do not matter. */
  equals(other: Bitset): boolean {
    const a = this.words, b = other.words;
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
    for (let i = n; i < a.length; i++) if (a[i] !== 0) return false;
    for (let i = n; i < b.length; i++) if (b[i] !== 0) return false;
    return true;
  }

  /** Calls fn with each set bit, in increasing order. */
  forEach(fn: (bit: number) => void): void {
    const a = this.words;
    for (let i = 0; i < a.length; i++) {
      let v = a[i]!;
      const base = i * 32;
      while (v !== 0) {
        const low = v & -v;
        fn(base + 31 - Math.clz32(low));
        v ^= low;
      }
    }
  }

  /** The set bits, in increasing order. */
  toArray(): Uint32Array {
    const out = new Uint32Array(this.count());
    let k = 0;
    this.forEach(bit => { out[k++] = bit; });
    return out;
  }
}

function wordsFor(bits: number): number {
  return Math.ceil(bits / 64) * 2;
}

function grow(words: Uint32Array, minWords: number): Uint32Array {
  let n = Math.max(words.length, 2);
  while (n < minWords) n *= 2;
  if (n % 2) n++;
  const bigger = new Uint32Array(n);
  bigger.set(words);
  return bigger;
}

function popcount(v: number): number {
  if (v === 0) return 0;
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
