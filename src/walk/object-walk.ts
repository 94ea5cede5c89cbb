// The revision walk and object enumeration, as `git rev-list [--objects]` does them:
//   1. tips are peeled (tag objects kept for output) and split into commits and other objects;
//   2. commits come out of a date-ordered queue; with excluded tips the walk is "limited": it goes
//      on until only uninteresting commits remain (plus git's slop of 5), marking their ancestors;
//   3. with objects, the trees of uninteresting edge commits are marked uninteresting first, then
//      tags and tips that are trees or blobs, then each commit's root tree depth-first, each object
//      once, with the path git prints beside it.
// Every object gets a dense index in one OidMap; per-object state lives in parallel typed arrays.
// Ids are never turned into strings here.
import { CorruptError, NotFoundError } from '../core/errors.js';
import { OID_BYTES, toHex } from '../core/oid.js';
import { CommitScan } from '../object/commit.js';
import { parseTag } from '../object/tag.js';
import { canonicalMode, MODE_GITLINK, MODE_TREE, TreeCursor } from '../object/tree.js';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE, typeName } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';
import { CommitQueue } from './commit-queue.js';
import { ensureCapacity, OidMap } from './oid-map.js';
import { EntryPath } from './entry-path.js';
import type { PromisorObjects } from './promisor-objects.js';
import { TreeLayouts, type TreeLevel } from './tree-layouts.js';
import type { TreeReadAhead } from './tree-read-ahead.js';
import type { CommitReadAhead } from './commit-read-ahead.js';
import { COMMIT, deserializeError, END, FAILED, TOO_BIG, TREE, type TreeRingReader } from './tree-stream.js';

/** Starts the commit walk's worker from the walk's starting commits and shallow boundary (ids back to back). */
export type CommitWorkerStart = (starts: Uint8Array, shallow: Uint8Array) => CommitReadAhead;

/**
 * Reads an object for parsing on the spot: the data is valid only until the next read (the odb
 * reuses its buffers, and a walk reads half a million trees: allocating each cost more than
 * inflating it).
 */
export function readObjectOfType(odb: ObjectStore, ids: Uint8Array, off: number, type: number) {
  const o = odb.read(ids, off, true);
  if (!o) throw new NotFoundError('walk', `missing ${type ? typeName(type) : 'object'} ${toHex(ids, off)}`);
  if (type && o.type !== type) {
    throw new CorruptError('walk', `object ${toHex(ids, off)} is a ${typeName(o.type)}, not a ${typeName(type)}`);
  }
  return o;
}

/**
 * The buffer of tree level `depth` in `bufs`, at least `size` bytes: each level keeps its tree
 * while its subtrees are read (reads reuse the odb's buffer), and reuses it for the next tree.
 */
export function depthBuffer(bufs: Buffer[], depth: number, size: number): Buffer {
  let data = bufs[depth];
  if (!data || data.length < size) data = bufs[depth] = Buffer.allocUnsafeSlow(Math.max(4096, size * 2));
  return data;
}

export const SEEN = 1;
export const UNINTERESTING = 2;
export const PARSED = 4;
/** A tree or blob that has been shown (or deliberately skipped). */
export const SHOWN = 8;
/** A commit listed in $GIT_DIR/shallow: its parents are not there, and are not followed. */
export const SHALLOW = 16;

/**
 * What a walk keeps of what it reads. It reads each tree once, newest first, and older versions
 * are deltas against newer ones: the last few versions of each directory are all the delta base
 * cache it needs. And it reads the pack in about its order (commits, then each commit's new
 * trees), as a pack writer then reads entry headers in offset order: no window is read twice with
 * 16 MiB of them, whose buffers are reused instead of new memory faulted in for every 16 KiB of
 * the pack (a full clone of large allocated 20,000, 400 ms and 250 MiB). On history and large
 * neither bound cost CPU.
 */
