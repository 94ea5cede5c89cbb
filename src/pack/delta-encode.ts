// Making a delta (git's format, as pack/delta.ts applies it) of a target against a base, the way
// git's diff-delta.c does: the base is cut into 16-byte blocks indexed by a hash of their bytes;
// the target is scanned with the same hash rolled one byte at a time, and where a block matches,
// the match is grown forwards (and backwards over bytes not yet emitted) and becomes one copy
// instruction; the bytes between copies become insert instructions. The pack writer uses it on
// objects it would otherwise compress whole (a tree whose stored delta base the receiver lacks),
// against another version of the same path the receiver has: two versions of a directory share
// almost every entry, so the delta is a few dozen bytes where the whole tree is a kilobyte or more
// of hashes zlib can hardly shrink.
import { DELTA_SIZE_MIN } from './delta.js';

/** Bytes per indexed block of the base, and the width of the rolling hash. */
const BLOCK = 16;
/** Candidates looked at per target position (the longest match wins), as git caps its hash chains. */
const MAX_TRIES = 16;
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

/** Reused between calls: the block index and the output. */
let heads = new Int32Array(0);
let next = new Int32Array(0);
let out = new Uint8Array(0);

/**
 * A delta turning `base` into `target`, or null when it would be longer than `maxSize` bytes (or
 * shorter than git applies). The returned bytes are valid until the next call.
 */
export function createDelta(base: Uint8Array, target: Uint8Array, maxSize: number): Uint8Array | null {
  if (maxSize <= 0) return null;
  const blocks = Math.floor(base.length / BLOCK);
  let size = 16;
  while (size < blocks * 2) size *= 2;
  if (heads.length < size) heads = new Int32Array(size);
  heads.fill(-1, 0, size);
  if (next.length < blocks) next = new Int32Array(Math.max(blocks, 2 * next.length));
  const mask = size - 1;
  // Later blocks are chained first; a chain is searched up to MAX_TRIES deep.
  for (let b = 0; b < blocks; b++) {
    const slot = blockHash(base, b * BLOCK) & mask;
    next[b] = heads[slot]!;
    heads[slot] = b;
  }
  // The size is checked after every instruction, so the output runs at most one instruction (an
  // insert of 127 bytes and its opcode) and the header (two sizes, 20 bytes) past the limit.
  if (out.length < maxSize + SLACK) out = new Uint8Array(Math.max(maxSize + SLACK, 2 * out.length));
  let w = writeSize(out, 0, base.length);
  w = writeSize(out, w, target.length);
  const tlen = target.length, blen = base.length;
  let pending = 0;
  let t = 0;
  let h = tlen >= BLOCK ? blockHash(target, 0) : 0;
  while (t + BLOCK <= tlen) {
    let best = 0, bestAt = 0, tries = 0;
    for (let b = heads[h & mask]!; b >= 0 && tries < MAX_TRIES; b = next[b]!, tries++) {
      const from = b * BLOCK;
      const most = Math.min(blen - from, tlen - t);
      let n = 0;
      while (n < most && base[from + n] === target[t + n]) n++;
      if (n > best) {
        best = n;
        bestAt = from;
      }
    }
    if (best < BLOCK) {
      if (t + BLOCK < tlen) h = roll(h, target[t]!, target[t + BLOCK]!);
      t++;
      continue;
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
    if (t + BLOCK <= tlen) h = blockHash(target, t);
  }
  w = writeInserts(out, w, target, pending, tlen, maxSize);
  // An empty target's delta is its two sizes alone, too short for git when the base is small.
  return w > maxSize || w < DELTA_SIZE_MIN ? null : out.subarray(0, w);
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
    const byte = Math.floor(offset / 2 ** (8 * i)) & 0xff;
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
