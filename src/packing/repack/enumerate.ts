// What `repack -a` puts in the new pack: every object reachable from the refs, HEAD and the extra
// tips (reflog entries), in `rev-list --objects` order, with the type and the path name hash of
// each (the hash goes into the bitmap's hash cache), then arranged in git's write order. Objects
// only the index references are not packed (git adds them with --indexed-objects); they are not
// lost, since -d removes only loose objects a pack holds, so a staged blob simply stays loose.
import { fromHex, OID_BYTES, toHex } from '../../core/oid.js';
import { parseTag } from '../../object/tag.js';
import { OBJ_TAG } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import type { RefStore } from '../../refs/store.js';
import { ObjectWalk } from '../../walk/object-walk.js';
import { ensureCapacity } from '../../walk/oid-map.js';
import { packNameHash } from '../../pack/name-hash.js';
import { writeOrder } from '../write/order.js';
import type { PackContents } from '../write/write.js';

export interface RepackObjects {
  walk: ObjectWalk;
  contents: PackContents;
  /** Name hash by walk index. */
  nameHash: Uint32Array;
  /** The objects' walk indices, in enumeration order. */
  objects: Int32Array;
}

/**
 * Walks from every ref, HEAD and `extraTips`. `skip` leaves out objects that stay where they are (objects of
 * kept packs); the walk still goes through them.
 */
export function enumerateForRepack(odb: ObjectStore, refs: RefStore, extraTips: readonly Uint8Array[] = [],
  skip?: (ids: Uint8Array, off: number) => boolean, onCount?: (n: number) => void): RepackObjects {
  const walk = new ObjectWalk(odb);
  // Everything reachable: most of what the packs hold.
  walk.wholeRepository(true);
  const tagRefs: Uint8Array[] = [];
  for (const ref of refs.list('refs/')) {
    const id = fromHex(ref.oid)!;
    walk.add(id, ref.name);
    if (ref.name.startsWith('refs/tags/')) tagRefs.push(id);
  }
  const head = refs.resolve('HEAD');
  if (head) walk.add(fromHex(head.oid)!, 'HEAD');
  for (const id of extraTips) walk.add(id, '');

  let objects = new Int32Array(1024);
  let n = 0;
  let nameHash = new Uint32Array(1024);
  // Types are not kept here: the walk's own types array has each object's.
  const add = (idx: number, hash: number, ids: Uint8Array, off: number) => {
    if (idx >= nameHash.length) nameHash = ensureCapacity(nameHash, idx + 1);
    nameHash[idx] = hash;
    if (skip?.(ids, off)) return;
    if (n === objects.length) objects = ensureCapacity(objects, n + 1);
    objects[n++] = idx;
    if ((n & 1023) === 0) onCount?.(n);
  };
  walk.enumerate({
    commit: (ids, off, index) => add(index, 0, ids, off),
    object: (_type, ids, off, path, len) =>
      add(ids === walk.ids.keys ? off / OID_BYTES : walk.ids.get(ids, off), packNameHash(path, 0, len), ids, off),
  });
  onCount?.(n);

  // git's compute_write_order puts tagged objects early: each tag ref's object and what it peels to.
  const tagged = new Set<number>();
  for (const id of tagRefs) {
    let idx = walk.ids.get(id, 0);
    while (idx >= 0) {
      tagged.add(idx);
      if (walk.types[idx] !== OBJ_TAG) break;
      const tag = parseTag(odb.mustRead(walk.ids.keys, idx * OID_BYTES, OBJ_TAG).data, () => `tag ${toHex(walk.ids.keys, idx * OID_BYTES)}`);
      idx = walk.ids.get(tag.object, 0);
    }
  }
  const list = objects.subarray(0, n);
  const { order, restFrom } = writeOrder(list, idx => walk.types[idx]!, idx => tagged.has(idx));
  const hashes = nameHash;
  return { walk, contents: { ids: walk.ids, order, storageOrderFrom: restFrom, nameHash: (idx) => hashes[idx] ?? 0 }, nameHash, objects: list };
}