export const WALK_CACHE_BYTES = 16 * 1024 * 1024;
export const WALK_WINDOW_BYTES = 16 * 1024 * 1024;
/**
 * The windows of a walk of commits alone (rev-list without --objects, the commit worker): commits
 * are read in about pack order and never again, so a few windows do (2,200 new ones were faulted
 * in for large's commits).
 */
export const COMMIT_WALK_WINDOW_BYTES = 1024 * 1024;

/** Bounds `odb`'s delta base cache and pack windows to a walk's needs (above). */
export function boundReadsForWalk(odb: ObjectStore, windowBytes = WALK_WINDOW_BYTES): void {
  odb.cache.setLimit(WALK_CACHE_BYTES);
  odb.limitPackWindows(windowBytes);
}

/** How many root trees the worker of enumerate(…, ahead) is kept ahead of this thread. */
const READ_AHEAD_ROOTS = 256;
/** git stops a limited walk this many commits after only uninteresting ones remain. */
const SLOP = 5;
/** git's core.maxTreeDepth default: deeper trees are refused rather than recursed into. */
export const MAX_TREE_DEPTH = 2048;

export interface ObjectVisitor {
  commit?(ids: Uint8Array, offset: number, index: number): void;
  /**
   * With trees read ahead (see enumerate), objects may be visited before this is called; after
   * it, no more commits come.
   */
  commitsDone?(): void;
  /** A tag, tree or blob; `path` holds `pathLength` bytes of the name git prints beside it. */
  object?(type: number, ids: Uint8Array, offset: number, path: Uint8Array, pathLength: number): void;
}

interface Tip {
  index: number;
  name: string;
  uninteresting: boolean;
}

export class ObjectWalk {
  readonly ids: OidMap;
  flags: Uint8Array;
  types: Uint8Array;
  time = new Float64Array(1 << 10);
  seq = new Int32Array(1 << 10);
  trees = new Int32Array(1 << 10);
  parents: (Int32Array | null)[] = [];
  private tips: Tip[] = [];
  /** The commits setShallow() marked, for a walk on a worker thread (which marks them too). */
  private shallow: number[] = [];
  /** See excludePromisorObjects(). */
  private promisor: PromisorObjects | null = null;
  private pending: { index: number; name: string }[] = [];
  private start: number[] = [];
  private limited = false;
  private readonly path = new EntryPath(4096);
  /** processTree's tree bytes by depth: each level keeps its tree while its subtrees are read. */
  private treeBufs: Buffer[] = [];
  /** The worker's trees, while enumerate() reads them from it. */
  private stream: TreeRingReader | null = null;
  /** Entry starts of listed trees, to skip what deltas against them copied (see tree-layouts.ts). */
  readonly layouts = new TreeLayouts();
  private readonly commitScan = new CommitScan();
  /** The commit being parsed, named by commitLabel (one closure, not one per commit). */
  private labelIndex = 0;
  private readonly commitLabel = () => `commit ${this.hex(this.labelIndex)}`;

  /** `expected`: the objects its table is sized for at first (it grows past them as needed). */
  constructor(private readonly odb: ObjectStore, expected = 1 << 16) {
    this.ids = new OidMap(expected);
    this.flags = new Uint8Array(expected);
    this.types = new Uint8Array(expected);
  }

  /**
   * Sizes the tables for `n` objects at once (a walk over a whole repository: its packed object
   * count), instead of growing them as objects come.
   */
  reserve(n: number): void {
    this.ids.reserve(n);
    this.flags = ensureCapacity(this.flags, n);
    this.types = ensureCapacity(this.types, n);
  }

  /**
   * For a walk that will reach most of the repository (every ref, nothing excluded): the pack
   * indexes are read whole now, and with `objects` the tables sized for every packed object. An
   * index is otherwise searched in small reads until twice as many lookups as it has pages (which
   * suits a fresh process that looks up a few thousand ids): on large that was 9,600 reads and
   * 180 ms of a commit walk that then read the file whole anyway.
   */
  wholeRepository(objects: boolean): void {
    for (const pack of this.odb.allPacks()) pack.index.loadAll();
    if (objects) this.reserve(this.odb.packedObjectCount());
  }

