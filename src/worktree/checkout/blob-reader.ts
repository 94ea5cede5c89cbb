// Reading the objects of a checkout. A checkout reads every tree of the target once and then every
// blob once, in index order, which is close to the order git wrote them into the pack (all trees
// together, newest first, then the blobs of the newest commit), and a delta's base lies shortly
// before it. So packed objects are read through one 1 MiB chunk of the pack that moves along with
// the reads: one read per chunk rather than one per small window, deltas resolved from the same
// chunk with a small cache of the bases met on the way, and a blob inflated (or rebuilt from its
// delta) into one reused buffer, without an allocation per blob. Loose objects, bases in other
// packs and anything unusual go through the object database.
//
// A reader on a writer thread is handed where each blob is (pack and offset, looked up once on
// the main thread) and opens an object database of its own only if something needs one, so a
// thread does not load a copy of every pack index (20 MiB for 700k objects).
import buffer from 'node:buffer';
import { CorruptError } from '../../core/errors.js';
import { OID_BYTES } from '../../core/oid.js';
import { beyondInflateRatio, Inflater, deflateBound } from '../../core/zlib.js';
import { OBJ_BLOB, OBJ_OFS_DELTA, OBJ_REF_DELTA, OBJ_TREE, type ObjectTypeCode } from '../../object/type.js';
import type { ObjectStore, StoredPack } from '../../odb/object-store.js';
import { DeltaBaseCache, RECYCLE } from '../../odb/delta-base-cache.js';
import { applyDeltaWithSizes, readDeltaSizes } from '../../pack/delta.js';
import { EntryHeader } from '../../pack/entry-header.js';
import type { PackIndex } from '../../pack/idx/read.js';
import { BIG_OBJECT, inflateEntry } from '../../pack/inflate-entry.js';
import { PackFile } from '../../pack/pack-file.js';

const CHUNK = 1 << 20;
/**
 * Bases kept per reader (one per writer thread). The blobs of the checked-out commit are mostly
 * whole objects (git makes the newest version the base), so a big cache buys little: on a
 * 700k-object corpus 32 MiB and 2 MiB took the same CPU, and 32 MiB of bases, with the evicted
 * ones waiting for the collector, cost 50 MiB of RSS. Bases now live in buffers the cache
 * recycles; on 112k files 4 MiB instead of 8 saved another 5 MiB.
 */
const BASE_CACHE = 4 * 1024 * 1024;
const MAX_CHAIN = 10000;

/**
 * A pack as a reader needs it; `index` only to follow REF_DELTA bases (else the database does).
 * `file` is the store's open pack; a writer thread, handed the path alone, opens its own.
 */
export interface PackSource {
  /** Unique among the sources of one reader (the database's pack number). */
  key: number;
  path: string;
  dataEnd: number;
  index: PackIndex | null;
  file?: PackFile;
}

/** Where each entry's blob is: packs[packOf[i]] at offsets[i], or packOf[i] = -1 (ask the database). */
export interface BlobLocations {
  packs: PackSource[];
  packOf: Int32Array;
  offsets: Float64Array;
}

function sourceOf(pack: StoredPack): PackSource {
  return { key: pack.number, path: pack.file.path, dataEnd: pack.file.dataEnd, index: pack.index, file: pack.file };
}

/** Looks up, on this thread, where each of `count` blobs (ids back to back in `oids`) is. */
export function locateBlobs(odb: ObjectStore, oids: Uint8Array, count: number, skip: (i: number) => boolean): BlobLocations {
  const packs: PackSource[] = [];
  const byHandle = new Map<StoredPack, number>();
  const packOf = new Int32Array(new SharedArrayBuffer(count * 4)).fill(-1);
  const offsets = new Float64Array(new SharedArrayBuffer(count * 8));
  for (let i = 0; i < count; i++) {
    if (skip(i)) continue;
    const where = odb.locate(oids, i * OID_BYTES);
    if (!where?.pack) continue;
    let k = byHandle.get(where.pack);
    if (k === undefined) {
      // Sent to other threads: the path, not the open file.
      k = packs.push({ key: where.pack.number, path: where.pack.file.path, dataEnd: where.pack.file.dataEnd, index: null }) - 1;
      byHandle.set(where.pack, k);
    }
    packOf[i] = k;
    offsets[i] = where.offset;
  }
  return { packs, packOf, offsets };
}

