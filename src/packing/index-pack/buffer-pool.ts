// Buffers for delta results and bases, reused: most results are a few kilobytes and live only
// until their own children are done, so recycling them spares an allocation and the garbage
// collector's work per object.
//
// The buffers are power-of-two blocks of 1 MiB slabs, split and merged as a buddy allocator does,
// the lowest free block first. Free lists per size class that kept whole buffers (the pool before
// this one) held what each class once had out at a time, and the classes peak at different times
// (the bases of a chain of 60 KiB trees, then of 100 KiB blobs): on an 80k-commit history each
// resolver thread kept 6 MiB of buffers for bases that never took more than 3.3 MiB at once. A
// block given back here merges with its free buddy and serves any smaller class, and since the
// lowest blocks are taken first, the pages in use stay near the start of the slabs: replaying
// that history's takes and gives, 2.4 MiB of pages were ever touched. Nothing is given to the
// collector on the way (it runs by heap size, not by memory outside the heap, so a buffer thrown
// away stays until much later).

/** Results above this get a buffer of their own instead of a block. */
export const POOLED_MAX = 1 << 20;

/** The smallest block, 64 bytes. */
const MIN_CLASS = 6;
/** A slab is one block of the largest class. */
const SLAB_CLASS = 20;
/**
 * Slabs one pool makes at most: addresses (slab index * 1 MiB + offset) stay below 2^31, where the
 * bit operations on them are exact. A pool that is full gives buffers of their own.
 */
const MAX_SLABS = 1 << (31 - SLAB_CLASS);
/** An address's offset in its slab. */
const OFFSET_MASK = POOLED_MAX - 1;
/** A free block's mark (see freeMark) keeps its class + 1 in these low bits. */
const PLACE_SHIFT = 5;
const CLASS_MASK = (1 << PLACE_SHIFT) - 1;

/** The mark of the free block that is the `place`th of class `c`'s free list; never 0. */
function freeMark(c: number, place: number): number {
  return place * (1 << PLACE_SHIFT) + c + 1;
}

export class BufferPool {
  private readonly slabs: Buffer[] = [];
  /** Which slab an ArrayBuffer is, for give(). */
  private readonly slabIndex = new Map<ArrayBufferLike, number>();
  /** Addresses (slab index * 1 MiB + offset) of the free blocks of each class. */
  private readonly free: number[][] = Array.from({ length: SLAB_CLASS + 1 }, () => []);
  /**
   * Per slab, per 64 bytes (64 KiB of marks a slab): the mark of the free block that starts there,
   * else 0; to find a block's buddy and take it off its list without searching the list (the lists
   * of a class can hold thousands of blocks that cannot merge). (A Set of addresses reallocated its
   * table as blocks came and went: 53 MB of tables over history's resolution, which survived into
   * the old generation with the Set, where only a full collection frees them; index-pack peaked
   * 15 MiB higher.)
   */
  private readonly freeAt: Uint32Array[] = [];

  /** A buffer of at least `n` bytes (a block, its length a power of two, unless over POOLED_MAX or the pool is full). */
  take(n: number): Buffer {
    if (n > POOLED_MAX) return Buffer.allocUnsafe(n);
    const c = n <= 1 << MIN_CLASS ? MIN_CLASS : 32 - Math.clz32(n - 1);
    let k = c;
    while (k <= SLAB_CLASS && this.free[k]!.length === 0) k++;
    let at: number;
    if (k > SLAB_CLASS) {
      if (this.slabs.length === MAX_SLABS) return Buffer.allocUnsafe(n);
      k = SLAB_CLASS;
      at = this.slabs.length * POOLED_MAX;
      const slab = Buffer.allocUnsafeSlow(POOLED_MAX);
      this.slabIndex.set(slab.buffer, this.slabs.length);
      this.slabs.push(slab);
      this.freeAt.push(new Uint32Array(POOLED_MAX >> MIN_CLASS));
    } else {
      at = this.takeLowest(k);
    }
    // Split down to the class asked for; the upper halves are free.
    while (k > c) {
      k--;
      this.push(k, at + (1 << k));
    }
    const slab = this.slabs[at >>> SLAB_CLASS]!, off = at & OFFSET_MASK;
    return slab.subarray(off, off + (1 << c));
  }

  /** Takes back a block that take() gave out; anything else is left to the collector. */
  give(b: Buffer): void {
    if (b.length > POOLED_MAX) return;
    const slab = this.slabIndex.get(b.buffer);
    if (slab === undefined) return;
    let c = 31 - Math.clz32(b.length);
    let at = slab * POOLED_MAX + b.byteOffset;
    const marks = this.freeAt[slab]!;
    for (; c < SLAB_CLASS; c++) {
      const buddy = at ^ (1 << c);
      const mark = marks[(buddy & OFFSET_MASK) >>> MIN_CLASS]!;
      if ((mark & CLASS_MASK) !== c + 1) break;
      this.remove(c, mark >>> PLACE_SHIFT);
      at = Math.min(at, buddy);
    }
    this.push(c, at);
  }

  private push(c: number, at: number): void {
    const list = this.free[c]!;
    this.setMark(at, freeMark(c, list.length));
    list.push(at);
  }

  /** Removes the `i`th free block of class `c` from its list (whose order does not matter) and returns it. */
  private remove(c: number, i: number): number {
    const list = this.free[c]!;
    const at = list[i]!;
    const last = list.pop()!;
    if (i < list.length) {
      list[i] = last;
      this.setMark(last, freeMark(c, i));
    }
    this.setMark(at, 0);
    return at;
  }

  /** `mark`: a freeMark, or 0 for a block no longer free. */
  private setMark(at: number, mark: number): void {
    this.freeAt[at >>> SLAB_CLASS]![(at & OFFSET_MASK) >>> MIN_CLASS] = mark;
  }

  /** Removes and returns the lowest free block of class `k` (the lists are short: a few dozen). */
  private takeLowest(k: number): number {
    const list = this.free[k]!;
    let low = 0;
    for (let i = 1; i < list.length; i++) if (list[i]! < list[low]!) low = i;
    return this.remove(k, low);
  }
}
