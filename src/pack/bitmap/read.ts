// A pack's reachability bitmap (.bitmap, format v1), read whole into memory and decoded lazily.
//
// Layout: "BITM", u16 version 1, u16 flags, u32 entry count, the pack's 20-byte checksum; four
// EWAH type bitmaps (commits, trees, blobs, tags); the entries (u32 commit index position, u8 XOR
// offset, u8 flags, EWAH); then, when flagged, the lookup table (per entry, sorted by commit index
// position: u32 commit position, u64 entry offset, u32 XOR base row or 0xffffffff) and the name-hash
// cache (u32 per object, in index order); last, the SHA-1 of all that precedes it.
//
// Bits are pack positions (offset order). A multi-pack-index bitmap is the same file over the
// multi-pack-index's objects: its positions are pseudo-pack positions and its commit positions and
// hash cache follow the multi-pack-index's order. An entry's bitmap may be stored XORed with an earlier
// entry's; chains are resolved on first use, and every bitmap resolved on the way is cached.
// With a lookup table no entry is parsed until asked for; without one, opening scans the entry
// headers (cheap: it skips over the words) to know where each commit's bitmap is.
import fs from 'node:fs';
import { CorruptError } from '../../core/errors.js';
import { sha1 } from '../../core/hash.js';
import { toHex } from '../../core/oid.js';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../../object/type.js';
import { PackIndex } from '../idx/read.js';
import { Bitset } from './bitset.js';
import { EwahBitmap } from './ewah.js';
import { MultiPackIndex } from './midx.js';
import { PackOrder } from './pack-order.js';

export const BITMAP_OPT_FULL_DAG = 0x1;
export const BITMAP_OPT_HASH_CACHE = 0x4;
export const BITMAP_OPT_LOOKUP_TABLE = 0x10;
/** git refuses XOR offsets above this; so do we. */
export const MAX_XOR_OFFSET = 160;

const SIGNATURE = 0x4249544d; // "BITM"
const HEADER_SIZE = 32;
const TRAILER_SIZE = 20;
const ENTRY_HEADER = 6;
const TRIPLET = 16;
const NO_XOR = 0xffffffff;
/** Slots of the memory of looked-up positions (1.5 MB): see PackBitmap.known. */
const KNOWN_SLOTS = 1 << 16;
/** Int32 words per slot: the id's five words, then its position plus 2 (0: empty slot). */
const KNOWN_SLOT = 6;

export interface TypeBitmaps {
  commits: Bitset;
  trees: Bitset;
  blobs: Bitset;
  tags: Bitset;
}

/** The objects a bitmap describes, in index (id) order: a pack's .idx or a multi-pack-index. */
export interface BitmapIndex {
  readonly count: number;
  readonly path: string;
  readonly buf: Buffer;
  find(oid: Uint8Array, offset?: number): number;
  oid(i: number): Buffer;
  /** Offset in `buf` of the i-th id. */
  oidAt(i: number): number;
  /** The checksum the bitmap's header must carry. */
  packChecksum(): Buffer;
}

/** What PackBitmap.open needs from an open pack (the object database's StoredPack fits). */
export interface PackSource {
  index: PackIndex;
  file: { path: string };
}

export class PackBitmap {
  readonly flags: number;
  readonly entryCount: number;
  readonly typeBitmaps: TypeBitmaps;
  /** Object count of the pack: the number of bits every bitmap covers. */
  readonly count: number;
  /**
   * Positions already looked up, in slots chosen by the id's bytes 2-3 (ids are uniformly random),
   * a newer id taking the slot over: no growing, no rehashing. A lookup in the .idx costs ~0.5 us,
   * a cache miss or more per probe; a serving process keeps its bitmap from one fetch to the next,
   * and fetches of the recent history ask for mostly the same trees, a couple of thousand per fetch
   * 100 commits behind. Allocated on first use.
   */
  private known: Int32Array | null = null;
  private readonly hashCacheAt: number;
  private readonly tableAt: number;
  private readonly entriesEnd: number;
  /** Without a lookup table: entry number by commit index position, and each entry's offset. */
  private readonly entryByCommit: Map<number, number> | null = null;
  private readonly entryOffsets: Float64Array | null = null;
  /** Resolved bitmaps by entry number (file order, or lookup-table row with a table). */
  private readonly resolved = new Map<number, Bitset>();

