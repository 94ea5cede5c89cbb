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

export class PackOrder {
  private constructor(
    /** Index position of the object at each pack position. */
    readonly positionToIndex: Uint32Array,
    /** Pack position of the object at each index position. */
    readonly indexToPosition: Uint32Array,
  ) {}

  get count(): number {
    return this.positionToIndex.length;
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
    return PackOrder.fromRev(rev, index, revPath);
  }

  /** Parses and checks a .rev file against its index (or multi-pack-index). */
  static fromRev(buf: Buffer, index: ReversibleIndex, path: string): PackOrder {
    const rev = new ReverseIndex(buf, path, index.count);
    if (!rev.packChecksum().equals(index.packChecksum())) {
      throw new CorruptError('pack', `${path}: reverse index belongs to another pack (checksum differs from ${index.path})`);
    }
    if (!rev.verifyChecksum()) throw new CorruptError('pack', `${path}: reverse index checksum mismatch`);
    return PackOrder.fromPositions(rev.positions(), path);
  }

  /** From the index position of each pack position; checks that it is a permutation. */
  static fromPositions(toIndex: Uint32Array, where: string): PackOrder {
    const n = toIndex.length;
    const toPos = new Uint32Array(n).fill(0xffffffff);
    for (let pos = 0; pos < n; pos++) {
      const i = toIndex[pos]!;
      if (i >= n || toPos[i] !== 0xffffffff) {
        throw new CorruptError('pack', `${where}: reverse index entry ${pos} names index position ${i}, out of range or repeated`);
      }
      toPos[i] = pos;
    }
    return new PackOrder(toIndex, toPos);
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
    return new PackOrder(toIndex, toPos);
  }
}
