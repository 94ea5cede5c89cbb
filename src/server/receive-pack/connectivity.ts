// git's check_connected for a push: everything the new tips reach, short of what the refs already
// there reach, must be in the repository (the quarantine included). index-pack --strict has
// already shown that every object the pack's commits, trees and tags name is in the pack or the
// repository; when none of them is outside the pack and every tip is inside it, the pack is closed
// and nothing needs walking. Otherwise the objects are walked as `rev-list --objects <tips> --not
// <refs>` walks them, blobs checked to exist as rev-list's finish_object does.
import { GitError } from '../../core/errors.js';
import { toHex } from '../../core/oid.js';
import { OBJ_BLOB } from '../../object/type.js';
import type { ObjectDatabase } from '../../odb/database.js';
import { ObjectWalk } from '../../walk/object-walk.js';

/** null when connected, else what is missing. */
export function missingObjects(odb: ObjectDatabase, tips: readonly Uint8Array[], existing: readonly Uint8Array[]): string | null {
  const walk = new ObjectWalk(odb, 1024);
  for (const t of tips) walk.add(t, '');
  for (const e of existing) {
    if (odb.has(e)) walk.add(e, '', true);
  }
  try {
    let missing: string | null = null;
    walk.enumerate({
      object: (type, ids, off) => {
        if (missing === null && type === OBJ_BLOB && !odb.has(ids, off)) missing = `missing blob ${toHex(ids, off)}`;
      },
    });
    return missing;
  } catch (e) {
    if (e instanceof GitError) return e.message;
    throw e;
  }
}

/** Is `newOid` a descendant of `oldOid` (both commits)? git's in_merge_bases, as rev-list old --not new. */
export function isFastForward(odb: ObjectDatabase, oldOid: Uint8Array, newOid: Uint8Array): boolean {
  if (Buffer.compare(oldOid, newOid) === 0) return true;
  const walk = new ObjectWalk(odb, 256);
  walk.add(oldOid, '');
  walk.add(newOid, '', true);
  return walk.commits().length === 0;
}