  /** Adds a starting point: any object id; `name` is what git calls it in output (ref or tag name). */
  add(oid: Uint8Array, name: string, uninteresting = false): void {
    const index = this.intern(oid, 0, 0);
    this.tips.push({ index, name, uninteresting });
    if (uninteresting) this.limited = true;
  }

  /** Marks commits as shallow boundaries (git's grafts from $GIT_DIR/shallow). */
  setShallow(ids: Iterable<Uint8Array>): void {
    for (const id of ids) {
      const idx = this.intern(id, 0, OBJ_COMMIT);
      this.flags[idx]! |= SHALLOW;
      this.shallow.push(idx);
    }
  }

  /**
   * git's --exclude-promisor-objects, before anything is added: what a promisor pack holds is
   * neither walked nor listed (as if excluded), and a missing object that was promised is passed
   * by. Trees are then read on this thread (the read-ahead workers know nothing of promises).
   */
  excludePromisorObjects(promisor: PromisorObjects): void {
    this.promisor = promisor;
  }

  /** Index of an id, adding it with `type` (0 if not yet known). */
  intern(buf: Uint8Array, off: number, type: number): number {
    let idx = this.ids.addOrGet(buf, off);
    if (idx < 0) {
      idx = ~idx;
      if (idx >= this.flags.length) {
        this.flags = ensureCapacity(this.flags, idx + 1);
        this.types = ensureCapacity(this.types, idx + 1);
      }
      this.types[idx] = type;
      // git marks every object of the promisor packs so before it walks.
      if (this.promisor !== null && this.promisor.holds(buf, off)) this.flags[idx] = UNINTERESTING | SEEN;
    }
    return idx;
  }

  /** With promisor objects excluded: whether the object is missing and was promised, to be passed by. */
  private passedBy(idx: number): boolean {
    const keys = this.ids.keys, at = idx * OID_BYTES;
    return this.promisor !== null && !this.odb.has(keys, at) && this.promisor.promised(keys, at);
  }

  private hex(index: number): string {
    return toHex(this.ids.keys, index * OID_BYTES);
  }

  /** An object of `type` (0: any), valid until the next read. */
  private read(index: number, type: number) {
    return readObjectOfType(this.odb, this.ids.keys, index * OID_BYTES, type);
  }

  /** Reads a commit's tree, parents and time once. */
  parseCommitAt(idx: number): void {
    if (this.flags[idx]! & PARSED) return;
    const o = this.read(idx, OBJ_COMMIT);
    const c = this.commitScan;
    this.labelIndex = idx;
    c.scan(o.data, this.commitLabel);
    this.flags[idx]! |= PARSED;
    // Room for the commit's parents and tree, which may be new to the table.
    if (this.time.length < this.ids.size + c.parentCount + 2) {
      const n = this.ids.size + c.parentCount + 2;
      this.time = ensureCapacity(this.time, n);
      this.seq = ensureCapacity(this.seq, this.time.length);
      this.trees = ensureCapacity(this.trees, this.time.length);
    }
    this.time[idx] = c.time;
    const ps = new Int32Array(this.flags[idx]! & SHALLOW ? 0 : c.parentCount);
    for (let i = 0; i < ps.length; i++) ps[i] = this.intern(c.parents, i * OID_BYTES, OBJ_COMMIT);
    this.parents[idx] = ps;
    this.trees[idx] = this.intern(c.tree, 0, OBJ_TREE);
  }

