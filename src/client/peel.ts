// The peeled value packed-refs records for an annotated tag: the first object down its chain that
// is not a tag. Computed from the objects we now hold rather than taken from the server's word.
import { fromHex, toHex } from '../core/oid.js';
import { parseTag } from '../object/tag.js';
import { OBJ_TAG } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';

const MAX_TAG_CHAIN = 64;

/** null when `hex` is not a tag (or is missing, as in a partial clone). */
export function peeledValue(odb: ObjectStore, hex: string): string | null {
  let id = fromHex(hex)!;
  if (odb.info(id)?.type !== OBJ_TAG) return null;
  for (let depth = 0; depth < MAX_TAG_CHAIN; depth++) {
    const o = odb.read(id);
    if (!o || o.type !== OBJ_TAG) return toHex(id);
    id = parseTag(o.data, () => `tag ${toHex(id)}`).object;
  }
  return toHex(id);
}
