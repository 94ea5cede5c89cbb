// A tree flattened to its index entries (path -> mode and id), for comparing the commit being left
// with the index and the commit being switched to. The commit being left was checked out before,
// so its names are not vetted again here; the new tree is (checkout/plan.ts).
import { OID_BYTES } from '../../core/oid.js';
import { MODE_BLOB, MODE_TREE, TreeCursor } from '../../object/tree.js';
import { OBJ_TREE } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';

export interface TreeEntryInfo {
  mode: number;
  oid: Uint8Array;
}

/** Map keys: a path's bytes as a latin1 string (one char per byte, so any bytes are keys). */
export function pathKey(path: Uint8Array): string {
  return Buffer.from(path.buffer, path.byteOffset, path.length).toString('latin1');
}

export function flattenTree(odb: ObjectStore, treeId: Uint8Array): Map<string, TreeEntryInfo> {
  const out = new Map<string, TreeEntryInfo>();
  const walk = (oid: Uint8Array, prefix: string): void => {
    const data = odb.mustRead(oid, 0, OBJ_TREE).data;
    const cur = new TreeCursor(data);
    while (cur.next()) {
      const name = prefix + data.toString('latin1', cur.nameStart, cur.nameEnd);
      const id = data.slice(cur.oidOffset, cur.oidOffset + OID_BYTES);
      if (cur.mode === MODE_TREE) walk(id, name + '/');
      else out.set(name, { mode: cur.mode === 0o100664 ? MODE_BLOB : cur.mode, oid: id });
    }
  };
  walk(treeId, '');
  return out;
}
