// The stream resolver's caches of recent contents (stream-resolve.ts): whole objects, or delta
// results, in one buffer used as a ring, found by object number.

/** Entries a ContentRing holds at most, whatever their sizes (an empty blob takes no bytes). */
const RING_ENTRIES = 1 << 14;
/** Slots of a ContentRing's index: twice its entries, so that probes stay short. */
const INDEX_SLOTS = RING_ENTRIES * 2;
const INDEX_SHIFT = 32 - Math.log2(INDEX_SLOTS);

/**
 * Contents by object number in one buffer used as a ring: each new one goes after the last, and
 * the oldest in its way are dropped. Nothing is allocated per object, and the index from object
 * number to entry is a typed array: buffers of their own and a Map held ~25 MiB more at the
 * peak on large (the collector runs by heap size, and the buffers live outside the heap; a Map
 * that is added to and deleted from leaves its old tables behind in the old generation).
 */
export class ContentRing {
  readonly bytes: Buffer;
  private readonly obj = new Int32Array(RING_ENTRIES);
  private readonly at = new Int32Array(RING_ENTRIES);
  private readonly len = new Int32Array(RING_ENTRIES);
  /** Open addressing, linear probing: entry slot + 1, or 0 for empty. */
  private readonly index = new Int32Array(INDEX_SLOTS);
  /** Entry counters: the live entries are [first, next), oldest first. */
  private first = 0;
  private next = 0;
  /** Where the next entry goes. */
  private head = 0;

  constructor(size: number) {
    this.bytes = Buffer.allocUnsafe(size);
  }

  get(i: number): Buffer | null {
    const s = this.find(i);
    return s < 0 ? null : this.bytes.subarray(this.at[s]!, this.at[s]! + this.len[s]!);
  }

  /**
   * Where `n` bytes can go, once the entries in the way are dropped; -1 for more than an eighth of
   * the ring, which is not kept.
   */
  private reserve(n: number): number {
    const size = this.bytes.length;
    if (n > size >>> 3) return -1;
    let pos = this.head;
    if (pos + n > size) {
      // Start again at the front; what lies from here to the end is the oldest, and goes first.
      while (this.first !== this.next && this.at[this.first % RING_ENTRIES]! >= pos) this.drop();
      pos = 0;
    }
    // The oldest entry is the next one after `pos` in the ring, if any is.
    while (this.first !== this.next) {
      const a = this.at[this.first % RING_ENTRIES]!;
      if (a < pos || a >= pos + n) break;
      this.drop();
    }
    if (this.next - this.first === RING_ENTRIES) this.drop();
    return pos;
  }

  /**
   * A view of the ring for `n` bytes (reserve()), or undefined when there is no room or it would
   * lie over `base`, the content the new one is made from (still read while it is written).
   */
  room(n: number, base: Uint8Array | null): Buffer | undefined {
    const pos = this.reserve(n);
    if (pos < 0) return undefined;
    if (base && base.buffer === this.bytes.buffer) {
      const from = base.byteOffset - this.bytes.byteOffset;
      if (from < pos + n && pos < from + base.length) return undefined;
    }
    return this.bytes.subarray(pos, pos + n);
  }

  /** Keeps object `i`'s content (not kept yet), `data`: a view within the last room(). */
  keep(i: number, data: Uint8Array): void {
    const s = this.next++ % RING_ENTRIES;
    const pos = data.byteOffset - this.bytes.byteOffset;
    this.obj[s] = i;
    this.at[s] = pos;
    this.len[s] = data.length;
    let h = home(i);
    while (this.index[h] !== 0) h = (h + 1) & (INDEX_SLOTS - 1);
    this.index[h] = s + 1;
    this.head = pos + data.length;
  }

  private find(i: number): number {
    const index = this.index;
    for (let h = home(i); ; h = (h + 1) & (INDEX_SLOTS - 1)) {
      const v = index[h]!;
      if (v === 0) return -1;
      if (this.obj[v - 1] === i) return v - 1;
    }
  }

  /** Drops the oldest entry, and closes its gap in the index (backward shift: no tombstones). */
  private drop(): void {
    const s = this.first++ % RING_ENTRIES;
    const index = this.index, mask = INDEX_SLOTS - 1;
    let p = home(this.obj[s]!);
    while (index[p] !== s + 1) p = (p + 1) & mask;
    index[p] = 0;
    for (let q = (p + 1) & mask; index[q] !== 0; q = (q + 1) & mask) {
      const h = home(this.obj[index[q]! - 1]!);
      // An entry whose home lies cyclically in (p, q] stays; any other moves into the gap.
      if (p < q ? h > p && h <= q : h > p || h <= q) continue;
      index[p] = index[q]!;
      index[q] = 0;
      p = q;
    }
  }
}

/** An object number's first slot in a ContentRing's index (Fibonacci hashing). */
function home(i: number): number {
  return Math.imul(i, 0x9e3779b1) >>> INDEX_SHIFT;
}
