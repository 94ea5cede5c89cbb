// Delta resolution (index-pack's second pass), the same code in every thread. A task is a base
// object; its thread inflates it once and resolves its whole subtree depth-first on an explicit
// stack (no recursion, so a chain of any depth is fine): each child delta is inflated, applied to
// the base still in memory, hashed with its "<type> <size>\0" header in the same buffer, and
// pushed if it has children of its own. A base is dropped as soon as its last child starts, and
// when the bases held exceed the cache limit the oldest are dropped and rebuilt from their chain
// if needed again (chain-rebuild.ts; git's prune_base_data/get_base_data).
//
// Delta data and base objects are inflated again from the pack file (entry-reader.ts), as git
// does: keeping the first pass's inflated deltas would cost memory in proportion to the pack. Most
// deltas of a pack from git were resolved during the first pass already (stream-resolve.ts); this
// pass visits only the subtrees that still hold work (ResolveShared.pending), and rebuilds the
// content of a resolved delta there only as the base of what is left.
//
// Threads share everything through SharedArrayBuffers: tasks are claimed with an atomic counter,
// REF_DELTA children with a compare-and-swap on their state (a second claim means two bases with
// one id), progress is one atomic counter, and an abort flag stops everyone after an error.
import { CorruptError } from '../../core/errors.js';
import { sha1 } from '../../core/hash.js';
import { compareOid, OID_BYTES, toHex } from '../../core/oid.js';
import { TreeLayout, type FsckOptions, type TreeDeltaBase } from '../../object/fsck.js';
import { OBJ_BLOB, OBJ_TREE } from '../../object/type.js';
import { DeltaCopies, type DeltaSizes } from '../../pack/delta.js';
import { BufferPool, POOLED_MAX } from './buffer-pool.js';
import { ChainRebuilder } from './chain-rebuild.js';
import { againstCleanBase, ObjectChecker } from './check.js';
import { SharedIdIndex } from './id-index.js';
import type { DeltaLinks } from './link.js';
import { ObjectTable, STREAMED, type TableBuffers } from './tables.js';
import { allocate, EntryReader } from './entry-reader.js';
import { objectHeaderLength, putObjectHeader } from './object-header.js';

/** Control words in ResolveShared.control. */
export const NEXT_TASK = 0, RESOLVED = 1, ABORT = 2;

/** What every thread shares: the tables, the delta links (link.ts) and the control words. */
export interface ResolveShared extends DeltaLinks {
  name: string;
  /** The pack file, complete, for reading base objects and deltas. */
  packPath: string;
  table: TableBuffers;
  count: number;
  /** Slots of the shared id index (id-index.ts). */
  idSlots: SharedArrayBuffer;
  control: SharedArrayBuffer;
  maxDepth: number;
  /** Bytes of reconstructed bases one thread may hold before dropping the oldest. */
  cacheLimit: number;
  strict: FsckOptions | null;
  /** With strict: also record references for the connectivity check (and keep the id index). */
  connectivity: boolean;
  /** With the connectivity check: the shallow boundary, whose parents are not looked for (PassOptions.shallow, sorted). */
  parentless: Uint8Array | null;
}

interface Frame {
  object: number;
  /** The object's content (a view of `buf`, or a buffer of its own); null once dropped. */
  data: Buffer | null;
  /** Pooled storage behind `data`, returned to the pool with it. */
  buf: Buffer | null;
  ofsNext: number;
  ofsEnd: number;
  refNext: number;
  refEnd: number;
  /** With --strict, a tree's entries as its check found them, when it was clean (its deltas then skip what they copy). */
  layout: TreeLayout | null;
}

/** Deltas resolved between looks at the clock when working to a deadline. */
const CLOCK_EVERY = 64;

export class Resolver {
  table!: ObjectTable;
  readonly checker: ObjectChecker | null;
  private s!: ResolveShared;
  private reader!: EntryReader;
  private chains!: ChainRebuilder;
  private pending!: Uint8Array;
  private childStart!: Int32Array;
  private children!: Int32Array;
  private refObjects!: Int32Array;
  private refIds!: Uint8Array;
  private tasks!: Int32Array;
  private control!: Int32Array;
  index!: SharedIdIndex;
  private pool!: BufferPool;
  private readonly stack: Frame[] = [];
  private held = 0;
  private pendingProgress = 0;
  /** The last delta result: its pooled buffer and the content within it, and (a clean tree's) layout. */
  private resultBuf: Buffer | null = null;
  private resultData: Buffer | null = null;
  private resultLayout: TreeLayout | null = null;
  /** Layouts not in use, and what a tree delta shares with its base. */
  private readonly layouts: TreeLayout[] = [];
  private readonly copies = new DeltaCopies();
  private readonly treeBase: TreeDeltaBase = { layout: new TreeLayout(), runs: this.copies.runs, runCount: 0 };
  /** The delta being resolved, for messages (one closure for all deltas). */
  private current = 0;
  private readonly where = (): string => `${this.s.name}: delta at offset ${this.table.offset[this.current]}`;
  /** Set when another thread raised the abort flag (checked with each progress flush). */
  private aborted = false;

