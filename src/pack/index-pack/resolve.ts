// Delta resolution (index-pack's second pass), the same code in every thread. A task is a base
// object; its thread inflates it once and resolves its whole subtree depth-first on an explicit
// stack (no recursion, so a chain of any depth is fine): each child delta is inflated, applied to
// the base still in memory, hashed with its "<type> <size>\0" header in the same buffer, and
// pushed if it has children of its own. A base is dropped as soon as its last child starts, and
// when the bases held exceed the cache limit the oldest are dropped and rebuilt from their chain
// if needed again (git's prune_base_data/get_base_data).
//
// Threads share everything through SharedArrayBuffers: tasks are claimed with an atomic counter,
// REF_DELTA children with a compare-and-swap on their state (a second claim means two bases with
// one id), progress is one atomic counter, and an abort flag stops everyone after an error.
import { CorruptError, GitError } from '../../core/errors.js';
import { sha1 } from '../../core/hash.js';
import { compareOid, OID_BYTES, toHex } from '../../core/oid.js';
import { Inflater } from '../../core/zlib.js';
import type { FsckOptions } from '../../object/fsck.js';
import { applyDelta, readDeltaSizes } from '../delta.js';
import { ObjectChecker } from './check.js';
import { ObjectTable, type TableBuffers } from './tables.js';

/** Control words in ResolveShared.control. */
export const NEXT_TASK = 0, RESOLVED = 1, ABORT = 2;

export interface ResolveShared {
  name: string;
  pack: SharedArrayBuffer;
  packLength: number;
  table: TableBuffers;
  count: number;
  /** OFS_DELTA children by base, as compressed rows: children[childStart[b]..childStart[b+1]). */
  childStart: SharedArrayBuffer;
  children: SharedArrayBuffer;
  /** REF_DELTAs sorted by base id: their object numbers, and the base ids in the same order. */
  refObjects: SharedArrayBuffer;
  refIds: SharedArrayBuffer;
  refCount: number;
  /** Object numbers of the bases to start from, biggest subtree first. */
  tasks: SharedArrayBuffer;
  taskCount: number;
  control: SharedArrayBuffer;
  maxDepth: number;
  /** Bytes of reconstructed bases one thread may hold before dropping the oldest. */
  cacheLimit: number;
  strict: FsckOptions | null;
}

interface Frame {
  object: number;
  data: Buffer | null;
  ofsNext: number;
  ofsEnd: number;
  refNext: number;
  refEnd: number;
}

const TYPE_PREFIX = ['', 'commit ', 'tree ', 'blob ', 'tag '];

export class Resolver {
  table!: ObjectTable;
  readonly checker: ObjectChecker | null;
  private s!: ResolveShared;
  private pack!: Uint8Array;
  private childStart!: Int32Array;
  private children!: Int32Array;
  private refObjects!: Int32Array;
  private refIds!: Uint8Array;
  private tasks!: Int32Array;
  private control!: Int32Array;
  private readonly inflater = new Inflater();
  private deltaBuf: Buffer = Buffer.allocUnsafe(1 << 16);
  private resultBuf: Buffer = Buffer.allocUnsafe(1 << 16);
  private readonly stack: Frame[] = [];
  private held = 0;
  private pendingProgress = 0;
  /** Set when another thread raised the abort flag (checked with each progress flush). */
  private aborted = false;

  /** `onProgress` runs on this thread every few dozen deltas (the calling thread draws progress). */
  constructor(s: ResolveShared, private readonly onProgress?: () => void) {
    this.attach(s);
    this.checker = s.strict ? new ObjectChecker(s.strict, s.name) : null;
  }

  /** Points this resolver at (possibly grown) shared state: --fix-thin appends objects and bytes. */
  attach(s: ResolveShared): void {
    this.s = s;
    this.table = new ObjectTable(s.table.capacity, s.table);
    this.pack = new Uint8Array(s.pack, 0, s.packLength);
    this.childStart = new Int32Array(s.childStart);
    this.children = new Int32Array(s.children);
    this.refObjects = new Int32Array(s.refObjects);
    this.refIds = new Uint8Array(s.refIds);
    this.tasks = new Int32Array(s.tasks);
    this.control = new Int32Array(s.control);
  }