  /** Step 1: peel tips; commits become starting points, tags/trees/blobs pending objects. */
  private prepare(objects: boolean): void {
    for (const tip of this.tips) {
      let idx = tip.index;
      const flag = tip.uninteresting ? UNINTERESTING : 0;
      let type = this.types[idx] || this.objectType(idx);
      while (type === OBJ_TAG) {
        this.types[idx] = OBJ_TAG;
        const o = this.read(idx, OBJ_TAG);
        const t = parseTag(o.data, () => `tag ${this.hex(idx)}`);
        if (objects && !tip.uninteresting) this.pending.push({ index: idx, name: t.name });
        this.flags[idx]! |= flag;
        idx = this.intern(t.object, 0, 0);
        type = this.types[idx] || this.objectType(idx);
      }
      if (type === 0) continue;
      this.types[idx] = type;
      // An excluded tree is marked with everything below it (markTreeUninteresting stops at a
      // tree already marked, so the flag is not set here first).
      if (!(tip.uninteresting && type === OBJ_TREE)) this.flags[idx]! |= flag;
      if (type === OBJ_COMMIT) {
        if (!(this.flags[idx]! & SEEN)) {
          this.flags[idx]! |= SEEN;
          this.start.push(idx);
        }
      } else if (objects) {
        if (tip.uninteresting) {
          if (type === OBJ_TREE) this.markTreeUninteresting(idx);
          else this.flags[idx]! |= UNINTERESTING;
        } else {
          this.pending.push({ index: idx, name: '' });
        }
      }
    }
  }

  /** The type of an object named by a tip; 0 for one passed by (see excludePromisorObjects). */
  private objectType(idx: number): number {
    const info = this.odb.info(this.ids.keys, idx * OID_BYTES);
    if (info) return info.type;
    if (this.passedBy(idx)) return 0;
    throw new NotFoundError('walk', `bad object ${this.hex(idx)}`);
  }

  /** Step 2: the commits to show, in git's order. */
  commits(): Int32Array {
    this.prepare(false);
    return this.walkCommits();
  }

  /**
   * The commits of a walk without exclusions, each handed to `onShow` as soon as it is found: in
   * such a walk a commit is final when it comes out of the queue (the walk of commit-walk-worker.ts).
   */
  streamCommits(onShow: (idx: number) => void): void {
    if (this.limited) throw new Error('streamCommits: a walk with exclusions shows its commits only at its end');
    this.prepare(false);
    this.walkCommits(onShow);
  }

  /** `onShow` hears of each commit to be shown as it is found (unlimited walks only: see enumerate). */
  private walkCommits(onShow?: (idx: number) => void): Int32Array {
    for (const idx of this.start) this.parseCommitAt(idx);
    const queue = new CommitQueue(() => this.time, () => this.seq);
    // git sorts the starting commits by date, stably, before walking.
    const starts = this.start.slice().sort((a, b) => this.time[b]! - this.time[a]!);
    for (const idx of starts) queue.push(idx);
    let out = new Int32Array(1024);
    let n = 0;
    let slop = SLOP;
    let lastDate = Infinity;
    const flags = () => this.flags;
    while (queue.size) {
      const c = queue.pop();
      const uninteresting = (flags()[c]! & UNINTERESTING) !== 0;
      const ps = this.parents[c]!;
      for (let i = 0; i < ps.length; i++) {
        const p = ps[i]!;
        if (uninteresting) {
          if (flags()[p]! & PARSED) this.markParentsUninteresting(p);
          this.flags[p]! |= UNINTERESTING;
        }
        if (flags()[p]! & SEEN) continue;
        this.flags[p]! |= SEEN;
        if (this.promisor !== null && this.passedBy(p)) continue;
        this.parseCommitAt(p);
        queue.push(p);
      }
      if (uninteresting) {
        if (!this.limited) continue;
        slop = this.stillInteresting(queue, lastDate, slop);
        if (slop) continue;
        break;
      }
      lastDate = this.time[c]!;
      if (n === out.length) out = ensureCapacity(out, n + 1);
      out[n++] = c;
      onShow?.(c);
    }
    // A commit shown early can be reached later from an uninteresting one (clock skew); git drops it.
    let k = 0;
    for (let i = 0; i < n; i++) if (!(this.flags[out[i]!]! & UNINTERESTING)) out[k++] = out[i]!;
    return out.subarray(0, k);
  }

