// Reading blobs for a checkout without an allocation per blob: a blob stored whole in a pack (the
// common case) is inflated straight from the pack window into one reused buffer, which holds it
// until the next read. Deltas, loose objects and everything else go through the object database.
// (This is the one piece of the object database's read path a checkout needs to be fast; it uses
// only the database's public interface.)
import { CorruptError, NotFoundError } from '../../core/errors.js';
import { toHex } from '../../core/oid.js';
import { OBJ_BLOB } from '../../object/type.js';
import type { ObjectDatabase } from '../../odb/database.js';
import { EntryHeader } from '../../pack/entry-header.js';

/** zlib's deflateBound for ordinary settings: the most compressed bytes `size` bytes can take. */
function compressedBound(size: number): number {
  return size + (size >>> 12) + (size >>> 14) + (size >>> 25) + 32;
}

export class BlobReader {
  private scratch = Buffer.allocUnsafe(1 << 16);
  private readonly header = new EntryHeader();

  constructor(private readonly odb: ObjectDatabase) {}

  /** The content of blob `oid` (at `off`); valid until the next call. */
  read(oid: Uint8Array, off = 0): Buffer {
    const where = this.odb.locate(oid, off);
    if (!where) throw new NotFoundError('odb', `object ${toHex(oid, off)} not found in ${this.odb.objectsDir}`);
    const pack = where.pack;
    if (pack) {
      const h = this.header;
      const view = pack.file.read(where.offset, 64);
      if (!h.parse(view.buf, view.pos, view.end, where.offset, 'odb', pack.file.path)) {
        throw new CorruptError('odb', `${pack.file.path}: entry header at offset ${where.offset} is truncated`);
      }
      if (h.type === OBJ_BLOB) return this.inflate(pack.file, where.offset, where.offset + h.dataPos - view.pos, h.size);
    }
    return this.odb.mustRead(oid, off, OBJ_BLOB).data;
  }

  private inflate(file: { read(offset: number, want: number): { buf: Buffer; pos: number; end: number }; path: string; dataEnd: number },
    entryOffset: number, dataOffset: number, size: number): Buffer {
    if (this.scratch.length <= size) this.scratch = Buffer.allocUnsafe(Math.max(size + 1, this.scratch.length * 2));
    const out = this.scratch;
    // Text deflates to well under half its size; asking for the worst case would read several
    // times the bytes the stream takes. A stream that needs more is read again with the bound.
    let want = Math.min(compressedBound(size), (size >>> 1) + 1024);
    for (;;) {
      const view = file.read(dataOffset, want);
      const n = this.odb.inflater.tryInflateInto(view.buf, view.pos, view.end, out, 0, size, 'odb',
        () => `${file.path}: entry at offset ${entryOffset}`);
      if (n >= 0) return out.subarray(0, size);
      if (dataOffset + (view.end - view.pos) >= file.dataEnd) {
        throw new CorruptError('odb', `${file.path}: entry at offset ${entryOffset}: zlib stream runs past the end of the pack`);
      }
      want = Math.max(compressedBound(size), view.end - view.pos + 1, want * 2);
    }
  }
}