  /** Claims and resolves tasks until none are left or another thread failed. */
  run(): void {
    try {
      for (;;) {
        if (this.aborted || Atomics.load(this.control, ABORT)) return;
        const t = Atomics.add(this.control, NEXT_TASK, 1);
        if (t >= this.s.taskCount) return;
        this.resolveFrom(this.tasks[t]!);
      }
    } catch (e) {
      Atomics.store(this.control, ABORT, 1);
      throw e;
    } finally {
      this.flush();
    }
  }

  /** Resolves every delta that descends from `root`, a non-delta or an already resolved object. */
  resolveFrom(root: number): void {
    const frame = this.frameFor(root, null);
    if (!frame) return;
    frame.data = this.objectData(root);
    this.hold(frame);
    const stack = this.stack;
    while (stack.length) {
      if (this.aborted) {
        this.releaseAll();
        return;
      }
      const f = stack[stack.length - 1]!;
      const child = this.nextChild(f);
      if (child < 0) {
        this.pop();
        continue;
      }
      const base = f.data ?? this.rebuild(f);
      const last = f.ofsNext >= f.ofsEnd && f.refNext >= f.refEnd;
      const result = this.resolveDelta(child, f.object, base);
      if (last) this.pop();
      const next = this.frameFor(child, result);
      if (next) this.hold(next);
    }
  }

  /** The next unresolved child of a frame, or -1. */
  private nextChild(f: Frame): number {
    if (f.ofsNext < f.ofsEnd) return this.children[f.ofsNext++]!;
    while (f.refNext < f.refEnd) {
      const c = this.refObjects[f.refNext++]!;
      if (Atomics.compareExchange(this.table.state, c, 0, 1) === 0) return c;
      throw new CorruptError('pack', `${this.s.name}: REF_DELTA at offset ${this.table.offset[c]} is claimed by two bases with id ${toHex(this.table.ids, f.object * OID_BYTES)} (duplicate object in the pack?)`);
    }
    return -1;
  }

  /**
   * Applies delta `child` to `base` (the content of object `parent`), fills in the child's id,
   * type, base and depth, and returns its content (valid until the next call).
   */
  private resolveDelta(child: number, parent: number, base: Buffer): Buffer {
    const t = this.table;
    const depth = t.depth[parent]! + 1;
    if (depth > this.s.maxDepth) {
      throw new CorruptError('pack', `${this.s.name}: delta at offset ${t.offset[child]} is at depth ${depth} of its chain, deeper than the limit of ${this.s.maxDepth}`);
    }
    const where = () => `${this.s.name}: delta at offset ${t.offset[child]}`;
    const size = t.size[child]!;
    const delta = this.inflateEntry(child, size);
    const { baseSize, resultSize } = readDeltaSizes(delta, 0, size, 'pack', where);
    if (baseSize !== base.length) {
      throw new CorruptError('pack', `${where()}: expects a ${baseSize}-byte base, but its base at offset ${t.offset[parent]} has ${base.length} bytes`);
    }
    const type = t.realType[parent]!;
    const prefix = TYPE_PREFIX[type]! + resultSize + '\0';
    const need = prefix.length + resultSize;
    if (this.resultBuf.length < need) this.resultBuf = allocate(need, where);
    const out = this.resultBuf;
    out.write(prefix, 0, 'latin1');
    const data = applyDelta(base, delta, 0, size, 'pack', where, out, prefix.length);
    sha1(out.subarray(0, need)).copy(t.ids, child * OID_BYTES);
    t.realType[child] = type;
    t.base[child] = parent;
    t.depth[child] = depth;
    t.resultSize[child] = resultSize;
    Atomics.store(t.state, child, 1);
    if (this.checker) this.checker.check(type, data, t.ids, child * OID_BYTES);
    if (++this.pendingProgress >= 64) this.flush();
    return data;
  }

