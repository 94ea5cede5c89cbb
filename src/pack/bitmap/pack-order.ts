// Pack order: objects sorted by their offset in the .pack, the order of a pack bitmap's bits.
// Index order is the .idx's (sorted by id). The mapping comes from the pack's .rev file when it
// has one (read by pack/rev), or is computed by sorting the .idx offsets, as git does without a
// .rev. A multi-pack-index has the same two orders (its bitmap's being the "pseudo-pack" order).
import fs from 'node:fs';
import { CorruptError } from '../../core/errors.js';
import type { PackIndex } from '../idx/read.js';
import { ReverseIndex } from '../reverse-index/read.js';

/** What a reverse index is checked against: an .idx or a multi-pack-index. */
export interface ReversibleIndex {
  readonly count: number;
  readonly path: string;
  packChecksum(): Buffer;
}

/** Where each index position's entry starts: the .idx, for finding a position by binary search. */
export interface EntryOffsets {
  offset(indexPos: number): number;
}

/**
 * Searches before the inverse is built: one per 32 objects. A search reads some 20 offsets, so by
 * then the searches have cost about what the inverse does (a pass of random writes over the whole
 * pack), and a request that looks up only a few positions never pays for it.
 */
const SEARCHES_PER_OBJECT = 1 / 32;

export class PackOrder {
  /** Pack position of the object at each index position, built on demand (see position()). */
  private inverse: Uint32Array | null;
  private searches = 0;

  private constructor(
    /** Index position of the object at each pack position. */
    readonly positionToIndex: Uint32Array,
    inverse: Uint32Array | null,
    /** Offsets to search when the inverse is not built; null: it is built at once. */
    private readonly offsets: EntryOffsets | null,
    private readonly where: string,
  ) {
    this.inverse = inverse;
  }

  get count(): number {
    return this.positionToIndex.length;
  }

  /**
   * Pack position of the object at index position `i`. A fresh process serving one small fetch
   * asks this for a few hundred objects, and the inverse of a 700,000-object .rev costs more than
   * its whole answer; so, as git does (offset_to_pack_pos), the position is found by binary search
   * over the pack order's entry offsets, until searches add up and the inverse is built.
   */
  position(i: number): number {
    const inverse = this.inverse;
    if (inverse !== null) return inverse[i]!;
    if (++this.searches > this.count * SEARCHES_PER_OBJECT) return this.indexToPosition[i]!;
    return this.search(i);
  }

  /** Pack position of the object at each index position (built on first use). */
  get indexToPosition(): Uint32Array {
    return this.inverse ??= invert(this.positionToIndex, this.where);
  }

  private search(i: number): number {
    const offsets = this.offsets!, toIndex = this.positionToIndex, n = toIndex.length;
    if (!(i >= 0 && i < n)) throw new RangeError(`index position ${i} is outside the ${n} objects of ${this.where}`);
    const target = offsets.offset(i);
    const pos = positionOfOffset(n, p => offsets.offset(toIndex[p]!), target);
    if (pos >= 0 && toIndex[pos] === i) return pos;
    // Offsets out of order, or another object at this one's offset: the file lies.
    throw new CorruptError('pack', `${this.where}: index position ${i} (offset ${target}) is at no pack position: the reverse index is not in offset order`);
  }

