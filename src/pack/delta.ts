// Git's delta format: two varint sizes (base, result), then copy-from-base and insert
// instructions. Every bound is checked before bytes move, so a hostile delta cannot read outside
// its base, write past its result, or make us allocate a size it could never fill.
import { CorruptError, type ErrorLayer } from '../core/errors.js';

/**
 * The most `n` instruction bytes can produce: a copy of two bytes (the op and the size's high
 * byte) yields up to 0xff0000 bytes, and an op alone 64 KiB; nothing yields more per byte. git's
 * encoder stops its copies at 64 KiB, but git applies copies of up to 16 MiB, as a pack from
 * another encoder may hold.
 */
function maxResult(n: number): number {
  return Math.floor(n / 2) * 0xff0000 + (n % 2) * 0x10000;
}

/** git's DELTA_SIZE_MIN: its patch_delta() refuses anything shorter, an empty result included. */
export const DELTA_SIZE_MIN = 4;

/**
 * Runs shorter than this are copied byte by byte; longer ones through a view and set() (memcpy),
 * whose fixed cost (a view object, ~100 ns) is more than a short run's copy. Inserts are at most
 * 127 bytes. (Four-byte DataView copies were no faster once each new buffer's DataView was counted:
 * a walk applies a million deltas, each to another base and into another result.)
 */
const COPY_BY_HAND = 64;
/** The same bound where the run moves by copyWithin inside one buffer (no view): ~40-70 ns a run. */
const COPY_WITHIN_BY_HAND = 12;

export interface DeltaSizes {
  baseSize: number;
  resultSize: number;
  /** Offset of the first instruction. */
  pos: number;
}

/** readDeltaSizes() and peekDeltaSizes() answer in this one record: they run once per delta. */
const sizes: DeltaSizes = { baseSize: 0, resultSize: 0, pos: 0 };

/**
 * The sizes at the start of delta[start..end), or null if the bytes there end before them (a
 * caller that inflated only a prefix of the delta then asks for more). The record returned is
 * reused by the next call.
 */
export function peekDeltaSizes(delta: Uint8Array, start: number, end: number,
  layer: ErrorLayer, where: () => string): DeltaSizes | null {
  // Two varints, read without a closure: this runs once per delta of a pack.
  let p = start;
  let baseSize = 0, resultSize = 0;
  for (let k = 0; k < 2; k++) {
    let v = 0, scale = 1, c: number;
    do {
      if (p >= end) return null;
      c = delta[p++]!;
      v += (c & 0x7f) * scale;
      scale *= 128;
      if (scale > 2 ** 49) throw new CorruptError(layer, `${where()}: delta size overflows`);
    } while (c & 0x80);
    if (k === 0) baseSize = v; else resultSize = v;
  }
  sizes.baseSize = baseSize;
  sizes.resultSize = resultSize;
  sizes.pos = p;
  return sizes;
}

/** The sizes at the start of the whole delta delta[start..end); the record is reused by the next call. */
export function readDeltaSizes(delta: Uint8Array, start: number, end: number,
  layer: ErrorLayer, where: () => string): DeltaSizes {
  const s = peekDeltaSizes(delta, start, end, layer, where);
  if (!s) throw new CorruptError(layer, `${where()}: delta header truncated`);
  if (end - start < DELTA_SIZE_MIN) throw new CorruptError(layer, `${where()}: delta is ${end - start} bytes, shorter than the ${DELTA_SIZE_MIN} git requires`);
  if (s.resultSize > maxResult(end - s.pos)) {
    throw new CorruptError(layer, `${where()}: delta declares a ${s.resultSize}-byte result that its ${end - s.pos} instruction bytes cannot produce`);
  }
  return s;
}

/** The base offset and size of the copy instruction readCopy() read last. */
const copy = { offset: 0, size: 0 };

/**
 * Reads the copy instruction `op` whose argument bytes start at delta[p]: the base offset's bytes
 * (least significant first, one for each of bits 0-3 of `op` that is set), then the size's (bits
 * 4-6; a size of 0 means 64 KiB). Returns the position after them and leaves the values in `copy`.
 * Bytes past the end of `delta` read as 0; the caller checks the position against its end.
 * applyDelta and DeltaCopies.read share it, and V8 inlines it into both loops: timed over every
 * delta of the small corpus, they run as fast as with the decoding written out in each, within the
 * noise. (Two pure functions, one for the offset and one for the size, measured 2-3% slower in
 * DeltaCopies.read, counting the argument bytes apart from reading them; the offset and size
 * packed into one returned number, 3-8% slower in applyDelta.)
 */
function readCopy(delta: Uint8Array, p: number, op: number): number {
  let off = 0, size = 0;
  if (op & 0x01) off = delta[p++]!;
  if (op & 0x02) off |= delta[p++]! << 8;
  if (op & 0x04) off |= delta[p++]! << 16;
  if (op & 0x08) off = (off | (delta[p++]! << 24)) >>> 0;
  if (op & 0x10) size = delta[p++]!;
  if (op & 0x20) size |= delta[p++]! << 8;
  if (op & 0x40) size |= delta[p++]! << 16;
  copy.offset = off;
  copy.size = size === 0 ? 0x10000 : size;
  return p;
}