export class BlobReader {
  private out = Buffer.allocUnsafe(1 << 16);
  private scratch = Buffer.allocUnsafe(1 << 16);
  private chunk = Buffer.allocUnsafe(CHUNK);
  private chunkPack: PackSource | null = null;
  private chunkStart = 0;
  private chunkEnd = 0;
  /** Pack files this reader opened, by PackSource.key (for sources without one). */
  private readonly files = new Map<number, PackFile>();
  private readonly sources = new Map<StoredPack, PackSource>();
  private readonly header = new EntryHeader();
  private readonly bases = new DeltaBaseCache(BASE_CACHE);
  private readonly inflater: Inflater;
  private db: ObjectStore | null;
  private readonly open: () => ObjectStore;
  /** (entry offset, data offset, size) of each delta in the chain being resolved. */
  private readonly chain: number[] = [];
  /** The blob streamable() found, for stream(): its pack, entry offset, data offset and size. */
  private streaming: { pack: PackSource; entryOffset: number; dataOffset: number; size: number } | null = null;

  /**
   * Reads through `odb`, or, given a function that opens one, through the `locations` of the
   * entries and the database only when they do not say or the pack cannot answer.
   */
  constructor(odb: ObjectStore | (() => ObjectStore), private readonly locations: BlobLocations | null = null) {
    this.db = typeof odb === 'function' ? null : odb;
    this.open = typeof odb === 'function' ? odb : () => odb;
    this.inflater = this.db?.inflater ?? new Inflater();
  }

  private get odb(): ObjectStore {
    return this.db ??= this.open();
  }

  /** The content of entry i's blob, whose id is at oids[off]; valid until the next call. */
  readEntry(oids: Uint8Array, off: number, i: number): Buffer {
    const loc = this.locations;
    if (!loc) return this.read(oids, off);
    const k = loc.packOf[i]!;
    const data = k >= 0 ? this.tryPacked(loc.packs[k]!, loc.offsets[i]!, OBJ_BLOB, false) : null;
    return data ?? this.odb.mustRead(oids, off, OBJ_BLOB).data;
  }

  /**
   * Whether entry i's blob (id at oids[off]) is one to stream(): a whole blob above BIG_OBJECT
   * in a pack (a 300 MB file read into one buffer and inflated into another took 780 MB of RSS,
   * and 2.4 times git's time in page faults). Anything else (a delta, a loose object, a header that does not parse) is read
   * whole, where the object database can also report what is wrong.
   */
  streamable(oids: Uint8Array, off: number, i: number): boolean {
    this.streaming = null;
    const loc = this.locations;
    let pack: PackSource, offset: number;
    if (loc) {
      const k = loc.packOf[i]!;
      if (k < 0) return false;
      pack = loc.packs[k]!;
      offset = loc.offsets[i]!;
    } else {
      const where = this.odb.locate(oids, off);
      if (!where?.pack) return false;
      pack = this.sourceFor(where.pack);
      offset = where.offset;
    }
    const h = this.header;
    this.ensure(pack, offset, 32);
    const pos = offset - this.chunkStart;
    try {
      if (!h.parse(this.chunk, pos, this.chunkEnd - this.chunkStart, offset, 'odb', pack.path)) return false;
    } catch (e) {
      if (e instanceof CorruptError) return false;
      throw e;
    }
    if (h.type !== OBJ_BLOB || h.size <= BIG_OBJECT) return false;
    this.streaming = { pack, entryOffset: offset, dataOffset: offset + h.dataPos - pos, size: h.size };
    return true;
  }

