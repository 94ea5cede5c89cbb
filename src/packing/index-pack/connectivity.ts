// The connectivity check after the passes (--strict): every object a commit, tree or tag of the
// pack points to must be in the pack or the repository, with the type the pointer implies (git's
// fsck_walk + check_objects).
import { CorruptError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { typeName } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { mismatch, type ReferenceList } from './check.js';
import type { SharedIdIndex } from './id-index.js';
import type { ObjectTable } from './tables.js';

/** What index-pack needs of the objects a repository already has. */
export type ObjectLookup = Pick<ObjectStore, 'read' | 'readInPieces' | 'info' | 'hasKnown' | 'isEmpty'>;

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
