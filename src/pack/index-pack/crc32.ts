// CRC32 of pack entries for the .idx. zlib.crc32 is fast per byte but costs about half a
// microsecond per call, which for a pack of a million small entries (a few hundred bytes each) is
// more than the bytes; below SMALL this table-driven version (slice-by-8) is quicker.
import zlib from 'node:zlib';

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

/** CRC32 (as zlib computes it) of buf[start..end). */
export function crc32(buf: Uint8Array, start: number, end: number): number {
  if (end - start >= SMALL) return zlib.crc32(buf.subarray(start, end));
  const t = TABLE;
  let c = -1, i = start;
  for (; i + 8 <= end; i += 8) {
    const a = (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24)) ^ c;
    c = t[1792 + (a & 0xff)]! ^ t[1536 + ((a >>> 8) & 0xff)]! ^ t[1280 + ((a >>> 16) & 0xff)]! ^ t[1024 + (a >>> 24)]!
      ^ t[768 + buf[i + 4]!]! ^ t[512 + buf[i + 5]!]! ^ t[256 + buf[i + 6]!]! ^ t[buf[i + 7]!]!;
  }
  for (; i < end; i++) c = t[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
