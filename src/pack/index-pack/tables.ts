// Per-object facts about a pack, as parallel typed arrays over SharedArrayBuffers (one column per
// fact, indexed by object number in pack order), so every thread reads and fills the same tables
// without messages or copies. The parser fills the entry columns; the resolvers fill ids, types,
// bases and depths of deltas. Capacity grows by reallocation, which only the parsing thread does,
// before any worker sees the tables.
import { OID_BYTES } from '../../core/oid.js';

/** The transferable form: what a worker needs to rebuild the same views. */
export interface TableBuffers {
  capacity: number;
  offset: SharedArrayBuffer;
  headerLength: SharedArrayBuffer;
  type: SharedArrayBuffer;
  realType: SharedArrayBuffer;
  size: SharedArrayBuffer;
  resultSize: SharedArrayBuffer;
  crc: SharedArrayBuffer;
  ids: SharedArrayBuffer;
  base: SharedArrayBuffer;
  depth: SharedArrayBuffer;
  state: SharedArrayBuffer;
}

export class ObjectTable {
  capacity: number;
  /** Entry offset in the pack; offset[count] is where the entries end (the trailer). */
  offset!: Float64Array;
  /** Bytes of entry header (type/size varint and base reference) before the zlib stream. */
  headerLength!: Uint8Array;
  /** Type as stored: 1-4, or 6 (OFS_DELTA) / 7 (REF_DELTA). */
  type!: Uint8Array;
  /** The object's own type (1-4); for deltas known once resolved, 0 until then. */
  realType!: Uint8Array;
  /** Size declared in the entry header (for a delta: the size of the delta data). */
  size!: Float64Array;
  /** Size of the object itself (for a delta: the result size its data declares). */
  resultSize!: Float64Array;
  crc!: Uint32Array;
  ids!: Uint8Array;
  /** Object number of the delta base; -1 for non-deltas and unresolved REF_DELTAs. */
  base!: Int32Array;
  /** Delta chain length (0 for non-deltas). */
  depth!: Int32Array;
  /** 0 unresolved, 1 resolved (REF_DELTAs are claimed with a compare-and-swap). */
  state!: Int32Array;
  private buffers!: TableBuffers;

  constructor(capacity: number, buffers?: TableBuffers) {
    this.capacity = capacity;
    if (buffers) this.attach(buffers);
    else this.attach(ObjectTable.allocate(capacity));
  }

  private static allocate(capacity: number): TableBuffers {
    const sab = (bytes: number) => new SharedArrayBuffer(Math.max(bytes, 8));
    return {
      capacity,
      offset: sab((capacity + 1) * 8),
      headerLength: sab(capacity),
      type: sab(capacity),
      realType: sab(capacity),
      size: sab(capacity * 8),
      resultSize: sab(capacity * 8),
      crc: sab(capacity * 4),
      ids: sab(capacity * OID_BYTES),
      base: sab(capacity * 4),
      depth: sab(capacity * 4),
      state: sab(capacity * 4),
    };
  }

  private attach(b: TableBuffers): void {
    this.buffers = b;
    this.capacity = b.capacity;
    this.offset = new Float64Array(b.offset, 0, b.capacity + 1);
    this.headerLength = new Uint8Array(b.headerLength, 0, b.capacity);
    this.type = new Uint8Array(b.type, 0, b.capacity);
    this.realType = new Uint8Array(b.realType, 0, b.capacity);
    this.size = new Float64Array(b.size, 0, b.capacity);
    this.resultSize = new Float64Array(b.resultSize, 0, b.capacity);
    this.crc = new Uint32Array(b.crc, 0, b.capacity);
    this.ids = new Uint8Array(b.ids, 0, b.capacity * OID_BYTES);
    this.base = new Int32Array(b.base, 0, b.capacity);
    this.depth = new Int32Array(b.depth, 0, b.capacity);
    this.state = new Int32Array(b.state, 0, b.capacity);
  }

  /** Grows to hold at least `n` objects, keeping the first `used` rows. */
  ensure(n: number, used: number): void {
    if (n <= this.capacity) return;
    let cap = Math.max(this.capacity * 2, 1024);
    while (cap < n) cap *= 2;
    const old = this;
    const next = new ObjectTable(cap);
    next.offset.set(old.offset.subarray(0, used + 1));
    next.headerLength.set(old.headerLength.subarray(0, used));
    next.type.set(old.type.subarray(0, used));
    next.realType.set(old.realType.subarray(0, used));
    next.size.set(old.size.subarray(0, used));
    next.resultSize.set(old.resultSize.subarray(0, used));
    next.crc.set(old.crc.subarray(0, used));
    next.ids.set(old.ids.subarray(0, used * OID_BYTES));
    next.base.set(old.base.subarray(0, used));
    next.depth.set(old.depth.subarray(0, used));
    next.state.set(old.state.subarray(0, used));
    this.attach(next.buffers);
  }

  shared(): TableBuffers {
    return this.buffers;
  }

  isDelta(i: number): boolean {
    return this.type[i]! >= 6;
  }

  /** Where the entry's zlib stream starts. */
  dataOffset(i: number): number {
    return this.offset[i]! + this.headerLength[i]!;
  }

  /** Bytes the entry occupies in the pack (header and compressed data). */
  packedLength(i: number): number {
    return this.offset[i + 1]! - this.offset[i]!;
  }
}
