// The versions of a path that a fetching client already has: git's preferred bases
// (pack-objects' add_preferred_base and its pbase trees). A fetch that sends a new version of a
// file should send it as a delta against the client's version when the new one is stored whole,
// as a small push leaves every object (loose). The client's edge commits (the haves it shares
// with the server) name the trees to look in; each sent object's path is looked up in them, tree
// by tree, each tree read once. Both enumerations use it: the walk with the path of every object
// it sends, the bitmap's with the paths of the objects outside the bitmapped pack.
import { OID_BYTES, oidEquals, toHex } from '../core/oid.js';
import { parseCommit } from '../object/commit.js';
import { findTreeEntry } from '../object/tree.js';
import { OBJ_COMMIT, OBJ_TREE } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';

/** Edge trees looked in, at most: git's pack.window bounds its preferred base trees too. */
const MAX_EDGES = 10;

/**
 * Past this many objects a fetch's paths are no longer kept: a fetch that large is mostly a clone,
 * whose objects come from the packs as they are stored.
 */
export const MAX_PATHS_KEPT = 100_000;

/** Where an enumeration met an object: its path (bytes, '/'-separated), and whether it is a tree. */
export interface ObjectPath {
  readonly path: Uint8Array;
  readonly tree: boolean;
}

/**
 * PackContents.hadVersions for the objects (by index) whose paths an enumeration kept: the versions
 * of each path in the trees of `haves` (ids of what the client has), which are read only when the
 * writer first asks.
 */
export function hadVersionsOf(odb: ObjectStore, haves: () => readonly Uint8Array[],
  paths: ReadonlyMap<number, ObjectPath>): (idx: number) => readonly Uint8Array[] {
  let versions: HaveVersions | null = null;
  return (idx) => {
    const p = paths.get(idx);
    if (!p) return [];
    versions ??= new HaveVersions(odb, haves());
    return versions.at(p.path, p.tree);
  };
}

export class HaveVersions {
  private readonly roots: Uint8Array[] = [];
  /** Tree contents by id (hex), read once. */
  private readonly trees = new Map<string, Uint8Array>();

  /** `haves`: ids of objects the client has; the first commits among them give the trees. */
  constructor(private readonly odb: ObjectStore, haves: readonly Uint8Array[]) {
    for (const id of haves) {
      if (this.roots.length === MAX_EDGES) break;
      const o = this.odb.read(id, 0);
      if (o?.type !== OBJ_COMMIT) continue;
      const tree = parseCommit(o.data, () => `commit ${toHex(id, 0)}`).tree;
      if (!this.roots.some((r) => oidEquals(r, 0, tree, 0))) this.roots.push(tree);
    }
  }

  /**
   * Ids of the objects at `path` (bytes, '/'-separated) in the edge trees, trees or not as `tree`
   * says. The empty path names the root trees themselves, as git's preferred bases include them.
   */
  at(path: Uint8Array, tree: boolean): Uint8Array[] {
    const found: Uint8Array[] = [];
    for (const root of this.roots) {
      const id = this.lookup(root, path, tree);
      if (id && !found.some((f) => oidEquals(f, 0, id, 0))) found.push(id);
    }
    return found;
  }

  private lookup(root: Uint8Array, path: Uint8Array, wantTree: boolean): Uint8Array | null {
    if (path.length === 0) return wantTree ? root : null;
    let id = root;
    let from = 0;
    for (;;) {
      let to = path.indexOf(0x2f, from);
      const last = to < 0;
      if (last) to = path.length;
      const data = this.tree(id);
      if (!data) return null;
      const tree = id;
      const c = findTreeEntry(data, path, from, to, () => `tree ${toHex(tree, 0)}`);
      if (!c || c.isGitlink() || (last ? c.isTree() !== wantTree : !c.isTree())) return null;
      const next = data.subarray(c.oidOffset, c.oidOffset + OID_BYTES);
      if (last) return next;
      id = next;
      from = to + 1;
    }
  }

  private tree(id: Uint8Array): Uint8Array | null {
    const key = toHex(id, 0);
    let data = this.trees.get(key);
    if (!data) {
      const o = this.odb.read(id, 0);
      if (o?.type !== OBJ_TREE) return null;
      data = o.data;
      this.trees.set(key, data);
    }
    return data;
  }
}
