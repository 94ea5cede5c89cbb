// A pack seen in offset order: each pack position's entry offset, where its entry ends, and the
// position of an entry offset. The writer plans and copies entries with it, and verbatim reuse
// walks a bitmap's bits (which are pack positions) through it.
//
// Offsets are read from the .idx on demand, in random order (positions are not index order), at
// about 100 ns each: a fetch that looks at a few thousand entries should not pay for the 700 000
// of a large pack. Once lookups add up to a quarter of the pack, every offset is read once into an
// array, so a full walk pays for each at most about 1.25 times. A layout kept between requests (a
// serve worker's) reads them all before the first request instead: readAllOffsets().
import type { PackIndex } from '../idx/read.js';
import type { PackFile } from '../pack-file.js';
import { PackOrder } from '../bitmap/pack-order.js';

/** An open pack: its .pack and .idx (the object database's PackHandle is one). */
export interface StoredPack {
  readonly file: PackFile;
  readonly index: PackIndex;
}

export class PackLayout {
  private offsets: Float64Array | null = null;
  private reads = 0;

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
    let lo = 0, hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const o = this.offset(mid);
      if (o === offset) return mid;
      if (o < offset) lo = mid + 1; else hi = mid;
    }
    return -1;
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
