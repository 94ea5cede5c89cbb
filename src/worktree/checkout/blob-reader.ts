// Reading blobs for a checkout. A checkout reads every blob of a tree once, in index order, which
// is close to the order git wrote them into the pack (the newest tree's walk), and a delta's base
// lies shortly before it. So packed blobs are read through one 1 MiB chunk of the pack that moves
// along with the reads: one read per chunk rather than one per small window, deltas resolved from
// the same chunk with a cache of the bases met on the way, and the blob itself inflated (or
// rebuilt from its delta) into one reused buffer, without an allocation per blob. Loose objects,
// bases in other packs and anything unusual go through the object database.
// (It uses only the database's public interface: where an object is, and the pack's path.)
import fs from 'node:fs';
import { CorruptError, NotFoundError } from '../../core/errors.js';
import { toHex } from '../../core/oid.js';
import { OBJ_BLOB, OBJ_OFS_DELTA, OBJ_REF_DELTA, type ObjectTypeCode } from '../../object/type.js';
import type { ObjectDatabase, PackHandle } from '../../odb/database.js';
import { DeltaBaseCache } from '../../odb/delta-base-cache.js';
import { applyDelta, readDeltaSizes } from '../../pack/delta.js';
import { EntryHeader } from '../../pack/entry-header.js';

const CHUNK = 1 << 20;
/** Bases kept per reader: a checkout's deltas are shallow and their bases close by. */
const BASE_CACHE = 32 * 1024 * 1024;
const MAX_CHAIN = 10000;

/** zlib's deflateBound for ordinary settings: the most compressed bytes `size` bytes can take. */
function compressedBound(size: number): number {
  return size + (size >>> 12) + (size >>> 14) + (size >>> 25) + 32;
}

export class BlobReader {
  private out = Buffer.allocUnsafe(1 << 16);
  private scratch = Buffer.allocUnsafe(1 << 16);
  private chunk = Buffer.allocUnsafe(CHUNK);
  private chunkPack: PackHandle | null = null;
  private chunkStart = 0;
  private chunkEnd = 0;
  private readonly fds = new Map<PackHandle, number>();
  private readonly header = new EntryHeader();
  private readonly bases = new DeltaBaseCache(BASE_CACHE);
  /** (entry offset, data offset, size) of each delta in the chain being resolved. */
  private readonly chain: number[] = [];

  constructor(private readonly odb: ObjectDatabase) {}

  /** The content of blob `oid` (at `off`); valid until the next call. */
  read(oid: Uint8Array, off = 0): Buffer {
    const where = this.odb.locate(oid, off);
    if (!where) throw new NotFoundError('odb', `object ${toHex(oid, off)} not found in ${this.odb.objectsDir}`);
    const data = where.pack ? this.readPacked(where.pack, where.offset) : null;
    return data ?? this.odb.mustRead(oid, off, OBJ_BLOB).data;
  }

  /** Closes the pack files this reader opened. */
  close(): void {
    for (const fd of this.fds.values()) fs.closeSync(fd);
    this.fds.clear();
    this.chunkPack = null;
  }

