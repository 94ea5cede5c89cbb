// The header in front of every pack entry: type and inflated size as a varint, then for OFS_DELTA
// a base offset (big-endian base-128 with the +1 bias) and for REF_DELTA the base's 20-byte id.
// Shared by the pack reader and index-pack, so both read hostile input the same way.
import { CorruptError, type ErrorLayer } from '../core/errors.js';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA } from '../object/type.js';

export class EntryHeader {
  type = 0;
  size = 0;
  /** Where the zlib stream (after any base reference) starts, as an offset into the buffer. */
  dataPos = 0;
  /** For OFS_DELTA: the base's offset in the pack. */
  baseOffset = 0;
  /** For REF_DELTA: offset of the base id in the buffer that was parsed. */
  baseOidPos = 0;

  /**
   * Parses the header at buf[pos..end), where `packOffset` is the entry's offset in the pack.
   * Returns false if the buffer ends before the header does.
   */
  parse(buf: Uint8Array, pos: number, end: number, packOffset: number, layer: ErrorLayer, file: string): boolean {
    let p = pos;
    if (p >= end) return false;
    let c = buf[p++]!;
    const type = (c >> 4) & 7;
    let size = c & 15, shift = 4;
    while (c & 0x80) {
      if (p >= end) return false;
      c = buf[p++]!;
      size += (c & 0x7f) * 2 ** shift;
      shift += 7;
      if (shift > 53) throw new CorruptError(layer, `${file}: entry at offset ${packOffset} has an oversized size field`);
    }
    if (type === 0 || type === 5) {
      throw new CorruptError(layer, `${file}: entry at offset ${packOffset} has invalid type ${type}`);
    }
    this.type = type;
    this.size = size;
    if (type === OBJ_OFS_DELTA) {
      if (p >= end) return false;
      c = buf[p++]!;
      let rel = c & 0x7f;
      while (c & 0x80) {
        if (p >= end) return false;
        c = buf[p++]!;
        rel = (rel + 1) * 128 + (c & 0x7f);
        if (rel > Number.MAX_SAFE_INTEGER / 256) break;
      }
      if (rel <= 0 || rel > packOffset) {
        throw new CorruptError(layer, `${file}: delta at offset ${packOffset} points to base offset ${packOffset - rel}, outside the pack`);
      }
      this.baseOffset = packOffset - rel;
    } else if (type === OBJ_REF_DELTA) {
      if (p + 20 > end) return false;
      this.baseOidPos = p;
      p += 20;
    }
    this.dataPos = p;
    return true;
  }
}
