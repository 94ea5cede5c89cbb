// Delta bases kept inflated, bounded in bytes (git's core.deltaBaseCacheLimit is 96 MiB).
// Entries are found through an open-addressing table keyed by (pack number, entry offset) in typed
// arrays, and live in parallel arrays with an intrusive recency list (older/newer slot links), so
// a hit or an eviction is O(1) and caching a base allocates no object.
//
// Reading every object of a big pack resolves millions of deltas, and allocating each inflated base
// afresh cost more than a third of the time (allocation, page faults, garbage collection). So the
// cache also recycles: take() hands out buffers in size classes (small ones carved from shared
// slabs), and a base that came from take() and was never given to a caller goes back to a free list
// of its class when evicted. Sizes are accounted by class capacity, so the bound stays a bound on
// memory.
//
// Those buffers are carved from one arena (an ArrayBuffer of about the limit's size, its pages
// touched only as they are first used), so that a delta applied to a cached base into a buffer
// from take() copies with copyWithin inside the arena: no view per copy instruction. A walk applies
// a million deltas of a few copies each; set(subarray()) cost ~250 ns a copy, copyWithin ~40-70.
// Past the arena, buffers are allocated as before.
//
// Objects cached only because they may become bases (a tree read at the top of its chain: walks
// read a directory's newest version first, older versions are deltas against it) are kept in a
// second recency list with a sixth of the budget. A walk needs only the last few versions of each
// directory; in one list they filled the whole budget (and a third of rev-list's memory) with trees
// never used again, while every base that cat-file's random reads rely on got evicted sooner.
import type { ObjectTypeCode } from '../object/type.js';

export interface CachedBase {
  type: ObjectTypeCode;
  data: Buffer;
}

export const DEFAULT_DELTA_BASE_CACHE_LIMIT = 96 * 1024 * 1024;

const NONE = -1;
/** Buffers below this come from Node's shared pool; they are not recycled. */
const MIN_CLASS_BYTES = 64;
/** Classes below this are carved from shared slabs (an ArrayBuffer each would cost more than the bytes). */
const SLAB_CLASS_LIMIT = 4096;
const SLAB_BYTES = 64 * 1024;
/** Classes below this come from the arena; bigger buffers are allocated each on its own. */
const ARENA_CLASS_LIMIT = 1 << 20;
/**
 * The arena's size, against the limit: what the cache may hold, and the free buffers it keeps; at
 * most ARENA_MAX (a process with git's 96 MiB default rarely fills it, and V8 counts an
 * ArrayBuffer's whole size as memory to collect against).
 */
const ARENA_SHARE = 1.25;
const ARENA_MAX = 32 * 1024 * 1024;
/** Size classes per doubling: capacities at most 19% above the size asked for. */
const STEPS = 4;

/** set() flags: the buffer came from take() and nobody else holds it, so it may be reused. */
export const RECYCLE = 1;
/** set() flags: not a base yet, only likely to become one; kept within a smaller budget. */
export const SPECULATIVE = 2;

/**
 * The size class of a buffer of at least `size` bytes (size >= MIN_CLASS_BYTES). Integer shifts,
 * not `2 ** k`: V8 computes that as a float power, some 120 ns, and this runs twice for every base
 * a walk caches (a rev-list of large spent 140 ms here).
 */
function sizeClass(size: number): number {
  const k = 31 - Math.clz32(size - 1); // 2^k < size <= 2^(k+1)
  // From 2^28 up the shifted sum passes 32 bits; bases that large are rare enough for the float form.
  if (k >= 28) return k * STEPS + Math.ceil((size / 2 ** k - 1) * STEPS);
  const p = 1 << k;
  return k * STEPS + (((size - p) * STEPS + p - 1) >>> k); // + ceil((size / 2^k - 1) * STEPS), 1..STEPS
}

function classCapacity(c: number): number {
  const k = Math.floor((c - 1) / STEPS), step = c - k * STEPS;
  // 2^k * (1 + step / STEPS); sizes start at 2^6, so k - 2 >= 0. From 2^28 up, floats, as in sizeClass.
  return k >= 28 ? Math.ceil(2 ** k * (1 + step / STEPS)) : (1 << k) + (step << (k - 2));
}

