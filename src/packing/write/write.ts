// Writes a pack of chosen objects, reusing what the repository's packs already store:
//   1. counting: find where each object lives (pack and offset, or loose) and read its entry
//      header, so each is planned as a verbatim copy, a reused delta, or a fresh compression;
//   2. writing, in the caller's order: a reused delta's base is written first when it is sent too
//      (so an OFS_DELTA can point back at it), or the delta names a base the receiver already has
//      (thin pack, REF_DELTA); stored REF_DELTAs become OFS_DELTAs when the receiver takes them;
//      copied bytes are checked against the .idx CRC first when the pack goes to a file, as git
//      does (not when it streams to a receiver, which checks every object's id itself), and an
//      entry that fails is reported (options.warn) and written afresh from another copy;
//      everything else (loose objects, deltas whose base is not available) is compressed once,
//      or, in a thin pack, made a delta against another version of its path the receiver has
//      when the enumeration names some (PackContents.similarHad), or, when the enumeration gives
//      versions of its path by index (PackContents.similar, a push), against one of them that the
//      receiver has or that this pack has already written;
//   3. the SHA-1 trailer.
// When the enumeration knows each object's path (PackContents.nameHash), the objects that would be
// compressed whole go through git's delta search first (delta-search.ts), with the objects stored
// whole among those sent as further bases; otherwise deltas come from the packs, and from those
// few fresh ones against what the receiver has. A prefix (reuse.ts: a bitmapped pack's
// entries copied verbatim) may go between the header and the writer's own objects; a caller that
// knows each object's pack position says so, and the .idx scans of step 1 are skipped.
import zlib from 'node:zlib';
import { CorruptError, GitError, NotFoundError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { DeflateStream, deflaterFor, type Deflater } from '../../core/zlib.js';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA, type RawObject } from '../../object/type.js';
import type { ObjectStore, StoredPack } from '../../odb/object-store.js';
import type { OidMap } from '../../walk/oid-map.js';
import type { ByteView, PackFile } from '../../pack/pack-file.js';
import { EntryHeader } from '../../pack/entry-header.js';
import { BIG_OBJECT } from '../../pack/inflate-entry.js';
import { crc32 } from '../../core/crc32.js';
import type { Progress, ProgressMeter } from '../../core/progress.js';
import { createDelta } from '../../pack/delta-encode.js';
import { searchable, searchDeltas } from './delta-search.js';
import { MAX_ENTRY_HEADER, writeEntryHeader } from '../../pack/entry-header-encode.js';
import { PackLayout } from './pack-layout.js';
import type { PackPrefix } from './reuse.js';
import { PackStream, type ChunkSink, type PackStreamOptions } from './stream.js';

/** What to write: ids by dense index, and the indices to write in order. */
export interface PackContents {
  readonly ids: OidMap;
  readonly order: Int32Array;
  /** The receiver already has this object, so a thin pack may use it as a delta base. */
  receiverHas?(index: number): boolean;
  /**
   * Objects from this position of `order` on may be written in the order the packs store them.
   * git groups each delta family there; a git-written pack already holds them so, and reading it
   * front to back beats seeking through it.
   */
  storageOrderFrom?: number;
  /**
   * Where objects are already known to be stored: positions[i] is the pack position in `layout` of
   * the object with index i, or -1. The writer then looks up only the others, instead of scanning
   * every pack's .idx for the objects it sends.
   */
  stored?: { layout: PackLayout; positions: Int32Array };
  /** The receiver has the object at .idx position `indexPos` of `file`, which is not in `ids`. */
  receiverHasStored?(file: PackFile, indexPos: number): boolean;
  /**
   * Objects the receiver has that are likely close to the object with index `i` (other versions of
   * its path), as pack positions of `stored.layout`, best first. In a thin pack, an object the
   * writer would compress whole goes as a delta against one of them when that is small enough.
   */
  similarHad?(index: number): readonly number[];
  /**
   * Other versions of the path of the object with index `i` (indices in `ids`), best first. An
   * object compressed afresh may go as a delta against one that the receiver has (thin pack) or
   * that this pack has written before it, so no delta waits on a base not yet written.
   */
  similar?(index: number): readonly number[];
  /**
   * git's pack_name_hash of the path the enumeration found the object with index `i` at (0 for
   * commits and root trees). Given it, the objects the writer would compress whole are first
   * diffed against each other and against the objects sent as they are stored whole, as git's
   * pack-objects does (delta-search.ts).
   */
  nameHash?(index: number): number;
  /**
   * Ids of other versions of the path of the object with index `i` that the receiver has and that
   * may not be in the id table (git's preferred bases). In a thin pack, an object the writer would
   * compress whole goes as a delta against one of them when that is small enough.
   */
  hadVersions?(index: number): readonly Uint8Array[];
}

