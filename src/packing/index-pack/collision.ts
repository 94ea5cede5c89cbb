// As git does for every object it receives, an object of the pack that the repository already has
// must be the very same object (git's "SHA1 COLLISION" check). The repository's objects are
// looked up quickly (in the packs and loose objects already known, without rescanning per miss),
// and the pack's are built along their delta trees, each from its base's content: a fetch that
// repeats every object the repository has costs one more resolution of the pack, not a delta
// chain per object.
import crypto from 'node:crypto';
import { CorruptError } from '../../core/errors.js';
import { Inflater } from '../../core/zlib.js';
import { BIG_OBJECT, inflateEntry } from '../../pack/inflate-entry.js';
import { PackFile } from '../../pack/pack-file.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import type { ObjectLookup } from './connectivity.js';
import { Resolver, type ResolveShared } from './resolve.js';
import type { ObjectTable } from './tables.js';

/**
 * For each of the first `count` objects that the repository already has, insists that its type
 * and content are the same. `shared` describes the whole pack, resolved, with any --fix-thin bases
 * (from which some of the first `count` may descend).
 */
export function checkCollisions(shared: ResolveShared, count: number, lookup: ObjectLookup): void {
  if (lookup.isEmpty()) return;
  const total = shared.count;
  // The walk goes only where s.pending marks: the objects to compare and their ancestors.
  const marks = new SharedArrayBuffer(Math.max(total, 1));
  const below = new Uint8Array(marks);
  const known = new Uint8Array(count);
  const compare = (i: number, ours: Buffer): void => {
    if (i >= count || !known[i]) return;
    const at = i * OID_BYTES;
    const theirs = lookup.read(ids, at, true);
    // Known but unreadable (a dangling symlink in its place, say): git dies rather than take it.
    if (!theirs) throw new CorruptError('pack', `${shared.name}: cannot read existing object ${toHex(ids, at)}`);
    if (theirs.type !== table.realType[i] || !theirs.data.equals(ours)) {
      throw new CorruptError('pack', `${shared.name}: SHA1 COLLISION FOUND WITH ${toHex(ids, at)} ! (the object at offset ${table.offset[i]} differs from the repository's)`);
    }
  };
  const reader = new Resolver({ ...shared, pending: marks, strict: null, connectivity: false }, undefined, compare);
  const table = reader.table, ids = table.ids;
  let any = false;
  let big: BigCompare | null = null;
  try {
    for (let i = 0; i < count; i++) {
      if (!lookup.hasKnown(ids, i * OID_BYTES)) continue;
      if (!table.isDelta(i) && table.size[i]! > BIG_OBJECT && (big ??= new BigCompare(shared)).compare(i, table, lookup)) continue;
      known[i] = 1;
      any = true;
      for (let j = i; !below[j]; j = table.base[j]!) {
        below[j] = 1;
        if (!table.isDelta(j)) break;
      }
    }
    if (any) for (let root = 0; root < total; root++) if (below[root] && !table.isDelta(root)) reader.resolveFrom(root);
  } finally {
    big?.close();
    reader.close();
  }
}

/**
 * The check for a whole object over BIG_OBJECT, which is never held: both copies are inflated in
 * pieces, each into a SHA-256 (the SHA-1 they share cannot tell a collision), and the digests
 * compared, as git compares such objects stream by stream.
 */
class BigCompare {
  private readonly pack: PackFile;
  private readonly inflater = new Inflater();

  constructor(private readonly shared: ResolveShared) {
    this.pack = new PackFile(shared.packPath, null);
  }

  close(): void {
    this.pack.close();
  }

  /** Whether object i could be compared so (else the resolver compares it whole); throws on a collision. */
  compare(i: number, table: ObjectTable, lookup: ObjectLookup): boolean {
    const at = i * OID_BYTES;
    const theirs = crypto.createHash('sha256');
    const type = lookup.readInPieces(table.ids, at, (p) => { theirs.update(p); });
    if (type === null) return false;
    const ours = crypto.createHash('sha256');
    inflateEntry(this.pack, table.offset[i]!, table.dataOffset(i), table.offset[i + 1]!, table.size[i]!, this.inflater,
      (p) => { ours.update(p); });
    if (type !== table.realType[i] || !ours.digest().equals(theirs.digest())) {
      throw new CorruptError('pack', `${this.shared.name}: SHA1 COLLISION FOUND WITH ${toHex(table.ids, at)} ! (the object at offset ${table.offset[i]} differs from the repository's)`);
    }
    return true;
  }
}
