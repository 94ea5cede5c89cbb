// Per-object facts about a pack, as parallel typed arrays over SharedArrayBuffers (one column per
// fact, indexed by object number in pack order), so every thread reads and fills the same tables
// without messages or copies. The parser fills the entry columns; the resolvers fill ids, types,
// bases and depths of deltas. Columns are growable SharedArrayBuffers: they reserve address space
// for the most objects the pack could hold and commit memory only as rows are used, so growing
// never copies and a lying object count costs nothing.
import { OID_BYTES } from '../../core/oid.js';

/** ES2024's growable SharedArrayBuffer, which Node 20 has but the ES2022 typings do not. */
interface Growable {
  grow(length: number): void;
}
const GrowableSharedArrayBuffer = SharedArrayBuffer as unknown as
  new (length: number, options: { maxByteLength: number }) => SharedArrayBuffer;

/** The state of an object resolved, and checked with --strict, by the first pass (stream-resolve.ts). */
export const STREAMED = 2;

/** Deepest delta chain the depth column can record. */
export const MAX_DEPTH = 0xffff;
/**
 * Sizes are 32-bit: this value stands for itself and anything larger, more than one Buffer holds.
 * Such an object can still be indexed (pass 1 hashes large objects in pieces), but never held whole.
 */
export const MAX_SIZE = 0xffffffff;

/** No column may exceed what one SharedArrayBuffer holds. */
export const MAX_ROWS = Math.floor((2 ** 32 - 1) / OID_BYTES) - 1;

const COLUMNS = {
  offset: 8, headerLength: 1, type: 1, realType: 1, size: 4, crc: 4, ids: OID_BYTES, base: 4, depth: 2, state: 1,
} as const;
type Column = keyof typeof COLUMNS;

/** The transferable form: what a worker needs to rebuild the same views. */
export type TableBuffers = Record<Column, SharedArrayBuffer> & { rows: number };

export class ObjectTable {
  /** Rows the columns currently hold. */
  capacity = 0;
  /** Entry offset in the pack; offset[i + 1] is where entry i ends (the last: the trailer). */
  offset!: Float64Array;
  /** Bytes of entry header (type/size varint and base reference) before the zlib stream. */
  headerLength!: Uint8Array;
  /** Type as stored: 1-4, or 6 (OFS_DELTA) / 7 (REF_DELTA). */
  type!: Uint8Array;
  /** The object's own type (1-4); for deltas known once resolved, 0 until then. */
  realType!: Uint8Array;
  /** Size declared in the entry header (for a delta: the size of the delta data), MAX_SIZE at most. */
  size!: Uint32Array;
  crc!: Uint32Array;
  ids!: Uint8Array;
  /** Object number of the delta base; -1 for non-deltas and unresolved REF_DELTAs. */
  base!: Int32Array;
  /** Delta chain length (0 for non-deltas); MAX_DEPTH at most. */
  depth!: Uint16Array;
  /**
   * 0 unresolved, 1 resolved (REF_DELTAs are claimed with a compare-and-swap), STREAMED resolved
   * and checked in the first pass.
   */
  state!: Uint8Array;
  private readonly buffers: TableBuffers;

  /** A new table for at most `maxRows` objects, or the views of a table another thread made. */
  constructor(maxRows: number, buffers?: TableBuffers) {
    if (buffers) {
      this.buffers = buffers;
    } else {
      const rows = Math.min(Math.max(maxRows, 1), MAX_ROWS);
      const b = { rows: 0 } as TableBuffers;
      for (const [name, width] of Object.entries(COLUMNS) as [Column, number][]) {
        // offset has one row more: the end of the last entry.
        b[name] = new GrowableSharedArrayBuffer(0, { maxByteLength: (rows + 1) * width });
      }
      this.buffers = b;
    }
    this.attach();
  }

  /**
   * Views of another thread's table that follow its columns as they grow (each view tracks its
   * growable buffer's length), for a thread that reads rows while the parser adds them.
   */
  static following(buffers: TableBuffers): ObjectTable {
    const t = new ObjectTable(0, buffers);
    t.attach(true);
    return t;
  }

  /** Views of `rows` rows of each column, or with `follow`, of whatever each column holds as it grows. */
  private attach(follow = false): void {
    const b = this.buffers;
    const n = this.capacity = b.rows;
    // An undefined length makes a view that tracks its buffer's length.
    const rows = (k: number): number | undefined => (follow ? undefined : k);
    this.offset = new Float64Array(b.offset, 0, rows(n ? n + 1 : 0));
    this.headerLength = new Uint8Array(b.headerLength, 0, rows(n));
    this.type = new Uint8Array(b.type, 0, rows(n));
    this.realType = new Uint8Array(b.realType, 0, rows(n));
    this.size = new Uint32Array(b.size, 0, rows(n));
    this.crc = new Uint32Array(b.crc, 0, rows(n));
    this.ids = new Uint8Array(b.ids, 0, rows(n * OID_BYTES));
    this.base = new Int32Array(b.base, 0, rows(n));
    this.depth = new Uint16Array(b.depth, 0, rows(n));
    this.state = new Uint8Array(b.state, 0, rows(n));
  }

  /** Grows (in place) to hold at least `n` rows. */
  ensure(n: number): void {
    if (n <= this.capacity) return;
    const b = this.buffers;
    const max = (b.ids as unknown as { maxByteLength: number }).maxByteLength / OID_BYTES - 1;
    if (n > max) throw new RangeError(`object table is limited to ${max} rows`);
    const rows = Math.min(max, Math.max(n, this.capacity * 2, 1024));
    for (const [name, width] of Object.entries(COLUMNS) as [Column, number][]) {
      (b[name] as unknown as Growable).grow((name === 'offset' ? rows + 1 : rows) * width);
    }
    b.rows = rows;
    this.attach();
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
