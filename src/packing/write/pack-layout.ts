// A pack seen in offset order: each pack position's entry offset, where its entry ends, and the
// position of an entry offset. The writer plans and copies entries with it, and verbatim reuse
// walks a bitmap's bits (which are pack positions) through it.
//
// Offsets are read from the .idx on demand, in random order (positions are not index order), at
// about 100 ns each: a fetch that looks at a few thousand entries should not pay for the 700 000
// of a large pack. Once lookups add up to a quarter of the pack, every offset is read once into an
// array, so a full walk pays for each at most about 1.25 times. A layout kept between requests (a
// serve worker's) reads them all before the first request instead: readAllOffsets().
//
// Verbatim reuse asks, for each entry it might copy, whether it is a delta and where its base is:
// the answer is read from the entry header once and remembered, since a serving process keeps its
// layout and fetches of recent history look at the same entries again.
import { CorruptError } from '../../core/errors.js';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA } from '../../object/type.js';
import { EntryHeader } from '../../pack/entry-header.js';
import type { StoredPack } from '../../odb/object-store.js';
import { MAX_ENTRY_HEADER } from '../../pack/entry-header-encode.js';
import { PackOrder, positionOfOffset } from '../../pack/bitmap/pack-order.js';

/** deltaBase() codes: not read yet, a whole object, a delta whose base is not in this pack. */
const UNREAD = 0;
const WHOLE = 1;
const OUTSIDE = 2;
/** Added to a base position (negated for a REF_DELTA's) in the code. */
const BASE = 3;

export class PackLayout {
  private offsets: Float64Array | null = null;
  private reads = 0;
  /** Per position, what deltaBase() found (the codes above); allocated on first use. */
  private bases: Int32Array | null = null;
  private readonly parsed = new EntryHeader();
  /** Length of the entry header that header() parsed last. */
  headerLength = 0;

  constructor(readonly pack: StoredPack, readonly order: PackOrder) {}

  /** With the order from the pack's .rev, or sorted from its .idx. */
  static of(pack: StoredPack): PackLayout {
    return new PackLayout(pack, PackOrder.forIndex(pack.index));
  }

  get count(): number {
    return this.order.positionToIndex.length;
  }

  /** Entry offset of the object at pack position `pos`. */
  offset(pos: number): number {
    if (this.offsets) return this.offsets[pos]!;
    if (++this.reads > this.count / 4) return this.readAll()[pos]!;
    return this.pack.index.offset(this.order.positionToIndex[pos]!);
  }

  /** Where the entry at `pos` ends: the next entry, or the trailer. */
  end(pos: number): number {
    return pos + 1 < this.count ? this.offset(pos + 1) : this.pack.file.dataEnd;
  }

  /** Pack position of the entry starting at `offset`, or -1 when no entry starts there. */
  positionOf(offset: number): number {
    return positionOfOffset(this.count, pos => this.offset(pos), offset);
  }

  /**
   * Parses the header of the entry at `pos` (the result is reused by the next call). A REF_DELTA's
   * base id is at `baseOidPos` of `headerBuffer`.
   */
  header(pos: number): EntryHeader {
    const offset = this.offset(pos);
    const view = this.pack.file.read(offset, MAX_ENTRY_HEADER);
    const h = this.parsed;
    if (!h.parse(view.buf, view.pos, view.end, offset, 'pack', this.pack.file.path)) {
      throw new CorruptError('pack', `${this.pack.file.path}: entry header at offset ${offset} is truncated`);
    }
    this.headerLength = h.dataPos - view.pos;
    this.headerBuffer = view.buf;
    return h;
  }

  /** The buffer header() parsed from (valid until the pack is read again). */
  headerBuffer: Uint8Array = new Uint8Array(0);

  /**
   * The pack position of the base of the delta at `pos`; -1 for a whole object, -2 for a delta
   * whose base is not in this pack (the writer then deals with it, and reports a corrupt pack in
   * detail). Read once per entry.
   */
  deltaBase(pos: number): number {
    const bases = this.bases ??= new Int32Array(this.count);
    let code = bases[pos]!;
    if (code === UNREAD) {
      const h = this.header(pos);
      if (h.type === OBJ_OFS_DELTA) {
        const at = this.positionOf(h.baseOffset);
        code = at < 0 ? OUTSIDE : at + BASE;
      } else if (h.type === OBJ_REF_DELTA) {
        const ip = this.pack.index.find(this.headerBuffer, h.baseOidPos);
        code = ip < 0 ? OUTSIDE : -(this.order.position(ip) + BASE);
      } else {
        code = WHOLE;
      }
      bases[pos] = code;
    }
    return code === WHOLE ? -1 : code === OUTSIDE ? -2 : Math.abs(code) - BASE;
  }

  /** Whether the entry at `pos` is an OFS_DELTA with its base in this pack (after deltaBase(pos)). */
  isOffsetDelta(pos: number): boolean {
    return this.bases !== null && this.bases[pos]! >= BASE;
  }

  /** Reads every entry offset now (about 100 ns each), so no later lookup goes to the .idx. */
  readAllOffsets(): void {
    this.offsets ??= this.readAll();
  }

  private readAll(): Float64Array {
    const index = this.pack.index, toIndex = this.order.positionToIndex;
    const offsets = new Float64Array(toIndex.length);
    for (let pos = 0; pos < toIndex.length; pos++) offsets[pos] = index.offset(toIndex[pos]!);
    return this.offsets = offsets;
  }
}
