// An open-addressing hash table of object ids over one Uint8Array: ids are copied in once, as
// bytes, and every lookup compares bytes in place. The hash is the id's first four bytes, already
// uniformly distributed. Each slot holds [dense index, hash] side by side, so a probe that misses
// costs one memory access and a hit two (the slot, then the id's bytes) — the same as git's
// object hash. Callers keep per-object data in parallel typed arrays indexed by the dense index.
import { OID_BYTES } from '../core/oid.js';

export class OidMap {
  /** ids by dense index: index i lives at keys[i*20 .. i*20+20). */
  keys: Uint8Array;
  size = 0;
  /** 2 Int32 per slot: dense index (-1 when empty) and the id's hash. */
  private slots: Int32Array;
  private mask: number;

  constructor(expected = 1024) {
    let cap = 16;
    while (cap * 3 < expected * 4) cap *= 2;
    this.slots = OidMap.emptySlots(cap);
    this.mask = cap - 1;
    this.keys = new Uint8Array(Math.max(expected, 16) * OID_BYTES);
  }

  private static emptySlots(cap: number): Int32Array {
    const slots = new Int32Array(cap * 2);
    for (let i = 0; i < slots.length; i += 2) slots[i] = -1;
    return slots;
  }

  private static hash(buf: Uint8Array, off: number): number {
    return (buf[off]! << 24) | (buf[off + 1]! << 16) | (buf[off + 2]! << 8) | buf[off + 3]!;
  }

  /** Slot where the id is, or the empty slot where it would go (set by probe()). */
  private slot = 0;

  /** Dense index of the id, or -1; leaves this.slot at its slot or the free one to fill. */
  private probe(buf: Uint8Array, off: number, h: number): number {
    const keys = this.keys, slots = this.slots, mask = this.mask;
    let s = h & mask;
    for (;;) {
      const idx = slots[2 * s]!;
      if (idx < 0) break;
      if (slots[2 * s + 1] === h) {
        const k = idx * OID_BYTES;
        let i = 4;
        while (i < OID_BYTES && keys[k + i] === buf[off + i]) i++;
        if (i === OID_BYTES) { this.slot = s; return idx; }
      }
      s = (s + 1) & mask;
    }
    this.slot = s;
    return -1;
  }

  /** Dense index of the id, or -1. */
  get(buf: Uint8Array, off = 0): number {
    return this.probe(buf, off, OidMap.hash(buf, off));
  }

  /** Dense index of the id, adding it if new: a new id returns ~index (negative), an old one its index. */
  addOrGet(buf: Uint8Array, off = 0): number {
    // Linear probing stays short up to three quarters full.
    if (this.size * 4 >= (this.mask + 1) * 3) this.grow();
    const h = OidMap.hash(buf, off);
    const found = this.probe(buf, off, h);
    if (found >= 0) return found;
    const idx = this.size++;
    if ((idx + 1) * OID_BYTES > this.keys.length) {
      const bigger = new Uint8Array(this.keys.length * 2);
      bigger.set(this.keys);
      this.keys = bigger;
    }
    const dst = this.keys, k = idx * OID_BYTES;
    for (let i = 0; i < OID_BYTES; i++) dst[k + i] = buf[off + i]!;
    this.slots[2 * this.slot] = idx;
    this.slots[2 * this.slot + 1] = h;
    return ~idx;
  }

  private grow(): void {
    const old = this.slots;
    const cap = (this.mask + 1) * 2;
    const slots = OidMap.emptySlots(cap);
    const mask = cap - 1;
    for (let i = 0; i < old.length; i += 2) {
      const idx = old[i]!;
      if (idx < 0) continue;
      const h = old[i + 1]!;
      let s = h & mask;
      while (slots[2 * s]! >= 0) s = (s + 1) & mask;
      slots[2 * s] = idx;
      slots[2 * s + 1] = h;
    }
    this.slots = slots;
    this.mask = mask;
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