  /**
   * `onProgress` runs on this thread every few dozen deltas (the calling thread draws progress).
   *
   * With `visit`, the resolver walks delta trees already resolved instead of resolving them:
   * resolveFrom() hands visit each object's content as it builds it from its base's, going into
   * the OFS and REF children that s.pending marks. A check that needs many objects' contents
   * after the passes (the collision check) then builds each from its base once, where rebuilding
   * each one through its chain would cost the chain's length per object.
   */
  constructor(s: ResolveShared, private readonly onProgress?: () => void,
    private readonly visit?: (object: number, content: Buffer) => void) {
    // The pool's slabs grow to what the bases held (bounded by the cache limit) take at most.
    this.pool = new BufferPool();
    this.attach(s);
    this.checker = s.strict ? new ObjectChecker(s.strict, s.name, s.connectivity ? this.index : null, this.table, s.parentless) : null;
  }

  /** Points this resolver at (possibly grown) shared state: --fix-thin appends objects and bytes. */
  attach(s: ResolveShared): void {
    this.s = s;
    this.table = new ObjectTable(0, s.table);
    // --fix-thin writes its bases where the trailer was: nothing read before may stand for them.
    if (this.reader) {
      this.reader.forget();
      this.reader.table = this.table;
    } else {
      this.reader = new EntryReader(s.name, s.packPath, this.table, (t) => t.offset[this.s.count]!);
      this.chains = new ChainRebuilder(this.reader, { held: (i) => this.heldData(i) });
    }
    this.pending = new Uint8Array(s.pending);
    this.childStart = new Int32Array(s.childStart);
    this.children = new Int32Array(s.children);
    this.refObjects = new Int32Array(s.refObjects);
    this.refIds = new Uint8Array(s.refIds);
    this.tasks = new Int32Array(s.tasks);
    this.control = new Int32Array(s.control);
    if (this.index) this.index.rebind(this.table.ids);
    else this.index = new SharedIdIndex(new Int32Array(s.idSlots), this.table.ids);
    this.checker?.rebind(this.table);
  }

  /**
   * Claims and resolves tasks until none are left or another thread failed (true), or until the
   * Date.now() deadline `until` passes (false: the next call goes on where this one stopped).
   */
  run(until = Infinity): boolean {
    try {
      for (;;) {
        if (this.aborted || Atomics.load(this.control, ABORT)) {
          this.releaseAll();
          return true;
        }
        if (this.stack.length) {
          if (!this.drain(until)) return false;
          continue;
        }
        if (Date.now() >= until) return false;
        const t = Atomics.add(this.control, NEXT_TASK, 1);
        if (t >= this.s.taskCount) return true;
        this.start(this.tasks[t]!, true);
      }
    } catch (e) {
      Atomics.store(this.control, ABORT, 1);
      throw e;
    } finally {
      this.flush();
      this.close();
    }
  }

  /** Closes the pack file (it is opened again if needed). */
  close(): void {
    this.reader.close();
  }

  /**
   * Resolves every delta that descends from `root`, a non-delta or an already resolved object,
   * which --strict checks too unless `checkRoot` is false (bases taken from the repository); or,
   * with `visit`, visits `root` and what s.pending marks below it.
   */
  resolveFrom(root: number, checkRoot = true): void {
    this.start(root, checkRoot);
    this.drain(Infinity);
  }

