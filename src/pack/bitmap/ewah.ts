// EWAH compressed bitmaps in the serialization git and JGit share (JavaEWAH's):
//   u32 bit size, u32 word count, word count x u64 words, u32 index of the last run-length word;
// all big-endian. The words are chunks "RLW literal*": an RLW holds, from its low bit up, the run
// bit, a 32-bit run length (in 64-bit words of that bit) and a 31-bit count of literal words that
// follow it. Within a literal, lower bits come first in the stream.
//
// A serialized bitmap is kept as a view into the buffer it was read from and applied straight onto
// an uncompressed Bitset (OR or XOR), so resolving an XOR chain allocates one Bitset. Encoding
// reproduces git's bitmap_to_ewah()/ewah_set() output word for word: zero and all-ones words join
// runs, anything else is a literal.
import { CorruptError } from '../../core/errors.js';
import { Bitset } from './bitset.js';

const MAX_RUN = 0xffffffff;
const MAX_LITERALS = 0x7fffffff;
const ONES = 0xffffffff;

function be32(b: Uint8Array, p: number): number {
  return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
}

function putBe32(b: Uint8Array, p: number, v: number): void {
  b[p] = v >>> 24; b[p + 1] = v >>> 16; b[p + 2] = v >>> 8; b[p + 3] = v;
}

export class EwahBitmap {
  private constructor(
    /** The buffer holding the serialized bitmap, and where in it the bitmap starts. */
    readonly buf: Uint8Array,
    readonly offset: number,
    readonly bitSize: number,
    readonly wordCount: number,
    readonly rlwPosition: number,
  ) {}

  /** Bytes the serialized bitmap occupies. */
  get byteLength(): number {
    return 12 + 8 * this.wordCount;
  }

  /** The serialized form, as stored. */
  bytes(): Uint8Array {
    return this.buf.subarray(this.offset, this.offset + this.byteLength);
  }

  /** Parses the header of the bitmap at `offset`; the words must lie before `end`. */
  static read(buf: Uint8Array, offset: number, end: number, where: () => string): EwahBitmap {
    if (offset + 8 > end) throw new CorruptError('pack', `${where()}: EWAH bitmap header at offset ${offset} is truncated`);
    const bitSize = be32(buf, offset);
    const wordCount = be32(buf, offset + 4);
    const size = 12 + 8 * wordCount;
    if (offset + size > end) {
      throw new CorruptError('pack', `${where()}: EWAH bitmap at offset ${offset} claims ${wordCount} words, more than the ${end - offset} bytes left`);
    }
    return new EwahBitmap(buf, offset, bitSize, wordCount, be32(buf, offset + size - 4));
  }

  /** Decodes into a new Bitset; any bit at or past `limit` makes the bitmap corrupt. */
  toBitset(limit: number, where: () => string): Bitset {
    const out = new Bitset(limit);
    this.applyTo(out, false, limit, where);
    return out;
  }

  /** target |= this */
  orInto(target: Bitset, limit: number, where: () => string): void {
    this.applyTo(target, false, limit, where);
  }

  /** target ^= this */
  xorInto(target: Bitset, limit: number, where: () => string): void {
    this.applyTo(target, true, limit, where);
  }

  private applyTo(target: Bitset, xor: boolean, limit: number, where: () => string): void {
    const need = Math.ceil(limit / 64) * 2;
    if (target.words.length < need) {
      const bigger = new Uint32Array(need);
      bigger.set(target.words);
      target.words = bigger;
    }
    const t = target.words;
    const maxWords = need >>> 1;
    const buf = this.buf;
    let p = this.offset + 8;
    const end = p + 8 * this.wordCount;
    let w = 0;
    const beyond = () => new CorruptError('pack',
      `${where()}: EWAH bitmap at offset ${this.offset} sets bits past the ${limit} objects it covers`);
    while (p < end) {
      const hi = be32(buf, p), lo = be32(buf, p + 4);
      p += 8;
      const runLen = (lo >>> 1) + (hi & 1) * 0x80000000;
      const literals = hi >>> 1;
      if (literals > (end - p) / 8) {
        throw new CorruptError('pack', `${where()}: EWAH bitmap at offset ${this.offset} has a run-length word at byte ${p - 8} promising ${literals} literal words past its end`);
      }
      if (runLen) {
        if (lo & 1) {
          if (w + runLen > maxWords) throw beyond();
          const from = 2 * w, to = 2 * (w + runLen);
          if (xor) for (let i = from; i < to; i++) t[i] = ~t[i]!;
          else t.fill(ONES, from, to);
        }
        w += runLen;
      }
      for (let k = 0; k < literals; k++, w++, p += 8) {
        const lhi = be32(buf, p), llo = be32(buf, p + 4);
        if ((lhi | llo) === 0) continue;
        if (w >= maxWords) throw beyond();
        if (xor) { t[2 * w]! ^= llo; t[2 * w + 1]! ^= lhi; } else { t[2 * w]! |= llo; t[2 * w + 1]! |= lhi; }
      }
    }
    // Bits in the last word past the limit: a run or literal may end there.
    if (limit % 64 !== 0 && maxWords > 0) {
      const rest = limit % 64;
      const lastLo = t[2 * maxWords - 2]!, lastHi = t[2 * maxWords - 1]!;
      const badLo = rest < 32 ? lastLo >>> rest : 0;
      const badHi = rest <= 32 ? lastHi : rest < 64 ? lastHi >>> (rest - 32) : 0;
      if (badLo || badHi) throw beyond();
    }
  }
}

