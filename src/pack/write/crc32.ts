// CRC-32 (the zlib polynomial) as pack indexes record it per entry. zlib.crc32 does it natively
// from Node 20.15; older Node 20 releases get the table-driven loop.
import zlib from 'node:zlib';

const native = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

let table: Int32Array | null = null;

function slowCrc32(data: Uint8Array, value: number): number {
  if (!table) {
    table = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c;
    }
  }
  let crc = ~value;
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

/** CRC-32 of `data`, continuing from `value` (0 to start). */
export function crc32(data: Uint8Array, value = 0): number {
  return native ? native(data, value) : slowCrc32(data, value);
}
