// Writing a pack index exactly as git's write_idx_file does, so the bytes match git's for the same
// pack: v2 (default) is fan-out, sorted ids, CRC32s, 32-bit offsets whose high bit points into a
// 64-bit table, the pack checksum and the index's own SHA-1; v1 interleaves offset and id. Git
// moves an offset to the 64-bit table when it does not fit 31 bits or exceeds the configured
// limit (`--index-version=2,<limit>`), and when verifying an existing index it also honours the
// "anomalous" small offsets that index stored in the 64-bit table.
import crypto from 'node:crypto';
import { GitError } from '../../core/errors.js';
import { OID_BYTES, oidEquals, toHex } from '../../core/oid.js';

export interface IdxWriteOptions {
  /** 1 or 2 (git's pack.indexVersion; default 2). */
  version?: number;
  /** Offsets above this go to the 64-bit table (default 0x7fffffff). */
  off32Limit?: number;
  /** Small offsets an existing index keeps in the 64-bit table (sorted), when re-creating it. */
  anomalies?: readonly number[];
  /** Refuse an id that appears twice (git's WRITE_IDX_STRICT, on with --strict and --verify). */
  strict?: boolean;
}

export interface IdxObjects {
  count: number;
  /** 20 bytes per object, in pack order. */
  ids: Uint8Array;
  crcs: Uint32Array;
  offsets: Float64Array;
}

const V2_MAGIC = 0xff744f63;
export const DEFAULT_OFF32_LIMIT = 0x7fffffff;

/**
 * Serialises an index. `sorted` lists object numbers in id order (ties in pack order, as git's
 * stable sort leaves them).
 */
export function writeIdx(objects: IdxObjects, sorted: Int32Array, packHash: Uint8Array,
  options: IdxWriteOptions = {}): Buffer {
  const laid = layout(objects, options);
  const { version, large } = laid;
  const n = objects.count;
  // Sized exactly, so each streamed slice is copied once, straight to its place.
  const idx = Buffer.allocUnsafe(version === 2 ? 8 + 1024 + n * (OID_BYTES + 8) + large * 8 + 2 * OID_BYTES
    : 1024 + n * (OID_BYTES + 4) + 2 * OID_BYTES);
  let at = 0;
  streamIdx(objects, sorted, packHash, options, (chunk) => {
    idx.set(chunk, at);
    at += chunk.length;
  }, laid);
  return idx;
}

interface IdxLayout {
  version: number;
  /** Offsets that go to the 64-bit table. */
  large: number;
  needLarge: (off: number) => boolean;
}

/** The index version to write, and how many offsets go to its 64-bit table. */
function layout(objects: IdxObjects, options: IdxWriteOptions): IdxLayout {
  const { count: n, offsets } = objects;
  const limit = options.off32Limit ?? DEFAULT_OFF32_LIMIT;
  const anomalies = options.anomalies ?? [];
  const needLarge = (off: number): boolean =>
    off >= 2 ** 31 || off > limit || (anomalies.length > 0 && binaryHas(anomalies, off));
  let lastOffset = 0, large = 0;
  for (let i = 0; i < n; i++) {
    const off = offsets[i]!;
    if (off > lastOffset) lastOffset = off;
    if (needLarge(off)) large++;
  }
  const version = needLarge(lastOffset) ? 2 : (options.version ?? 2);
  if (version !== 1 && version !== 2) throw new GitError('pack', 'bad-option', `bad pack index version ${version}`);
  return { version, large: version === 2 ? large : 0, needLarge };
}

/** Bytes handed to `write` at a time by streamIdx. */
const CHUNK = 64 * 1024;

/**
 * Serialises an index as writeIdx does, but hands it to `write` in slices of at most 64 KiB (each
 * slice is reused once `write` returns), so a large pack's index never exists whole in memory.
 */
export function streamIdx(objects: IdxObjects, sorted: Int32Array, packHash: Uint8Array,
  options: IdxWriteOptions, write: (chunk: Uint8Array) => void, laid = layout(objects, options)): void {
  const n = objects.count;
  const { ids, crcs, offsets } = objects;
  const { version, needLarge } = laid;

  const out = Buffer.allocUnsafe(CHUNK);
  const hash = crypto.createHash('sha1');
  let p = 0;
  const flush = (): void => {
    if (p === 0) return;
    const slice = out.subarray(0, p);
    hash.update(slice);
    write(slice);
    p = 0;
  };
  const u32 = (v: number): void => {
    if (p + 4 > CHUNK) flush();
    out.writeUInt32BE(v >>> 0, p);
    p += 4;
  };

  if (version === 2) {
    u32(V2_MAGIC);
    u32(2);
  }
  // Fan-out: entry b counts the ids whose first byte is at most b.
  let k = 0;
  for (let b = 0; b < 256; b++) {
    while (k < n && ids[sorted[k]! * OID_BYTES]! === b) k++;
    u32(k);
  }
  for (let i = 0; i < n; i++) {
    const at = sorted[i]! * OID_BYTES;
    if (version === 1) u32(offsets[sorted[i]!]!);
    if (p + OID_BYTES > CHUNK) flush();
    for (let j = 0; j < OID_BYTES; j++) out[p + j] = ids[at + j]!;
    p += OID_BYTES;
    if (options.strict && i > 0 && oidEquals(ids, at, ids, sorted[i - 1]! * OID_BYTES)) {
      throw new GitError('pack', 'duplicate-object', `the same object ${toHex(ids, at)} appears twice in the pack`);
    }
  }
  if (version === 2) {
    for (let i = 0; i < n; i++) u32(crcs[sorted[i]!]!);
    let large = 0;
    for (let i = 0; i < n; i++) {
      const off = offsets[sorted[i]!]!;
      u32(needLarge(off) ? 0x80000000 | large++ : off);
    }
    for (let i = 0; i < n && large > 0; i++) {
      const off = offsets[sorted[i]!]!;
      if (!needLarge(off)) continue;
      u32(Math.floor(off / 2 ** 32));
      u32(off % 2 ** 32);
      large--;
    }
  }
  if (p + OID_BYTES > CHUNK) flush();
  out.set(packHash.subarray(0, OID_BYTES), p);
  p += OID_BYTES;
  flush();
  write(hash.digest());
}

/**
 * The small offsets an existing v2 index stores in its 64-bit table (git's
 * read_v2_anomalous_offsets), so re-creating it for verification produces the same bytes.
 */
export function anomalousOffsets(idx: Buffer): number[] {
  if (idx.length < 8 || idx.readUInt32BE(0) !== V2_MAGIC) return [];
  const n = idx.readUInt32BE(8 + 255 * 4);
  const offBase = 8 + 1024 + n * (OID_BYTES + 4);
  const largeBase = offBase + n * 4;
  const found: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = idx.readUInt32BE(offBase + i * 4);
    if (!(v & 0x80000000)) continue;
    const at = largeBase + (v & 0x7fffffff) * 8;
    if (at + 8 > idx.length - 40) continue;
    if (idx.readUInt32BE(at) !== 0) continue;
    found.push(idx.readUInt32BE(at + 4));
  }
  return found.sort((a, b) => a - b);
}

function binaryHas(sorted: readonly number[], v: number): boolean {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = sorted[mid]!;
    if (x === v) return true;
    if (x < v) lo = mid + 1; else hi = mid;
  }
  return false;
}
