// An open-addressing hash table of object ids over one Int32Array: ids are copied in once, as
// bytes, and a lookup compares them in place. Each slot holds the dense index and the id's first
// 32-bit word, which is also the hash (ids are uniformly random): a probe that meets another id
// moves on after one comparison, and only a slot whose word matches is confirmed against the id
// in `keys`. The slot is the word's top bits, so ids in sorted order (a pack index read from
// start to end, as the pack writer does for every object it sends) meet the table in slot order
// too, each probe beside the last instead of a cache miss apart. Eight bytes a slot keep the
// table small (8 MiB for a 700k-object walk, where a slot with the whole id took 24): with the
// walk skipping the entries it has seen (tree-layouts.ts), most lookups are of new ids, which
// the table answers alone. Callers keep per-object data in parallel typed arrays indexed by the
// dense index; `keys` holds the ids by dense index for them.
import { OID_BYTES } from '../core/oid.js';

/**
 * Int32 words per slot: dense index + 1 (0 when empty: a new table is zeroed memory the kernel
 * maps lazily, so a table sized for a whole repository costs memory only as it fills), then the
 * id's first word.
 */
const SLOT = 2;

export class OidMap {
  /** ids by dense index: index i lives at keys[i*20 .. i*20+20). */
  keys: Uint8Array;
  size = 0;
  private slots: Int32Array;
  private mask: number;
  /** 32 less the table's bits: a word's slot is its top bits, word >>> shift. */
  private shift: number;
  /** Slot where the last probe() stopped: the id's slot, or the empty one where it would go. */
  private slot = 0;
  /** The first word of the id last probed, for addOrGet to store without reading it again. */
  private w0 = 0;

  constructor(expected = 1024) {
    let cap = 16;
    while (cap * 3 < expected * 4) cap *= 2;
    this.slots = new Int32Array(cap * SLOT);
    this.mask = cap - 1;
    this.shift = 32 - Math.log2(cap);
    this.keys = new Uint8Array(Math.max(expected, 16) * OID_BYTES);
  }

  /** Dense index of the id, or -1; leaves this.slot at its slot or the free one to fill. */
  private probe(buf: Uint8Array, off: number): number {
    const w0 = this.w0 = (buf[off]! << 24) | (buf[off + 1]! << 16) | (buf[off + 2]! << 8) | buf[off + 3]!;
    const slots = this.slots, mask = this.mask, keys = this.keys;
    let s = w0 >>> this.shift;
    for (;;) {
      const b = s * SLOT;
      const idx = slots[b]!;
      if (idx === 0) break;
      if (slots[b + 1] === w0) {
        const k = (idx - 1) * OID_BYTES;
        let i = 4;
        while (i < OID_BYTES && keys[k + i] === buf[off + i]) i++;
        if (i === OID_BYTES) {
          this.slot = s;
          return idx - 1;
        }
      }
      s = (s + 1) & mask;
    }
    this.slot = s;
    return -1;
  }

  /** Dense index of the id, or -1. */
  get(buf: Uint8Array, off = 0): number {
    return this.probe(buf, off);
  }

  /** Dense index of the id, adding it if new: a new id returns ~index (negative), an old one its index. */
  addOrGet(buf: Uint8Array, off = 0): number {
    // Linear probing stays short up to three quarters full.
    if (this.size * 4 >= (this.mask + 1) * 3) this.grow();
    const found = this.probe(buf, off);
    if (found >= 0) return found;
    const idx = this.size++;
    if ((idx + 1) * OID_BYTES > this.keys.length) {
      const bigger = new Uint8Array(this.keys.length * 2);
      bigger.set(this.keys);
      this.keys = bigger;
    }
    const dst = this.keys, k = idx * OID_BYTES;
    for (let i = 0; i < OID_BYTES; i++) dst[k + i] = buf[off + i]!;
    const slots = this.slots, b = this.slot * SLOT;
    slots[b] = idx + 1;
    slots[b + 1] = this.w0;
    return ~idx;
  }

  /** Makes room for `n` ids in all, so that a walk known to be big does not grow the table step by step. */
  reserve(n: number): void {
    let cap = this.mask + 1;
    while (cap * 3 < n * 4) cap *= 2;
    if (cap > this.mask + 1) this.rehash(cap);
    if (this.keys.length < n * OID_BYTES) {
      const bigger = new Uint8Array(n * OID_BYTES);
      bigger.set(this.keys.subarray(0, this.size * OID_BYTES));
      this.keys = bigger;
    }
  }

  private grow(): void {
    this.rehash((this.mask + 1) * 2);
  }

  private rehash(cap: number): void {
    const old = this.slots;
    const slots = new Int32Array(cap * SLOT);
    const mask = cap - 1, shift = 32 - Math.log2(cap);
    for (let i = 0; i < old.length; i += SLOT) {
      if (old[i] === 0) continue;
      let s = old[i + 1]! >>> shift;
      while (slots[s * SLOT] !== 0) s = (s + 1) & mask;
      for (let j = 0; j < SLOT; j++) slots[s * SLOT + j] = old[i + j]!;
    }
    this.slots = slots;
    this.mask = mask;
    this.shift = shift;
  }
}

/** Grows a typed array to hold at least `n` elements, doubling. */
export function ensureCapacity<T extends Int32Array | Uint8Array | Float64Array | Uint32Array>(arr: T, n: number): T {
  if (arr.length >= n) return arr;
  let cap = arr.length || 16;
  while (cap < n) cap *= 2;
  const bigger = new (arr.constructor as new (n: number) => T)(cap);
  bigger.set(arr);
  return bigger;
}
