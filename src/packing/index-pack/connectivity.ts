// Checks against the repository after the passes. With --strict, every object a commit, tree or
// tag of the pack points to must be in the pack or the repository, with the type the pointer
// implies (git's fsck_walk + check_objects). And as git does for every object it receives, one
// that the repository already has must be the very same object (git's "SHA1 COLLISION" check),
// looked up quickly: in the packs and loose objects already known, without rescanning per miss.
import { CorruptError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { typeName } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { mismatch, type ReferenceList } from './check.js';
import type { SharedIdIndex } from './id-index.js';
import type { ObjectTable } from './tables.js';

/** What index-pack needs of the objects a repository already has. */
export type ObjectLookup = Pick<ObjectStore, 'read' | 'info' | 'hasKnown' | 'isEmpty'>;

/** Returns how many references were found in the repository rather than in the pack. */
export function checkConnectivity(lists: readonly ReferenceList[], table: ObjectTable, index: SharedIdIndex,
  lookup: ObjectLookup | null, name: string): number {
  let outside = 0;
  for (const list of lists) {
    for (let k = 0; k < list.count; k++) {
      const at = k * OID_BYTES;
      const want = list.types[k]!;
      const obj = index.find(list.ids, at);
      if (obj >= 0) {
        if (table.realType[obj] !== want) throw mismatch(name, list.ids, at, want, table.realType[obj]!);
        continue;
      }
      const info = lookup?.info(list.ids, at) ?? null;
      if (!info) throw new CorruptError('pack', `${name}: did not receive expected object ${toHex(list.ids, at)}`);
      if (info.type !== want) {
        throw new CorruptError('pack', `${name}: object ${toHex(list.ids, at)}: expected type ${typeName(want)}, found ${typeName(info.type)}`);
      }
      outside++;
    }
  }
  return outside;
}

/**
 * For each of the first `count` objects that the repository already has, insists that its type,
 * size and content are the same. `contentOf` reconstructs an object of the pack.
 */
export function checkCollisions(table: ObjectTable, count: number, lookup: ObjectLookup, name: string,
  contentOf: (i: number) => Buffer): void {
  if (lookup.isEmpty()) return;
  for (let i = 0; i < count; i++) {
    const at = i * OID_BYTES;
    if (!lookup.hasKnown(table.ids, at)) continue;
    const theirs = lookup.read(table.ids, at);
    if (!theirs) continue;
    const ours = contentOf(i);
    if (theirs.type !== table.realType[i] || !theirs.data.equals(ours)) {
      throw new CorruptError('pack', `${name}: SHA1 COLLISION FOUND WITH ${toHex(table.ids, at)} ! (the object at offset ${table.offset[i]} differs from the repository's)`);
    }
  }
}