export interface PackWriteOptions extends PackStreamOptions {
  /** The receiver understands OFS_DELTA (the ofs-delta capability). */
  ofsDelta: boolean;
  /** Deltas may name bases that are not in the pack but that the receiver has. */
  thin: boolean;
  /** Meters for "Counting objects" and "Compressing objects". */
  progress?: Progress;
  /** Stops the work between objects (the receiver went away). */
  signal?: AbortSignal;
  /** zlib level for objects compressed afresh (git's pack.compression, default -1). */
  compression?: number;
  /**
   * Objects written first, right after the header (verbatim pack reuse). The writer's own deltas
   * never name them as bases, as git's do not.
   */
  prefix?: PackPrefix;
  /** Also show "Writing objects" (git's pack-objects does for a push, not for a fetch). */
  writingProgress?: boolean;
  /**
   * false: compress every object afresh (with PackContents.similar's deltas) instead of copying
   * stored entries. For a few objects out of a large pack, finding and planning stored entries
   * (each .idx scanned, the pack's entry order built) costs more than compressing them.
   */
  reuse?: boolean;
  /**
   * Check each stored entry against the CRC its .idx records before copying it (default true).
   * git's pack-objects checks only when it writes a pack file (not with --stdout): a receiver
   * inflates and hashes every object anyway, so a damaged entry cannot pass there, and for a full
   * clone the check is a CRC over the whole pack. One that fails is written afresh from another
   * copy (ObjectStore.readPastBadCrc).
   */
  checkReused?: boolean;
  /** Told what git's pack-objects says as it writes (an entry that fails its CRC), as stderr lines. */
  warn?: (text: string) => void;
  /**
   * Called between objects while the delta search writes nothing (it can take seconds), so that
   * a caller can keep a connection without progress alive, as git's upload-pack does.
   */
  quiet?: () => void;
}

export interface PackWriteStats {
  total: number;
  deltas: number;
  reused: number;
  reusedDeltas: number;
  /** Objects deflated afresh. */
  compressed: number;
  /** Objects the prefix wrote (git's "pack-reused"). */
  packReused: number;
  bytes: number;
  checksum: Buffer;
}

/** Larger objects are compressed whole rather than read twice and diffed. */
const MAX_DELTA_TARGET = 1 << 20;
/** A base more than this many times its target's size is passed over (git's try_delta: 32). */
const MAX_BASE_RATIO = 32;
/** Fresh deltas against objects of the same pack chain no deeper than this (git's pack.depth). */
const MAX_FRESH_DEPTH = 50;

const PLAN_COMPRESS = 0;
const PLAN_COPY = 1;
const PLAN_DELTA = 2;
/** A delta the search found (delta-search.ts), against another object of this pack. */
const PLAN_SEARCHED = 3;

/** A delta made afresh: its base's id (ids, at) and, for a base in this pack, where it was written. */
interface FreshDelta {
  delta: Uint8Array;
  ids: Uint8Array;
  at: number;
  baseAt?: number;
}

const NOT_WRITTEN = -1;
const IN_PROGRESS = -2;

/**
 * An entry longer than this is handed to the sink in steps of it, waiting for the receiver between
 * them: a synchronous copy of a 1 GiB blob would otherwise pile up in a slow receiver's buffers.
 */
const STEP = 1 << 20;
/** What writing an object asks of run(): nothing, drain, or finish the long entry it began. */
const GO_ON = 0, WAIT = 1, LONG = 2;
type WriteResult = typeof GO_ON | typeof WAIT | typeof LONG;

/**
 * The rest of an entry written a step at a time (writeLong): bytes held, a stretch of a pack copied
 * verbatim, or an object over BIG_OBJECT deflated a step of its content at a time (its compressed
 * form is never held whole).
 */
type LongEntry = { buf: Uint8Array; pos: number; end: number } | { file: StoredPack['file']; pos: number; end: number }
  | { deflate: Uint8Array; pos: number; end: number };

interface PackSlot {
  pack: StoredPack;
  layout: PackLayout | null;
}

export async function writePack(odb: ObjectStore, contents: PackContents, sink: ChunkSink,
  options: PackWriteOptions): Promise<PackWriteStats> {
  return new PackWriter(odb, contents, sink, options).run();
}

