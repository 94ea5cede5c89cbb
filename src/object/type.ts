// Object types as the pack format numbers them; names only at the edges.
import type { ObjectType } from '../core/hash.js';

export const OBJ_COMMIT = 1;
export const OBJ_TREE = 2;
export const OBJ_BLOB = 3;
export const OBJ_TAG = 4;
export const OBJ_OFS_DELTA = 6;
export const OBJ_REF_DELTA = 7;

export type ObjectTypeCode = 1 | 2 | 3 | 4;

const NAMES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };

export function typeName(code: number): ObjectType {
  const n = NAMES[code];
  if (!n) throw new RangeError(`not an object type code: ${code}`);
  return n;
}

export function typeCode(name: string): ObjectTypeCode | 0 {
  switch (name) {
    case 'commit': return OBJ_COMMIT;
    case 'tree': return OBJ_TREE;
    case 'blob': return OBJ_BLOB;
    case 'tag': return OBJ_TAG;
    default: return 0;
  }
}

/** What every object read returns: the type code and the content, without header. */
export interface RawObject {
  type: ObjectTypeCode;
  data: Buffer;
}
