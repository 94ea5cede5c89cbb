// A checkout plan for index entries rather than a tree: what changing the sparse patterns writes
// back into the work tree (entries that leave the skip-worktree bit behind), through the same
// writers, conversions and filters as a checkout. Attributes come from the index, as git reads
// them in this direction.
import { isUtf8 } from 'node:buffer';
import { OID_BYTES } from '../../core/oid.js';
import { childFsPath, sharedColumns, type CheckoutPlan, type PlanDir } from '../checkout/plan.js';
import type { IndexEntry } from '../index-file/entry.js';

/**
 * The plan writing `entries` (sorted, stage 0) under `root`; `attributesOf` gives the id of a
 * directory's .gitattributes blob to read (null: none).
 */
export function planOfEntries(root: string, entries: readonly IndexEntry[], attributesOf: (dir: Uint8Array) => Uint8Array | null): CheckoutPlan {
  const count = entries.length;
  const pathBytes = entries.reduce((n, e) => n + e.path.length, 0);
  const columns = sharedColumns(count, pathBytes);
  const { paths, pathStart, nameStart, oids, modes, dirOf, rawName } = columns;
  const dirs: PlanDir[] = [{ path: new Uint8Array(0), fsPath: root, parent: -1, attributes: attributesOf(new Uint8Array(0)) }];
  const dirIndex = new Map<string, number>([['', 0]]);
  const dirFor = (dirPath: Uint8Array): number => {
    const key = Buffer.from(dirPath).toString('latin1');
    let d = dirIndex.get(key);
    if (d !== undefined) return d;
    const slash = dirPath.lastIndexOf(0x2f);
    const parent = dirFor(dirPath.subarray(0, Math.max(slash, 0)));
    const name = Buffer.from(dirPath.subarray(slash + 1));
    const fsPath = childFsPath(dirs[parent]!.fsPath, name, isUtf8(name));
    d = dirs.length;
    dirs.push({ path: Buffer.from(dirPath), fsPath, parent, attributes: attributesOf(dirPath) });
    dirIndex.set(key, d);
    return d;
  };
  let at = 0;
  entries.forEach((e, k) => {
    const slash = e.path.lastIndexOf(0x2f);
    pathStart[k] = at;
    nameStart[k] = at + slash + 1;
    paths.set(e.path, at);
    at += e.path.length;
    oids.set(e.oid.subarray(0, OID_BYTES), k * OID_BYTES);
    modes[k] = e.mode;
    dirOf[k] = dirFor(e.path.subarray(0, Math.max(slash, 0)));
    rawName[k] = isUtf8(e.path.subarray(slash + 1)) ? 0 : 1;
  });
  pathStart[count] = at;
  return {
    root, dirs, count, ...columns,
    cacheTree: { name: new Uint8Array(0), entryCount: -1, oid: null, children: [] },
  };
}
