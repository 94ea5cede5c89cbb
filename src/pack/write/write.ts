// Writes a pack of chosen objects, reusing what the repository's packs already store:
//   1. counting: find where each object lives (pack and offset, or loose) and read its entry
//      header, so each is planned as a verbatim copy, a reused delta, or a fresh compression;
//   2. writing, in the caller's order: a reused delta's base is written first when it is sent too
//      (so an OFS_DELTA can point back at it), or the delta names a base the receiver already has
//      (thin pack, REF_DELTA); stored REF_DELTAs become OFS_DELTAs when the receiver takes them;
//      copied bytes are checked against the .idx CRC first, as git does when it reuses;
//      everything else (loose objects, deltas whose base is not available) is compressed once;
//   3. the SHA-1 trailer.
// No delta search is done: deltas come only from the packs.
import zlib from 'node:zlib';
import { CorruptError, GitError, NotFoundError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA } from '../../object/type.js';
import type { ObjectDatabase, PackHandle } from '../../odb/database.js';
import type { OidMap } from '../../walk/oid-map.js';
import { PackOrder } from '../bitmap/pack-order.js';
import { EntryHeader } from '../entry-header.js';
import { crc32 } from './crc32.js';
import { MAX_ENTRY_HEADER, writeEntryHeader } from './header.js';
import { PackStream, type ChunkSink, type PackStreamOptions } from './stream.js';

/** What to write: ids by dense index, and the indices to write in order. */
export interface PackContents {
  readonly ids: OidMap;
  readonly order: Int32Array;
  /** The receiver already has this object, so a thin pack may use it as a delta base. */
  receiverHas?(index: number): boolean;
}

export interface ProgressMeter {
  update(done: number): void;
  stop(): void;
}

export interface PackWriteOptions extends PackStreamOptions {
  /** The receiver understands OFS_DELTA (the ofs-delta capability). */
  ofsDelta: boolean;
  /** Deltas may name bases that are not in the pack but that the receiver has. */
  thin: boolean;
  /** Starts a progress meter ("Counting objects", "Compressing objects"). */
  progress?: (title: string, total: number) => ProgressMeter;
  /** Stops the work between objects (the receiver went away). */
  signal?: AbortSignal;
  /** zlib level for objects compressed afresh (git's pack.compression, default -1). */
  compression?: number;
}

export interface PackWriteStats {
  total: number;
  deltas: number;
  reused: number;
  reusedDeltas: number;
  /** Objects deflated afresh. */
  compressed: number;
  bytes: number;
  checksum: Buffer;
}

const PLAN_COMPRESS = 0;
const PLAN_COPY = 1;
const PLAN_DELTA = 2;

const NOT_WRITTEN = -1;
const IN_PROGRESS = -2;

interface PackSlot {
  handle: PackHandle;
  order: PackOrder | null;
}

export async function writePack(odb: ObjectDatabase, contents: PackContents, sink: ChunkSink,
  options: PackWriteOptions): Promise<PackWriteStats> {
  return new PackWriter(odb, contents, sink, options).run();
}

class PackWriter {
  private readonly ids: OidMap;
  private readonly n: number;
  private readonly slots: PackSlot[] = [];
  private readonly slotOf = new Map<PackHandle, number>();
  /** Per object index: pack slot (-1 loose), entry offset, entry end, plan, header length, base. */
  private readonly slot: Int32Array;
  private readonly offset: Float64Array;
  private readonly end: Float64Array;
  private readonly plan: Uint8Array;
  private readonly headerLength: Uint8Array;
  private readonly deltaSize: Float64Array;
  /** Base object index of a reused delta, or -1 when the base is outside the id table. */
  private readonly base: Int32Array;
  /** Position of the object in its pack's .idx (for its CRC). */
  private readonly idxPos: Int32Array;
  private readonly sending: Uint8Array;
  private readonly written: Float64Array;
  private readonly header = new EntryHeader();
  private readonly scratch = Buffer.allocUnsafe(MAX_ENTRY_HEADER);
  private readonly stream: PackStream;
  private stats = { total: 0, deltas: 0, reused: 0, reusedDeltas: 0, compressed: 0 };
  private compressMeter: ProgressMeter | null = null;
  private toCompress = 0;

