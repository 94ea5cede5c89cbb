// git's find_objects() (pack-bitmap.c, 2.39): the objects reachable from a list of roots, as bits.
// Roots whose commit has a stored bitmap are ORed in; the other roots, unless already covered,
// start a revision walk whose include check (should_include) stops at every commit that is
// already in the set, in `seen` (the exclude side's result), or has a bitmap of its own (ORed in
// instead). The walked commits' trees are then listed as rev-list --objects lists them, skipping
// any tree or blob already in the set: every set here is closed under reachability.
//
// Objects outside the bitmapped pack get positions past the pack's object count, in the order the
// walk meets them (git's ext_index); both sides of one query share that numbering. The walk's order
// is git's (date-ordered commits, then tags and tip trees/blobs, then each commit's tree depth
// first), because rev-list --use-bitmap-index prints the extra objects in that order.
import { CorruptError, NotFoundError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { parseCommit } from '../../object/commit.js';
import { parseTag } from '../../object/tag.js';
import { TreeCursor } from '../../object/tree.js';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE, typeName, type RawObject } from '../../object/type.js';
import type { ObjectStore, StoredPack } from '../../odb/object-store.js';
import { packNameHash } from '../../pack/name-hash.js';
import { CommitQueue } from '../../walk/commit-queue.js';
import { depthBuffer } from '../../walk/object-walk.js';
import { EntryPath } from '../../walk/entry-path.js';
import { TreeLayouts } from '../../walk/tree-layouts.js';
import { ensureCapacity, OidMap } from '../../walk/oid-map.js';
import { Bitset } from '../../pack/bitmap/bitset.js';
import type { PackBitmap } from '../../pack/bitmap/read.js';

const SEEN = 1;
const ADDED = 2;
const PARSED = 4;

/** git's core.maxTreeDepth default. */
const MAX_TREE_DEPTH = 2048;
const NO_PARENTS = new Int32Array(0);
const NO_PATH = new Uint8Array(0);
const UNKNOWN = -2;

interface Pending {
  index: number;
  /** The tag's name for a tag (its name hash is stored for objects outside the pack), else ''. */
  name: string;
}

/**
 * Every object one query touches, by dense index (one OidMap), with what the walk knows of it.
 * The extended index (objects outside the pack) lives here too, shared by both sides of a query.
 */
export class ObjectTable {
  readonly ids = new OidMap(1 << 10);
  types = new Uint8Array(1 << 10);
  flags = new Uint8Array(1 << 10);
  /** Pack position, -1 when not in the pack, UNKNOWN until looked up. */
  packPos = new Int32Array(1 << 10).fill(UNKNOWN);
  /** Position in the extended index, or -1. */
  extPos = new Int32Array(1 << 10).fill(-1);
  time = new Float64Array(1 << 10);
  seq = new Int32Array(1 << 10);
  tree = new Int32Array(1 << 10);
  parents: Int32Array[] = [];
  /** Extended index: dense index, type and name hash of each object outside the pack. */
  readonly ext: number[] = [];
  readonly extType: number[] = [];
  readonly extHash: number[] = [];
  /**
   * The path each object outside the pack was met at (empty for commits, root trees and tips), for
   * the first `keepPaths` of them: a fetch looks the client's versions of those paths up
   * (server/have-versions.ts). The objects in the pack need none, so a fetch with nothing outside
   * it pays nothing.
   */
  readonly extPath: Uint8Array[] = [];
  /** Name of each tag met while peeling (for its name hash), and what it points to. */
  readonly tagName = new Map<number, string>();
  private readonly tagTarget = new Map<number, number>();

  /**
   * `pack`: the pack the bitmap describes (not for a multi-pack-index bitmap). An object whose
   * position is known is then read at its offset, without looking its id up in the .idx again.
   */
  constructor(readonly odb: ObjectStore, readonly bitmap: PackBitmap, private readonly pack: StoredPack | null = null,
    private readonly keepPaths = 0) {}

  intern(buf: Uint8Array, off: number, type = 0): number {
    let idx = this.ids.addOrGet(buf, off);
    if (idx < 0) {
      idx = ~idx;
      if (idx >= this.types.length) this.grow(idx + 1);
      this.types[idx] = type;
    } else if (type && !this.types[idx]) {
      this.types[idx] = type;
    }
    return idx;
  }