  /** Hands the blob streamable() found to `sink`, in pieces as it is inflated. */
  stream(sink: (piece: Uint8Array) => void): void {
    const { pack, entryOffset, dataOffset, size } = this.streaming!;
    this.streaming = null;
    inflateEntry(this.fileOf(pack), entryOffset, dataOffset, pack.dataEnd, size, this.inflater, sink);
  }

  /** The content of blob `oid` (at `off`); valid until the next call. */
  read(oid: Uint8Array, off = 0): Buffer {
    return this.readObject(oid, off, OBJ_BLOB, false);
  }

  /** The content of tree `oid`, in a buffer of its own. */
  readTree(oid: Uint8Array, off = 0): Buffer {
    return this.readObject(oid, off, OBJ_TREE, true);
  }

  /** Closes the pack files this reader opened. */
  close(): void {
    for (const file of this.files.values()) file.close();
    this.files.clear();
    this.chunkPack = null;
  }

  private readObject(oid: Uint8Array, off: number, type: ObjectTypeCode, own: boolean): Buffer {
    const where = this.odb.locate(oid, off);
    let data: Buffer | null = null;
    if (where?.pack) data = this.tryPacked(this.sourceFor(where.pack), where.offset, type, own);
    return data ?? this.odb.mustRead(oid, off, type).data;
  }

  /**
   * readPacked(), or null when the entry is damaged (a bad zlib stream, a delta that does not
   * apply): the object database reads it then, from another copy if it must, and says what is
   * wrong as git does.
   */
  private tryPacked(pack: PackSource, offset: number, want: ObjectTypeCode, own: boolean): Buffer | null {
    try {
      return this.readPacked(pack, offset, want, own);
    } catch (e) {
      if (e instanceof CorruptError) return null;
      throw e;
    }
  }

  /**
   * The object of type `want` at `offset`, in the reused buffer or (`own`) a new one; null to let
   * the object database answer (and report any error).
   */
  private readPacked(pack: PackSource, offset: number, want: ObjectTypeCode, own: boolean): Buffer | null {
    const h = this.header;
    const chain = this.chain;
    chain.length = 0;
    let cur = offset;
    let base: Buffer;
    let type: ObjectTypeCode;
    for (;;) {
      // Used only until the next set(), so the cache may recycle its buffer once evicted.
      const hit = this.bases.get(pack.key, cur, false);
      if (hit) {
        base = hit.data;
        type = hit.type;
        break;
      }
      this.ensure(pack, cur, 32);
      const pos = cur - this.chunkStart;
      if (!h.parse(this.chunk, pos, this.chunkEnd - this.chunkStart, cur, 'odb', pack.path)) return null;
      const dataOffset = cur + h.dataPos - pos;
      // The header's size is allocated below before inflating: one the rest of the pack cannot
      // inflate to, or past Buffer's limit, is corrupt or too large, and the object database
      // says which (it was a RangeError here).
      if (beyondInflateRatio(h.size, pack.dataEnd - dataOffset) || h.size >= buffer.constants.MAX_LENGTH) return null;
      if (h.type < 5) {
        type = h.type as ObjectTypeCode;
        if (type !== want) return null;
        if (!chain.length) return this.inflate(pack, cur, dataOffset, h.size, this.target(h.size, own));
        base = this.inflate(pack, cur, dataOffset, h.size, this.bases.take(h.size + 1));
        this.bases.set(pack.key, cur, type, base, RECYCLE);
        break;
      }
      chain.push(cur, dataOffset, h.size);
      if (chain.length > MAX_CHAIN * 3) return null;
      if (h.type === OBJ_OFS_DELTA) {
        cur = h.baseOffset;
      } else if (h.type === OBJ_REF_DELTA && pack.index) {
        const at = pack.index.find(this.chunk, h.baseOidPos);
        if (at < 0) return null;
        cur = pack.index.offset(at);
      } else {
        return null;
      }
    }
    if (type !== want) return null;
    // A cached base asked for itself: the cache may reuse its buffer, so the caller gets a copy.
    if (!chain.length && own) return Buffer.from(base);
    for (let i = chain.length - 3; i >= 0; i -= 3) {
      const entryOffset = chain[i]!, dataOffset = chain[i + 1]!, size = chain[i + 2]!;
      if (this.scratch.length <= size) this.scratch = Buffer.allocUnsafe(Math.max(size + 1, this.scratch.length * 2));
      const delta = this.inflate(pack, entryOffset, dataOffset, size, this.scratch);
      const where = (): string => `${pack.path}: delta at offset ${entryOffset}`;
      const sizes = readDeltaSizes(delta, 0, size, 'odb', where);
      if (i > 0) {
        // Bases live in buffers the cache hands out and takes back when it evicts them, so a
        // checkout leaves no trail of dead bases for the collector.
        base = applyDeltaWithSizes(base, delta, sizes, size, 'odb', where, this.bases.take(sizes.resultSize), 0, this.bases.arena);
        this.bases.set(pack.key, entryOffset, type, base, RECYCLE);
      } else {
        base = applyDeltaWithSizes(base, delta, sizes, size, 'odb', where, this.target(sizes.resultSize, own), 0);
      }
    }
    return base;
  }