export class DeltaBaseCache {
  private data: (Buffer | null)[] = [];
  /** The whole buffer from take() behind a recyclable slot's data. */
  private chunks: (Buffer | null)[] = [];
  private types = new Uint8Array(1024);
  private packOf = new Int32Array(1024);
  private offsetOf = new Float64Array(1024);
  /** Bytes the slot counts against the limit (its buffer's class capacity, or its length). */
  private cost = new Float64Array(1024);
  /** Size class of a recyclable buffer, or 0 when the buffer is not ours to reuse. */
  private classOf = new Uint8Array(1024);
  private older = new Int32Array(1024);
  private newer = new Int32Array(1024);
  /** Which recency list a slot is on: 0 bases, 1 speculative. */
  private listOf = new Uint8Array(1024);
  /** Where the slot sits in `table`, so that evicting it needs no search (kept as entries move). */
  private tableAt = new Int32Array(1024);
  private freeSlots: number[] = [];
  private oldest = [NONE, NONE];
  private newest = [NONE, NONE];
  private bytes = 0;
  private speculativeBytes = 0;
  /** Open-addressing index: table[i] is a slot number + 1, 0 when empty; linear probing. */
  private table = new Int32Array(2048);
  private count = 0;
  /** Recycled buffers by size class, and their total capacity. */
  private freeBuffers: Buffer[][] = [];
  private freeBytes = 0;
  /** Per small class: the slab chunks are carved from, and where its free part starts. */
  private slabs: (Buffer | undefined)[] = [];
  private slabUsed: number[] = [];
  /** Where take() carves buffers from, and how much of it has been handed out; null until first needed. */
  private arenaBuffer: Buffer | null = null;
  private arenaUsed = 0;
  /** The buffer last handed out by take(), which set() with RECYCLE takes back. */
  private taken: Buffer | null = null;
  /** Returned by get(); valid until the next call. */
  private readonly hit: CachedBase = { type: 1, data: Buffer.alloc(0) };

  constructor(private limit = DEFAULT_DELTA_BASE_CACHE_LIMIT) {}

  /**
   * A new bound in bytes, for a process that knows its reads: a walk that reads each tree once,
   * newest first, needs only the last few versions of each directory (see rev-list). Evicts down
   * to it at once.
   */
  get bytesLimit(): number {
    return this.limit;
  }

  /**
   * The arena, for a caller that copies between buffers from take() (both `.buffer` the arena's):
   * copyWithin on it moves bytes without a view; null before the first take().
   */
  get arena(): Buffer | null {
    return this.arenaBuffer;
  }

  setLimit(limit: number): void {
    this.limit = limit;
    // A new arena for the new limit: buffers from the old one stay valid, recycled as any others.
    this.arenaBuffer = null;
    this.arenaUsed = 0;
    this.slabs = [];
    this.slabUsed = [];
    while (this.bytes > limit) this.evict(this.oldest[0] !== NONE ? this.oldest[0]! : this.oldest[1]!);
  }

  private static hash(pack: number, offset: number): number {
    // Offsets of neighbouring entries differ in their low bits; multiply to spread them.
    return Math.imul((offset % 0x40000000) ^ (pack << 24) ^ Math.floor(offset / 0x40000000), 0x9e3779b1) >>> 0;
  }

  /** Slot of (pack, offset), or NONE; sets this.at to its table position or the empty one. */
  private at = 0;
  private find(pack: number, offset: number): number {
    const table = this.table, mask = table.length - 1;
    let i = DeltaBaseCache.hash(pack, offset) & mask;
    for (;;) {
      const s = table[i]! - 1;
      if (s < 0) break;
      if (this.offsetOf[s] === offset && this.packOf[s] === pack) { this.at = i; return s; }
      i = (i + 1) & mask;
    }
    this.at = i;
    return NONE;
  }