  private stillInteresting(queue: CommitQueue, lastDate: number, slop: number): number {
    if (!queue.size) return 0;
    // The newest queued commit is the heap's top; peeking is a pop and a push without the seq change,
    // so compare against every entry instead (the queue is small when this matters).
    let newest = -Infinity;
    let anyInteresting = false;
    queue.forEach(idx => {
      if (this.time[idx]! > newest) newest = this.time[idx]!;
      if (!(this.flags[idx]! & UNINTERESTING)) anyInteresting = true;
      return true;
    });
    if (lastDate <= newest) return SLOP;
    if (anyInteresting) return SLOP;
    return slop - 1;
  }

  /** Propagates UNINTERESTING to every already-parsed ancestor, without recursion. */
  private markParentsUninteresting(start: number): void {
    const stack = [start];
    while (stack.length) {
      const c = stack.pop()!;
      const ps = this.parents[c];
      if (!ps) continue;
      for (let i = 0; i < ps.length; i++) {
        const p = ps[i]!;
        if (this.flags[p]! & UNINTERESTING) continue;
        this.flags[p]! |= UNINTERESTING;
        if (this.flags[p]! & PARSED) stack.push(p);
      }
    }
  }

  /**
   * Step 3: every commit, then tags and tip trees/blobs, then each commit's tree. With `maxCount`
   * (git's -n) only the first commits are shown and only their trees are listed; edges still come
   * from the whole limited walk, as git marks them before it starts counting. With `ahead`, trees
   * are read on its worker while this thread walks commits and lists entries, when the walk has
   * no exclusions; then objects are visited among commits (see enumerateAhead). `ahead` is
   * closed on return either way. Otherwise, with `commitsAhead` and neither exclusions nor
   * `maxCount`, the commits are walked on the worker it starts, and objects are visited among
   * commits too (see enumerateWithCommitWorker).
   */
  enumerate(visitor: ObjectVisitor, maxCount = -1, ahead?: TreeReadAhead, commitsAhead?: CommitWorkerStart): void {
    let commitWorker: CommitReadAhead | undefined;
    try {
      this.prepare(true);
      if (ahead && !this.limited && this.promisor === null) this.enumerateAhead(ahead, visitor, maxCount);
      else if (commitsAhead && !this.limited && maxCount < 0 && this.promisor === null) {
        commitWorker = commitsAhead(this.idsOf(this.start), this.idsOf(this.shallow));
        this.enumerateWithCommitWorker(commitWorker, visitor);
      } else this.enumerateObjects(this.walkCommits(), visitor, maxCount);
    } finally {
      this.stream = null;
      ahead?.close();
      commitWorker?.close();
    }
  }

  /** The ids of `indices`, back to back. */
  private idsOf(indices: readonly number[]): Uint8Array {
    const out = new Uint8Array(indices.length * OID_BYTES);
    indices.forEach((idx, i) => out.set(this.ids.keys.subarray(idx * OID_BYTES, (idx + 1) * OID_BYTES), i * OID_BYTES));
    return out;
  }

  /**
   * enumerate() with the commits walked on a worker (see commit-read-ahead.ts). Every commit the
   * worker has shown is visited before the next root tree is listed, so commits come out as fast
   * as the worker finds them and commitsDone comes when it is done: objects listed before that are
   * the only ones the caller must hold back. Trees are listed in the order enumerateObjects lists
   * them.
   */
  private enumerateWithCommitWorker(ahead: CommitReadAhead, visitor: ObjectVisitor): void {
    const reader = ahead.reader;
    this.showPending(visitor);
    let roots = new Int32Array(1024), queued = 0, done = 0, ended = false;
    for (;;) {
      // Wait for the worker only when there is no tree to list meanwhile.
      while (!ended && (done === queued || reader.ready())) {
        const kind = reader.peek();
        if (kind === END) {
          reader.release();
          ended = true;
          visitor.commitsDone?.();
          break;
        }
        if (kind !== COMMIT) throw reader.error();
        const c = this.intern(reader.bytes, reader.idAt(), OBJ_COMMIT);
        const tree = this.intern(reader.bytes, reader.dataAt(), OBJ_TREE);
        reader.release();
        visitor.commit?.(this.ids.keys, c * OID_BYTES, c);
        if (queued === roots.length) roots = ensureCapacity(roots, queued + 1);
        roots[queued++] = tree;
      }
      if (done === queued) break;
      this.processTree(roots[done++]!, 0, 0, visitor);
    }
  }