  /** The blob at `offset`, or null to let the object database answer (and report any error). */
  private readPacked(pack: PackHandle, offset: number): Buffer | null {
    const h = this.header;
    const chain = this.chain;
    chain.length = 0;
    let cur = offset;
    let base: Buffer;
    let type: ObjectTypeCode;
    for (;;) {
      const hit = this.bases.get(pack.number, cur);
      if (hit) {
        base = hit.data;
        type = hit.type;
        break;
      }
      this.ensure(pack, cur, 32);
      const pos = cur - this.chunkStart;
      if (!h.parse(this.chunk, pos, this.chunkEnd - this.chunkStart, cur, 'odb', pack.file.path)) return null;
      const dataOffset = cur + h.dataPos - pos;
      if (h.type < 5) {
        type = h.type as ObjectTypeCode;
        if (type !== OBJ_BLOB) return null;
        if (!chain.length) return this.inflate(pack, cur, dataOffset, h.size, this.target(h.size));
        base = this.inflate(pack, cur, dataOffset, h.size, Buffer.allocUnsafe(h.size + 1));
        this.bases.set(pack.number, cur, type, base);
        break;
      }
      chain.push(cur, dataOffset, h.size);
      if (chain.length > MAX_CHAIN * 3) return null;
      if (h.type === OBJ_OFS_DELTA) {
        cur = h.baseOffset;
      } else if (h.type === OBJ_REF_DELTA) {
        const at = pack.index.find(this.chunk, h.baseOidPos);
        if (at < 0) return null;
        cur = pack.index.offset(at);
      } else {
        return null;
      }
    }
    if (type !== OBJ_BLOB) return null;
    for (let i = chain.length - 3; i >= 0; i -= 3) {
      const entryOffset = chain[i]!, dataOffset = chain[i + 1]!, size = chain[i + 2]!;
      if (this.scratch.length <= size) this.scratch = Buffer.allocUnsafe(Math.max(size + 1, this.scratch.length * 2));
      const delta = this.inflate(pack, entryOffset, dataOffset, size, this.scratch);
      const where = (): string => `${pack.file.path}: delta at offset ${entryOffset}`;
      if (i > 0) {
        base = applyDelta(base, delta, 0, size, 'odb', where);
        this.bases.set(pack.number, entryOffset, type, base);
      } else {
        const resultSize = readDeltaSizes(delta, 0, size, 'odb', where).resultSize;
        base = applyDelta(base, delta, 0, size, 'odb', where, this.target(resultSize), 0);
      }
    }
    return base;
  }

  /** The reused output buffer, big enough for `size` bytes (plus the spare byte inflating wants). */
  private target(size: number): Buffer {
    if (this.out.length <= size) this.out = Buffer.allocUnsafe(Math.max(size + 1, this.out.length * 2));
    return this.out;
  }

  /** Makes the chunk hold pack[start, start + len) (as much of it as the pack has). */
  private ensure(pack: PackHandle, start: number, len: number): void {
    const end = Math.min(start + len, pack.file.dataEnd);
    if (pack === this.chunkPack && start >= this.chunkStart && end <= this.chunkEnd) return;
    let fd = this.fds.get(pack);
    if (fd === undefined) {
      fd = fs.openSync(pack.file.path, 'r');
      this.fds.set(pack, fd);
    }
    const size = Math.min(Math.max(CHUNK, len), pack.file.dataEnd - start);
    if (this.chunk.length < size) this.chunk = Buffer.allocUnsafe(size);
    this.chunkPack = null; // not valid until the read succeeds
    let done = 0;
    while (done < size) {
      const n = fs.readSync(fd, this.chunk, done, size - done, start + done);
      if (n === 0) throw new CorruptError('odb', `${pack.file.path}: unexpected end of file reading ${size} bytes at offset ${start}`);
      done += n;
    }
    this.chunkPack = pack;
    this.chunkStart = start;
    this.chunkEnd = start + size;
  }

  /** Inflates the `size`-byte stream at `dataOffset` into the start of `into`; returns that part. */
  private inflate(pack: PackHandle, entryOffset: number, dataOffset: number, size: number, into: Buffer): Buffer {
    const where = (): string => `${pack.file.path}: entry at offset ${entryOffset}`;
    // Text deflates to well under half its size; asking for the worst case would read several
    // times the bytes the stream takes. A stream that needs more is read again with the bound.
    let want = Math.min(compressedBound(size), (size >>> 1) + 1024);
    for (;;) {
      this.ensure(pack, dataOffset, want);
      const from = dataOffset - this.chunkStart;
      const n = this.odb.inflater.tryInflateInto(this.chunk, from, this.chunkEnd - this.chunkStart, into, 0, size, 'odb', where);
      if (n >= 0) return into.subarray(0, size);
      if (this.chunkEnd >= pack.file.dataEnd) throw new CorruptError('odb', `${where()}: zlib stream runs past the end of the pack`);
      want = Math.max(compressedBound(size), this.chunkEnd - dataOffset + 1);
    }
  }
}