  /**
   * The cached base, or undefined. The returned record is reused by the next get(). With `keep`,
   * the caller may hold the data past the next cache call (it will not be recycled).
   */
  get(pack: number, offset: number, keep = true): CachedBase | undefined {
    const slot = this.find(pack, offset);
    if (slot === NONE) return undefined;
    if (slot !== this.newest[this.listOf[slot]!]) {
      this.unlink(slot);
      this.append(slot);
    }
    if (keep) this.classOf[slot] = 0;
    this.hit.type = this.types[slot] as ObjectTypeCode;
    this.hit.data = this.data[slot]!;
    return this.hit;
  }

  /**
   * A buffer of at least `size` bytes for a base that the next set() caches with RECYCLE, reusing
   * an evicted base's buffer when one of the right size class is free.
   */
  take(size: number): Buffer {
    if (size < MIN_CLASS_BYTES) return Buffer.allocUnsafe(size);
    const c = sizeClass(size);
    // A free buffer up to one doubling bigger will do: evicted sizes rarely match requested ones
    // exactly, and every buffer not reused is garbage the collector reaches late (RSS).
    for (let k = c; k <= c + STEPS; k++) {
      const buf = this.freeBuffers[k]?.pop();
      if (buf) {
        this.freeBytes -= buf.length;
        return this.taken = buf;
      }
    }
    const cap = classCapacity(c);
    if (cap >= SLAB_CLASS_LIMIT) return this.taken = this.carve(cap, cap < ARENA_CLASS_LIMIT);
    let slab = this.slabs[c], used = this.slabUsed[c] ?? 0;
    if (!slab || used + cap > slab.length) {
      slab = this.slabs[c] = this.carve(SLAB_BYTES - SLAB_BYTES % cap, true);
      used = 0;
    }
    this.slabUsed[c] = used + cap;
    return this.taken = slab.subarray(used, used + cap);
  }

  /** `size` bytes from the arena when `fromArena` and it has them, else a buffer of their own. */
  private carve(size: number, fromArena: boolean): Buffer {
    if (fromArena) {
      const arena = this.arenaBuffer ??= Buffer.allocUnsafeSlow(Math.min(Math.ceil(this.limit * ARENA_SHARE), ARENA_MAX));
      if (this.arenaUsed + size <= arena.length) return arena.subarray(this.arenaUsed, this.arenaUsed += size);
    }
    return Buffer.allocUnsafeSlow(size);
  }

  /**
   * Caches `data`. `flags` may hold RECYCLE (data is the start of the buffer the last take() gave,
   * which nobody else keeps, so it may be reused once evicted) and SPECULATIVE.
   */
  set(pack: number, offset: number, type: ObjectTypeCode, data: Buffer, flags = 0): void {
    const taken = this.taken;
    this.taken = null;
    const whole = flags & RECYCLE && taken && taken.buffer === data.buffer && taken.byteOffset === data.byteOffset ? taken.length : 0;
    const cost = whole || data.length;
    const list = flags & SPECULATIVE ? 1 : 0;
    const speculativeLimit = this.limit / 6;
    if (cost > (list ? speculativeLimit : this.limit / 4) || this.find(pack, offset) !== NONE) return;
    const slot = this.allocSlot();
    this.data[slot] = data;
    this.chunks[slot] = whole ? taken : null;
    this.types[slot] = type;
    this.packOf[slot] = pack;
    this.offsetOf[slot] = offset;
    this.cost[slot] = cost;
    this.classOf[slot] = whole ? sizeClass(whole) : 0;
    this.listOf[slot] = list;
    this.table[this.at] = slot + 1;
    this.tableAt[slot] = this.at;
    if (++this.count * 2 > this.table.length) this.rehash(this.table.length * 2);
    this.append(slot);
    this.bytes += cost;
    if (list) this.speculativeBytes += cost;
    while (this.speculativeBytes > speculativeLimit) this.evict(this.oldest[1]!);
    while (this.bytes > this.limit) this.evict(this.oldest[0] !== NONE ? this.oldest[0]! : this.oldest[1]!);
  }

