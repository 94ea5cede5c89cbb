// The object database of one repository: its packs (newest first, as git searches them), its
// loose objects, and its alternates. Reads resolve delta chains from the base up, caching each
// intermediate base in a byte-bounded cache, so walking a chain of depth 50 inflates each base once.
import buffer from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { CorruptError, GitError, NotFoundError } from '../core/errors.js';
import { OID_BYTES, compareOid, toHex } from '../core/oid.js';
import { beyondInflateRatio, Inflater, deflateBound } from '../core/zlib.js';
import { OBJ_OFS_DELTA, OBJ_TREE, typeName, type ObjectTypeCode, type RawObject } from '../object/type.js';
import { applyDeltaWithSizes, peekDeltaSizes, readDeltaSizes } from '../pack/delta.js';
import { EntryHeader } from '../pack/entry-header.js';
import { PackIndex } from '../pack/idx/read.js';
import { PackFile } from '../pack/pack-file.js';
import { DeltaBaseCache, RECYCLE, SPECULATIVE } from './delta-base-cache.js';
import { LooseObjects } from './loose.js';
import type { ObjectInfo, ObjectStore, StoredPack } from './object-store.js';
import { ReadTrace } from './read-trace.js';

/** git refuses nothing by depth when reading, but a cycle must not loop forever. */
const MAX_CHAIN = 10000;
const MAX_ALTERNATE_DEPTH = 5;

let packNumbers = 0;

/** set() flags for a cached result: see ObjectDatabase.resultOut() for which buffers may be recycled. */
function cacheFlags(top: boolean, transient: boolean): number {
  return (!top || transient ? RECYCLE : 0) | (top ? SPECULATIVE : 0);
}

export class ObjectDatabase implements ObjectStore {
  packs: StoredPack[] = [];
  readonly loose: LooseObjects;
  readonly alternates: ObjectDatabase[] = [];
  readonly inflater = new Inflater();
  private readonly header = new EntryHeader();
  private packDirStamp = -1;
  private deltaScratch = Buffer.allocUnsafe(64 * 1024);
  private resultScratch = Buffer.allocUnsafe(0);
  /** Set by locate(): where the last found object lives. */
  private foundPack: StoredPack | null = null;
  private foundPos = -1;
  /** Set by entryAt(): where the parsed entry's data starts. */
  private dataOffset = 0;
  private labelPack: StoredPack | null = null;
  private labelOffset = 0;
  private readonly entryLabel = () => `${this.labelPack!.file.path}: entry at offset ${this.labelOffset}`;
  /** limitPackWindows()'s bound, for packs found later; 0 for none. */
  windowLimit = 0;
  /** [entryOffset, dataOffset, size] triples of the chain being resolved; reused across reads. */
  private chain: number[] = [];

  constructor(readonly objectsDir: string, readonly cache = new DeltaBaseCache(), depth = 0, readonly trace = new ReadTrace()) {
    this.loose = new LooseObjects(objectsDir, this.inflater);
    this.scanPacks();
    if (depth < MAX_ALTERNATE_DEPTH) this.loadAlternates(depth);
  }

