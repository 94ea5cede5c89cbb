// An open-addressing hash table of object ids over one Uint8Array: ids are copied in once, as
// bytes, and every lookup compares bytes in place. The hash is the id's first four bytes, already
// uniformly distributed. Each id gets a dense index (insertion order) that callers use to keep
// per-object data in parallel typed arrays.
import { OID_BYTES } from '../core/oid.js';

export class OidMap {
  /** ids by dense index: index i lives at keys[i*20 .. i*20+20). */
  keys: Uint8Array;
  size = 0;
  private slots: Int32Array;
  private mask: number;

  constructor(expected = 1024) {
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.slots = new Int32Array(cap).fill(-1);
    this.mask = cap - 1;
    this.keys = new Uint8Array(Math.max(expected, 16) * OID_BYTES);
  }

  private static hash(buf: Uint8Array, off: number): number {
    return ((buf[off]! << 24) | (buf[off + 1]! << 16) | (buf[off + 2]! << 8) | buf[off + 3]!) >>> 0;
  }

  /** Dense index of the id, or -1. */
  get(buf: Uint8Array, off = 0): number {
    const keys = this.keys, slots = this.slots, mask = this.mask;
    let s = OidMap.hash(buf, off) & mask;
    for (;;) {
      const idx = slots[s]!;
      if (idx < 0) return -1;
      const k = idx * OID_BYTES;
      let i = 0;
      while (i < OID_BYTES && keys[k + i] === buf[off + i]) i++;
      if (i === OID_BYTES) return idx;
      s = (s + 1) & mask;
    }
  }

  /**
   * Dense index of the id, adding it if new. Returns the index; `added` is negative-encoded:
   * a new id returns ~index (always negative), an existing one its index.
   */
  addOrGet(buf: Uint8Array, off = 0): number {
    if (this.size * 2 >= this.slots.length) this.grow();
    const keys = this.keys, slots = this.slots, mask = this.mask;
    let s = OidMap.hash(buf, off) & mask;
    for (;;) {
      const idx = slots[s]!;
      if (idx < 0) break;
      const k = idx * OID_BYTES;
      let i = 0;
      while (i < OID_BYTES && keys[k + i] === buf[off + i]) i++;
      if (i === OID_BYTES) return idx;
      s = (s + 1) & mask;
    }
    const idx = this.size++;
    if ((idx + 1) * OID_BYTES > this.keys.length) {
      const bigger = new Uint8Array(this.keys.length * 2);
      bigger.set(this.keys);
      this.keys = bigger;
    }
    this.keys.set(buf.subarray(off, off + OID_BYTES), idx * OID_BYTES);
    slots[s] = idx;
    return ~idx;
  }

  private grow(): void {
    const cap = this.slots.length * 2;
    const slots = new Int32Array(cap).fill(-1);
    const mask = cap - 1;
    const keys = this.keys;
    for (let idx = 0; idx < this.size; idx++) {
      let s = OidMap.hash(keys, idx * OID_BYTES) & mask;
      while (slots[s]! >= 0) s = (s + 1) & mask;
      slots[s] = idx;
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