  clear(): void {
    this.data = [];
    this.chunks = [];
    this.freeSlots = [];
    this.oldest = [NONE, NONE];
    this.newest = [NONE, NONE];
    this.bytes = this.speculativeBytes = 0;
    this.table = new Int32Array(2048);
    this.count = 0;
    this.freeBuffers = [];
    this.freeBytes = 0;
    this.slabs = [];
    this.slabUsed = [];
    this.arenaBuffer = null;
    this.arenaUsed = 0;
    this.taken = null;
  }

  private allocSlot(): number {
    const reused = this.freeSlots.pop();
    if (reused !== undefined) return reused;
    const slot = this.data.length;
    this.data.push(null);
    this.chunks.push(null);
    if (slot >= this.types.length) {
      const n = this.types.length * 2;
      this.types = grow(this.types, new Uint8Array(n));
      this.packOf = grow(this.packOf, new Int32Array(n));
      this.offsetOf = grow(this.offsetOf, new Float64Array(n));
      this.cost = grow(this.cost, new Float64Array(n));
      this.classOf = grow(this.classOf, new Uint8Array(n));
      this.older = grow(this.older, new Int32Array(n));
      this.newer = grow(this.newer, new Int32Array(n));
      this.listOf = grow(this.listOf, new Uint8Array(n));
      this.tableAt = grow(this.tableAt, new Int32Array(n));
    }
    return slot;
  }

  private evict(slot: number): void {
    this.unlink(slot);
    this.removeAt(this.tableAt[slot]!);
    this.bytes -= this.cost[slot]!;
    if (this.listOf[slot]) this.speculativeBytes -= this.cost[slot]!;
    const c = this.classOf[slot]!;
    // Free buffers are bounded too: beyond a quarter of the limit they are left to the collector,
    // except the arena's, which no collector would take back.
    if (c && (this.freeBytes + this.cost[slot]! <= this.limit / 4 || this.chunks[slot]!.buffer === this.arenaBuffer?.buffer)) {
      (this.freeBuffers[c] ??= []).push(this.chunks[slot]!);
      this.freeBytes += this.cost[slot]!;
    }
    this.data[slot] = null;
    this.chunks[slot] = null;
    this.freeSlots.push(slot);
  }

  /** Empties table position i, moving later entries of its probe run back (no tombstones). */
  private removeAt(i: number): void {
    const table = this.table, mask = table.length - 1;
    this.count--;
    let hole = i;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const s = table[j]! - 1;
      if (s < 0) break;
      const home = DeltaBaseCache.hash(this.packOf[s]!, this.offsetOf[s]!) & mask;
      // The entry at j may fill the hole if its home is not cyclically within (hole, j].
      if (hole <= j ? home <= hole || home > j : home <= hole && home > j) {
        table[hole] = s + 1;
        this.tableAt[s] = hole;
        hole = j;
      }
    }
    table[hole] = 0;
  }

  private rehash(size: number): void {
    const old = this.table;
    const table = this.table = new Int32Array(size);
    const mask = size - 1;
    for (let i = 0; i < old.length; i++) {
      const s = old[i]! - 1;
      if (s < 0) continue;
      let j = DeltaBaseCache.hash(this.packOf[s]!, this.offsetOf[s]!) & mask;
      while (table[j]) j = (j + 1) & mask;
      table[j] = s + 1;
      this.tableAt[s] = j;
    }
  }

  private unlink(slot: number): void {
    const o = this.older[slot]!, n = this.newer[slot]!, list = this.listOf[slot]!;
    if (o !== NONE) this.newer[o] = n; else this.oldest[list] = n;
    if (n !== NONE) this.older[n] = o; else this.newest[list] = o;
  }

  private append(slot: number): void {
    const list = this.listOf[slot]!, newest = this.newest[list]!;
    this.older[slot] = newest;
    this.newer[slot] = NONE;
    if (newest !== NONE) this.newer[newest] = slot; else this.oldest[list] = slot;
    this.newest[list] = slot;
  }
}

function grow<T extends Uint8Array | Int32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