  private enumerateObjects(list: Int32Array, visitor: ObjectVisitor, maxCount: number): void {
    // Edges: uninteresting parents of shown commits; everything in their trees is excluded.
    for (let i = 0; i < list.length; i++) {
      const ps = this.parents[list[i]!]!;
      for (let j = 0; j < ps.length; j++) {
        const p = ps[j]!;
        if (this.flags[p]! & UNINTERESTING) {
          if (this.promisor !== null && this.passedBy(p)) continue;
          this.parseCommitAt(p);
          this.markTreeUninteresting(this.trees[p]!);
        }
      }
    }
    if (maxCount >= 0 && maxCount < list.length) list = list.subarray(0, maxCount);
    for (let i = 0; i < list.length; i++) visitor.commit?.(this.ids.keys, list[i]! * OID_BYTES, list[i]!);
    visitor.commitsDone?.();
    this.showPending(visitor);
    for (let i = 0; i < list.length; i++) this.showRoot(this.trees[list[i]!]!, visitor);
  }

  /**
   * enumerate() with trees read on the worker. Without exclusions each commit is final as soon as
   * the walk finds it: it is visited at once, its root tree goes to the worker, and this thread
   * lists the trees the worker has read while it walks on, so objects are visited among commits
   * (the caller holds them back until commitsDone). The worker is kept a few hundred roots ahead
   * so that it never idles.
   */
  private enumerateAhead(ahead: TreeReadAhead, visitor: ObjectVisitor, maxCount: number): void {
    const stream = this.stream = ahead.reader;
    // Tip trees are listed before the commits' trees.
    for (const p of this.pending) {
      if (this.types[p.index] === OBJ_TREE && !(this.flags[p.index]! & (UNINTERESTING | SHOWN))) ahead.root(this.ids.keys, p.index * OID_BYTES);
    }
    this.showPending(visitor);
    let roots = new Int32Array(1024), queued = 0, done = 0;
    this.walkCommits(c => {
      if (maxCount >= 0 && queued >= maxCount) return;
      visitor.commit?.(this.ids.keys, c * OID_BYTES, c);
      const tree = this.trees[c]!;
      ahead.root(this.ids.keys, tree * OID_BYTES);
      if (queued === roots.length) roots = ensureCapacity(roots, queued + 1);
      roots[queued++] = tree;
      while (queued - done > READ_AHEAD_ROOTS && stream.ready()) this.showRoot(roots[done++]!, visitor);
    });
    ahead.endRoots();
    visitor.commitsDone?.();
    while (done < queued) this.showRoot(roots[done++]!, visitor);
  }

  /** Tags, trees and blobs named on the command line (or by tags), listed before commits' trees. */
  private showPending(visitor: ObjectVisitor): void {
    const show = visitor.object;
    for (const p of this.pending) {
      const f = this.flags[p.index]!;
      if (f & (UNINTERESTING | SHOWN)) continue;
      const type = this.types[p.index]!;
      if (type === OBJ_TAG) {
        this.flags[p.index]! |= SHOWN;
        const name = Buffer.from(p.name, 'utf8');
        show?.(OBJ_TAG, this.ids.keys, p.index * OID_BYTES, name, name.length);
      } else if (type === OBJ_TREE) {
        this.showRoot(p.index, visitor);
      } else if (type === OBJ_BLOB) {
        this.flags[p.index]! |= SHOWN;
        show?.(OBJ_BLOB, this.ids.keys, p.index * OID_BYTES, this.path.bytes, 0);
      }
    }
  }