  private grow(n: number): void {
    const old = this.packPos.length;
    this.types = ensureCapacity(this.types, n);
    this.flags = ensureCapacity(this.flags, n);
    this.packPos = ensureCapacity(this.packPos, n);
    this.packPos.fill(UNKNOWN, old);
    this.extPos = ensureCapacity(this.extPos, n);
    this.extPos.fill(-1, old);
    this.time = ensureCapacity(this.time, n);
    this.seq = ensureCapacity(this.seq, n);
    this.tree = ensureCapacity(this.tree, n);
  }

  hex(idx: number): string {
    return toHex(this.ids.keys, idx * OID_BYTES);
  }

  /** Position in the pack, or -1. */
  packPosition(idx: number): number {
    let p = this.packPos[idx]!;
    if (p === UNKNOWN) {
      p = this.bitmap.position(this.ids.keys, idx * OID_BYTES);
      this.packPos[idx] = p;
    }
    return p;
  }

  /** git's bitmap_position(): in the pack, else in the extended index, else -1. */
  position(idx: number): number {
    const p = this.packPosition(idx);
    return p >= 0 ? p : this.extPos[idx]!;
  }

  /**
   * git's ext_index_add_object(): the object's position, giving it an extended one if it has none.
   * path[0..pathLength) (bytes the caller reuses) is the path the object was met at.
   */
  positionOrAdd(idx: number, type: number, nameHash: number, path: Uint8Array = NO_PATH, pathLength = 0): number {
    const p = this.position(idx);
    if (p >= 0) return p;
    const e = this.ext.length;
    this.ext.push(idx);
    this.extType.push(type);
    this.extHash.push(nameHash);
    if (e < this.keepPaths) this.extPath.push(path.slice(0, pathLength));
    this.extPos[idx] = e + this.bitmap.count;
    return e + this.bitmap.count;
  }

  /** The object's type: from the type bitmaps when it is in the pack, else from the database. */
  typeOf(idx: number): number {
    let t = this.types[idx]!;
    if (t) return t;
    const p = this.packPosition(idx);
    if (p >= 0) t = this.bitmap.typeAt(p);
    if (!t) {
      const info = this.odb.info(this.ids.keys, idx * OID_BYTES);
      if (!info) throw new NotFoundError('pack', `bad object ${this.hex(idx)}`);
      t = info.type;
    }
    this.types[idx] = t;
    return t;
  }

  /** `transient`: parsed on the spot, so the odb may hand back a buffer it reuses on the next read. */
  read(idx: number, type: number, transient = false): RawObject | null {
    const pos = this.packPos[idx]!;
    const o = pos >= 0 && this.pack
      ? this.odb.readPacked(this.pack, this.pack.index.offset(this.bitmap.positionToIndex(pos)), transient)
      : this.odb.read(this.ids.keys, idx * OID_BYTES, transient);
    if (o && o.type !== type) {
      throw new CorruptError('pack', `object ${this.hex(idx)} is a ${typeName(o.type)}, not a ${typeName(type)}`);
    }
    return o;
  }

  /** The object a tag points to (interned), remembering the tag's name. */
  peel(idx: number): number {
    const known = this.tagTarget.get(idx);
    if (known !== undefined) return known;
    const o = this.read(idx, OBJ_TAG, true);
    if (!o) throw new NotFoundError('pack', `bad object ${this.hex(idx)}`);
    const t = parseTag(o.data, () => `tag ${this.hex(idx)}`);
    this.tagName.set(idx, t.name);
    const target = this.intern(t.object, 0, t.type);
    this.tagTarget.set(idx, target);
    return target;
  }

  /** Reads a commit's tree, parents and date once; false when it is missing (and that is allowed). */
  parseCommitAt(idx: number, missingOk: boolean): boolean {
    if (this.flags[idx]! & PARSED) return true;
    const o = this.read(idx, OBJ_COMMIT, true);
    if (!o) {
      if (missingOk) return false;
      throw new NotFoundError('pack', `missing commit ${this.hex(idx)}`);
    }
    const c = parseCommit(o.data, () => `commit ${this.hex(idx)}`);
    this.types[idx] = OBJ_COMMIT;
    this.time[idx] = c.time;
    this.tree[idx] = this.intern(c.tree, 0, OBJ_TREE);
    let ps = NO_PARENTS;
    if (c.parents.length) {
      ps = new Int32Array(c.parents.length);
      for (let i = 0; i < ps.length; i++) ps[i] = this.intern(c.parents[i]!, 0, OBJ_COMMIT);
    }
    this.parents[idx] = ps;
    // Interning may have grown the arrays; flags must be set on the current one.
    this.flags[idx]! |= PARSED;
    return true;
  }

