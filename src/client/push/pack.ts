// What a push sends (git's send-pack running `pack-objects --revs --thin`): every object the new
// tips reach that the remote's refs do not, in git's write order. Stored deltas are reused; an
// object compressed afresh (a new version of a file, usually loose) may go as a delta against
// another version of its path: the one the walk met just before it (its newer version, written
// earlier in this pack), or the one the remote has under the same path in the trees of the
// commits the push builds on (git's preferred bases), looked up path by path, each tree read once.
import { OID_BYTES } from '../../core/oid.js';
import { parseTag } from '../../object/tag.js';
import { TreeCursor } from '../../object/tree.js';
import { OBJ_TAG, OBJ_TREE } from '../../object/type.js';
import type { ObjectDatabase } from '../../odb/database.js';
import { writeOrder } from '../../pack/write/order.js';
import type { PackContents } from '../../pack/write/write.js';
import { ObjectWalk, UNINTERESTING } from '../../walk/object-walk.js';
import { ensureCapacity } from '../../walk/oid-map.js';

/** Trees of more base commits than this are not searched for delta bases. */
const MAX_BASE_TREES = 8;

export interface PushPack {
  contents: PackContents;
  count: number;
}

/** `onCount` sees the enumeration grow ("Enumerating objects"). */
export function enumeratePush(odb: ObjectDatabase, tips: readonly Uint8Array[], haves: readonly Uint8Array[],
  onCount?: (n: number) => void): PushPack {
  const walk = new ObjectWalk(odb);
  for (const t of tips) walk.add(t, '');
  for (const h of haves) if (odb.has(h)) walk.add(h, '', true);
  let list: Int32Array = new Int32Array(1024);
  let n = 0;
  const add = (idx: number): void => {
    if (n === list.length) list = ensureCapacity(list, n + 1);
    list[n++] = idx;
    if ((n & 255) === 0) onCount?.(n);
  };
  // Per sent tree or blob (by walk index): the path it was met at (an index into `paths`), and
  // the object met at that path just before it.
  let pathId: Int32Array = new Int32Array(1024).fill(-1);
  let previous: Int32Array = new Int32Array(1024).fill(-1);
  const paths: string[] = [];
  const lastAt = new Map<string, number>();
  const pathIndex = new Map<string, number>();
  const commits: number[] = [];
  walk.enumerate({
    commit: (_ids, _off, index) => { add(index); commits.push(index); },
    object: (type, ids, off, path, pathLength) => {
      const idx = ids === walk.ids.keys ? off / OID_BYTES : walk.ids.get(ids, off);
      add(idx);
      if (type === OBJ_TAG || pathLength === 0) return;
      const p = Buffer.from(path.buffer, path.byteOffset, pathLength).toString('latin1');
      if (idx >= pathId.length) {
        pathId = grow(pathId, idx + 1);
        previous = grow(previous, idx + 1);
      }
      let id = pathIndex.get(p);
      if (id === undefined) {
        id = paths.length;
        paths.push(p);
        pathIndex.set(p, id);
      }
      pathId[idx] = id;
      const before = lastAt.get(p);
      if (before !== undefined) previous[idx] = before;
      lastAt.set(p, idx);
    },
  });
  onCount?.(n);
  const objects = list.subarray(0, n);
  const tagged = new Set<number>();
  for (let i = 0; i < n; i++) {
    const idx = objects[i]!;
    if (walk.types[idx] !== OBJ_TAG) continue;
    const o = odb.read(walk.ids.keys, idx * OID_BYTES);
    if (o) tagged.add(walk.intern(parseTag(o.data, () => 'tag').object, 0, 0));
  }
  // The remote's versions go into the id table now: the writer sizes its own tables by it.
  const roots = edgeTrees(walk, commits);
  const had = new Map<number, number[]>();
  if (roots.length > 0) {
    const bases = new BaseTrees(odb, walk, roots);
    const byPath = paths.map((p) => bases.lookup(p));
    for (let idx = 0; idx < pathId.length; idx++) {
      const id = pathId[idx]!;
      if (id >= 0 && byPath[id]!.length) had.set(idx, byPath[id]!);
    }
  }
  const { order, restFrom } = writeOrder(objects, (idx) => walk.types[idx]!, (idx) => tagged.has(idx));
  const contents: PackContents = {
    ids: walk.ids,
    order,
    storageOrderFrom: restFrom,
    receiverHas: (idx) => (walk.flags[idx]! & UNINTERESTING) !== 0,
    similar: (idx) => {
      const before = idx < previous.length ? previous[idx]! : -1;
      const theirs = had.get(idx) ?? [];
      return before < 0 ? theirs : [before, ...theirs];
    },
  };
  return { contents, count: n };
}

/** The root trees of the uninteresting commits the new ones build on (git's edge commits). */
function edgeTrees(walk: ObjectWalk, commits: readonly number[]): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (const c of commits) {
    for (const p of walk.parents[c] ?? []) {
      if (!(walk.flags[p]! & UNINTERESTING) || seen.has(p)) continue;
      seen.add(p);
      walk.parseCommitAt(p);
      out.push(walk.trees[p]!);
      if (out.length === MAX_BASE_TREES) return out;
    }
  }
  return out;
}

/** Paths looked up in the base commits' trees; each tree is read and indexed once. */
class BaseTrees {
  private readonly entries = new Map<number, Map<string, number>>();

  constructor(private readonly odb: ObjectDatabase, private readonly walk: ObjectWalk, private readonly roots: readonly number[]) {}

  /** The objects at `path` in any base tree, as walk indices (they are marked uninteresting: the remote has them). */
  lookup(path: string): number[] {
    const out: number[] = [];
    const parts = path.split('/');
    for (const root of this.roots) {
      let at = root;
      for (let i = 0; i < parts.length && at >= 0; i++) at = this.child(at, parts[i]!, i < parts.length - 1);
      if (at >= 0 && !out.includes(at)) out.push(at);
    }
    return out;
  }

  private child(tree: number, name: string, wantTree: boolean): number {
    let names = this.entries.get(tree);
    if (!names) {
      names = new Map();
      this.entries.set(tree, names);
      const o = this.odb.read(this.walk.ids.keys, tree * OID_BYTES);
      if (o && o.type === OBJ_TREE) {
        const data = o.data;
        const cur = new TreeCursor(data, 0, data.length, 'tree');
        while (cur.next()) {
          if (cur.isGitlink()) continue;
          const idx = this.walk.intern(data, cur.oidOffset, cur.isTree() ? OBJ_TREE : 0);
          this.walk.flags[idx]! |= UNINTERESTING;
          names.set(Buffer.from(data.buffer, data.byteOffset + cur.nameStart, cur.nameEnd - cur.nameStart).toString('latin1')
            + (cur.isTree() ? '/' : ''), idx);
        }
      }
    }
    return names.get(wantTree ? `${name}/` : name) ?? (wantTree ? -1 : names.get(`${name}/`) ?? -1);
  }
}

function grow(a: Int32Array, n: number): Int32Array {
  const b = new Int32Array(Math.max(n, a.length * 2)).fill(-1);
  b.set(a);
  return b;
}