class PackWriter {
  private readonly ids: OidMap;
  private readonly n: number;
  private readonly slots: PackSlot[] = [];
  /** Slot number by .pack path (one pack may be open through more than one handle). */
  private readonly slotOf = new Map<string, number>();
  /** Per object index: pack slot (-1 loose), entry offset, entry end, plan, header length, base. */
  private readonly slot: Int32Array;
  private readonly offset: Float64Array;
  private readonly end: Float64Array;
  private readonly plan: Uint8Array;
  private readonly headerLength: Uint8Array;
  /** The size an entry's header gives: a delta's, or a whole object's. */
  private readonly entrySize: Float64Array;
  /** Type of an object stored whole (1-4), 0 where not known. */
  private readonly wholeType: Uint8Array;
  /**
   * Base object index of a reused delta, or -1 when the base is outside the id table; of a
   * searched delta, the base's index.
   */
  private readonly base: Int32Array;
  /** Position of the object in its pack's .idx (for its CRC). */
  private readonly idxPos: Int32Array;
  /**
   * For a reused delta whose base is outside the id table but which the receiver has: the base's
   * .idx position in the delta's pack, for its id.
   */
  private readonly outsideBase = new Map<number, number>();
  private order: Int32Array;
  private readonly sending: Uint8Array;
  private readonly written: Float64Array;
  private readonly header = new EntryHeader();
  private readonly scratch = Buffer.allocUnsafe(MAX_ENTRY_HEADER);
  private readonly stream: PackStream;
  private readonly deflater: Deflater;
  private stats = { total: 0, deltas: 0, reused: 0, reusedDeltas: 0, compressed: 0 };
  private compressMeter: ProgressMeter | null = null;
  private toCompress = 0;
  /** How deep a chain of fresh deltas within this pack each object ends (similar only). */
  private freshDepth: Uint8Array | null = null;
  /** The searched deltas the search kept, by target index (the rest are made again). */
  private readonly searched = new Map<number, Uint8Array>();
  /** Objects waiting for their bases to be written (writeWithBases), kept across a long entry. */
  private stack: number[] = [];
  private long: LongEntry | null = null;
  /** What deflates a big object's long entry, made on first use. */
  private deflateStream: DeflateStream | null = null;

  constructor(private readonly odb: ObjectStore, private readonly contents: PackContents, sink: ChunkSink,
    private readonly options: PackWriteOptions) {
    this.ids = contents.ids;
    const size = this.ids.size;
    this.n = contents.order.length;
    this.order = contents.order;
    this.slot = new Int32Array(size);
    this.offset = new Float64Array(size);
    this.end = new Float64Array(size);
    this.plan = new Uint8Array(size);
    this.headerLength = new Uint8Array(size);
    this.entrySize = new Float64Array(size);
    this.wholeType = new Uint8Array(size);
    this.base = new Int32Array(size).fill(-1);
    this.idxPos = new Int32Array(size);
    this.sending = new Uint8Array(size);
    this.written = new Float64Array(size).fill(NOT_WRITTEN);
    for (let i = 0; i < this.n; i++) this.sending[contents.order[i]!] = 1;
    this.stream = new PackStream(sink, options);
    this.deflater = deflaterFor(options.compression ?? zlib.constants.Z_DEFAULT_COMPRESSION);
  }

  async run(): Promise<PackWriteStats> {
    const prefix = this.options.prefix;
    this.count();
    const searched = this.contents.nameHash ? await this.search(this.contents.nameHash) : false;
    // Compression happens as objects are written: with a "Writing objects" meter, that one shows
    // it; after a search, the search's meter did.
    if (!searched && this.toCompress > 0 && !this.options.writingProgress) this.compressMeter = this.options.progress?.('Compressing objects', this.toCompress) ?? null;
    const head = Buffer.alloc(12);
    head.write('PACK', 0, 'latin1');
    head.writeUInt32BE(2, 4);
    head.writeUInt32BE(this.n + (prefix?.count ?? 0), 8);
    this.stream.write(head);
    if (prefix) await prefix.write(this.stream, this.options.signal);
    const order = this.order;
    const writing = this.options.writingProgress && this.n > 0 ? this.options.progress?.('Writing objects', this.n) ?? null : null;
    for (let i = 0; i < this.n; i++) {
      if (this.options.signal?.aborted) throw aborted();
      if (this.written[order[i]!]! >= 0) continue;
      let r = this.writeWithBases(order[i]!);
      while (r === LONG) {
        await this.writeLong();
        r = this.writeStack();
      }
      if (r === WAIT) await this.stream.drain();
      writing?.update(this.stats.total, this.stream.offset);
    }
    this.compressMeter?.stop();
    const checksum = await this.stream.finish();
    if (writing) {
      writing.update(this.stats.total, this.stream.offset);
      writing.stop();
    }
    const packReused = prefix?.count ?? 0;
    return { ...this.stats, total: this.stats.total + packReused, packReused, bytes: this.stream.offset, checksum };
  }