  /** Forgets SEEN and ADDED between the two sides of a query (git's reset_revision_walk). */
  resetWalk(): void {
    const f = this.flags;
    for (let i = 0; i < this.ids.size; i++) f[i]! &= ~(SEEN | ADDED);
  }
}

export interface FindOptions {
  /** Objects already known to be excluded (the exclude side's bits), or null. */
  seen: Bitset | null;
  /** The exclude side tolerates missing parents and trees, as git's ignore_missing_links. */
  missingOk: boolean;
  /** List trees and blobs too (false: commits only, as rev-list without --objects). */
  objects: boolean;
}

/**
 * The objects reachable from `roots` (dense indices, in git's order for its object_list of wants
 * or haves), as a bitset of pack and extended positions.
 */
export function findObjects(table: ObjectTable, roots: readonly number[], opts: FindOptions): Bitset {
  const bitmap = table.bitmap;
  let base: Bitset | null = null;
  const notMapped: number[] = [];
  for (const r of roots) {
    if (table.typeOf(r) === OBJ_COMMIT) {
      const p = table.packPosition(r);
      const bits = p >= 0 ? bitmap.bitmapFor(table.ids.keys, r * OID_BYTES) : null;
      if (bits) {
        (base ??= new Bitset(bitmap.count)).or(bits);
        table.flags[r]! |= SEEN;
        continue;
      }
    }
    notMapped.push(r);
  }
  // git prepends each to its not_mapped list: the walk sees them in reverse.
  notMapped.reverse();
  base ??= new Bitset(bitmap.count);
  if (!notMapped.length) return base;
  const pending: number[] = [];
  for (const r of notMapped) {
    const p = table.position(r);
    if (p < 0 || !base.has(p)) pending.push(r);
    else table.flags[r]! |= SEEN;
  }
  if (pending.length) new IncludeWalk(table, base, opts).run(pending);
  return base;
}

/** The revision walk of find_objects, with should_include and should_include_obj as its checks. */
class IncludeWalk {
  private readonly seen: Bitset | null;
  private readonly path = new EntryPath(256);
  /** Entry starts of the trees this walk went through (see walk/tree-layouts.ts), and each depth's tree. */
  private readonly layouts = new TreeLayouts();
  private readonly bufs: Buffer[] = [];

  constructor(private readonly t: ObjectTable, private readonly base: Bitset, private readonly opts: FindOptions) {
    this.seen = opts.seen;
  }

  run(roots: number[]): void {
    const t = this.t;
    // prepare_revision_walk: tags are listed (with --objects) and peeled, commits start the walk,
    // trees and blobs wait for the object pass.
    const pending: Pending[] = [];
    const starts: number[] = [];
    for (let idx of roots) {
      while (t.typeOf(idx) === OBJ_TAG) {
        const target = t.peel(idx);
        if (this.opts.objects) pending.push({ index: idx, name: t.tagName.get(idx)! });
        idx = target;
      }
      const type = t.typeOf(idx);
      if (type === OBJ_COMMIT) {
        if (!(t.flags[idx]! & SEEN)) {
          t.flags[idx]! |= SEEN;
          starts.push(idx);
        }
      } else if (this.opts.objects) {
        pending.push({ index: idx, name: '' });
      }
    }
    for (const c of starts) t.parseCommitAt(c, false);
    // git sorts the starting commits by date, stably, then pops the newest first.
    starts.sort((a, b) => t.time[b]! - t.time[a]!);
    const queue = new CommitQueue(() => t.time, () => t.seq);
    for (const c of starts) queue.push(c);
    const trees: number[] = [];
    while (queue.size) {
      const c = queue.pop();
      this.processParents(c, queue);
      if (this.opts.objects) trees.push(t.tree[c]!);
    }
    for (const p of pending) {
      if (t.flags[p.index]! & SEEN) continue;
      const type = t.types[p.index]!;
      if (type === OBJ_TAG) {
        t.flags[p.index]! |= SEEN;
        this.show(p.index, OBJ_TAG, packNameHash(Buffer.from(p.name, 'utf8')));
      } else if (type === OBJ_TREE) {
        this.processTree(p.index, 0, 0);
      } else {
        this.processBlob(p.index, 0);
      }
    }
    for (const tree of trees) this.processTree(tree, 0, 0);
  }

