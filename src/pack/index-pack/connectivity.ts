// Checks against the repository after the passes. With --strict, every object a commit, tree or
// tag of the pack points to must be in the pack or the repository, with the type the pointer
// implies (git's fsck_walk + check_objects). And as git does for every object it receives, one
// that the repository already has must be the very same object (git's "SHA1 COLLISION" check),
// looked up quickly: in the packs and loose objects already known, without rescanning per miss.
import { CorruptError } from '../../core/errors.js';
import { compareOid, OID_BYTES, toHex } from '../../core/oid.js';
import { typeName } from '../../object/type.js';
import type { ReferenceList } from './check.js';
import type { ObjectTable } from './tables.js';

/** What index-pack needs of a repository's object database (an ObjectDatabase fits). */
export interface ObjectLookup {
  read(oid: Uint8Array, off?: number): { type: number; data: Buffer } | null;
  info(oid: Uint8Array, off?: number): { type: number; size: number } | null;
  readonly packs: readonly { readonly index: { find(oid: Uint8Array, off?: number): number } }[];
  readonly loose: { has(oid: Uint8Array, off?: number): boolean };
  readonly alternates: readonly ObjectLookup[];
}

/** Existence without rescans: the packs and loose objects the lookup already knows. */
export function quickHas(db: ObjectLookup, oid: Uint8Array, off: number): boolean {
  for (const p of db.packs) if (p.index.find(oid, off) >= 0) return true;
  if (db.loose.has(oid, off)) return true;
  for (const a of db.alternates) if (quickHas(a, oid, off)) return true;
  return false;
}

/** Position of the id among the pack's objects sorted by id, or -1. */
export function findSorted(ids: Uint8Array, sorted: Int32Array, count: number, oid: Uint8Array, off: number): number {
  let lo = 0, hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareOid(ids, sorted[mid]! * OID_BYTES, oid, off);
    if (c === 0) return sorted[mid]!;
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return -1;
}

export function checkConnectivity(lists: readonly ReferenceList[], table: ObjectTable, sorted: Int32Array,
  count: number, lookup: ObjectLookup | null, name: string): void {
  for (const list of lists) {
    for (let k = 0; k < list.count; k++) {
      const at = k * OID_BYTES;
      const want = list.types[k]!;
      const obj = findSorted(table.ids, sorted, count, list.ids, at);
      if (obj >= 0) {
        if (table.realType[obj] !== want) {
          throw new CorruptError('pack', `${name}: object type mismatch at ${toHex(list.ids, at)}: referenced as a ${typeName(want)}, but the pack has a ${typeName(table.realType[obj]!)}`);
        }
        continue;
      }
      const info = lookup?.info(list.ids, at) ?? null;
      if (!info) throw new CorruptError('pack', `${name}: did not receive expected object ${toHex(list.ids, at)}`);
      if (info.type !== want) {
        throw new CorruptError('pack', `${name}: object ${toHex(list.ids, at)}: expected type ${typeName(want)}, found ${typeName(info.type)}`);
      }
    }
  }
}

/**
 * For each of the first `count` objects that the repository already has, insists that its type,
 * size and content are the same. `contentOf` reconstructs an object of the pack.
 */
export function checkCollisions(table: ObjectTable, count: number, lookup: ObjectLookup, name: string,
  contentOf: (i: number) => Buffer): void {
  for (let i = 0; i < count; i++) {
    const at = i * OID_BYTES;
    if (!quickHas(lookup, table.ids, at)) continue;
    const theirs = lookup.read(table.ids, at);
    if (!theirs) continue;
    const ours = contentOf(i);
    if (theirs.type !== table.realType[i] || !theirs.data.equals(ours)) {
      throw new CorruptError('pack', `${name}: SHA1 COLLISION FOUND WITH ${toHex(table.ids, at)} ! (the object at offset ${table.offset[i]} differs from the repository's)`);
    }
  }
}