  private constructor(readonly buf: Buffer, readonly path: string, readonly index: BitmapIndex, readonly order: PackOrder) {
    const bad = (what: string) => new CorruptError('pack', `${path}: ${what}`);
    const n = this.count = index.count;
    if (buf.length < HEADER_SIZE + TRAILER_SIZE) throw bad(`bitmap file is truncated (${buf.length} bytes)`);
    if (buf.readUInt32BE(0) !== SIGNATURE) throw bad('not a bitmap file (bad signature)');
    const version = buf.readUInt16BE(4);
    if (version !== 1) throw bad(`unsupported bitmap version ${version}`);
    this.flags = buf.readUInt16BE(6);
    if (!(this.flags & BITMAP_OPT_FULL_DAG)) throw bad('bitmap lacks the required FULL_DAG flag');
    this.entryCount = buf.readUInt32BE(8);
    // Each entry takes at least its 6-byte header and an empty EWAH's 12 bytes.
    if (this.entryCount * (ENTRY_HEADER + 12) > buf.length) throw bad(`bitmap file is too short to hold ${this.entryCount} entries`);
    if (!buf.subarray(12, 32).equals(index.packChecksum())) {
      throw bad(`bitmap belongs to another pack (checksum ${toHex(buf, 12)} differs from ${index.path})`);
    }
    let end = buf.length - TRAILER_SIZE;
    this.hashCacheAt = -1;
    if (this.flags & BITMAP_OPT_HASH_CACHE) {
      if (end - HEADER_SIZE < 4 * n) throw bad(`bitmap file is too short to hold the name-hash cache for ${n} objects`);
      end -= 4 * n;
      this.hashCacheAt = end;
    }
    this.tableAt = -1;
    if (this.flags & BITMAP_OPT_LOOKUP_TABLE) {
      if (end - HEADER_SIZE < TRIPLET * this.entryCount) throw bad(`bitmap file is too short to hold a lookup table of ${this.entryCount} entries`);
      end -= TRIPLET * this.entryCount;
      this.tableAt = end;
    }
    this.entriesEnd = end;
    const where = () => path;
    let at = HEADER_SIZE;
    const types: Bitset[] = [];
    for (let t = 0; t < 4; t++) {
      const e = EwahBitmap.read(buf, at, end, where);
      types.push(e.toBitset(n, () => `${path}: type bitmap ${t}`));
      at += e.byteLength;
    }
    this.typeBitmaps = { commits: types[0]!, trees: types[1]!, blobs: types[2]!, tags: types[3]! };
    if (this.tableAt < 0) {
      this.entryByCommit = new Map();
      this.entryOffsets = new Float64Array(this.entryCount);
      for (let i = 0; i < this.entryCount; i++) {
        const e = this.entryAt(at, i);
        if (this.entryByCommit.has(e.commit)) throw bad(`entry ${i} repeats the bitmap for commit ${toHex(index.oid(e.commit))}`);
        this.entryByCommit.set(e.commit, i);
        this.entryOffsets[i] = at;
        at += ENTRY_HEADER + e.ewah.byteLength;
      }
    }
  }

  /**
   * Opens the .bitmap beside a pack (or at `bitmapPath`). Returns null when there is none; throws a
   * CorruptError when it is malformed or belongs to another pack.
   */
  static open(pack: PackSource | { idxPath: string; packPath: string }, bitmapPath?: string): PackBitmap | null {
    const index = 'index' in pack ? pack.index : PackIndex.load(pack.idxPath);
    // An index opened here has no owner to close it: read it whole, and its file is closed.
    if (!('index' in pack)) index.loadAll();
    const packPath = 'index' in pack ? pack.file.path : pack.packPath;
    const path = bitmapPath ?? packPath.replace(/\.pack$/, '.bitmap');
    const buf = readIfExists(path);
    return buf && new PackBitmap(buf, path, index, PackOrder.forIndex(index));
  }

  /**
   * Opens the bitmap of the multi-pack-index in `packDir` (multi-pack-index-<checksum>.bitmap).
   * Returns null when there is no multi-pack-index or it has no bitmap.
   */
  static openMultiPack(packDir: string): PackBitmap | null {
    const midx = MultiPackIndex.open(packDir);
    if (!midx) return null;
    const path = `${packDir}/multi-pack-index-${toHex(midx.packChecksum())}.bitmap`;
    const buf = readIfExists(path);
    return buf && new PackBitmap(buf, path, midx, midx.order());
  }

