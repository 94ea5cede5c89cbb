// Pack order: objects sorted by their offset in the .pack, the order of a pack bitmap's bits.
// Index order is the .idx's (sorted by id). The mapping comes from the pack's .rev file when it
// has one (read by pack/rev), or is computed by sorting the .idx offsets, as git does without a
// .rev. A multi-pack-index has the same two orders (its bitmap's being the "pseudo-pack" order).
import fs from 'node:fs';
import { CorruptError } from '../../core/errors.js';
import type { PackIndex } from '../idx/read.js';
import { ReverseIndex } from '../rev/read.js';

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
    const toIndex = new Uint32Array(index.count);
    for (let pos = 0; pos < toIndex.length; pos++) toIndex[pos] = rev.indexPosition(pos);
    return PackOrder.fromPositions(toIndex, path);
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
    const toIndex = new Uint32Array(n);
    // Offsets and positions packed into one double sort natively, several times faster than a
    // comparator; packs too large for that (>= 2^21 objects or offsets >= 2^32) take the slow path.
    let packed = n < 1 << 21;
    const keys = new Float64Array(packed ? n : 0);
    for (let i = 0; packed && i < n; i++) {
      const off = index.offset(i);
      if (off >= 2 ** 32) packed = false;
      else keys[i] = off * 2 ** 21 + i;
    }
    if (packed) {
      keys.sort();
      for (let pos = 0; pos < n; pos++) toIndex[pos] = keys[pos]! % 2 ** 21;
    } else {
      const offsets = new Float64Array(n);
      for (let i = 0; i < n; i++) { offsets[i] = index.offset(i); toIndex[i] = i; }
      toIndex.sort((a, b) => offsets[a]! - offsets[b]!);
    }
    const toPos = new Uint32Array(n);
    for (let pos = 0; pos < n; pos++) toPos[toIndex[pos]!] = pos;
    return new PackOrder(toIndex, toPos);
  }
}