  /** Lists a top-level tree (a commit's, or a tip) and everything new below it. */
  private showRoot(tree: number, visitor: ObjectVisitor): void {
    const stream = this.stream;
    if (!stream) {
      this.processTree(tree, 0, 0, visitor);
      return;
    }
    // Every root sent to the worker is shown here, in the same order: each ends with an END record.
    if (stream.nextIs(this.ids.keys, tree * OID_BYTES)) this.processStreamedTree(stream, 0, 0, visitor);
    stream.endRoot();
  }

  private treeBuf(depth: number, size: number): Buffer {
    return depthBuffer(this.treeBufs, depth, size);
  }

  private processTree(idx: number, pathLen: number, depth: number, visitor: ObjectVisitor): void {
    if (this.flags[idx]! & (UNINTERESTING | SHOWN)) return;
    if (depth > MAX_TREE_DEPTH) throw this.tooDeep(this.ids.keys, idx * OID_BYTES);
    this.flags[idx]! |= SHOWN;
    if (this.promisor !== null && this.passedBy(idx)) return;
    visitor.object?.(OBJ_TREE, this.ids.keys, idx * OID_BYTES, this.path.bytes, pathLen);
    const read = this.read(idx, OBJ_TREE).data;
    const level = this.layouts.prepare(depth, read, this.odb.trace);
    // Only the entries that need work are kept (subtrees' reads reuse the odb's buffer): all of
    // them, or those the plan did not skip.
    const data = this.treeBuf(depth, read.length);
    const len = level.skipCount > 0 ? level.compact(read, data) : (data.set(read), read.length);
    this.processEntries(data, 0, len, this.ids.keys, idx * OID_BYTES, pathLen, depth, visitor, level.record ? level : null);
    this.layouts.finish(level);
  }

  /** processTree for the tree in the stream's next record (which the worker found new). */
  private processStreamedTree(stream: TreeRingReader, pathLen: number, depth: number, visitor: ObjectVisitor): void {
    const kind = stream.peek();
    const len = kind === TREE || kind === FAILED ? stream.dataLength() : 0;
    // Id and data are adjacent in the record: keep both, and free the ring at once.
    const at = stream.idAt();
    let data = this.treeBuf(depth, OID_BYTES + len);
    data.set(stream.bytes.subarray(at, at + OID_BYTES + len));
    stream.release();
    if (depth > MAX_TREE_DEPTH) throw this.tooDeep(data, 0);
    visitor.object?.(OBJ_TREE, data, 0, this.path.bytes, pathLen);
    if (kind === FAILED) throw deserializeError(data.toString('utf8', OID_BYTES, OID_BYTES + len));
    let end = OID_BYTES + len;
    if (kind === TOO_BIG) {
      const read = readObjectOfType(this.odb, data, 0, OBJ_TREE).data;
      const big = this.treeBuf(depth, OID_BYTES + read.length);
      big.set(data.subarray(0, OID_BYTES));
      big.set(read, OID_BYTES);
      data = big;
      end = OID_BYTES + read.length;
    }
    this.processEntries(data, OID_BYTES, end, data, 0, pathLen, depth, visitor, null);
  }

