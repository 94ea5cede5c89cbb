// git's pack_name_hash(): a sortable 32-bit number made from the last sixteen non-whitespace bytes
// of a path, later bytes weighing most, so files with the same ending sort together as delta
// candidates. Bitmaps store it per object (BITMAP_OPT_HASH_CACHE), so the function must be git's
// exactly: git's isspace() is true only for \t \n \r and space, and bytes are taken unsigned.

/** Hash of the path bytes buf[start..end); 0 for an empty path (commits, root trees). */
export function packNameHash(buf: Uint8Array, start = 0, end = buf.length): number {
  let hash = 0;
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    hash = ((hash >>> 2) + (c << 24)) >>> 0;
  }
  return hash;
}

/** packNameHash of a path given as a string (UTF-8 bytes, as git sees them). */
export function packNameHashOf(path: string): number {
  return packNameHash(Buffer.from(path, 'utf8'));
}