  constructor(private readonly odb: ObjectDatabase, private readonly contents: PackContents, sink: ChunkSink,
    private readonly options: PackWriteOptions) {
    this.ids = contents.ids;
    const size = this.ids.size;
    this.n = contents.order.length;
    this.slot = new Int32Array(size);
    this.offset = new Float64Array(size);
    this.end = new Float64Array(size);
    this.plan = new Uint8Array(size);
    this.headerLength = new Uint8Array(size);
    this.deltaSize = new Float64Array(size);
    this.base = new Int32Array(size).fill(-1);
    this.idxPos = new Int32Array(size);
    this.sending = new Uint8Array(size);
    this.written = new Float64Array(size).fill(NOT_WRITTEN);
    for (let i = 0; i < this.n; i++) this.sending[contents.order[i]!] = 1;
    this.stream = new PackStream(sink, options);
  }

  async run(): Promise<PackWriteStats> {
    this.count();
    const head = Buffer.alloc(12);
    head.write('PACK', 0, 'latin1');
    head.writeUInt32BE(2, 4);
    head.writeUInt32BE(this.n, 8);
    this.stream.write(head);
    const order = this.contents.order;
    for (let i = 0; i < this.n; i++) {
      if (this.options.signal?.aborted) throw aborted();
      if (this.written[order[i]!]! >= 0) continue;
      if (this.writeWithBases(order[i]!)) await this.stream.drain();
    }
    this.compressMeter?.stop();
    const checksum = await this.stream.finish();
    return { ...this.stats, bytes: this.stream.offset, checksum };
  }

  /** Step 1: where each object lives and how it will be written. */
  private count(): void {
    const meter = this.options.progress?.('Counting objects', this.n);
    const order = this.contents.order, keys = () => this.ids.keys;
    for (let i = 0; i < this.n; i++) {
      const idx = order[i]!;
      const where = this.odb.locate(keys(), idx * OID_BYTES);
      if (!where) throw new NotFoundError('pack', `cannot pack object ${toHex(keys(), idx * OID_BYTES)}: it does not exist`);
      if (!where.pack) {
        this.slot[idx] = -1;
        this.plan[idx] = PLAN_COMPRESS;
        this.toCompress++;
      } else {
        this.planPacked(idx, this.slotFor(where.pack), where.offset);
      }
      if ((i & 1023) === 0) meter?.update(i);
    }
    meter?.update(this.n);
    meter?.stop();
    if (this.toCompress > 0) this.compressMeter = this.options.progress?.('Compressing objects', this.toCompress) ?? null;
  }

  private slotFor(handle: PackHandle): number {
    let s = this.slotOf.get(handle);
    if (s === undefined) {
      s = this.slots.length;
      this.slots.push({ handle, order: null });
      this.slotOf.set(handle, s);
    }
    return s;
  }

  private orderOf(s: number): PackOrder {
    const slot = this.slots[s]!;
    return slot.order ??= PackOrder.forIndex(slot.handle.index);
  }

  private planPacked(idx: number, s: number, offset: number): void {
    const pack = this.slots[s]!.handle;
    const order = this.orderOf(s);
    this.slot[idx] = s;
    this.offset[idx] = offset;
    const index = pack.index;
    const found = index.find(this.ids.keys, idx * OID_BYTES);
    this.idxPos[idx] = found;
    const pos = order.indexToPosition[found]!;
    this.end[idx] = pos + 1 < order.count ? index.offset(order.positionToIndex[pos + 1]!) : pack.file.dataEnd;
    const view = pack.file.read(offset, MAX_ENTRY_HEADER);
    const h = this.header;
    if (!h.parse(view.buf, view.pos, view.end, offset, 'pack', pack.file.path)) {
      throw new CorruptError('pack', `${pack.file.path}: entry header at offset ${offset} is truncated`);
    }
    this.headerLength[idx] = h.dataPos - view.pos;
    if (h.type < 5) {
      this.plan[idx] = PLAN_COPY;
      return;
    }
    this.deltaSize[idx] = h.size;
    let basePos: number;
    if (h.type === OBJ_OFS_DELTA) {
      basePos = this.positionAtOffset(order, index, h.baseOffset);
      if (basePos < 0) throw new CorruptError('pack', `${pack.file.path}: delta at offset ${offset} names base offset ${h.baseOffset}, where no entry starts`);
    } else {
      basePos = index.find(view.buf, h.baseOidPos);
    }
    const baseIndex = basePos >= 0
      ? this.ids.get(index.buf, index.oidAt(basePos))
      : this.ids.get(view.buf, h.baseOidPos);
    const usable = baseIndex >= 0 && (this.sending[baseIndex] ||
      (this.options.thin && this.contents.receiverHas?.(baseIndex) === true));
    if (!usable) {
      this.plan[idx] = PLAN_COMPRESS;
      this.toCompress++;
      return;
    }
    this.plan[idx] = PLAN_DELTA;
    this.base[idx] = baseIndex;
  }