  private processParents(c: number, queue: CommitQueue): void {
    const t = this.t;
    if (t.flags[c]! & ADDED) return;
    t.flags[c]! |= ADDED;
    if (!this.shouldInclude(c)) return;
    const ps = t.parents[c]!;
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i]!;
      // git gives up on the remaining parents when one is missing (allowed on the exclude side).
      if (!t.parseCommitAt(p, this.opts.missingOk)) return;
      if (t.flags[p]! & SEEN) continue;
      t.flags[p]! |= SEEN;
      queue.push(p);
    }
  }

  /** git's should_include(): false stops the walk at this commit. */
  private shouldInclude(c: number): boolean {
    const t = this.t;
    const pos = t.positionOrAdd(c, OBJ_COMMIT, 0);
    let include = true;
    if ((this.seen && this.seen.has(pos)) || this.base.has(pos)) {
      include = false;
    } else {
      const bits = pos < t.bitmap.count ? t.bitmap.bitmapFor(t.ids.keys, c * OID_BYTES) : null;
      if (bits) {
        this.base.or(bits);
        include = false;
      } else {
        this.base.add(pos);
      }
    }
    if (!include) {
      const ps = t.parents[c]!;
      for (let i = 0; i < ps.length; i++) t.flags[ps[i]!]! |= SEEN;
    }
    return include;
  }

  /** git's should_include_obj(): false when the tree or blob is already in the set or in `seen`. */
  private shouldIncludeObject(idx: number): boolean {
    const pos = this.t.position(idx);
    if (pos < 0) return true;
    if ((this.seen && this.seen.has(pos)) || this.base.has(pos)) {
      this.t.flags[idx]! |= SEEN;
      return false;
    }
    return true;
  }

  /** `pathLength`: the length of the path in this.path that the walk met the object at. */
  private show(idx: number, type: number, nameHash: number, pathLength = 0): void {
    this.base.add(this.t.positionOrAdd(idx, type, nameHash, this.path.bytes, pathLength));
  }

  private processBlob(idx: number, pathLen: number): void {
    const t = this.t;
    if (t.flags[idx]! & SEEN) return;
    if (!this.shouldIncludeObject(idx)) return;
    t.flags[idx]! |= SEEN;
    this.show(idx, OBJ_BLOB, packNameHash(this.path.bytes, 0, pathLen), pathLen);
  }

  private processTree(idx: number, pathLen: number, depth: number): void {
    const t = this.t;
    if (t.flags[idx]! & SEEN) return;
    if (!this.shouldIncludeObject(idx)) return;
    if (depth > MAX_TREE_DEPTH) {
      throw new CorruptError('pack', `tree ${t.hex(idx)} is nested more than ${MAX_TREE_DEPTH} levels deep`);
    }
    const o = t.read(idx, OBJ_TREE, true);
    if (!o) {
      if (this.opts.missingOk) return;
      throw new NotFoundError('pack', `missing tree ${t.hex(idx)}`);
    }
    t.flags[idx]! |= SEEN;
    this.show(idx, OBJ_TREE, packNameHash(this.path.bytes, 0, pathLen), pathLen);
    // As in ObjectWalk: entries a delta copied whole from a tree this walk went through name
    // objects already SEEN (shown, or found in the bitmaps), so only the others are kept.
    const level = this.layouts.prepare(depth, o.data, t.odb.trace);
    const data = depthBuffer(this.bufs, depth, o.data.length);
    const len = level.skipCount > 0 ? level.compact(o.data, data) : (data.set(o.data), o.data.length);
    const starts = level.record ? level.starts : null;
    let n = 0;
    const cur = new TreeCursor(data, 0, len, () => `tree ${t.hex(idx)}`);
    for (;;) {
      // Entries are contiguous: each starts where the last one's id ended.
      if (starts !== null) starts[n] = n === 0 ? 0 : cur.oidOffset + OID_BYTES;
      if (!cur.next()) break;
      n++;
      if (cur.isGitlink()) continue;
      const isTree = cur.isTree();
      const child = t.intern(data, cur.oidOffset, isTree ? OBJ_TREE : OBJ_BLOB);
      if (t.flags[child]! & SEEN) continue;
      const childLen = this.path.child(pathLen, data, cur.nameStart, cur.nameEnd);
      if (isTree) this.processTree(child, childLen, depth + 1);
      else this.processBlob(child, childLen);
    }
    if (starts !== null) level.count = n;
    this.layouts.finish(level);
  }
}