  /** A buffer for `size` bytes (plus the spare byte inflating wants): the reused one, or (`own`) a new one. */
  private target(size: number, own: boolean): Buffer {
    if (own) return Buffer.allocUnsafe(size + 1);
    if (this.out.length <= size) this.out = Buffer.allocUnsafe(Math.max(size + 1, this.out.length * 2));
    return this.out;
  }

  /** Makes the chunk hold pack[start, start + len) (as much of it as the pack has). */
  private ensure(pack: PackSource, start: number, len: number): void {
    const end = Math.min(start + len, pack.dataEnd);
    if (pack.key === this.chunkPack?.key && start >= this.chunkStart && end <= this.chunkEnd) return;
    const size = Math.min(Math.max(CHUNK, len), pack.dataEnd - start);
    if (this.chunk.length < size) this.chunk = Buffer.allocUnsafe(size);
    this.chunkPack = null; // not valid until the read succeeds
    this.fileOf(pack).readInto(this.chunk, 0, size, start);
    this.chunkPack = pack;
    this.chunkStart = start;
    this.chunkEnd = start + size;
  }

  /** The source for a pack of the object database, made once. */
  private sourceFor(pack: StoredPack): PackSource {
    let source = this.sources.get(pack);
    if (!source) this.sources.set(pack, source = sourceOf(pack));
    return source;
  }

  /** The pack's open file: the store's, or one this reader opened. */
  private fileOf(pack: PackSource): PackFile {
    let file = pack.file ?? this.files.get(pack.key);
    if (!file) this.files.set(pack.key, file = new PackFile(pack.path, null));
    return file;
  }

  /** Inflates the `size`-byte stream at `dataOffset` into the start of `into`; returns that part. */
  private inflate(pack: PackSource, entryOffset: number, dataOffset: number, size: number, into: Buffer): Buffer {
    const where = (): string => `${pack.path}: entry at offset ${entryOffset}`;
    // Text deflates to well under half its size; asking for the worst case would read several
    // times the bytes the stream takes. A stream that needs more is read again with the bound.
    let want = Math.min(deflateBound(size), (size >>> 1) + 1024);
    for (;;) {
      this.ensure(pack, dataOffset, want);
      const from = dataOffset - this.chunkStart;
      const n = this.inflater.tryInflateInto(this.chunk, from, this.chunkEnd - this.chunkStart, into, 0, size, 'odb', where);
      if (n >= 0) return into.subarray(0, size);
      if (this.chunkEnd >= pack.dataEnd) throw new CorruptError('odb', `${where()}: zlib stream runs past the end of the pack`);
      want = Math.max(deflateBound(size), this.chunkEnd - dataOffset + 1);
    }
  }
}
