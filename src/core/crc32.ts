// CRC-32 (the zlib polynomial), as pack indexes record it per entry. zlib.crc32 is native from
// Node 20.15 and fast per byte, but costs about half a microsecond per call, which for a pack of a
// million small entries (a few hundred bytes each) is more than the bytes; below SMALL, and on
// Node 20 releases without it, this table-driven version (slice-by-8) does the work.
import zlib from 'node:zlib';

const native = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

const SMALL = 512;
const TABLE = new Int32Array(256 * 8);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  TABLE[n] = c;
}
for (let n = 0; n < 256; n++) {
  let c = TABLE[n]!;
  for (let k = 1; k < 8; k++) {
    c = TABLE[c & 0xff]! ^ (c >>> 8);
    TABLE[k * 256 + n] = c;
  }
}

/** CRC-32 of buf[start..end), continuing from `value` (0 to start a new one). */
export function crc32(buf: Uint8Array, start = 0, end = buf.length, value = 0): number {
  if (native && end - start >= SMALL) return native(buf.subarray(start, end), value);
  const t = TABLE;
  let c = ~value, i = start;
  for (; i + 8 <= end; i += 8) {
    const a = (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24)) ^ c;
    c = t[1792 + (a & 0xff)]! ^ t[1536 + ((a >>> 8) & 0xff)]! ^ t[1280 + ((a >>> 16) & 0xff)]! ^ t[1024 + (a >>> 24)]!
      ^ t[768 + buf[i + 4]!]! ^ t[512 + buf[i + 5]!]! ^ t[256 + buf[i + 6]!]! ^ t[buf[i + 7]!]!;
  }
  for (; i < end; i++) c = t[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
