// The objects a partial clone was promised (git's is_promisor_object, packfile.c): those of the
// packs a promisor remote sent (a .promisor file beside them), and every object those name, which
// the remote's filter may have left out and which it sends when asked. rev-list
// --exclude-promisor-objects walks past the first and lets the second be missing.
import { OID_BYTES } from '../core/oid.js';
import { CommitScan } from '../object/commit.js';
import { parseTag } from '../object/tag.js';
import { TreeCursor } from '../object/tree.js';
import { OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../object/type.js';
import type { ObjectStore, StoredPack } from '../odb/object-store.js';
import { OidMap } from './oid-map.js';

export class PromisorObjects {
  private readonly packs: StoredPack[];
  /** What the promisor packs' objects name; read at the first missing object asked about. */
  private named: OidMap | null = null;

  constructor(private readonly odb: ObjectStore) {
    this.packs = odb.allPacks().filter((p) => p.promisor);
  }

  /** Whether a promisor pack holds the object: a few index searches. */
  holds(ids: Uint8Array, off = 0): boolean {
    for (const p of this.packs) if (p.index.find(ids, off) >= 0) return true;
    return false;
  }

  /**
   * git's is_promisor_object: held by a promisor pack, or named by an object one holds. The first
   * call reads every object of those packs, as git's does: ask it of objects that are missing.
   */
  promised(ids: Uint8Array, off = 0): boolean {
    if (this.holds(ids, off)) return true;
    this.named ??= this.readNamed();
    return this.named.get(ids, off) >= 0;
  }

  private readNamed(): OidMap {
    const named = new OidMap();
    const scan = new CommitScan();
    for (const pack of this.packs) {
      const index = pack.index;
      for (let i = 0; i < index.count; i++) {
        const o = this.odb.readPacked(pack, index.offset(i), true);
        const label = () => `${pack.name}: object ${index.oid(i).toString('hex')}`;
        if (o.type === OBJ_COMMIT) {
          scan.scan(o.data, label);
          named.addOrGet(scan.tree, 0);
          for (let k = 0; k < scan.parentCount; k++) named.addOrGet(scan.parents, k * OID_BYTES);
        } else if (o.type === OBJ_TREE) {
          const cur = new TreeCursor(o.data, 0, o.data.length, label);
          while (cur.next()) named.addOrGet(o.data, cur.oidOffset);
        } else if (o.type === OBJ_TAG) {
          named.addOrGet(parseTag(o.data, label).object, 0);
        }
      }
    }
    return named;
  }
}