  /** A frame for `object` if it has children, keeping `content` (copied) as its data. */
  private frameFor(object: number, content: Buffer | null): Frame | null {
    const ofsStart = this.childStart[object]!, ofsEnd = this.childStart[object + 1]!;
    let refStart = 0, refEnd = 0;
    if (this.s.refCount) {
      refStart = this.lowerBound(this.table.ids, object * OID_BYTES);
      refEnd = refStart;
      while (refEnd < this.s.refCount && compareOid(this.refIds, refEnd * OID_BYTES, this.table.ids, object * OID_BYTES) === 0) refEnd++;
    }
    if (ofsStart === ofsEnd && refStart === refEnd) return null;
    const f: Frame = { object, data: null, ofsNext: ofsStart, ofsEnd, refNext: refStart, refEnd };
    if (content) f.data = Buffer.from(content);
    this.stack.push(f);
    return f;
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
      if (old.data) {
        this.held -= old.data.length;
        old.data = null;
      }
    }
  }

  private pop(): void {
    const f = this.stack.pop()!;
    if (f.data) this.held -= f.data.length;
    f.data = null;
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
    const t = this.table;
    const chain: number[] = [];
    let cur = object;
    let data: Buffer | null = null;
    while (t.isDelta(cur)) {
      const held = this.heldData(cur);
      if (held && cur !== object) { data = held; break; }
      chain.push(cur);
      cur = t.base[cur]!;
      if (cur < 0) throw new GitError('pack', 'internal', `${this.s.name}: object at offset ${t.offset[chain[chain.length - 1]!]} has no resolved base`);
    }
    if (!data) data = this.heldData(cur) ?? this.inflateOwned(cur);
    for (let i = chain.length - 1; i >= 0; i--) {
      const d = chain[i]!;
      const size = t.size[d]!;
      const delta = this.inflateEntry(d, size);
      data = applyDelta(data, delta, 0, size, 'pack', () => `${this.s.name}: delta at offset ${t.offset[d]}`);
    }
    return data;
  }

  private heldData(object: number): Buffer | null {
    for (const f of this.stack) if (f.object === object && f.data) return f.data;
    return null;
  }

  /** Inflates entry `i` into the shared delta buffer (valid until the next call). */
  private inflateEntry(i: number, size: number): Buffer {
    const t = this.table;
    if (this.deltaBuf.length <= size) this.deltaBuf = allocate(size + 1, () => `${this.s.name}: entry at offset ${t.offset[i]}`);
    this.inflater.inflateInto(this.pack, t.dataOffset(i), t.offset[i + 1]!, this.deltaBuf, 0, size, 'pack',
      () => `${this.s.name}: entry at offset ${t.offset[i]}`);
    return this.deltaBuf;
  }

  /** Inflates a non-delta entry into a buffer of its own. */
  private inflateOwned(i: number): Buffer {
    const t = this.table;
    const size = t.size[i]!;
    const where = () => `${this.s.name}: entry at offset ${t.offset[i]}`;
    const out = allocate(size + 1, where);
    this.inflater.inflateInto(this.pack, t.dataOffset(i), t.offset[i + 1]!, out, 0, size, 'pack', where);
    return out.subarray(0, size);
  }

  /** Publishes the deltas resolved since the last call to the shared progress counter. */
  flush(): void {
    if (this.pendingProgress) Atomics.add(this.control, RESOLVED, this.pendingProgress);
    this.pendingProgress = 0;
    if (Atomics.load(this.control, ABORT)) this.aborted = true;
    this.onProgress?.();
  }
}

/** Allocates, turning "too large for this process" into an error that names the entry. */
function allocate(size: number, where: () => string): Buffer {
  try {
    return Buffer.allocUnsafe(size);
  } catch (e) {
    throw new CorruptError('pack', `${where()}: cannot hold an object of ${size} bytes`, { cause: e });
  }
}

