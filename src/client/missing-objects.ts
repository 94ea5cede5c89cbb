// What a partial clone must fetch before it can check out: the trees of one commit that the filter
// left on the server (git fetches each as unpack_trees meets it), then the blobs (git's
// check_updates collects them and fetches them in one request). In a sparse checkout, only those
// of the paths it writes, and the .gitattributes files git reads for them; in a switch, not those
// of files that stay as they are.
import { fromHex, OID_BYTES, toHex } from '../core/oid.js';
import { parseCommit } from '../object/commit.js';
import { TreeCursor } from '../object/tree.js';
import { OBJ_COMMIT, OBJ_TREE } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';
import { isAttributesName } from '../worktree/attributes/file-name.js';
import type { SparseMatcher } from '../worktree/sparse/matcher.js';

export interface MissingObjects {
  /** Trees the walk met and could not read: what is below them is not known yet. */
  readonly trees: string[];
  readonly blobs: string[];
}

/**
 * Ids (hex) of the trees reachable from the commit that the repository does not hold, and of the
 * blobs below the trees it holds that it does not; with `sparse`, of the paths a checkout writes,
 * and of the .gitattributes it reads for them (those of their directories and the directories
 * above); with `kept`, not of the paths where it says the work tree has that blob already (given
 * the path and the blob's id). Once no tree is missing, the blobs are all the checkout lacks.
 */
export function missingObjects(odb: ObjectStore, commitHex: string, sparse: SparseMatcher | null = null,
  kept: ((path: Buffer, oid: Uint8Array) => boolean) | null = null): MissingObjects {
  const commit = odb.mustRead(fromHex(commitHex)!, 0, OBJ_COMMIT);
  const root = parseCommit(commit.data, () => `commit ${commitHex}`).tree;
  const missing = new Set<string>();
  const missingTrees = new Set<string>();
  // A tree met again holds nothing new, unless which of its paths are wanted depends on where it is.
  const byPath = sparse !== null || kept !== null;
  const seenTrees = new Set<string>();
  // With `sparse`: the directories holding something written, and each directory's missing .gitattributes.
  const written = new Set<string>();
  const attributes = new Map<string, string>();
  const trees: { id: Uint8Array; path: Buffer }[] = [{ id: root, path: Buffer.alloc(0) }];
  while (trees.length) {
    const { id, path } = trees.pop()!;
    const hex = toHex(id);
    if (!byPath && seenTrees.has(hex)) continue;
    seenTrees.add(hex);
    if (!odb.has(id)) {
      missingTrees.add(hex);
      continue;
    }
    const tree = odb.mustRead(id, 0, OBJ_TREE);
    const cur = new TreeCursor(tree.data, 0, tree.data.length, `tree ${hex}`);
    while (cur.next()) {
      if (cur.isGitlink()) continue;
      const child = tree.data.subarray(cur.oidOffset, cur.oidOffset + OID_BYTES);
      const name = tree.data.subarray(cur.nameStart, cur.nameEnd);
      const childPath = byPath ? (path.length ? Buffer.concat([path, Buffer.from('/'), name]) : Buffer.from(name)) : path;
      if (cur.isTree()) {
        trees.push({ id: child, path: childPath });
        continue;
      }
      if (sparse && isAttributesName(name) && !odb.has(child)) attributes.set(path.toString('latin1'), toHex(child));
      if (sparse && !sparse.includes(childPath)) continue;
      if (sparse) markWithParents(written, path);
      if (!odb.has(child) && !kept?.(childPath, child)) missing.add(toHex(child));
    }
  }
  for (const [dir, blob] of attributes) if (written.has(dir)) missing.add(blob);
  return { trees: [...missingTrees], blobs: [...missing] };
}

/** Adds directory `dir` ('' for the top) and those above it to `dirs`. */
function markWithParents(dirs: Set<string>, dir: Buffer): void {
  for (let key = dir.toString('latin1'); !dirs.has(key); key = key.slice(0, Math.max(key.lastIndexOf('/'), 0))) {
    dirs.add(key);
    if (key === '') return;
  }
}