/** Applies the delta in delta[start..end) to `base`, returning a new buffer of the result size. */
export function applyDelta(base: Uint8Array, delta: Uint8Array, start: number, end: number,
  layer: ErrorLayer, where: () => string, out?: Uint8Array, outOffset = 0): Buffer {
  return applyDeltaWithSizes(base, delta, readDeltaSizes(delta, start, end, layer, where), end, layer, where, out, outOffset);
}

/**
 * applyDelta for a caller that has read the delta's sizes already (readDeltaSizes over the same
 * bytes). `arena`: a buffer that may hold both base and out (delta-base-cache.ts); when it does,
 * copies move within it by copyWithin instead of through a view of the base per run.
 */
export function applyDeltaWithSizes(base: Uint8Array, delta: Uint8Array, sizes: DeltaSizes, end: number,
  layer: ErrorLayer, where: () => string, out?: Uint8Array, outOffset = 0, arena: Uint8Array | null = null): Buffer {
  const { baseSize, resultSize, pos } = sizes;
  if (baseSize !== base.length) {
    throw new CorruptError(layer, `${where()}: delta expects a ${baseSize}-byte base, base has ${base.length}`);
  }
  const result = out ? Buffer.from(out.buffer, out.byteOffset + outOffset, resultSize) : Buffer.allocUnsafe(resultSize);
  const within = arena !== null && base.buffer === arena.buffer && result.buffer === arena.buffer;
  // Runs are read from src at baseAt + offset and written to dst at resultAt + w.
  const src = within ? arena : base, dst = within ? arena : result;
  const baseAt = within ? base.byteOffset - arena.byteOffset : 0;
  const resultAt = within ? result.byteOffset - arena.byteOffset : 0;
  const byHand = within ? COPY_WITHIN_BY_HAND : COPY_BY_HAND;
  let p = pos, w = 0;
  while (p < end) {
    const op = delta[p++]!;
    if (op & 0x80) {
      p = readCopy(delta, p, op);
      const off = copy.offset, size = copy.size;
      if (p > end) throw new CorruptError(layer, `${where()}: delta copy instruction truncated`);
      if (off + size > baseSize || w + size > resultSize) {
        throw new CorruptError(layer, `${where()}: delta copies ${size} bytes from base offset ${off} out of bounds`);
      }
      const from = baseAt + off, to = resultAt + w;
      if (size < byHand) {
        for (let i = 0; i < size; i++) dst[to + i] = src[from + i]!;
      } else if (within) {
        dst.copyWithin(to, from, from + size);
      } else {
        dst.set(src.subarray(from, from + size), to);
      }
      w += size;
    } else if (op !== 0) {
      if (p + op > end || w + op > resultSize) {
        throw new CorruptError(layer, `${where()}: delta insert of ${op} bytes runs past the end`);
      }
      const to = resultAt + w;
      for (let i = 0; i < op; i++) dst[to + i] = delta[p + i]!;
      p += op;
      w += op;
    } else {
      throw new CorruptError(layer, `${where()}: delta has the reserved opcode 0`);
    }
  }
  if (w !== resultSize) {
    throw new CorruptError(layer, `${where()}: delta produced ${w} bytes, declared ${resultSize}`);
  }
  return result;
}

/**
 * The copy instructions of a delta, as runs: run k copies base[src(k) .. src(k)+length(k)) to
 * result[dst(k) ..). Runs that continue each other in both base and result are joined (git's
 * encoder splits copies at 64 KiB). For readers that care what a result shares with its base:
 * the walk skips tree entries copied whole from a tree it has listed.
 */
export class DeltaCopies {
  /** Triples: result offset, length, base offset. */
  runs: Int32Array = new Int32Array(3 * 64);
  count = 0;

  /**
   * Lists the copies of the instructions in delta[pos..end) (after the sizes) for a base of
   * baseSize and a result of resultSize bytes. False, with no runs, if an instruction is malformed
   * or out of bounds (applyDelta's checks): the caller then knows nothing about the result.
   */
  read(delta: Uint8Array, pos: number, end: number, baseSize: number, resultSize: number): boolean {
    let p = pos, w = 0, n = 0, runs = this.runs;
    this.count = 0;
    while (p < end) {
      const op = delta[p++]!;
      if (op & 0x80) {
        p = readCopy(delta, p, op);
        const off = copy.offset, size = copy.size;
        if (p > end || off + size > baseSize || w + size > resultSize) return false;
        if (n > 0 && runs[n - 3]! + runs[n - 2]! === w && runs[n - 1]! + runs[n - 2]! === off) {
          runs[n - 2]! += size;
        } else {
          if (n + 3 > runs.length) {
            const bigger = new Int32Array(runs.length * 2);
            bigger.set(runs);
            this.runs = runs = bigger;
          }
          runs[n] = w;
          runs[n + 1] = size;
          runs[n + 2] = off;
          n += 3;
        }
        w += size;
      } else if (op !== 0) {
        if (p + op > end || w + op > resultSize) return false;
        p += op;
        w += op;
      } else {
        return false;
      }
    }
    if (w !== resultSize) return false;
    this.count = n / 3;
    return true;
  }
}
