// Git's delta format: two varint sizes (base, result), then copy-from-base and insert
// instructions. Every bound is checked before bytes move, so a hostile delta cannot read outside
// its base, write past its result, or make us allocate a size it could never fill.
import { CorruptError, type ErrorLayer } from '../core/errors.js';

/** A copy instruction of one byte yields at most 64 KiB; no delta can produce more per byte. */
const MAX_RESULT_PER_DELTA_BYTE = 0x10000;
/**
 * Runs shorter than this are copied four bytes at a time through DataViews; longer ones through a
 * view and set() (memcpy), whose fixed cost (~130 ns for the view) is more than a short run's copy.
 * Most instructions of text deltas copy 16-512 bytes; a byte loop cost ~4 ns a byte.
 */
const COPY_BY_HAND = 128;

export interface DeltaSizes {
  baseSize: number;
  resultSize: number;
  /** Offset of the first instruction. */
  pos: number;
}

/** readDeltaSizes() answers in this one record: it runs twice per delta applied. */
const sizes: DeltaSizes = { baseSize: 0, resultSize: 0, pos: 0 };

/** The sizes at the start of a delta; the record returned is reused by the next call. */
export function readDeltaSizes(delta: Uint8Array, start: number, end: number,
  layer: ErrorLayer, where: () => string): DeltaSizes {
  // Two varints, read without a closure: this runs once or twice per delta of a pack.
  let p = start;
  let baseSize = 0, resultSize = 0;
  for (let k = 0; k < 2; k++) {
    let v = 0, shift = 0, c: number;
    do {
      if (p >= end) throw new CorruptError(layer, `${where()}: delta header truncated`);
      c = delta[p++]!;
      v += (c & 0x7f) * 2 ** shift;
      shift += 7;
      if (shift > 49) throw new CorruptError(layer, `${where()}: delta size overflows`);
    } while (c & 0x80);
    if (k === 0) baseSize = v; else resultSize = v;
  }
  if (resultSize > (end - p) * MAX_RESULT_PER_DELTA_BYTE) {
    throw new CorruptError(layer, `${where()}: delta declares a ${resultSize}-byte result that its ${end - p} instruction bytes cannot produce`);
  }
  sizes.baseSize = baseSize;
  sizes.resultSize = resultSize;
  sizes.pos = p;
  return sizes;
}

/** Applies the delta in delta[start..end) to `base`, returning a new buffer of the result size. */
export function applyDelta(base: Uint8Array, delta: Uint8Array, start: number, end: number,
  layer: ErrorLayer, where: () => string, out?: Uint8Array, outOffset = 0): Buffer {
  const { baseSize, resultSize, pos } = readDeltaSizes(delta, start, end, layer, where);
  if (baseSize !== base.length) {
    throw new CorruptError(layer, `${where()}: delta expects a ${baseSize}-byte base, base has ${base.length}`);
  }
  const result = out ? Buffer.from(out.buffer, out.byteOffset + outOffset, resultSize) : Buffer.allocUnsafe(resultSize);
  const baseView = new DataView(base.buffer, base.byteOffset, base.byteLength);
  const deltaView = new DataView(delta.buffer, delta.byteOffset, delta.byteLength);
  const resultView = new DataView(result.buffer, result.byteOffset, result.byteLength);
  let p = pos, w = 0;
  while (p < end) {
    const op = delta[p++]!;
    if (op & 0x80) {
      let off = 0, size = 0;
      if (op & 0x01) off = delta[p++]!;
      if (op & 0x02) off |= delta[p++]! << 8;
      if (op & 0x04) off |= delta[p++]! << 16;
      if (op & 0x08) off = (off | (delta[p++]! << 24)) >>> 0;
      if (op & 0x10) size = delta[p++]!;
      if (op & 0x20) size |= delta[p++]! << 8;
      if (op & 0x40) size |= delta[p++]! << 16;
      if (size === 0) size = 0x10000;
      if (p > end) throw new CorruptError(layer, `${where()}: delta copy instruction truncated`);
      if (off + size > baseSize || w + size > resultSize) {
        throw new CorruptError(layer, `${where()}: delta copies ${size} bytes from base offset ${off} out of bounds`);
      }
      if (size < COPY_BY_HAND) {
        let i = 0;
        for (; i + 4 <= size; i += 4) resultView.setInt32(w + i, baseView.getInt32(off + i));
        for (; i < size; i++) result[w + i] = base[off + i]!;
      } else {
        result.set(base.subarray(off, off + size), w);
      }
      w += size;
    } else if (op !== 0) {
      if (p + op > end || w + op > resultSize) {
        throw new CorruptError(layer, `${where()}: delta insert of ${op} bytes runs past the end`);
      }
      let i = 0;
      for (; i + 4 <= op; i += 4) resultView.setInt32(w + i, deltaView.getInt32(p + i));
      for (; i < op; i++) result[w + i] = delta[p + i]!;
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