  /**
   * Step 1: where each object lives and how it will be written. Packed objects are planned pack by
   * pack in offset order, so their headers are read front to back.
   */
  private count(): void {
    // git shows no counting when nothing is left to count (all reused, or nothing to send).
    if (this.n === 0) return;
    const meter = this.options.progress?.('Counting objects', this.n);
    const order = this.order, keys = () => this.ids.keys;
    const found = new Uint8Array(this.ids.size);
    const stored = new Int32Array(this.n);
    let k = 0;
    const known = this.contents.stored;
    if (this.options.reuse === false) {
      for (let i = 0; i < this.n; i++) {
        const idx = order[i]!;
        if (found[idx]) continue;
        found[idx] = 1;
        this.slot[idx] = -1;
        this.plan[idx] = PLAN_COMPRESS;
        this.toCompress++;
        stored[k++] = idx;
      }
    } else if (known) {
      // Objects whose pack positions are given are planned in position order.
      const s = this.slotFor(known.layout.pack, known.layout);
      const byPosition: number[] = [];
      for (let i = 0; i < this.n; i++) {
        const idx = order[i]!;
        if (known.positions[idx]! >= 0 && !found[idx]) {
          found[idx] = 1;
          byPosition.push(idx);
        }
      }
      byPosition.sort((a, b) => known.positions[a]! - known.positions[b]!);
      const toIndex = known.layout.order.positionToIndex;
      for (const idx of byPosition) {
        const pos = known.positions[idx]!;
        this.slot[idx] = s;
        this.offset[idx] = known.layout.offset(pos);
        this.planPacked(idx, s, toIndex[pos]!, pos);
        stored[k++] = idx;
        if ((k & 4095) === 0) meter?.update(k);
      }
    } else {
      // Each pack's .idx is scanned once for the objects being sent (cheaper than a lookup each).
      const objectAt: Int32Array[] = [];
      for (const handle of this.odb.allPacks()) {
        const index = handle.index;
        let at: Int32Array | null = null;
        let slot = -1;
        for (let ip = 0; ip < index.count; ip++) {
          const idx = this.ids.get(index.buf, index.oidAt(ip));
          if (idx < 0 || !this.sending[idx] || found[idx]) continue;
          found[idx] = 1;
          if (!at) {
            at = new Int32Array(index.count).fill(-1);
            slot = this.slotFor(handle);
            objectAt[slot] = at;
          }
          at[ip] = idx;
          this.slot[idx] = slot;
          this.offset[idx] = index.offset(ip);
        }
      }
      for (let s = 0; s < this.slots.length; s++) {
        const at = objectAt[s]!;
        const toIndex = this.layoutOf(s).order.positionToIndex;
        for (let pos = 0; pos < toIndex.length; pos++) {
          const ip = toIndex[pos]!;
          const idx = at[ip]!;
          if (idx < 0) continue;
          this.planPacked(idx, s, ip, pos, at);
          stored[k++] = idx;
          if ((k & 4095) === 0) meter?.update(k);
        }
      }
    }
    // What no pack holds is loose (or in a pack that appeared since the scan).
    for (let i = 0; i < this.n; i++) {
      const idx = order[i]!;
      if (found[idx]) continue;
      const where = this.odb.locate(keys(), idx * OID_BYTES);
      if (!where) throw new NotFoundError('pack', `cannot pack object ${toHex(keys(), idx * OID_BYTES)}: it does not exist`);
      if (where.pack) {
        const s = this.slotFor(where.pack);
        const ip = where.pack.index.find(keys(), idx * OID_BYTES);
        this.slot[idx] = s;
        this.offset[idx] = where.offset;
        this.planPacked(idx, s, ip, this.layoutOf(s).order.position(ip));
      } else {
        this.slot[idx] = -1;
        this.plan[idx] = PLAN_COMPRESS;
        this.toCompress++;
      }
      stored[k++] = idx;
    }
    meter?.update(this.n);
    meter?.stop();
    const from = this.contents.storageOrderFrom;
    if (from !== undefined && from < this.n) this.order = storageOrderTail(order, from, stored);
  }