  /** .idx position of the entry starting exactly at `offset`, or -1. */
  private positionAtOffset(order: PackOrder, index: PackHandle['index'], offset: number): number {
    let lo = 0, hi = order.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const o = index.offset(order.positionToIndex[mid]!);
      if (o === offset) return order.positionToIndex[mid]!;
      if (o < offset) lo = mid + 1; else hi = mid;
    }
    return -1;
  }

  /**
   * Writes `idx`, first writing any unwritten sent bases its reused delta chain needs, without
   * recursion (chains can be thousands deep in a hostile repository). Returns whether to drain.
   */
  private writeWithBases(idx: number): boolean {
    const stack = [idx];
    let wait = false;
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const b = this.plan[top] === PLAN_DELTA ? this.base[top]! : -1;
      if (b >= 0 && this.sending[b] && this.written[b] === NOT_WRITTEN) {
        this.written[top] = IN_PROGRESS;
        stack.push(b);
        continue;
      }
      // A base still in progress means a cycle between packs; break it by writing the whole object.
      if (b >= 0 && this.written[b] === IN_PROGRESS) this.plan[top] = PLAN_COMPRESS;
      wait = this.writeOne(top) || wait;
      stack.pop();
    }
    return wait;
  }

  private writeOne(idx: number): boolean {
    const at = this.stream.offset;
    this.written[idx] = at;
    this.stats.total++;
    const plan = this.plan[idx];
    if (plan !== PLAN_COMPRESS && !this.crcMatches(idx)) this.plan[idx] = PLAN_COMPRESS;
    if (this.plan[idx] === PLAN_COPY) {
      this.stats.reused++;
      return this.copy(idx, this.offset[idx]!);
    }
    if (this.plan[idx] === PLAN_DELTA) {
      const b = this.base[idx]!;
      const baseAt = this.sending[b] ? this.written[b]! : -1;
      const len = baseAt >= 0 && this.options.ofsDelta
        ? writeEntryHeader(this.scratch, OBJ_OFS_DELTA, this.deltaSize[idx]!, { distance: at - baseAt })
        : writeEntryHeader(this.scratch, OBJ_REF_DELTA, this.deltaSize[idx]!, { ids: this.ids.keys, offset: b * OID_BYTES });
      this.stream.write(this.scratch, 0, len);
      this.stats.deltas++;
      this.stats.reused++;
      this.stats.reusedDeltas++;
      return this.copy(idx, this.offset[idx]! + this.headerLength[idx]!);
    }
    const o = this.odb.read(this.ids.keys, idx * OID_BYTES);
    if (!o) throw new NotFoundError('pack', `cannot pack object ${toHex(this.ids.keys, idx * OID_BYTES)}: it disappeared`);
    const data = zlib.deflateSync(o.data, { level: this.options.compression ?? zlib.constants.Z_DEFAULT_COMPRESSION });
    const len = writeEntryHeader(this.scratch, o.type, o.data.length);
    this.stream.write(this.scratch, 0, len);
    this.stats.compressed++;
    this.compressMeter?.update(this.stats.compressed);
    return this.stream.write(data);
  }

  /** Copies the stored bytes [from, end) of a packed object, window by window. */
  private copy(idx: number, from: number): boolean {
    const file = this.slots[this.slot[idx]!]!.handle.file;
    const end = this.end[idx]!;
    let wait = false;
    for (let p = from; p < end;) {
      const v = file.read(p, 1);
      const n = Math.min(end - p, v.end - v.pos);
      wait = this.stream.write(v.buf, v.pos, v.pos + n) || wait;
      p += n;
    }
    return wait;
  }

  /** The stored entry still has the CRC its .idx recorded (v1 indexes record none). */
  private crcMatches(idx: number): boolean {
    const pack = this.slots[this.slot[idx]!]!.handle;
    const expected = pack.index.crc(this.idxPos[idx]!);
    if (expected === undefined) return true;
    const end = this.end[idx]!;
    let crc = 0;
    for (let p = this.offset[idx]!; p < end;) {
      const v = pack.file.read(p, 1);
      const n = Math.min(end - p, v.end - v.pos);
      crc = crc32(v.buf.subarray(v.pos, v.pos + n), crc);
      p += n;
    }
    if (crc === expected) return true;
    process.emitWarning(`${pack.file.path}: bad packed object CRC for ${toHex(this.ids.keys, idx * OID_BYTES)} at offset ${this.offset[idx]}; compressing it afresh`);
    return false;
  }
}

function aborted(): GitError {
  return new GitError('pack', 'aborted', 'pack writing stopped: the receiver went away');
}
