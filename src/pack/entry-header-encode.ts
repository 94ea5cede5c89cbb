// The entry header a pack writer puts in front of each object: type and inflated size as git's
// varint (4 bits of size in the first byte, 7 in each next), then for OFS_DELTA the distance back
// to the base in git's biased base-128 form, or for REF_DELTA the base's 20-byte id.
import { OID_BYTES } from '../core/oid.js';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA } from '../object/type.js';

/** Longest header: 10 size bytes, then 10 offset bytes or 20 id bytes. */
export const MAX_ENTRY_HEADER = 32;

/** Writes the type/size varint at out[pos]; returns the position after it. */
export function writeTypeAndSize(out: Uint8Array, pos: number, type: number, size: number): number {
  let c = (type << 4) | (size & 15);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    out[pos++] = c | 0x80;
    c = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  out[pos++] = c;
  return pos;
}

/** Writes the OFS_DELTA distance (entry offset minus base offset, > 0); returns the next position. */
export function writeOfsDistance(out: Uint8Array, pos: number, distance: number): number {
  let length = 1;
  for (let rest = Math.floor(distance / 128); rest > 0; rest = Math.floor((rest - 1) / 128)) length++;
  let p = pos + length - 1;
  out[p] = distance & 0x7f;
  for (let rest = Math.floor(distance / 128); rest > 0; rest = Math.floor(rest / 128)) {
    rest -= 1;
    out[--p] = 0x80 | (rest & 0x7f);
  }
  return pos + length;
}

/** A whole header for `type` (1-4, or a delta with its base reference); returns its length. */
export function writeEntryHeader(out: Uint8Array, type: number, size: number,
  base?: { distance: number } | { ids: Uint8Array; offset: number }): number {
  let pos = writeTypeAndSize(out, 0, type, size);
  if (type === OBJ_OFS_DELTA) pos = writeOfsDistance(out, pos, (base as { distance: number }).distance);
  else if (type === OBJ_REF_DELTA) {
    const b = base as { ids: Uint8Array; offset: number };
    for (let i = 0; i < OID_BYTES; i++) out[pos + i] = b.ids[b.offset + i]!;
    pos += OID_BYTES;
  }
  return pos;
}