  /**
   * Step 1b, git's delta search (delta-search.ts), over the objects that come from elsewhere than
   * the pack most of them are copied from: those to be compressed whole (loose ones), and those
   * stored whole in the other packs (a pack per push, each with its own copy of the file it
   * changed). The biggest pack's objects stored whole join them where they share a type and name
   * hash with one, as bases and as targets, but as git's try_delta, an object stored whole is not
   * diffed against another of its own pack: that pack's writer found no delta between them.
   * Returns whether it ran (and so showed "Compressing objects").
   */
  private async search(nameHash: (index: number) => number): Promise<boolean> {
    const keys = this.ids.keys;
    const perSlot = new Int32Array(this.slots.length);
    for (let i = 0; i < this.n; i++) {
      const idx = this.order[i]!;
      if (this.plan[idx] === PLAN_COPY) perSlot[this.slot[idx]!]++;
    }
    let main = -1, copiedFrom = 0;
    for (let sl = 0; sl < perSlot.length; sl++) {
      if (perSlot[sl]! > 0) copiedFrom++;
      if (main < 0 || perSlot[sl]! > perSlot[main]!) main = sl;
    }
    // Nothing to compress and every whole object from one pack (a clone of a packed repository):
    // nothing to search, and no pass over the objects to find that out.
    if (this.toCompress === 0 && copiedFrom <= 1) return false;
    const group = (idx: number) => nameHash(idx) * 8 + this.wholeType[idx]!;
    const objects: number[] = [];
    const groups = new Set<number>();
    const seen = new Uint8Array(this.ids.size);
    for (let i = 0; i < this.n; i++) {
      const idx = this.order[i]!;
      if (seen[idx]) continue;
      seen[idx] = 1;
      const plan = this.plan[idx];
      if (plan === PLAN_COMPRESS) {
        const found = this.odb.info(keys, idx * OID_BYTES);
        if (!found) continue;
        this.wholeType[idx] = found.type;
        this.entrySize[idx] = found.size;
      } else if (plan !== PLAN_COPY || this.slot[idx] === main) {
        continue;
      }
      if (!searchable(this.entrySize[idx]!)) continue;
      objects.push(idx);
      groups.add(group(idx));
    }
    if (objects.length === 0) return false;
    for (let i = 0; i < this.n; i++) {
      const idx = this.order[i]!;
      if (this.plan[idx] === PLAN_COPY && this.slot[idx] === main && searchable(this.entrySize[idx]!) && groups.has(group(idx))) objects.push(idx);
    }
    const meter = this.options.progress?.('Compressing objects', objects.length) ?? null;
    const found = await searchDeltas({
      objects,
      type: (idx) => this.wholeType[idx]!,
      size: (idx) => this.entrySize[idx]!,
      nameHash,
      mayDiff: (target, base) => this.plan[target] !== PLAN_COPY || this.slot[target] !== this.slot[base],
      read: (idx) => this.odb.read(keys, idx * OID_BYTES)?.data ?? null,
      meter,
      checkpoint: () => {
        if (this.options.signal?.aborted) throw aborted();
        this.options.quiet?.();
      },
    });
    meter?.stop();
    for (const f of found) {
      if (this.plan[f.target] === PLAN_COMPRESS) this.toCompress--;
      this.plan[f.target] = PLAN_SEARCHED;
      this.base[f.target] = f.base;
      if (f.delta) this.searched.set(f.target, f.delta);
    }
    return true;
  }

  private slotFor(pack: StoredPack, layout: PackLayout | null = null): number {
    let s = this.slotOf.get(pack.file.path);
    if (s === undefined) {
      s = this.slots.length;
      this.slots.push({ pack, layout });
      this.slotOf.set(pack.file.path, s);
    }
    return s;
  }

  private layoutOf(s: number): PackLayout {
    const slot = this.slots[s]!;
    return slot.layout ??= PackLayout.of(slot.pack);
  }

  /**
   * Plans the object at .idx position `ip`, pack position `pos` of slot `s`. `sentAt`, when the
   * pack's .idx was scanned, gives the index of each object sent from it by .idx position, so a
   * delta whose base is sent too needs no id lookup for it.
   */
  private planPacked(idx: number, s: number, ip: number, pos: number, sentAt?: Int32Array): void {
    const layout = this.layoutOf(s);
    const pack = layout.pack;
    const offset = this.offset[idx]!;
    this.idxPos[idx] = ip;
    this.end[idx] = layout.end(pos);
    const view = pack.file.read(offset, MAX_ENTRY_HEADER);
    const h = this.header;
    if (!h.parse(view.buf, view.pos, view.end, offset, 'pack', pack.file.path)) {
      throw new CorruptError('pack', `${pack.file.path}: entry header at offset ${offset} is truncated`);
    }
    this.headerLength[idx] = h.dataPos - view.pos;
    this.entrySize[idx] = h.size;
    if (h.type < 5) {
      this.plan[idx] = PLAN_COPY;
      this.wholeType[idx] = h.type;
      return;
    }
    const index = pack.index;
    let basePos: number;
    if (h.type === OBJ_OFS_DELTA) {
      const at = layout.positionOf(h.baseOffset);
      if (at < 0) throw new CorruptError('pack', `${pack.file.path}: delta at offset ${offset} names base offset ${h.baseOffset}, where no entry starts`);
      basePos = layout.order.positionToIndex[at]!;
    } else {
      basePos = index.find(view.buf, h.baseOidPos);
    }
    const sentBase = basePos >= 0 && sentAt ? sentAt[basePos]! : -1;
    const baseIndex = sentBase >= 0 ? sentBase
      : basePos >= 0 ? this.ids.get(index.buf, index.oidAt(basePos))
      : this.ids.get(view.buf, h.baseOidPos);
    const usable = baseIndex >= 0 && (this.sending[baseIndex] ||
      (this.options.thin && this.contents.receiverHas?.(baseIndex) === true));
    if (usable) {
      this.plan[idx] = PLAN_DELTA;
      this.base[idx] = baseIndex;
      return;
    }
    if (baseIndex < 0 && basePos >= 0 && this.options.thin && this.contents.receiverHasStored?.(pack.file, basePos) === true) {
      this.plan[idx] = PLAN_DELTA;
      this.outsideBase.set(idx, basePos);
      return;
    }
    this.plan[idx] = PLAN_COMPRESS;
    this.toCompress++;
  }