  /** Checks `root` and puts it on the stack if it has children. */
  private start(root: number, checkRoot: boolean): void {
    const frame = this.frameFor(root);
    // An object the first pass checked (STREAMED) is here only for what lies below it.
    const check = this.checker && checkRoot && this.table.realType[root] !== OBJ_BLOB && this.table.state[root] !== STREAMED;
    if (!frame && !check && !this.visit) return;
    // A whole object is inflated into a pooled buffer, given back when done with: every task
    // starts with one, and left to the garbage collector they would pile up (the collector runs by
    // heap size, and these live outside the heap) to tens of megabytes per thread.
    const whole = !this.table.isDelta(root);
    const buf = whole && this.table.size[root]! < POOLED_MAX ? this.pool.take(this.table.size[root]! + 1) : null;
    const data = whole ? this.reader.inflateOwned(root, buf ?? undefined) : this.objectData(root);
    const type = this.table.realType[root]!;
    // A tree with deltas of its own keeps its layout, for them.
    const layout = check && frame && type === OBJ_TREE ? this.takeLayout() : null;
    if (check) this.checker!.check(type, data, this.table.ids, root * OID_BYTES, layout ?? undefined);
    this.visit?.(root, data);
    if (!frame) {
      if (buf) this.pool.give(buf);
      return;
    }
    frame.data = data;
    frame.buf = buf;
    frame.layout = this.keptLayout(layout);
    this.hold(frame);
  }

  /** Works through the stack; false if the deadline `until` came first. */
  private drain(until: number): boolean {
    const stack = this.stack;
    let sinceClock = 0;
    while (stack.length) {
      if (this.aborted) {
        this.releaseAll();
        return true;
      }
      if (++sinceClock === CLOCK_EVERY) {
        sinceClock = 0;
        if (Date.now() >= until) return false;
      }
      const f = stack[stack.length - 1]!;
      const child = this.nextChild(f);
      if (child < 0) {
        this.pop();
        continue;
      }
      const base = f.data ?? this.rebuild(f);
      const last = f.ofsNext >= f.ofsEnd && f.refNext >= f.refEnd;
      this.resolveDelta(child, f.object, base, f.layout);
      if (last) this.pop();
      // After resolveDelta: REF_DELTA children are found by the id it computed.
      const next = this.frameFor(child);
      if (next) {
        next.data = this.resultData;
        next.buf = this.resultBuf;
        next.layout = this.resultLayout;
        this.hold(next);
      } else {
        this.pool.give(this.resultBuf!);
        if (this.resultLayout) this.layouts.push(this.resultLayout);
      }
      this.resultBuf = null;
      this.resultData = null;
      this.resultLayout = null;
    }
    return true;
  }

  /** The next child of a frame with work left below or in it, or -1. */
  private nextChild(f: Frame): number {
    const pending = this.pending;
    while (f.ofsNext < f.ofsEnd) {
      const c = this.children[f.ofsNext++]!;
      if (c >= pending.length || pending[c]) return c;
    }
    while (f.refNext < f.refEnd) {
      const c = this.refObjects[f.refNext++]!;
      if (this.visit) {
        if (pending[c]) return c;
        continue;
      }
      if (Atomics.compareExchange(this.table.state, c, 0, 1) === 0) return c;
      throw new CorruptError('pack', `${this.s.name}: REF_DELTA at offset ${this.table.offset[c]} is claimed by two bases with id ${toHex(this.table.ids, f.object * OID_BYTES)} (duplicate object in the pack?)`);
    }
    return -1;
  }

  /**
   * Applies delta `child` to `base` (the content of object `parent`), fills in the child's id,
   * type, base and depth, and leaves its content in resultData (inside resultBuf). A child the
   * first pass resolved (STREAMED) has all of that already: only its content is rebuilt.
   */
  private resolveDelta(child: number, parent: number, base: Buffer, baseLayout: TreeLayout | null): void {
    const t = this.table;
    if (this.visit) {
      this.applyChild(child, base, 0);
      this.visit(child, this.resultData!);
      return;
    }
    if (t.state[child] === STREAMED) {
      this.applyChild(child, base, 0);
      return;
    }
    const depth = t.depth[parent]! + 1;
    this.current = child;
    if (depth > this.s.maxDepth) {
      throw new CorruptError('pack', `${this.where()} is at depth ${depth} of its chain, deeper than the limit of ${this.s.maxDepth}`);
    }
    const type = t.realType[parent]!;
    const { resultSize, pos: instructions } = this.applyChild(child, base, type);
    const data = this.resultData!;
    sha1(this.resultBuf!.subarray(0, objectHeaderLength(type, resultSize) + resultSize)).copy(t.ids, child * OID_BYTES);
    t.realType[child] = type;
    t.base[child] = parent;
    t.depth[child] = depth;
    Atomics.store(t.state, child, 1);
    if (this.checker) {
      if (this.s.connectivity) this.index.insert(child);
      if (type === OBJ_TREE) {
        const against = againstCleanBase(this.treeBase, this.copies, baseLayout, this.chains.delta, instructions, t.size[child]!, base.length, resultSize);
        const layout = this.takeLayout();
        this.checker.check(type, data, t.ids, child * OID_BYTES, layout, against);
        this.resultLayout = this.keptLayout(layout);
      } else {
        this.checker.check(type, data, t.ids, child * OID_BYTES);
      }
    }
    if (++this.pendingProgress >= 64) this.flush();
  }