/**
 * Serializes `bits` as git does. `bitSize` defaults to git's bitmap_to_ewah() value (64 bits per
 * word up to the last non-zero one); pass last set bit + 1 to match ewah_set()-built bitmaps.
 */
export function encodeEwah(bits: Bitset, bitSize?: number): Buffer {
  return encodeXor(bits, null, bitSize);
}

/**
 * Serializes a XOR b (the form an XOR-compressed bitmap entry is stored in). Like git's ewah_xor(),
 * the result spans as many words as the longer operand, ending in a zero run if a and b agree there.
 */
export function encodeEwahXor(a: Bitset, b: Bitset, bitSize?: number): Buffer {
  return encodeXor(a, b, bitSize);
}

/** The number of 64-bit words encodeEwah/encodeEwahXor would produce, without producing them. */
export function ewahWordCount(a: Bitset, xorWith: Bitset | null = null): number {
  return encodeWords(a.words, xorWith ? xorWith.words : null, spanOf(a.words, xorWith ? xorWith.words : null), null);
}

function encodeXor(a: Bitset, b: Bitset | null, bitSize?: number): Buffer {
  const bw = b ? b.words : null;
  const span = spanOf(a.words, bw);
  const count = encodeWords(a.words, bw, span, null);
  const out = Buffer.alloc(12 + 8 * count);
  encodeWords(a.words, bw, span, out);
  const size = bitSize ?? 64 * span;
  putBe32(out, 0, size);
  putBe32(out, 4, count);
  return out;
}

/** 64-bit words up to and including the last non-zero one. */
function usedWords(a: Uint32Array): number {
  for (let i = a.length - 1; i >= 0; i--) if (a[i] !== 0) return (i >>> 1) + 1;
  return 0;
}

/** Words an encoding of a (XOR b) covers: the longer operand's. */
function spanOf(a: Uint32Array, b: Uint32Array | null): number {
  return b ? Math.max(usedWords(a), usedWords(b)) : usedWords(a);
}

/**
 * Runs git's ewah_add() over the first n words of a (XOR b): returns how many u64 words the
 * encoding has, and when `out` is given writes them at out[8..] and the last RLW's index after them.
 */
function encodeWords(a: Uint32Array, b: Uint32Array | null, n: number, out: Uint8Array | null): number {
  const la = a.length, lb = b ? b.length : 0;
  let count = 1;
  let rlw = 0, runBit = 0, runLen = 0, lits = 0;
  for (let k = 0; k < n; k++) {
    const i = 2 * k;
    const lo = ((i < la ? a[i]! : 0) ^ (i < lb ? b![i]! : 0)) >>> 0;
    const hi = ((i + 1 < la ? a[i + 1]! : 0) ^ (i + 1 < lb ? b![i + 1]! : 0)) >>> 0;
    const zero = (lo | hi) === 0;
    if (zero || (lo === ONES && hi === ONES)) {
      const v = zero ? 0 : 1;
      if (lits === 0 && runLen === 0) runBit = v;
      if (lits === 0 && runBit === v && runLen < MAX_RUN) {
        runLen++;
      } else {
        if (out) writeRlw(out, rlw, runBit, runLen, lits);
        rlw = count++;
        runBit = v; runLen = 1; lits = 0;
      }
    } else {
      if (lits >= MAX_LITERALS) {
        if (out) writeRlw(out, rlw, runBit, runLen, lits);
        rlw = count++;
        runBit = 0; runLen = 0; lits = 0;
      }
      lits++;
      if (out) { putBe32(out, 8 + 8 * count, hi); putBe32(out, 12 + 8 * count, lo); }
      count++;
    }
  }
  if (out) {
    writeRlw(out, rlw, runBit, runLen, lits);
    putBe32(out, 8 + 8 * count, rlw);
  }
  return count;
}

function writeRlw(out: Uint8Array, index: number, runBit: number, runLen: number, lits: number): void {
  const lo = (runBit | ((runLen & 0x7fffffff) << 1)) >>> 0;
  const hi = ((lits << 1) | (runLen >>> 31)) >>> 0;
  putBe32(out, 8 + 8 * index, hi);
  putBe32(out, 12 + 8 * index, lo);
}
