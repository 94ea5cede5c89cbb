// The reverse index (.rev, git >= 2.31): for each object in pack order, its position in the .idx.
// Layout: "RIDX", version 1, hash id 1 (SHA-1), one big-endian uint32 per object, the pack's
// checksum, then the SHA-1 of everything before it. git writes one next to the .idx when
// pack.writeReverseIndex is set (off by default in git 2.39) or index-pack gets --rev-index.
import crypto from 'node:crypto';
import { OID_BYTES } from '../../core/oid.js';

export const RIDX_MAGIC = 0x52494458;
export const RIDX_VERSION = 1;
export const RIDX_SHA1 = 1;
export const RIDX_HEADER = 12;

/**
 * Serialises a reverse index. `sorted` lists object numbers in id order (the .idx order) and
 * `offsets` holds each object's pack offset by object number.
 */
export function writeRev(sorted: Int32Array, offsets: Float64Array, packHash: Uint8Array): Buffer {
  const n = sorted.length;
  // Index positions ordered by the offset of the object at each position.
  const byOffset = new Int32Array(n);
  for (let i = 0; i < n; i++) byOffset[i] = i;
  const offsetAt = new Float64Array(n);
  for (let i = 0; i < n; i++) offsetAt[i] = offsets[sorted[i]!]!;
  byOffset.sort((a, b) => offsetAt[a]! - offsetAt[b]!);
  const out = Buffer.allocUnsafe(RIDX_HEADER + n * 4 + 2 * OID_BYTES);
  out.writeUInt32BE(RIDX_MAGIC, 0);
  out.writeUInt32BE(RIDX_VERSION, 4);
  out.writeUInt32BE(RIDX_SHA1, 8);
  let p = RIDX_HEADER;
  for (let i = 0; i < n; i++, p += 4) out.writeUInt32BE(byOffset[i]!, p);
  out.set(packHash.subarray(0, OID_BYTES), p);
  p += OID_BYTES;
  crypto.createHash('sha1').update(out.subarray(0, p)).digest().copy(out, p);
  return out;
}
