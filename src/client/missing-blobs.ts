// What a partial clone must fetch before it can check out: the blobs of one tree that the filter
// left on the server (git's check_updates collects them and fetches them in one request).
import { fromHex, OID_BYTES, toHex } from '../core/oid.js';
import { parseCommit } from '../object/commit.js';
import { TreeCursor } from '../object/tree.js';
import { OBJ_COMMIT, OBJ_TREE } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';

/** Ids (hex) of blobs reachable from the commit's tree that the repository does not hold. */
export function missingBlobs(odb: ObjectStore, commitHex: string): string[] {
  const commit = odb.mustRead(fromHex(commitHex)!, 0, OBJ_COMMIT);
  const root = parseCommit(commit.data, () => `commit ${commitHex}`).tree;
  const missing = new Set<string>();
  const seenTrees = new Set<string>();
  const trees: Uint8Array[] = [root];
  while (trees.length) {
    const id = trees.pop()!;
    const hex = toHex(id);
    if (seenTrees.has(hex)) continue;
    seenTrees.add(hex);
    const tree = odb.mustRead(id, 0, OBJ_TREE);
    const cur = new TreeCursor(tree.data, 0, tree.data.length, `tree ${hex}`);
    while (cur.next()) {
      if (cur.isGitlink()) continue;
      const child = tree.data.subarray(cur.oidOffset, cur.oidOffset + OID_BYTES);
      if (cur.isTree()) trees.push(child);
      else if (!odb.has(child)) missing.add(toHex(child));
    }
  }
  return [...missing];
}
