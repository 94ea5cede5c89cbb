// A whole .bitmap for a pack, from the pack alone: entry headers give every object's type, every
// commit is a candidate, selection picks which get bitmaps, reachability fills them, and the
// writer lays out the file.
import type { PackIndex } from '../../pack/idx/read.js';
import type { PackFile } from '../../pack/pack-file.js';
import { OBJ_COMMIT } from '../../object/type.js';
import { PackOrder } from '../../pack/bitmap/pack-order.js';
import { readPackTypes } from '../../pack/bitmap/pack-types.js';
import { PackReachability, type ReadObject } from './reachability.js';
import { selectBitmapCommits } from './select.js';
import { typeBitmapsFrom, writeBitmap } from '../../pack/bitmap/write.js';

export interface BuildBitmapOptions {
  /** The pack (the object database's StoredPack fits). */
  pack: { index: PackIndex; file: PackFile };
  order?: PackOrder;
  /** Reads any object (the object database's read). */
  read: ReadObject;
  /** Commits that should get a bitmap whenever selection passes near them (e.g. ref tips). */
  preferred?: (oid: Uint8Array, offset: number) => boolean;
  /** One name hash per object in index order (adds the hash cache). */
  nameHashes?: Uint32Array;
  lookupTable?: boolean;
  maxBitmaps?: number;
}

export function buildPackBitmap(o: BuildBitmapOptions): Buffer {
  const { index, file } = o.pack;
  const order = o.order ?? PackOrder.forIndex(index);
  const types = readPackTypes(file, index, order);
  const reach = new PackReachability(index, order, o.read);
  // Candidates in pack order: for a pack git wrote, that is close to its own walk order.
  const candidates: number[] = [];
  for (let pos = 0; pos < types.length; pos++) if (types[pos] === OBJ_COMMIT) candidates.push(pos);
  const chosen = selectBitmapCommits({
    count: candidates.length,
    date: i => reach.date(candidates[i]!),
    isMerge: i => reach.parents(candidates[i]!).length > 1,
    preferred: o.preferred && (i => {
      const idx = order.positionToIndex[candidates[i]!]!;
      return o.preferred!(index.buf, index.oidAt(idx));
    }),
  }, o.maxBitmaps);
  const positions = Array.from(chosen, i => candidates[i]!);
  const bits = reach.reachable(positions);
  return writeBitmap({
    index,
    types: typeBitmapsFrom(types),
    entries: positions.map((pos, k) => ({ commit: order.positionToIndex[pos]!, bits: bits[k]! })),
    nameHashes: o.nameHashes,
    lookupTable: o.lookupTable,
  });
}
