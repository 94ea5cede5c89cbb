// What a push sends (git's send-pack running `pack-objects --revs --thin`): every object the new
// tips reach that the remote's refs do not, in git's write order.
//   1. the commits: the walk's, new tips against the remote's refs;
//   2. what the remote has: git's sparse marking (pack.useSparse, its default): the trees of the
//      new commits and of the remote's commits they build on are read side by side, path by
//      path, only where both kinds are present, and every entry of a remote tree there is the
//      remote's. Unchanged directories are never read;
//   3. the objects: each new commit's tree depth-first, leaving out what the remote has, with the
//      path each object was met at.
// Stored deltas are reused; an object compressed afresh (a new version of a file, usually loose)
// may go as a delta against another version of its path: the one met just before it (its newer
// version, written earlier in this pack), or the one the remote has there (git's preferred bases).
import { CorruptError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { parseTag } from '../../object/tag.js';
import { TreeCursor } from '../../object/tree.js';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { writeOrder } from '../../packing/write/order.js';
import type { PackContents } from '../../packing/write/write.js';
import { MAX_TREE_DEPTH, ObjectWalk, SHOWN, UNINTERESTING } from '../../walk/object-walk.js';
import { ensureCapacity } from '../../walk/oid-map.js';

export interface PushPack {
  contents: PackContents;
  count: number;
}

interface Entry {
  name: string;
  index: number;
  type: number;
}

/**
 * `shallow`: this repository's boundary, whose commits have no parents here. `onCount` sees the
 * enumeration grow ("Enumerating objects").
 */
export function enumeratePush(odb: ObjectStore, tips: readonly Uint8Array[], haves: readonly Uint8Array[],
  shallow: readonly Uint8Array[], onCount?: (n: number) => void): PushPack {
  const walk = new ObjectWalk(odb, 4096);
  walk.setShallow(shallow);
  const e = new Enumeration(odb, walk, onCount);
  for (const h of haves) if (odb.has(h)) e.have(h);
  const roots = e.peelTips(tips);
  for (const t of roots.commits) walk.add(walk.ids.keys.subarray(t * OID_BYTES, t * OID_BYTES + OID_BYTES), '');
  for (const h of e.haveCommits) walk.add(walk.ids.keys.subarray(h * OID_BYTES, h * OID_BYTES + OID_BYTES), '', true);
  const commits = roots.commits.length ? walk.commits() : new Int32Array(0);
  for (const c of commits) e.add(c);
  e.markSparse(commits);
  for (const c of commits) e.visitTree(walk.trees[c]!, '', 0);
  for (const r of roots.others) e.visitRoot(r);
  onCount?.(e.count);
  return { contents: e.contents(), count: e.count };
}

class Enumeration {
  private list: Int32Array = new Int32Array(1024);
  count = 0;
  /** The remote's commits (peeled from its refs). */
  readonly haveCommits: number[] = [];
  private readonly tagged = new Set<number>();
  // Per sent tree or blob: the path it was met at (an index into `paths`), and the object met at
  // that path just before it; per path, what the remote has there (found while marking).
  private pathId: Int32Array = new Int32Array(1024).fill(-1);
  private previous: Int32Array = new Int32Array(1024).fill(-1);
  private readonly paths: string[] = [];
  private readonly pathIndex = new Map<string, number>();
  private readonly lastAt = new Map<string, number>();
  private readonly theirsAt = new Map<string, number[]>();
  private readonly entries = new Map<number, Entry[]>();

  constructor(private readonly odb: ObjectStore, private readonly walk: ObjectWalk, private readonly onCount?: (n: number) => void) {}

  add(idx: number): void {
    if (this.count === this.list.length) this.list = ensureCapacity(this.list, this.count + 1);
    this.list[this.count++] = idx;
    if ((this.count & 255) === 0) this.onCount?.(this.count);
  }

  private flags(idx: number): number {
    return this.walk.flags[idx]!;
  }

  private mark(idx: number, flag: number): void {
    this.walk.flags[idx]! |= flag;
  }

  /** A remote ref's object: the remote has it, and (peeled) what it points at. */
  have(id: Uint8Array): void {
    let idx = this.walk.intern(id, 0, 0);
    for (let i = 0; i < 64; i++) {
      this.mark(idx, UNINTERESTING);
      const type = this.typeOf(idx);
      if (type === OBJ_COMMIT) { this.haveCommits.push(idx); return; }
      if (type !== OBJ_TAG) return;
      idx = this.walk.intern(this.tagTarget(idx), 0, 0);
    }
  }

  /** The new tips, tags shown and peeled: the commits to walk, and trees or blobs pushed as such. */
  peelTips(tips: readonly Uint8Array[]): { commits: number[]; others: number[] } {
    const commits: number[] = [], others: number[] = [];
    for (const t of tips) {
      let idx = this.walk.intern(t, 0, 0);
      for (let i = 0; i < 64 && this.typeOf(idx) === OBJ_TAG; i++) {
        const target = this.walk.intern(this.tagTarget(idx), 0, 0);
        this.tagged.add(target);
        if (!(this.flags(idx) & (UNINTERESTING | SHOWN))) { this.mark(idx, SHOWN); this.add(idx); }
        idx = target;
      }
      (this.typeOf(idx) === OBJ_COMMIT ? commits : others).push(idx);
    }
    return { commits, others };
  }

  private typeOf(idx: number): number {
    let t = this.walk.types[idx]!;
    if (!t) {
      const info = this.odb.info(this.walk.ids.keys, idx * OID_BYTES);
      if (!info) throw new CorruptError('client', `cannot push object ${toHex(this.walk.ids.keys, idx * OID_BYTES)}: it does not exist`);
      t = this.walk.types[idx] = info.type;
    }
    return t;
  }

  private tagTarget(idx: number): Uint8Array {
    const o = this.odb.mustRead(this.walk.ids.keys, idx * OID_BYTES, OBJ_TAG);
    return parseTag(o.data, () => `tag ${toHex(this.walk.ids.keys, idx * OID_BYTES)}`).object;
  }

  /** A tree's entries (gitlinks left out), read once. */
  private children(tree: number): Entry[] {
    let list = this.entries.get(tree);
    if (list) return list;
    list = [];
    const o = this.odb.mustRead(this.walk.ids.keys, tree * OID_BYTES, OBJ_TREE);
    const data = o.data;
    const cur = new TreeCursor(data, 0, data.length, () => `tree ${toHex(this.walk.ids.keys, tree * OID_BYTES)}`);
    while (cur.next()) {
      if (cur.isGitlink()) continue;
      const type = cur.isTree() ? OBJ_TREE : OBJ_BLOB;
      const name = Buffer.from(data.buffer, data.byteOffset + cur.nameStart, cur.nameEnd - cur.nameStart).toString('latin1');
      list.push({ name, index: this.walk.intern(data, cur.oidOffset, type), type });
    }
    this.entries.set(tree, list);
    return list;
  }

  /**
   * git's mark_edges_uninteresting with sparse: the trees of the new commits and of the remote's
   * commits they have as parents, compared path by path (mark_trees_uninteresting_sparse).
   */
  markSparse(commits: Int32Array): void {
    const walk = this.walk;
    const set = new Set<number>();
    for (const c of commits) {
      set.add(walk.trees[c]!);
      for (const p of walk.parents[c] ?? []) {
        if (!(this.flags(p) & UNINTERESTING)) continue;
        walk.parseCommitAt(p);
        this.mark(walk.trees[p]!, UNINTERESTING);
        set.add(walk.trees[p]!);
      }
    }
    this.sparse(set, '', 0);
  }

  private sparse(trees: ReadonlySet<number>, path: string, depth: number): void {
    let interesting = false, uninteresting = false;
    for (const t of trees) {
      if (this.flags(t) & UNINTERESTING) uninteresting = true; else interesting = true;
    }
    if (!interesting || !uninteresting) return;
    if (depth > MAX_TREE_DEPTH) throw new CorruptError('client', `trees are nested more than ${MAX_TREE_DEPTH} levels deep at ${path}`);
    const byName = new Map<string, Set<number>>();
    for (const t of trees) {
      const theirs = (this.flags(t) & UNINTERESTING) !== 0;
      for (const c of this.children(t)) {
        const at = path === '' ? c.name : `${path}/${c.name}`;
        if (theirs) {
          this.mark(c.index, UNINTERESTING);
          const known = this.theirsAt.get(at);
          if (!known) this.theirsAt.set(at, [c.index]); else if (!known.includes(c.index)) known.push(c.index);
        }
        if (c.type !== OBJ_TREE) continue;
        let s = byName.get(c.name);
        if (!s) byName.set(c.name, s = new Set());
        s.add(c.index);
      }
    }
    for (const [name, subtrees] of byName) this.sparse(subtrees, path === '' ? name : `${path}/${name}`, depth + 1);
  }

  /**
   * A new commit's tree, depth-first, without what the remote has or what was already met. Each
   * tree is met once here, so what marking read is dropped after use and the rest is not kept.
   */
  visitTree(tree: number, path: string, depth: number): void {
    if (this.flags(tree) & (UNINTERESTING | SHOWN)) return;
    if (depth > MAX_TREE_DEPTH) throw new CorruptError('client', `trees are nested more than ${MAX_TREE_DEPTH} levels deep at ${path}`);
    this.show(tree, path);
    const cached = this.entries.get(tree);
    if (cached) {
      this.entries.delete(tree);
      for (const c of cached) this.visitEntry(c.index, c.type, c.name, path, depth);
      return;
    }
    const data = this.odb.mustRead(this.walk.ids.keys, tree * OID_BYTES, OBJ_TREE).data;
    const cur = new TreeCursor(data, 0, data.length, () => `tree ${toHex(this.walk.ids.keys, tree * OID_BYTES)}`);
    while (cur.next()) {
      if (cur.isGitlink()) continue;
      const type = cur.isTree() ? OBJ_TREE : OBJ_BLOB;
      const idx = this.walk.intern(data, cur.oidOffset, type);
      if (this.flags(idx) & (UNINTERESTING | SHOWN)) continue;
      this.visitEntry(idx, type, Buffer.from(data.buffer, data.byteOffset + cur.nameStart, cur.nameEnd - cur.nameStart).toString('latin1'), path, depth);
    }
  }

  private visitEntry(idx: number, type: number, name: string, path: string, depth: number): void {
    if (this.flags(idx) & (UNINTERESTING | SHOWN)) return;
    const at = path === '' ? name : `${path}/${name}`;
    if (type === OBJ_TREE) this.visitTree(idx, at, depth + 1);
    else this.show(idx, at);
  }

  /** A tree or blob pushed by itself (a ref pointing at it, or a tag of one). */
  visitRoot(idx: number): void {
    if (this.typeOf(idx) === OBJ_TREE) this.visitTree(idx, '', 0);
    else if (!(this.flags(idx) & (UNINTERESTING | SHOWN))) this.show(idx, '');
  }

  private show(idx: number, path: string): void {
    this.mark(idx, SHOWN);
    this.add(idx);
    if (path === '') return;
    if (idx >= this.pathId.length) {
      this.pathId = grow(this.pathId, idx + 1);
      this.previous = grow(this.previous, idx + 1);
    }
    let id = this.pathIndex.get(path);
    if (id === undefined) {
      id = this.paths.length;
      this.paths.push(path);
      this.pathIndex.set(path, id);
    }
    this.pathId[idx] = id;
    const before = this.lastAt.get(path);
    if (before !== undefined) this.previous[idx] = before;
    this.lastAt.set(path, idx);
  }

  contents(): PackContents {
    const walk = this.walk;
    const objects = this.list.subarray(0, this.count);
    const { order, restFrom } = writeOrder(objects, (idx) => walk.types[idx]!, (idx) => this.tagged.has(idx));
    return {
      ids: walk.ids,
      order,
      storageOrderFrom: restFrom,
      receiverHas: (idx) => (walk.flags[idx]! & UNINTERESTING) !== 0,
      similar: (idx) => {
        const before = idx < this.previous.length ? this.previous[idx]! : -1;
        const id = idx < this.pathId.length ? this.pathId[idx]! : -1;
        const theirs = id >= 0 ? this.theirsAt.get(this.paths[id]!) ?? [] : [];
        return before < 0 ? theirs : [before, ...theirs];
      },
    };
  }
}

function grow(a: Int32Array, n: number): Int32Array {
  const b = new Int32Array(Math.max(n, a.length * 2)).fill(-1);
  b.set(a);
  return b;
}