  /**
   * Lists the entries of the tree in data[start..end) (whose id is at ids[idOff..]) under the path
   * in path.bytes[0..pathLen), recursing into new subtrees. TreeCursor's parse, by hand: this loop
   * runs for every entry of every tree (11M on large). With `record`, each entry's start goes into
   * its starts (the tree's layout, see tree-layouts.ts).
   */
  private processEntries(data: Buffer, start: number, end: number, ids: Uint8Array, idOff: number,
    pathLen: number, depth: number, visitor: ObjectVisitor, record: TreeLevel | null): void {
    const stream = this.stream;
    const starts = record !== null ? record.starts : null;
    let n = 0;
    let pos = start;
    while (pos < end) {
      const entry = pos;
      if (starts !== null) starts[n++] = pos - start;
      let mode = 0, c = 0;
      while (pos < end && (c = data[pos]!) !== 0x20) {
        if (c < 0x30 || c > 0x37) throw this.badEntry(ids, idOff, entry - start, 'mode is not octal');
        mode = mode * 8 + (c - 0x30);
        pos++;
      }
      if (pos >= end) throw this.badEntry(ids, idOff, entry - start, 'truncated mode');
      if (pos === entry) throw this.badEntry(ids, idOff, entry - start, 'empty mode');
      const nameStart = ++pos;
      while (pos < end && data[pos] !== 0) pos++;
      if (pos >= end) throw this.badEntry(ids, idOff, entry - start, 'name not terminated');
      const nameEnd = pos++;
      if (pos + OID_BYTES > end) throw this.badEntry(ids, idOff, entry - start, 'truncated object id');
      const off = pos;
      pos += OID_BYTES;
      const kind = mode & 0o170000;
      const isTree = kind === 0o040000;
      // git's canon_mode makes every mode but a directory's, a file's or a symlink's a gitlink (odd
      // ones such as 0644 too), and gitlinks name commits of other repositories: not listed.
      if (!isTree && kind !== 0o100000 && kind !== 0o120000) continue;
      let child = -1;
      if (isTree && stream) {
        // The worker read the subtree iff it was new, and then it is the next record.
        if (!stream.nextIs(data, off)) continue;
      } else {
        child = this.intern(data, off, isTree ? OBJ_TREE : OBJ_BLOB);
        if (this.flags[child]! & (UNINTERESTING | SHOWN)) continue;
      }
      const childLen = this.path.child(pathLen, data, nameStart, nameEnd);
      if (isTree) {
        if (stream) this.processStreamedTree(stream, childLen, depth + 1, visitor);
        else this.processTree(child, childLen, depth + 1, visitor);
      } else {
        this.flags[child]! |= SHOWN;
        visitor.object?.(OBJ_BLOB, this.ids.keys, child * OID_BYTES, this.path.bytes, childLen);
      }
    }
    if (starts !== null) record!.count = n;
  }

  private tooDeep(ids: Uint8Array, off: number): CorruptError {
    return new CorruptError('walk', `tree ${toHex(ids, off)} is nested more than ${MAX_TREE_DEPTH} levels deep`);
  }

  /** TreeCursor's error for a malformed entry. */
  private badEntry(ids: Uint8Array, off: number, at: number, what: string): CorruptError {
    return new CorruptError('object', `tree ${toHex(ids, off)}: ${what} in entry at byte ${at}`);
  }

  /** Marks a tree and everything below it uninteresting (git's mark_tree_uninteresting). */
  markTreeUninteresting(idx: number): void {
    if (this.flags[idx]! & UNINTERESTING) return;
    this.flags[idx]! |= UNINTERESTING;
    const stack = [idx];
    while (stack.length) {
      const t = stack.pop()!;
      // Transient: the tree is parsed before the next read.
      const o = this.odb.read(this.ids.keys, t * OID_BYTES, true);
      if (!o) continue; // git tolerates missing uninteresting trees (the client may not have them)
      const cur = new TreeCursor(o.data, 0, o.data.length, () => `tree ${this.hex(t)}`);
      while (cur.next()) {
        const mode = canonicalMode(cur.mode);
        if (mode === MODE_GITLINK) continue;
        const isTree = mode === MODE_TREE;
        const child = this.intern(o.data, cur.oidOffset, isTree ? OBJ_TREE : OBJ_BLOB);
        if (this.flags[child]! & UNINTERESTING) continue;
        this.flags[child]! |= UNINTERESTING;
        if (isTree) stack.push(child);
      }
    }
  }
}