  /** From the .rev file beside the index if there is one, else from the index's offsets. */
  static forIndex(index: PackIndex, revPath = index.path.replace(/\.idx$/, '.rev')): PackOrder {
    let rev: Buffer;
    try {
      rev = fs.readFileSync(revPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return PackOrder.fromOffsets(index);
      throw e;
    }
    return PackOrder.fromRev(rev, index, revPath, index);
  }

  /**
   * Parses and checks a .rev file against its index (or multi-pack-index). With the index's entry
   * offsets (a pack's .idx; a multi-pack-index's order is not by offset), positions are found by
   * search until the inverse pays.
   */
  static fromRev(buf: Buffer, index: ReversibleIndex, path: string, offsets: EntryOffsets | null = null): PackOrder {
    const rev = new ReverseIndex(buf, path, index.count);
    if (!rev.packChecksum().equals(index.packChecksum())) {
      throw new CorruptError('pack', `${path}: reverse index belongs to another pack (checksum differs from ${index.path})`);
    }
    if (!rev.verifyChecksum()) throw new CorruptError('pack', `${path}: reverse index checksum mismatch`);
    const toIndex = rev.positions();
    if (offsets === null) return PackOrder.fromPositions(toIndex, path);
    // Each entry must name an object; that each is named once is checked as positions are found.
    const n = toIndex.length;
    for (let pos = 0; pos < n; pos++) {
      if (toIndex[pos]! >= n) throw new CorruptError('pack', `${path}: reverse index entry ${pos} names index position ${toIndex[pos]}, out of range`);
    }
    return new PackOrder(toIndex, null, offsets, path);
  }

  /** From the index position of each pack position; checks that it is a permutation. */
  static fromPositions(toIndex: Uint32Array, where: string): PackOrder {
    return new PackOrder(toIndex, invert(toIndex, where), null, where);
  }

  /** Sorts index positions by pack offset. */
  static fromOffsets(index: PackIndex): PackOrder {
    const n = index.count;
    // Offsets split into 32-bit halves (the high half is non-zero only past 4 GiB).
    const low = new Uint32Array(n);
    let high: Uint32Array | null = null;
    for (let i = 0; i < n; i++) {
      const off = index.offset(i);
      low[i] = off >>> 0;
      if (off >= 2 ** 32) (high ??= new Uint32Array(n))[i] = Math.floor(off / 2 ** 32);
    }
    // A least-significant-digit radix sort in 16-bit digits: linear, and without .rev files
    // (git 2.39's repack writes none) this runs on every open of a bitmap, so it must be cheap;
    // it is several times faster than a native sort of packed doubles.
    let toIndex = new Uint32Array(n);
    for (let i = 0; i < n; i++) toIndex[i] = i;
    let spare = new Uint32Array(n);
    const counts = new Uint32Array(0x10001);
    const passes: [Uint32Array, number][] = [[low, 0], [low, 16]];
    if (high) passes.push([high, 0], [high, 16]);
    for (const [keys, shift] of passes) {
      counts.fill(0);
      for (let k = 0; k < n; k++) counts[((keys[toIndex[k]!]! >>> shift) & 0xffff) + 1]!++;
      for (let d = 1; d <= 0x10000; d++) counts[d]! += counts[d - 1]!;
      for (let k = 0; k < n; k++) {
        const i = toIndex[k]!;
        spare[counts[(keys[i]! >>> shift) & 0xffff]!++] = i;
      }
      [toIndex, spare] = [spare, toIndex];
    }
    const toPos = new Uint32Array(n);
    for (let pos = 0; pos < n; pos++) toPos[toIndex[pos]!] = pos;
    return new PackOrder(toIndex, toPos, null, index.path);
  }
}

/** The inverse of a permutation of index positions; throws if it is not one. */
function invert(toIndex: Uint32Array, where: string): Uint32Array {
  const n = toIndex.length;
  const toPos = new Uint32Array(n).fill(0xffffffff);
  for (let pos = 0; pos < n; pos++) {
    const i = toIndex[pos]!;
    if (i >= n || toPos[i] !== 0xffffffff) {
      throw new CorruptError('pack', `${where}: reverse index entry ${pos} names index position ${i}, out of range or repeated`);
    }
    toPos[i] = pos;
  }
  return toPos;
}

/**
 * Pack position (below `count`) of the entry starting at `offset`, by binary search over entry
 * offsets in pack order; -1 when no entry starts there.
 */
export function positionOfOffset(count: number, offsetAt: (pos: number) => number, offset: number): number {
  let lo = 0, hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const o = offsetAt(mid);
    if (o === offset) return mid;
    if (o < offset) lo = mid + 1; else hi = mid;
  }
  return -1;
}