  /** Builds from bytes already in memory (tests, freshly written bitmaps). */
  static fromBuffer(buf: Buffer, path: string, index: BitmapIndex, order: PackOrder): PackBitmap {
    return new PackBitmap(buf, path, index, order);
  }

  get hasHashCache(): boolean { return this.hashCacheAt >= 0; }
  get hasLookupTable(): boolean { return this.tableAt >= 0; }

  positionToIndex(pos: number): number { return this.order.positionToIndex[pos]!; }
  indexToPosition(index: number): number { return this.order.position(index); }

  /** Pack position of an object, or -1 when it is not in the pack. */
  position(oid: Uint8Array, offset = 0): number {
    const known = this.known ??= new Int32Array(KNOWN_SLOTS * KNOWN_SLOT);
    const w0 = (oid[offset]! << 24) | (oid[offset + 1]! << 16) | (oid[offset + 2]! << 8) | oid[offset + 3]!;
    const w1 = (oid[offset + 4]! << 24) | (oid[offset + 5]! << 16) | (oid[offset + 6]! << 8) | oid[offset + 7]!;
    const w2 = (oid[offset + 8]! << 24) | (oid[offset + 9]! << 16) | (oid[offset + 10]! << 8) | oid[offset + 11]!;
    const w3 = (oid[offset + 12]! << 24) | (oid[offset + 13]! << 16) | (oid[offset + 14]! << 8) | oid[offset + 15]!;
    const w4 = (oid[offset + 16]! << 24) | (oid[offset + 17]! << 16) | (oid[offset + 18]! << 8) | oid[offset + 19]!;
    const s = (w0 & (KNOWN_SLOTS - 1)) * KNOWN_SLOT;
    if (known[s + 5] !== 0 && known[s] === w0 && known[s + 1] === w1 && known[s + 2] === w2 && known[s + 3] === w3 && known[s + 4] === w4) {
      return known[s + 5]! - 2;
    }
    const i = this.index.find(oid, offset);
    const pos = i < 0 ? -1 : this.order.position(i);
    known[s] = w0;
    known[s + 1] = w1;
    known[s + 2] = w2;
    known[s + 3] = w3;
    known[s + 4] = w4;
    known[s + 5] = pos + 2;
    return pos;
  }

  /** The id of the object at a pack position (a view into the index). */
  oidAt(pos: number): Buffer {
    return this.index.oid(this.order.positionToIndex[pos]!);
  }

  /** Type code (OBJ_COMMIT..OBJ_TAG) of the object at a pack position, or 0 if no type bitmap has it. */
  typeAt(pos: number): number {
    const t = this.typeBitmaps;
    if (t.commits.has(pos)) return OBJ_COMMIT;
    if (t.trees.has(pos)) return OBJ_TREE;
    if (t.blobs.has(pos)) return OBJ_BLOB;
    if (t.tags.has(pos)) return OBJ_TAG;
    return 0;
  }

  /** Name hash of the object at an index position (0 without a hash cache, as git treats it). */
  nameHash(indexPos: number): number {
    return this.hashCacheAt < 0 ? 0 : this.buf.readUInt32BE(this.hashCacheAt + 4 * indexPos);
  }

  /** Name hash of the object at a pack position. */
  nameHashAt(pos: number): number {
    return this.nameHash(this.order.positionToIndex[pos]!);
  }

  /** Index positions of the commits that have bitmaps (file order, or sorted with a lookup table). */
  commits(): Uint32Array {
    const out = new Uint32Array(this.entryCount);
    if (this.entryByCommit) {
      for (const [commit, i] of this.entryByCommit) out[i] = commit;
    } else {
      for (let r = 0; r < this.entryCount; r++) out[r] = this.buf.readUInt32BE(this.tableAt + TRIPLET * r);
    }
    return out;
  }

  /**
   * The objects reachable from a commit, as pack positions, or null when the commit has no bitmap.
   * The result is cached and shared: clone() it before changing it.
   */
  bitmapFor(oid: Uint8Array, offset = 0): Bitset | null {
    const i = this.index.find(oid, offset);
    return i < 0 ? null : this.bitmapForIndex(i);
  }

  /** Like bitmapFor, with the commit given by index position. */
  bitmapForIndex(commitIndexPos: number): Bitset | null {
    const entry = this.entryByCommit ? this.entryByCommit.get(commitIndexPos) : this.tableRow(commitIndexPos);
    if (entry === undefined || entry < 0) return null;
    return this.resolve(entry);
  }

