// Checks against the repository after the passes. With --strict, every object a commit, tree or
// tag of the pack points to must be in the pack or the repository, with the type the pointer
// implies (git's fsck_walk + check_objects). And as git does for every object it receives, one
// that the repository already has must be the very same object (git's "SHA1 COLLISION" check),
// looked up quickly: in the packs and loose objects already known, without rescanning per miss.
import fs from 'node:fs';
import { CorruptError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { typeName } from '../../object/type.js';
import { mismatch, type ReferenceList } from './check.js';
import type { SharedIdIndex } from './id-index.js';
import type { ObjectTable } from './tables.js';

/** What index-pack needs of a repository's object database (an ObjectDatabase fits). */
export interface ObjectLookup {
  read(oid: Uint8Array, off?: number): { type: number; data: Buffer } | null;
  info(oid: Uint8Array, off?: number): { type: number; size: number } | null;
  readonly packs: readonly { readonly index: { find(oid: Uint8Array, off?: number): number } }[];
  readonly loose: { has(oid: Uint8Array, off?: number): boolean; readonly dir?: string };
  readonly alternates: readonly ObjectLookup[];
}

/** Existence without rescans: the packs and loose objects the lookup already knows. */
export function quickHas(db: ObjectLookup, oid: Uint8Array, off: number): boolean {
  for (const p of db.packs) if (p.index.find(oid, off) >= 0) return true;
  if (db.loose.has(oid, off)) return true;
  for (const a of db.alternates) if (quickHas(a, oid, off)) return true;
  return false;
}

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

/** True when the lookup surely holds no object (a fresh repository): no packs, no loose ones. */
function surelyEmpty(db: ObjectLookup): boolean {
  if (db.packs.length || db.alternates.length || db.loose.dir === undefined) return false;
  try {
    return !fs.readdirSync(db.loose.dir).some((n) => /^[0-9a-f]{2}$/.test(n));
  } catch {
    return true;
  }
}

/**
 * For each of the first `count` objects that the repository already has, insists that its type,
 * size and content are the same. `contentOf` reconstructs an object of the pack.
 */
export function checkCollisions(table: ObjectTable, count: number, lookup: ObjectLookup, name: string,
  contentOf: (i: number) => Buffer): void {
  if (surelyEmpty(lookup)) return;
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