  /**
   * Writes `idx`, first writing any unwritten sent bases its reused delta chain needs, without
   * recursion (chains can be thousands deep in a hostile repository).
   */
  private writeWithBases(idx: number): WriteResult {
    const first = this.baseInPack(idx);
    if (first < 0 || !this.sending[first] || this.written[first]! >= 0) return this.writeOne(idx);
    this.stack = [idx];
    return this.writeStack();
  }

  /** The base a delta of `idx` names, if it is one of the objects sent; else -1. */
  private baseInPack(idx: number): number {
    const plan = this.plan[idx];
    return plan === PLAN_DELTA || plan === PLAN_SEARCHED ? this.base[idx]! : -1;
  }

  /** Writes what the stack holds, bases first; stops after an object whose long entry is begun. */
  private writeStack(): WriteResult {
    const stack = this.stack;
    let wait: WriteResult = GO_ON;
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const b = this.baseInPack(top);
      if (b >= 0 && this.sending[b] && this.written[b] === NOT_WRITTEN) {
        this.written[top] = IN_PROGRESS;
        stack.push(b);
        continue;
      }
      // A base still in progress means a cycle between packs; break it by writing the whole object.
      if (b >= 0 && this.written[b] === IN_PROGRESS) this.plan[top] = PLAN_COMPRESS;
      const r = this.writeOne(top);
      stack.pop();
      if (r === LONG) return LONG;
      if (r === WAIT) wait = WAIT;
    }
    return wait;
  }

  /** The rest of a long entry, a step at a time, each once the receiver has taken the last. */
  private async writeLong(): Promise<void> {
    const e = this.long!;
    this.long = null;
    while (e.pos < e.end) {
      await this.stream.drain();
      if (this.options.signal?.aborted) throw aborted();
      const stop = Math.min(e.end, e.pos + STEP);
      if ('buf' in e) {
        this.stream.write(e.buf, e.pos, stop);
        e.pos = stop;
      } else if ('deflate' in e) {
        const out = (chunk: Uint8Array): void => { this.stream.write(chunk); };
        this.deflateStream!.push(e.deflate.subarray(e.pos, stop), out);
        e.pos = stop;
        if (e.pos === e.end) this.deflateStream!.end(out);
      } else {
        for (; e.pos < stop;) {
          const v = e.file.read(e.pos, 1);
          const n = Math.min(stop - e.pos, v.end - v.pos);
          this.stream.write(v.buf, v.pos, v.pos + n);
          e.pos += n;
        }
      }
    }
  }

  /** Writes `data`, or begins to when it is long (run() writes the rest). */
  private writeBytes(data: Uint8Array): WriteResult {
    if (data.length <= STEP) return this.stream.write(data) ? WAIT : GO_ON;
    this.long = { buf: data, pos: 0, end: data.length };
    return LONG;
  }

  private writeOne(idx: number): WriteResult {
    const at = this.stream.offset;
    let o: RawObject | null = null;
    this.written[idx] = at;
    this.stats.total++;
    if (this.plan[idx] === PLAN_SEARCHED) {
      const r = this.writeSearched(idx, at);
      if (r !== null) return r;
    }
    if (this.plan[idx] !== PLAN_COMPRESS) {
      const view = this.storedEntry(idx);
      if (view) {
        this.stats.reused++;
        if (this.plan[idx] === PLAN_COPY) return this.copyFrom(idx, view, this.offset[idx]!);
        const b = this.base[idx]!;
        const baseAt = b >= 0 && this.sending[b] ? this.written[b]! : -1;
        const len = baseAt >= 0 && this.options.ofsDelta
          ? writeEntryHeader(this.scratch, OBJ_OFS_DELTA, this.entrySize[idx]!, { distance: at - baseAt })
          : writeEntryHeader(this.scratch, OBJ_REF_DELTA, this.entrySize[idx]!, this.baseId(idx, b));
        this.stream.write(this.scratch, 0, len);
        this.stats.deltas++;
        this.stats.reusedDeltas++;
        return this.copyFrom(idx, view, this.offset[idx]! + this.headerLength[idx]!);
      }
      this.plan[idx] = PLAN_COMPRESS;
      // Its CRC failed: as git reads it afresh, checking CRCs, the same entry fails again and
      // another copy serves.
      o = this.odb.readPastBadCrc(this.slots[this.slot[idx]!]!.pack, this.ids.keys, idx * OID_BYTES);
    }
    o ??= this.odb.read(this.ids.keys, idx * OID_BYTES);
    if (!o) throw new NotFoundError('pack', `cannot pack object ${toHex(this.ids.keys, idx * OID_BYTES)}: it disappeared`);
    this.stats.compressed++;
    this.compressMeter?.update(this.stats.compressed);
    const against: FreshDelta | null = this.contents.similar ? this.deltaAgainstSimilar(idx, o)
      : this.options.thin ? this.deltaAgainstHad(idx, o) : null;
    if (against) {
      const len = against.baseAt !== undefined
        ? writeEntryHeader(this.scratch, OBJ_OFS_DELTA, against.delta.length, { distance: at - against.baseAt })
        : writeEntryHeader(this.scratch, OBJ_REF_DELTA, against.delta.length, { ids: against.ids, offset: against.at });
      this.stream.write(this.scratch, 0, len);
      this.stats.deltas++;
      return this.writeBytes(this.deflater.deflate(against.delta));
    }
    const len = writeEntryHeader(this.scratch, o.type, o.data.length);
    this.stream.write(this.scratch, 0, len);
    if (o.data.length > BIG_OBJECT) {
      (this.deflateStream ??= new DeflateStream(this.deflater.level)).begin();
      this.long = { deflate: o.data, pos: 0, end: o.data.length };
      return LONG;
    }
    return this.writeBytes(this.deflater.deflate(o.data));
  }

  /**
   * Writes the delta the search found for `idx` (its base already written), made again if the
   * search did not keep it; null when it cannot be made, and `idx` is then compressed whole.
   */
  private writeSearched(idx: number, at: number): WriteResult | null {
    const b = this.base[idx]!;
    const keys = this.ids.keys;
    let delta: Uint8Array | null | undefined = this.searched.get(idx);
    this.searched.delete(idx);
    if (!delta) {
      const target = this.odb.read(keys, idx * OID_BYTES), base = this.odb.read(keys, b * OID_BYTES);
      delta = target && base ? createDelta(base.data, target.data, target.data.length) : null;
    }
    if (!delta) {
      this.plan[idx] = PLAN_COMPRESS;
      return null;
    }
    const len = this.options.ofsDelta
      ? writeEntryHeader(this.scratch, OBJ_OFS_DELTA, delta.length, { distance: at - this.written[b]! })
      : writeEntryHeader(this.scratch, OBJ_REF_DELTA, delta.length, { ids: keys, offset: b * OID_BYTES });
    this.stream.write(this.scratch, 0, len);
    this.stats.deltas++;
    this.stats.compressed++;
    return this.writeBytes(this.deflater.deflate(delta));
  }

  /** Where the id of a reused delta's base is: in the id table, or in the delta's pack's .idx. */
  private baseId(idx: number, b: number): { ids: Uint8Array; offset: number } {
    if (b >= 0) return { ids: this.ids.keys, offset: b * OID_BYTES };
    const index = this.slots[this.slot[idx]!]!.pack.index;
    return { ids: index.buf, offset: index.oidAt(this.outsideBase.get(idx)!) };
  }

  /**
   * A delta of `o` against one of the objects the receiver has that the enumeration found similar
   * (the first small enough: at most half of `o`, less a base id, as git's delta search allows),
   * with where its base's id is; null when none is.
   */
  private deltaAgainstHad(idx: number, o: RawObject): { delta: Uint8Array; ids: Uint8Array; at: number } | null {
    const { stored, similarHad, hadVersions } = this.contents;
    const maxSize = freshDeltaLimit(o);
    if (maxSize <= 0) return null;
    if (stored && similarHad) {
      const index = stored.layout.pack.index, toIndex = stored.layout.order.positionToIndex;
      for (const pos of similarHad(idx)) {
        const at = index.oidAt(toIndex[pos]!);
        const delta = this.deltaAgainst(index.buf, at, o, maxSize);
        if (delta) return { delta, ids: index.buf, at };
      }
    }
    for (const id of hadVersions?.(idx) ?? []) {
      const delta = this.deltaAgainst(id, 0, o, maxSize);
      if (delta) return { delta, ids: id, at: 0 };
    }
    return null;
  }

  /**
   * `o` as a delta against the object whose id is at ids[at], when that is of its type and the
   * delta stays within `maxSize`; null otherwise.
   */
  private deltaAgainst(ids: Uint8Array, at: number, o: RawObject, maxSize: number): Uint8Array | null {
    // As git's delta search does, a base far larger than its target is not worth reading.
    const info = this.odb.info(ids, at);
    if (!info || info.type !== o.type || info.size > MAX_BASE_RATIO * Math.max(o.data.length, 1024)) return null;
    const base = this.odb.read(ids, at);
    if (!base || base.type !== o.type) return null;
    return createDelta(base.data, o.data, maxSize);
  }

  /**
   * A delta of `o` against a version of its path (PackContents.similar) that the receiver has or
   * that is already written.
   */
  private deltaAgainstSimilar(idx: number, o: RawObject): FreshDelta | null {
    const maxSize = freshDeltaLimit(o);
    if (maxSize <= 0) return null;
    const depth = this.freshDepth ??= new Uint8Array(this.ids.size);
    const keys = this.ids.keys;
    for (const b of this.contents.similar!(idx)) {
      const inPack = this.sending[b] === 1;
      if (inPack ? this.written[b]! < 0 || depth[b]! >= MAX_FRESH_DEPTH : !(this.options.thin && this.contents.receiverHas?.(b))) continue;
      const delta = this.deltaAgainst(keys, b * OID_BYTES, o, maxSize);
      if (!delta) continue;
      depth[idx] = inPack ? depth[b]! + 1 : 1;
      return inPack && this.options.ofsDelta ? { delta, ids: keys, at: b * OID_BYTES, baseAt: this.written[b]! } : { delta, ids: keys, at: b * OID_BYTES };
    }
    return null;
  }

  /**
   * Copies the stored bytes [from, end) of a packed object. `view` holds the entry's start; an
   * entry longer than it continues window by window, and a long one is left to run().
   */
  private copyFrom(idx: number, view: ByteView, from: number): WriteResult {
    const end = this.end[idx]!;
    const start = this.offset[idx]!;
    const inView = Math.min(end, start + view.end - view.pos);
    // A delta's header may itself run past the view, in which case copying starts after it.
    let wait = from < inView && this.stream.write(view.buf, view.pos + (from - start), view.pos + (inView - start));
    const file = this.slots[this.slot[idx]!]!.pack.file;
    const rest = Math.max(from, inView);
    if (end - rest > STEP) {
      this.long = { file, pos: rest, end };
      return LONG;
    }
    for (let p = rest; p < end;) {
      const v = file.read(p, 1);
      const n = Math.min(end - p, v.end - v.pos);
      wait = this.stream.write(v.buf, v.pos, v.pos + n) || wait;
      p += n;
    }
    return wait ? WAIT : GO_ON;
  }

  /**
   * A view of the stored entry, after checking it still has the CRC its .idx recorded (v1 indexes
   * record none, and checkReused may turn the check off); null when it does not. An entry that
   * fits one window is read once for both.
   */
  private storedEntry(idx: number): ByteView | null {
    const pack = this.slots[this.slot[idx]!]!.pack;
    const start = this.offset[idx]!, end = this.end[idx]!;
    const view = pack.file.read(start, 1);
    const expected = this.options.checkReused === false ? undefined : pack.index.crc(this.idxPos[idx]!);
    if (expected === undefined) return view;
    if (end - start <= view.end - view.pos) {
      if (crc32(view.buf, view.pos, view.pos + (end - start)) === expected) return view;
    } else {
      let crc = 0;
      for (let p = start; p < end;) {
        const v = pack.file.read(p, 1);
        const n = Math.min(end - p, v.end - v.pos);
        crc = crc32(v.buf, v.pos, v.pos + n, crc);
        p += n;
      }
      if (crc === expected) return pack.file.read(start, 1);
    }
    // git's write_reuse_object; git's repack passes it on to stderr.
    this.options.warn?.(`error: bad packed object CRC for ${toHex(this.ids.keys, idx * OID_BYTES)}\n`);
    return null;
  }
}

/** The largest fresh delta worth sending for `o` (git: half its size, less a base's id); 0 or less for none. */
function freshDeltaLimit(o: RawObject): number {
  return o.data.length > MAX_DELTA_TARGET ? 0 : Math.floor(o.data.length / 2) - OID_BYTES;
}

/** `order` with its tail (from `from`) rearranged into `stored` order (storage order, loose last). */
function storageOrderTail(order: Int32Array, from: number, stored: Int32Array): Int32Array {
  const out = order.slice();
  let max = 0;
  for (let i = 0; i < stored.length; i++) if (stored[i]! > max) max = stored[i]!;
  const inTail = new Uint8Array(max + 1);
  for (let i = from; i < order.length; i++) inTail[order[i]!] = 1;
  let k = from;
  for (let i = 0; i < stored.length; i++) if (inTail[stored[i]!]) out[k++] = stored[i]!;
  return out;
}

function aborted(): GitError {
  return new GitError('pack', 'aborted', 'pack writing stopped: the receiver went away');
}
