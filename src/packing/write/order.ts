// The order objects go into a pack, as git's pack-objects computes it (compute_write_order): the
// enumeration's recency order up to the first object a tag points at, then every tagged object,
// then the remaining commits and tags, then all trees, then everything else. A clone's checkout
// then reads commits and trees from the front of the pack and blobs in recency order after them.
// git further groups each delta family together among the blobs; the writer may instead follow
// the storage order there (a git-written pack holds families together), and writes a delta's base
// just before it when it was not written yet, which keeps the same guarantee (bases first).
import { OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../../object/type.js';

export interface WriteOrder {
  order: Int32Array;
  /** Where the last pass (blobs and the rest) begins: the part git groups by delta family. */
  restFrom: number;
}

/**
 * `objects` holds object indices in enumeration order (commits first, then what the tree walk
 * found); `typeOf` and `tagged` describe each index.
 */
export function writeOrder(objects: Int32Array, typeOf: (index: number) => number,
  tagged: (index: number) => boolean): WriteOrder {
  const n = objects.length;
  const out = new Int32Array(n);
  const placed = new Uint8Array(n);
  let k = 0;
  let lastUntagged = 0;
  for (; lastUntagged < n; lastUntagged++) {
    if (tagged(objects[lastUntagged]!)) break;
    out[k++] = objects[lastUntagged]!;
    placed[lastUntagged] = 1;
  }
  const pass = (want: (type: number, index: number) => boolean) => {
    for (let i = lastUntagged; i < n; i++) {
      if (placed[i]) continue;
      const idx = objects[i]!;
      if (!want(typeOf(idx), idx)) continue;
      out[k++] = idx;
      placed[i] = 1;
    }
  };
  pass((_type, idx) => tagged(idx));
  pass(type => type === OBJ_COMMIT || type === OBJ_TAG);
  pass(type => type === OBJ_TREE);
  const restFrom = k;
  pass(() => true);
  return { order: out, restFrom };
}
