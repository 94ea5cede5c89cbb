// The path of the entry a tree walk is at, built in one buffer: a subtree's entries append their
// names to the path its parent left in the first bytes, so no path is ever allocated. Shared by
// the object walk and the bitmap walk's search for objects the bitmaps do not cover.
import { ensureCapacity } from './oid-map.js';

export class EntryPath {
  /** The path in bytes[0..length), for the length a walk keeps at each level. */
  bytes: Uint8Array;

  constructor(capacity: number) {
    this.bytes = new Uint8Array(capacity);
  }

  /** Puts `/` and data[nameStart..nameEnd) after the parent's path of `parentLength` bytes; returns the child's length. */
  child(parentLength: number, data: Uint8Array, nameStart: number, nameEnd: number): number {
    const length = parentLength + (parentLength ? 1 : 0) + nameEnd - nameStart;
    if (length > this.bytes.length) this.bytes = ensureCapacity(this.bytes, length * 2);
    const bytes = this.bytes;
    let p = parentLength;
    if (parentLength) bytes[p++] = 0x2f;
    // Names are short: copied by hand rather than through a view made for each entry.
    for (let i = nameStart; i < nameEnd; i++) bytes[p++] = data[i]!;
    return length;
  }
}
