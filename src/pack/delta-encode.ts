// Making a delta (git's format, as pack/delta.ts applies it) of a target against a base, the way
// git's diff-delta.c does: the base is cut into 16-byte blocks indexed by a hash of their bytes;
// the target is scanned with the same hash rolled one byte at a time, and where a block matches,
// the match is grown forwards (and backwards over bytes not yet emitted) and becomes one copy
// instruction; the bytes between copies become insert instructions. The pack writer uses it on
// objects it would otherwise compress whole: in its delta search (packing/write/delta-search.ts,
// one DeltaIndex per window entry, serving every target after it), and against a version of the
// same path the receiver has (createDelta): two versions of a directory share almost every entry,
// so the delta is a few dozen bytes where the whole tree is a kilobyte or more of hashes zlib can
// hardly shrink.
import { DELTA_SIZE_MIN } from './delta.js';

/** What an index without a base holds. */
const EMPTY = new Uint8Array(0);
/** Bytes per indexed block of the base, and the width of the rolling hash. */
const BLOCK = 16;
/** Candidates looked at per target position (the longest match wins), as git caps its hash chains. */
const MAX_TRIES = 16;
/** A match shorter than this is checked against matches starting a little further on. */
const LAZY = 256;
/** Places mayShare() looks up, in targets of at least SAMPLE_FROM bytes. */
const SAMPLES = 8;
const SAMPLE_FROM = 1024;
/** How far from where the base would go on a short match also looks (bytes either way). */
const SHIFT = 8;
/** A copy instruction copies at most this much (git's limit, which every reader accepts). */
const MAX_COPY = 0x10000;
/** An insert instruction carries at most this many bytes. */
const MAX_INSERT = 0x7f;
/** Room past the size limit: see createDelta. */
const SLACK = 256;
const MULT = 0x01000193;

/** MULT ** (BLOCK - 1), modulo 2 ** 32: what the byte leaving the window weighed. */
const OUTGOING = (() => {
  let m = 1;
  for (let i = 1; i < BLOCK; i++) m = Math.imul(m, MULT);
  return m;
})();

function blockHash(buf: Uint8Array, at: number): number {
  let h = 0;
  for (let i = at; i < at + BLOCK; i++) h = (Math.imul(h, MULT) + buf[i]!) | 0;
  return h;
}

/** The hash of the window one byte on: `leaving` goes out, `entering` comes in. */
function roll(h: number, leaving: number, entering: number): number {
  return (Math.imul(h - Math.imul(leaving, OUTGOING), MULT) + entering) | 0;
}

/** The blocks of a base, indexed by hash: built once, it serves deltas of many targets. */
export class DeltaIndex {
  /** First block of each hash slot, -1 for none; then next[b] down each chain. */
  private heads: Int32Array;
  private next: Int32Array;
  private mask = 0;
  private base: Uint8Array = EMPTY;
  private view: DataView = new DataView(EMPTY.buffer);

  constructor(base?: Uint8Array) {
    this.heads = new Int32Array(0);
    this.next = new Int32Array(0);
    if (base) this.reset(base);
  }

  /** Indexes `base`, reusing this index's memory. */
  reset(base: Uint8Array): this {
    this.base = base;
    this.view = new DataView(base.buffer, base.byteOffset, base.byteLength);
    const blocks = Math.floor(base.length / BLOCK);
    // Four slots a block: most target positions match nothing, and the fewer of them land on a
    // slot some other block took, the fewer comparisons rule them out (about a tenth less time in
    // delta() than two slots a block). The table is as large as the base, as git's index is.
    let size = 16;
    while (size < blocks * 4) size *= 2;
    if (this.heads.length < size) this.heads = new Int32Array(size);
    this.heads.fill(-1, 0, size);
    if (this.next.length < blocks) this.next = new Int32Array(Math.max(blocks, 2 * this.next.length));
    this.mask = size - 1;
    const heads = this.heads, next = this.next, mask = this.mask;
    // Later blocks are chained first; a chain is searched up to MAX_TRIES deep.
    for (let b = 0; b < blocks; b++) {
      const slot = blockHash(base, b * BLOCK) & mask;
      next[b] = heads[slot]!;
      heads[slot] = b;
    }
    return this;
  }

  /** Lets go of the base (its index's memory stays, for the next reset). */
  release(): void {
    this.base = EMPTY;
    this.view = new DataView(EMPTY.buffer);
  }