  private loadAlternates(depth: number): void {
    let text: string;
    try {
      text = fs.readFileSync(path.join(this.objectsDir, 'info', 'alternates'), 'utf8');
    } catch {
      return;
    }
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (!line || line.startsWith('#')) continue;
      const dir = path.resolve(this.objectsDir, line);
      if (!fs.existsSync(dir)) continue;
      this.alternates.push(new ObjectDatabase(dir, this.cache, depth + 1, this.trace));
    }
  }

  /** (Re)reads objects/pack, keeping packs already open; newest first by mtime, as git orders them. */
  private scanPacks(): void {
    const dir = path.join(this.objectsDir, 'pack');
    let names: string[];
    try {
      this.packDirStamp = fs.statSync(dir).mtimeMs;
      names = fs.readdirSync(dir);
    } catch {
      this.packDirStamp = 0;
      return;
    }
    const have = new Map(this.packs.map(p => [p.name, p]));
    const found: { handle: StoredPack; mtime: number }[] = [];
    for (const n of names) {
      if (!n.startsWith('pack-') || !n.endsWith('.idx')) continue;
      const base = n.slice(0, -4);
      const packPath = path.join(dir, base + '.pack');
      let mtime: number;
      try {
        mtime = fs.statSync(packPath).mtimeMs;
      } catch {
        continue;
      }
      let handle = have.get(base) ?? null;
      if (!handle) {
        handle = this.openPack(path.join(dir, n), packPath, base);
        if (!handle) continue;
        if (this.windowLimit > 0) handle.file.limitWindows(this.windowLimit);
      }
      found.push({ handle, mtime });
    }
    found.sort((a, b) => b.mtime - a.mtime);
    this.packs = found.map(f => f.handle);
  }

  /**
   * Opens a pack listed a moment ago, or null when it is gone: a concurrent repack deletes the
   * packs it replaced, and as git's add_packed_git() the scan goes on without them (their
   * objects are in the new pack).
   */
  private openPack(idxPath: string, packPath: string, name: string): StoredPack | null {
    let index: PackIndex | null = null;
    try {
      index = PackIndex.load(idxPath);
      return { number: ++packNumbers, index, file: new PackFile(packPath, index), name };
    } catch (e) {
      index?.close();
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  private packsChanged(): boolean {
    try {
      return fs.statSync(path.join(this.objectsDir, 'pack')).mtimeMs !== this.packDirStamp;
    } catch {
      return this.packDirStamp !== 0;
    }
  }

  /** Finds a packed object in this database (not alternates); sets foundPack/foundPos. */
  private locatePacked(oid: Uint8Array, off: number): boolean {
    const packs = this.packs;
    for (let i = 0; i < packs.length; i++) {
      const p = packs[i]!;
      const pos = p.index.find(oid, off);
      if (pos >= 0) {
        if (i > 0) { packs.splice(i, 1); packs.unshift(p); } // the next lookup likely hits it again
        this.foundPack = p;
        this.foundPos = pos;
        return true;
      }
    }
    return false;
  }

  /** Where an object is stored: in which database, and for packed ones which pack and offset. */
  locate(oid: Uint8Array, off = 0): { db: ObjectDatabase; pack: StoredPack | null; offset: number } | null {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.locatePacked(oid, off)) {
        return { db: this, pack: this.foundPack, offset: this.foundPack!.index.offset(this.foundPos) };
      }
      if (this.loose.has(oid, off)) return { db: this, pack: null, offset: 0 };
      for (const alt of this.alternates) {
        const hit = alt.locate(oid, off);
        if (hit) return hit;
      }
      if (attempt === 0 && this.packsChanged()) {
        this.refresh();
      } else {
        break;
      }
    }
    return null;
  }

  /** Bounds each pack's window cache (PackFile.limitWindows), of packs open now and found later. */
  limitPackWindows(bytes: number): void {
    this.windowLimit = bytes;
    for (const p of this.packs) p.file.limitWindows(bytes);
    for (const a of this.alternates) a.limitPackWindows(bytes);
  }

  /** Objects in the packs of this database and its alternates (duplicates counted each time). */
  packedObjectCount(): number {
    let n = 0;
    for (const p of this.packs) n += p.index.count;
    for (const a of this.alternates) n += a.packedObjectCount();
    return n;
  }

  has(oid: Uint8Array, off = 0): boolean {
    return this.locatePacked(oid, off) || this.locate(oid, off) !== null;
  }

  hasKnown(oid: Uint8Array, off = 0): boolean {
    return this.hasOwnKnown(oid, off) || this.alternates.some((a) => a.hasKnown(oid, off));
  }

  /** hasKnown() without the alternates: what this directory itself holds (a quarantine's own objects). */
  hasOwnKnown(oid: Uint8Array, off = 0): boolean {
    for (const p of this.packs) if (p.index.find(oid, off) >= 0) return true;
    return this.loose.has(oid, off);
  }

  isEmpty(): boolean {
    if (this.packs.length || this.alternates.length) return false;
    try {
      return !fs.readdirSync(this.objectsDir).some((n) => /^[0-9a-f]{2}$/.test(n));
    } catch {
      return true;
    }
  }

  allPacks(): StoredPack[] {
    const out = [...this.packs];
    for (const alt of this.alternates) out.push(...alt.allPacks());
    return out;
  }

  refresh(): void {
    this.scanPacks();
    this.loose.refresh();
  }

  forgetLooseListings(): void {
    this.loose.refresh();
    for (const alt of this.alternates) alt.forgetLooseListings();
  }

  /**
   * The names in objects/pack with their inodes, sizes and mtimes, and the alternates file's: the
   * directory's mtime alone misses a change within its granularity (a push followed at once by a
   * fetch), and a pack rewritten in place under its name would keep it.
   */
  storageStamp(): string {
    const parts: string[] = [];
    const add = (file: string, name: string) => {
      try {
        const st = fs.statSync(file);
        parts.push(`${name}:${st.ino}:${st.size}:${st.mtimeMs}`);
      } catch {
        parts.push(`${name}:-`);
      }
    };
    add(path.join(this.objectsDir, 'info', 'alternates'), 'alternates');
    let names: string[] = [];
    try {
      names = fs.readdirSync(path.join(this.objectsDir, 'pack')).sort();
    } catch {
      // No pack directory: an empty listing, until one appears.
    }
    for (const n of names) {
      if (n.endsWith('.pack') || n.endsWith('.idx') || n.endsWith('.bitmap') || n.endsWith('.rev')) add(path.join(this.objectsDir, 'pack', n), n);
    }
    for (const alt of this.alternates) parts.push(alt.storageStamp());
    return parts.join('\n');
  }

  /**
   * Reads an object, or returns null if it does not exist anywhere. With `transient`, the data may
   * live in a buffer this database reuses: it is valid only until the next read (cat-file's batch
   * output copies each object out at once, and allocating millions of results cost more than
   * reading them).
   */
  read(oid: Uint8Array, off = 0, transient = false): RawObject | null {
    // The common case, a hit in one of our packs, allocates no location record.
    if (this.locatePacked(oid, off)) return this.readPacked(this.foundPack!, this.foundPack!.index.offset(this.foundPos), transient);
    const where = this.locate(oid, off);
    if (!where) return null;
    if (where.pack) return where.db.readPacked(where.pack, where.offset, transient);
    this.trace.pack = 0;
    this.trace.baseOffset = -1;
    const loose = where.db.loose.read(oid, off);
    if (loose) return loose;
    const packed = where.db.repackedLoose(oid, off);
    return packed ? where.db.readPacked(packed.pack, packed.offset, transient) : null;
  }

  /**
   * A loose object listed but gone when read was packed meanwhile (a repack ran `prune-packed`):
   * the listings are read again and the new pack found, as git's reprepare_packed_git() does on a
   * miss. Where it is packed now, or null.
   */
  private repackedLoose(oid: Uint8Array, off: number): { pack: StoredPack; offset: number } | null {
    this.refresh();
    return this.locatePacked(oid, off) ? { pack: this.foundPack!, offset: this.foundPack!.index.offset(this.foundPos) } : null;
  }

  /** Reads an object that must exist (and, if given, be of `type`); `transient` as for read(). */
  mustRead(oid: Uint8Array, off = 0, type?: ObjectTypeCode, transient = false): RawObject {
    const o = this.read(oid, off, transient);
    if (!o) throw new NotFoundError('odb', `object ${toHex(oid, off)} not found in ${this.objectsDir}`);
    if (type && o.type !== type) {
      throw new CorruptError('odb', `object ${toHex(oid, off)} is a ${typeName(o.type)}, not a ${typeName(type)}`);
    }
    return o;
  }

  /** Type and size without inflating the whole object (for cat-file -t/-s and --batch-check). */
  info(oid: Uint8Array, off = 0): ObjectInfo | null {
    if (this.locatePacked(oid, off)) return this.infoPacked(this.foundPack!, this.foundPack!.index.offset(this.foundPos));
    const where = this.locate(oid, off);
    if (!where) return null;
    if (where.pack) return where.db.infoPacked(where.pack, where.offset);
    const h = where.db.loose.header(oid, off);
    if (h) return { type: h.type, size: h.size };
    const packed = where.db.repackedLoose(oid, off);
    return packed ? where.db.infoPacked(packed.pack, packed.offset) : null;
  }

  /**
   * Parses the entry header at `offset` into this.header; returns the buffer it was read from and
   * sets this.dataOffset to where the entry's zlib stream starts in the pack.
   */
  private entryAt(pack: StoredPack, offset: number): Buffer {
    const view = pack.file.read(offset, 64);
    if (!this.header.parse(view.buf, view.pos, view.end, offset, 'odb', pack.file.path)) {
      throw new CorruptError('odb', `${pack.file.path}: entry header at offset ${offset} is truncated`);
    }
    this.dataOffset = offset + (this.header.dataPos - view.pos);
    // The size is only the header's claim, and readers allocate it before inflating: a few bytes
    // of a corrupt pack could ask for gigabytes (or more than a Buffer can be, a RangeError).
    const room = pack.file.dataEnd - this.dataOffset;
    if (beyondInflateRatio(this.header.size, room)) {
      throw new CorruptError('odb', `${pack.file.path}: entry at offset ${offset} declares ${this.header.size} bytes, more than the ${room} bytes left in the pack can hold`);
    }
    if (this.header.size >= buffer.constants.MAX_LENGTH) {
      throw new GitError('odb', 'too-large', `${pack.file.path}: entry at offset ${offset} is an object of ${this.header.size} bytes, more than tsgit can hold in memory`);
    }
    return view.buf;
  }

  /** Inflates the zlib stream at `dataOffset` of the pack into out[0..size). */
  private inflateAt(pack: StoredPack, entryOffset: number, dataOffset: number, size: number, out: Buffer): void {
    let want = deflateBound(size);
    // The error label is one closure reading these fields, not a new closure per entry.
    this.labelPack = pack;
    this.labelOffset = entryOffset;
    for (;;) {
      const view = pack.file.read(dataOffset, want);
      const n = this.inflater.tryInflateInto(view.buf, view.pos, view.end, out, 0, size, 'odb', this.entryLabel);
      if (n >= 0) return;
      if (dataOffset + (view.end - view.pos) >= pack.file.dataEnd) {
        throw new CorruptError('odb', `${pack.file.path}: entry at offset ${entryOffset}: zlib stream runs past the end of the pack`);
      }
      want = Math.max(want * 2, view.end - view.pos + 1);
    }
  }

  /** A reused buffer of at least `size` bytes for transient results. */
  private resultBuffer(size: number): Buffer {
    if (this.resultScratch.length < size) this.resultScratch = Buffer.allocUnsafeSlow(Math.max(size, this.resultScratch.length * 2));
    return this.resultScratch;
  }

  /**
   * The buffer for an object resolved at one step of a chain (`top`: the object asked for).
   * `keep`: it goes into the cache. Intermediate results are bases by definition; a tree at the top
   * of a chain is kept too, as a likely base: walks read the newest version of a directory first,
   * and older versions are deltas against it. A kept buffer nobody else holds comes from the cache,
   * which may recycle it; a transient top result goes into the reused result buffer.
   */
  private resultOut(size: number, top: boolean, keep: boolean, transient: boolean): Buffer {
    if (keep && (!top || transient)) return this.cache.take(size);
    return top && transient ? this.resultBuffer(size) : Buffer.allocUnsafe(size);
  }

  /**
   * Reads the object stored at `offset` of `pack`, resolving its delta chain. With `transient`,
   * the result is valid only until the next read (see read()).
   */
  readPacked(pack: StoredPack, offset: number, transient = false): RawObject {
    const chain = this.chain;
    chain.length = 0;
    let cur = offset;
    /** The top delta's base, when it is in this pack. */
    let topBase = -1;
    let base: RawObject | null = null;
    const h = this.header, cache = this.cache;
    for (;;) {
      // A cached object handed to a caller that keeps it must never be recycled by the cache.
      const hit = cache.get(pack.number, cur, !transient && cur === offset);
      if (hit) { base = { type: hit.type, data: hit.data }; break; }
      const buf = this.entryAt(pack, cur);
      const dataOffset = this.dataOffset;
      if (h.type < 5) {
        const top = chain.length === 0, keep = !top || h.type === OBJ_TREE;
        const out = this.resultOut(h.size + 1, top, keep, transient);
        this.inflateAt(pack, cur, dataOffset, h.size, out);
        base = { type: h.type as ObjectTypeCode, data: out.subarray(0, h.size) };
        if (keep) cache.set(pack.number, cur, base.type, base.data, cacheFlags(top, transient));
        break;
      }
      chain.push(cur, dataOffset, h.size);
      if (chain.length > MAX_CHAIN * 3) {
        throw new CorruptError('odb', `${pack.file.path}: delta chain from offset ${offset} is deeper than ${MAX_CHAIN} (a cycle?)`);
      }
      if (h.type === OBJ_OFS_DELTA) {
        cur = h.baseOffset;
        if (chain.length === 3) topBase = cur;
        continue;
      }
      // REF_DELTA: the base is normally in this pack; if not, anywhere in the repository.
      const baseOid = buf.subarray(h.baseOidPos, h.baseOidPos + OID_BYTES);
      const pos = pack.index.find(baseOid);
      if (pos >= 0) {
        cur = pack.index.offset(pos);
        if (chain.length === 3) topBase = cur;
        continue;
      }
      // Reading another pack's object reuses this.chain: keep ours.
      const saved = chain.slice();
      base = this.read(baseOid);
      this.chain = chain;
      chain.length = 0;
      chain.push(...saved);
      if (!base) {
        throw new NotFoundError('odb', `${pack.file.path}: delta at offset ${chain[chain.length - 3]} needs base ${toHex(baseOid)}, which does not exist`);
      }
      break;
    }
    const trace = this.trace;
    trace.pack = pack.number;
    trace.offset = offset;
    trace.baseOffset = -1;
    for (let i = chain.length - 3; i >= 0; i -= 3) {
      const entryOffset = chain[i]!, dataOffset = chain[i + 1]!, size = chain[i + 2]!;
      if (this.deltaScratch.length <= size) this.deltaScratch = Buffer.allocUnsafe(Math.max(size + 1, this.deltaScratch.length * 2));
      this.inflateAt(pack, entryOffset, dataOffset, size, this.deltaScratch);
      const sizes = readDeltaSizes(this.deltaScratch, 0, size, 'odb', this.entryLabel);
      const top = i === 0, keep = !top || base!.type === OBJ_TREE;
      const out = this.resultOut(sizes.resultSize, top, keep, transient);
      const baseSize = base!.data.length;
      const data = applyDeltaWithSizes(base!.data, this.deltaScratch, sizes, size, 'odb', this.entryLabel, out);
      base = { type: base!.type, data };
      if (keep) cache.set(pack.number, entryOffset, base.type, data, cacheFlags(top, transient));
      if (top && topBase >= 0) {
        trace.baseOffset = topBase;
        trace.baseSize = baseSize;
        trace.delta = this.deltaScratch;
        trace.deltaStart = sizes.pos;
        trace.deltaEnd = size;
      }
    }
    return base!;
  }

  /** Type and size of the object at `offset`, reading only entry headers and a delta's first bytes. */
  infoPacked(pack: StoredPack, offset: number): ObjectInfo {
    const h = this.header;
    this.entryAt(pack, offset);
    if (h.type < 5) return { type: h.type as ObjectTypeCode, size: h.size };
    const size = this.deltaResultSize(pack, offset);
    let cur = offset;
    for (let depth = 0; depth <= MAX_CHAIN; depth++) {
      const hit = this.cache.get(pack.number, cur, false);
      if (hit) return { type: hit.type, size };
      const buf = this.entryAt(pack, cur);
      if (h.type < 5) return { type: h.type as ObjectTypeCode, size };
      if (h.type === OBJ_OFS_DELTA) {
        cur = h.baseOffset;
        continue;
      }
      const baseOid = Buffer.from(buf.subarray(h.baseOidPos, h.baseOidPos + OID_BYTES));
      const pos = pack.index.find(baseOid);
      if (pos >= 0) {
        cur = pack.index.offset(pos);
        continue;
      }
      const info = this.info(baseOid);
      if (!info) throw new NotFoundError('odb', `${pack.file.path}: delta at offset ${cur} needs base ${toHex(baseOid)}, which does not exist`);
      return { type: info.type, size };
    }
    throw new CorruptError('odb', `${pack.file.path}: delta chain from offset ${offset} is deeper than ${MAX_CHAIN} (a cycle?)`);
  }

  private deltaResultSize(pack: StoredPack, offset: number): number {
    this.entryAt(pack, offset);
    const dataOffset = this.dataOffset;
    const head = this.deltaScratch;
    // A deflate block can open with a Huffman table of a hundred bytes or more before its first
    // output byte, so ask for more input until the two sizes come out or the stream is exhausted.
    for (let want = 256; ; want *= 4) {
      const view = pack.file.read(dataOffset, want);
      const n = this.inflater.inflatePrefix(view.buf, view.pos, view.end, head, 20, 'odb',
        () => `${pack.file.path}: delta at offset ${offset}`);
      const sizes = peekDeltaSizes(head, 0, n, 'odb', () => `${pack.file.path}: delta at offset ${offset}`);
      if (sizes) return sizes.resultSize;
      if (view.end - view.pos < want || dataOffset + want >= pack.file.dataEnd) {
        throw new CorruptError('odb', `${pack.file.path}: delta at offset ${offset} has a truncated header`);
      }
    }
  }

  /**
   * Calls `fn` with every object id in this database and its alternates, once each, in sorted
   * order. The id is only valid during the call.
   */
  forEachId(fn: (buf: Uint8Array, off: number) => void): void {
    const sources: { buf: Uint8Array; at: (i: number) => number; count: number }[] = [];
    const collect = (db: ObjectDatabase) => {
      for (const p of db.packs) sources.push({ buf: p.index.buf, at: i => p.index.oidAt(i), count: p.index.count });
      const loose = db.loose.allIds();
      if (loose.length) sources.push({ buf: loose, at: i => i * OID_BYTES, count: loose.length / OID_BYTES });
      for (const a of db.alternates) collect(a);
    };
    collect(this);
    const pos = new Array<number>(sources.length).fill(0);
    let lastBuf: Uint8Array | null = null, lastOff = 0;
    for (;;) {
      let best = -1, bestBuf: Uint8Array | null = null, bestOff = 0;
      for (let s = 0; s < sources.length; s++) {
        const src = sources[s]!;
        if (pos[s]! >= src.count) continue;
        const o = src.at(pos[s]!);
        if (best < 0 || compareOid(src.buf, o, bestBuf!, bestOff) < 0) {
          best = s; bestBuf = src.buf; bestOff = o;
        }
      }
      if (best < 0) return;
      pos[best] = pos[best]! + 1;
      if (lastBuf && compareOid(lastBuf, lastOff, bestBuf!, bestOff) === 0) continue;
      fn(bestBuf!, bestOff);
      lastBuf = bestBuf; lastOff = bestOff;
    }
  }

  /**
   * Calls `fn` with each id in this database and its alternates whose first `digits` hex digits (2
   * or more) are those of the id at `key`: in each pack's index by binary search, and among the
   * loose ids of the one fan-out directory. An id stored in two places comes twice.
   */
  forEachIdWithPrefix(key: Uint8Array, keyOff: number, digits: number, fn: (buf: Uint8Array, off: number) => void): void {
    for (const p of this.packs) p.index.forEachWithPrefix(key, keyOff, digits, fn);
    this.loose.forEachWithPrefix(key, keyOff, digits, fn);
    for (const a of this.alternates) a.forEachIdWithPrefix(key, keyOff, digits, fn);
  }

  /** Writes a loose object; returns its id. */
  writeLoose(type: ObjectTypeCode, data: Uint8Array): Buffer {
    return this.loose.write(type, data);
  }

  close(): void {
    for (const p of this.packs) {
      p.file.close();
      p.index.close();
    }
    for (const a of this.alternates) a.close();
    this.packs = [];
  }
}