  /**
   * Reads delta `child` back from the pack and applies it to `base`, leaving the result in
   * resultData, within resultBuf (pooled unless large) after the "<type> <size>\0" header of `type`
   * (none for 0: a child the first pass resolved is rebuilt only as a base). The first pass checked
   * the result size in these very bytes; it is read again before anything is written.
   */
  private applyChild(child: number, base: Buffer, type: number): DeltaSizes {
    this.current = child;
    const sizes = this.chains.read(child);
    const prefixLength = type ? objectHeaderLength(type, sizes.resultSize) : 0;
    const need = prefixLength + sizes.resultSize;
    const out = this.resultBuf = need > POOLED_MAX ? allocate(need, this.where) : this.pool.take(need);
    if (type) putObjectHeader(out, 0, type, sizes.resultSize, prefixLength);
    this.resultData = this.chains.apply(base, out, prefixLength);
    return sizes;
  }

  /** A frame for `object` (pushed on the stack) if it has children, else null. */
  private frameFor(object: number): Frame | null {
    const ofsStart = this.childStart[object]!, ofsEnd = this.childStart[object + 1]!;
    let refStart = 0, refEnd = 0;
    if (this.s.refCount) {
      refStart = this.lowerBound(this.table.ids, object * OID_BYTES);
      refEnd = refStart;
      while (refEnd < this.s.refCount && compareOid(this.refIds, refEnd * OID_BYTES, this.table.ids, object * OID_BYTES) === 0) refEnd++;
    }
    if (ofsStart === ofsEnd && refStart === refEnd) return null;
    const f: Frame = { object, data: null, buf: null, ofsNext: ofsStart, ofsEnd, refNext: refStart, refEnd, layout: null };
    this.stack.push(f);
    return f;
  }

  private takeLayout(): TreeLayout {
    return this.layouts.pop() ?? new TreeLayout();
  }

  /** A layout worth keeping for the tree's deltas (a clean one), else back to the free list and null. */
  private keptLayout(layout: TreeLayout | null): TreeLayout | null {
    if (!layout || layout.clean) return layout;
    this.layouts.push(layout);
    return null;
  }

  private lowerBound(id: Uint8Array, off: number): number {
    let lo = 0, hi = this.s.refCount;
    const ids = this.refIds;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareOid(ids, mid * OID_BYTES, id, off) < 0) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  /** Accounts for a new frame's data, dropping the oldest held bases while over the limit. */
  private hold(f: Frame): void {
    if (f.data) this.held += f.data.length;
    const stack = this.stack;
    for (let i = 0; this.held > this.s.cacheLimit && i < stack.length - 1; i++) {
      const old = stack[i]!;
      if (old.data) this.drop(old);
    }
  }

  private pop(): void {
    const f = this.stack.pop()!;
    if (f.data) this.drop(f);
    if (f.layout) this.layouts.push(f.layout);
    f.layout = null;
  }

  private drop(f: Frame): void {
    this.held -= f.data!.length;
    if (f.buf) this.pool.give(f.buf);
    f.data = null;
    f.buf = null;
  }

  private releaseAll(): void {
    while (this.stack.length) this.pop();
  }

  /** Reconstructs an object whose base data was dropped, from the nearest held ancestor. */
  private rebuild(f: Frame): Buffer {
    f.data = this.objectData(f.object);
    this.held += f.data.length;
    return f.data;
  }

  /**
   * The content of any object already resolved (or a non-delta), rebuilt along its chain from the
   * nearest base still held on the stack, else from the non-delta at the chain's end.
   */
  objectData(object: number): Buffer {
    return this.chains.content(object);
  }

  private heldData(object: number): Buffer | null {
    for (const f of this.stack) if (f.object === object && f.data) return f.data;
    return null;
  }

  /** Publishes the deltas resolved since the last call to the shared progress counter. */
  flush(): void {
    if (this.pendingProgress) Atomics.add(this.control, RESOLVED, this.pendingProgress);
    this.pendingProgress = 0;
    if (Atomics.load(this.control, ABORT)) this.aborted = true;
    this.onProgress?.();
  }
}