  /**
   * False when `target` surely shares too little with the base for a delta of at most half its
   * size: none of SAMPLES places spread over it, each looked up at every alignment, is in the base.
   * A delta that small copies at least half the target, so each place misses with a chance of a
   * half at most: all of them, one in 256. Most pairs a delta search tries are different files,
   * which are otherwise scanned for half their length before the delta grows too long.
   */
  private mayShare(target: Uint8Array, tv: DataView): boolean {
    const tlen = target.length;
    if (tlen < SAMPLE_FROM) return true;
    const base = this.base, bv = this.view, heads = this.heads, next = this.next, mask = this.mask;
    for (let i = 0; i < SAMPLES; i++) {
      const at = Math.floor(((i + 0.5) * (tlen - 2 * BLOCK)) / SAMPLES);
      let h = blockHash(target, at);
      for (let k = at; k < at + BLOCK; k++) {
        if (k > at) h = roll(h, target[k - 1]!, target[k - 1 + BLOCK]!);
        for (let b = heads[h & mask]!, tries = 0; b >= 0 && tries < MAX_TRIES; b = next[b]!, tries++) {
          if (longerMatch(base, bv, b * BLOCK, target, tv, k, BLOCK, BLOCK)) return true;
        }
      }
    }
    return false;
  }

  /**
   * A delta turning the base into `target`, or null when it would be longer than `maxSize` bytes
   * (or shorter than git applies). The returned bytes are valid until the next delta is made.
   */
  delta(target: Uint8Array, maxSize: number): Uint8Array | null {
    if (maxSize <= 0) return null;
    const tv = new DataView(target.buffer, target.byteOffset, target.byteLength);
    if (!this.mayShare(target, tv)) return null;
    const base = this.base, bv = this.view, heads = this.heads, next = this.next, mask = this.mask;
    // The size is checked after every instruction, so the output runs at most one instruction (an
    // insert of 127 bytes and its opcode) and the header (two sizes, 20 bytes) past the limit.
    if (out.length < maxSize + SLACK) out = new Uint8Array(Math.max(maxSize + SLACK, 2 * out.length));
    let w = writeSize(out, 0, base.length);
    w = writeSize(out, w, target.length);
    const tlen = target.length, blen = base.length;
    let pending = 0;
    /** Where in the base the last copy ended; -1 before the first. */
    let lastEnd = -1;
    // Past this many unmatched bytes, their inserts alone would break the limit: give up early,
    // as most pairs a delta search tries (different files) would otherwise be scanned to the end.
    // A match found later grows back over at most a block's worth of them (it is found within a
    // block of where it starts), hence the block of slack; git gives up at the limit itself.
    let hopeless = maxSize - w + BLOCK;
    let t = 0;
    let h = tlen >= BLOCK ? blockHash(target, 0) : 0;
    while (t + BLOCK <= tlen) {
      // On to the next match of a block or more: the first longest of the candidates.
      let best = BLOCK - 1, bestAt = 0;
      for (;;) {
        for (let b = heads[h & mask]!, tries = 0; b >= 0 && tries < MAX_TRIES; b = next[b]!, tries++) {
          const from = b * BLOCK;
          const n = longerMatch(base, bv, from, target, tv, t, Math.min(blen - from, tlen - t), best + 1);
          if (n) {
            best = n;
            bestAt = from;
          }
        }
        if (best >= BLOCK) break;
        if (t - pending > hopeless) return null;
        if (t + BLOCK === tlen) break;
        h = roll(h, target[t]!, target[t + BLOCK]!);
        t++;
      }
      if (best < BLOCK) break;
      if (best < LAZY) {
        // A short match may be another place that merely looks alike (a line of repetitive text
        // with another line number): the right one, whose block may be indexed only a few bytes
        // on, would run far longer. As zlib's lazy matching, look on for a match that ends later;
        // growing back from it recovers the bytes in between.
        // Where the base would go on if the bytes since the last copy replaced about as many:
        // an edit's usual shape, and the place a long chain of look-alikes hides.
        const expected = lastEnd < 0 ? -1 : lastEnd + (t - pending);
        let end = t + best, at = t, ah = h;
        diagonal.fill(0);
        for (let k = t; k < t + BLOCK && k + BLOCK <= tlen; k++) {
          // A match from k wins only if it is a block long at least and ends past `end`.
          let need = Math.max(BLOCK, end - k + 1);
          if (k > t) {
            ah = roll(ah, target[k - 1]!, target[k - 1 + BLOCK]!);
            for (let b = heads[ah & mask]!, tries = 0; b >= 0 && tries < MAX_TRIES; b = next[b]!, tries++) {
              const from = b * BLOCK;
              const n = longerMatch(base, bv, from, target, tv, k, Math.min(blen - from, tlen - k), need);
              if (n) {
                end = k + n;
                at = k;
                bestAt = from;
                need = n + 1;
              }
            }
          }
          if (expected < 0) continue;
          // Each j is a diagonal (a fixed distance between the base and target positions) looked at
          // from every k; a match from k ends where the one from k - 1 on it did, so it can win only
          // past the last byte known to differ on its diagonal.
          const near = expected + (k - t);
          for (let j = 0, from = near - SHIFT; j <= 2 * SHIFT && from < blen; j++, from++) {
            if (from < 0 || k < diagonal[j]!) continue;
            const most = Math.min(blen - from, tlen - k);
            if (most < need) {
              diagonal[j] = tlen;
            } else if (base[from + need - 1] !== target[k + need - 1]) {
              diagonal[j] = k + need;
            } else {
              const n = matchLength(base, bv, from, target, tv, k, most);
              diagonal[j] = k + n + 1;
              if (n >= need) {
                end = k + n;
                at = k;
                bestAt = from;
                need = n + 1;
              }
            }
          }
        }
        best = end - at;
        t = at;
      }
      // Grow the match backwards over bytes still waiting to be inserted.
      while (bestAt > 0 && t > pending && base[bestAt - 1] === target[t - 1]) {
        bestAt--;
        t--;
        best++;
      }
      w = writeInserts(out, w, target, pending, t, maxSize);
      if (w > maxSize) return null;
      for (let done = 0; done < best;) {
        const n = Math.min(best - done, MAX_COPY);
        w = writeCopy(out, w, bestAt + done, n);
        if (w > maxSize) return null;
        done += n;
      }
      t += best;
      pending = t;
      lastEnd = bestAt + best;
      hopeless = maxSize - w + BLOCK;
      if (t + BLOCK <= tlen) h = blockHash(target, t);
    }
    w = writeInserts(out, w, target, pending, tlen, maxSize);
    // An empty target's delta is its two sizes alone, too short for git when the base is small.
    return w > maxSize || w < DELTA_SIZE_MIN ? null : out.subarray(0, w);
  }
}