  /** Checks the trailing SHA-1 over the whole file (git does not, when reading). */
  verifyChecksum(): void {
    const end = this.buf.length - TRAILER_SIZE;
    if (!sha1(this.buf.subarray(0, end)).equals(this.buf.subarray(end))) {
      throw new CorruptError('pack', `${this.path}: bitmap checksum mismatch`);
    }
  }

  /** Lookup-table row of a commit by binary search, or -1. */
  private tableRow(commit: number): number {
    let lo = 0, hi = this.entryCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.buf.readUInt32BE(this.tableAt + TRIPLET * mid);
      if (c === commit) return mid;
      if (c < commit) lo = mid + 1; else hi = mid;
    }
    return -1;
  }

  /** Where entry `e` is stored and which entry (if any) it is XORed with. */
  private locate(e: number): { offset: number; base: number } {
    if (this.entryOffsets) {
      const offset = this.entryOffsets[e]!;
      const x = this.buf[offset + 4]!;
      if (x > MAX_XOR_OFFSET || x > e) {
        throw new CorruptError('pack', `${this.path}: entry ${e} has XOR offset ${x}, which reaches before the first entry or past ${MAX_XOR_OFFSET}`);
      }
      return { offset, base: x ? e - x : -1 };
    }
    const row = this.tableAt + TRIPLET * e;
    const offset = this.buf.readUInt32BE(row + 4) * 2 ** 32 + this.buf.readUInt32BE(row + 8);
    const xorRow = this.buf.readUInt32BE(row + 12);
    if (offset < HEADER_SIZE || offset + ENTRY_HEADER > this.entriesEnd) {
      throw new CorruptError('pack', `${this.path}: lookup table row ${e} points at offset ${offset}, outside the entries`);
    }
    if (xorRow !== NO_XOR && xorRow >= this.entryCount) {
      throw new CorruptError('pack', `${this.path}: lookup table row ${e} names XOR base row ${xorRow} of ${this.entryCount}`);
    }
    const commit = this.buf.readUInt32BE(row);
    if (this.buf.readUInt32BE(offset) !== commit) {
      throw new CorruptError('pack', `${this.path}: lookup table row ${e} (commit position ${commit}) points at the entry of another commit (offset ${offset})`);
    }
    return { offset, base: xorRow === NO_XOR ? -1 : xorRow };
  }

  private entryAt(offset: number, e: number): { commit: number; ewah: EwahBitmap } {
    if (offset + ENTRY_HEADER > this.entriesEnd) {
      throw new CorruptError('pack', `${this.path}: entry ${e} at offset ${offset} is truncated`);
    }
    const commit = this.buf.readUInt32BE(offset);
    if (commit >= this.count) {
      throw new CorruptError('pack', `${this.path}: entry ${e} names commit index position ${commit}, but the pack has ${this.count} objects`);
    }
    const ewah = EwahBitmap.read(this.buf, offset + ENTRY_HEADER, this.entriesEnd, () => `${this.path}: entry ${e}`);
    return { commit, ewah };
  }

  private resolve(entry: number): Bitset {
    const hit = this.resolved.get(entry);
    if (hit) return hit;
    // Walk down the XOR chain to a cached bitmap or a plain one, then come back up.
    const chain: { entry: number; offset: number }[] = [];
    let base: Bitset | null = null;
    for (let e = entry; e >= 0;) {
      const cached = this.resolved.get(e);
      if (cached) { base = cached; break; }
      if (chain.length > this.entryCount) {
        throw new CorruptError('pack', `${this.path}: XOR chain from entry ${entry} loops`);
      }
      const where = this.locate(e);
      chain.push({ entry: e, offset: where.offset });
      e = where.base;
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const { entry: e, offset } = chain[k]!;
      const { commit, ewah } = this.entryAt(offset, e);
      const label = () => `${this.path}: bitmap for commit ${toHex(this.index.buf, this.index.oidAt(commit))}`;
      const bits: Bitset = base ? base.clone() : new Bitset(this.count);
      ewah.xorInto(bits, this.count, label);
      const pos = this.order.position(commit);
      if (!bits.has(pos) || !this.typeBitmaps.commits.has(pos)) {
        throw new CorruptError('pack', `${label()} does not contain that commit, or it is not a commit`);
      }
      this.resolved.set(e, bits);
      base = bits;
    }
    return base!;
  }
}

/** A file's bytes, or null when it does not exist (a pack without a bitmap is normal). */
function readIfExists(path: string): Buffer | null {
  try {
    return fs.readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