/** Reused between calls: the output, and the index of createDelta's base. */
let out = new Uint8Array(0);
/** Per diagonal of the look-ahead near where the base would go on: the first position worth a look. */
const diagonal = new Int32Array(2 * SHIFT + 1);
const scratch = new DeltaIndex();

/**
 * A delta turning `base` into `target`, or null when it would be longer than `maxSize` bytes (or
 * shorter than git applies). The returned bytes are valid until the next call.
 */
export function createDelta(base: Uint8Array, target: Uint8Array, maxSize: number): Uint8Array | null {
  if (maxSize <= 0) return null;
  try {
    return scratch.reset(base).delta(target, maxSize);
  } finally {
    // Not kept alive by the scratch index until the next call.
    scratch.release();
  }
}

/**
 * How many bytes from base[from] and target[at] on are equal, up to `most`; or 0 when fewer than
 * `need` are, without counting them. Checking the last byte a winning match needs first rules out
 * most candidates in one comparison, as zlib's longest_match checks the byte past its best.
 */
function longerMatch(base: Uint8Array, bv: DataView, from: number, target: Uint8Array, tv: DataView, at: number, most: number, need: number): number {
  if (most < need || base[from + need - 1] !== target[at + need - 1]) return 0;
  const n = matchLength(base, bv, from, target, tv, at, most);
  return n < need ? 0 : n;
}

/** How many bytes from base[from] and target[at] on are equal, up to `most`. */
function matchLength(base: Uint8Array, bv: DataView, from: number, target: Uint8Array, tv: DataView, at: number, most: number): number {
  let n = 0;
  while (n + 4 <= most && bv.getInt32(from + n) === tv.getInt32(at + n)) n += 4;
  while (n < most && base[from + n] === target[at + n]) n++;
  return n;
}

/** A delta header size: base-128, least significant group first. */
function writeSize(buf: Uint8Array, w: number, n: number): number {
  while (n >= 0x80) {
    buf[w++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buf[w++] = n;
  return w;
}

/**
 * Insert instructions for target[from..to), stopping once the output passes `limit` (the caller
 * then gives up), so it never runs more than one instruction past it.
 */
function writeInserts(buf: Uint8Array, w: number, target: Uint8Array, from: number, to: number, limit: number): number {
  while (from < to && w <= limit) {
    const n = Math.min(to - from, MAX_INSERT);
    buf[w++] = n;
    buf.set(target.subarray(from, from + n), w);
    w += n;
    from += n;
  }
  return w;
}

/** A copy instruction: offset and size as their non-zero bytes, flagged in the opcode (size 0x10000 as none). */
function writeCopy(buf: Uint8Array, w: number, offset: number, size: number): number {
  const op = w++;
  let code = 0x80;
  for (let i = 0; i < 4; i++) {
    // An offset is under 4 GiB, as every buffer is.
    const byte = (offset >>> (8 * i)) & 0xff;
    if (byte) {
      buf[w++] = byte;
      code |= 1 << i;
    }
  }
  const s = size === MAX_COPY ? 0 : size;
  for (let i = 0; i < 3; i++) {
    const byte = (s >>> (8 * i)) & 0xff;
    if (byte) {
      buf[w++] = byte;
      code |= 0x10 << i;
    }
  }
  buf[op] = code;
  return w;
}
