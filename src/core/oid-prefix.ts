// Object ids by their first hex digits, in bytes: what a short name (`rev-parse 1a2b`) resolves
// to, and how long an abbreviation must be to name one object (--abbrev), as git's object-name.c
// finds both. Each store of ids (a pack's .idx, a loose fan-out directory) keeps them sorted, so
// the ids sharing a prefix are one run found by binary search, not every id turned to hex.
import { compareOid, OID_BYTES, OID_HEX } from './oid.js';

/** How many leading hex digits the ids at `a` and `b` share (40 when they are equal). */
export function sharedHexDigits(a: Uint8Array, aOff: number, b: Uint8Array, bOff: number): number {
  for (let i = 0; i < OID_BYTES; i++) {
    const x = a[aOff + i]! ^ b[bOff + i]!;
    if (x !== 0) return 2 * i + (x < 16 ? 1 : 0);
  }
  return OID_HEX;
}

/**
 * Calls `fn` with each id among positions [lo, count) of sorted ids (position i's at `at(i)` in
 * `buf`) that shares its first `digits` hex digits with the id at `key`: they are one run, which
 * starts at the first id not below `key` with its other digits zeroed, found by binary search up
 * to `hi` (the end of the fan-out bucket that holds it).
 */
export function forEachSharingPrefix(buf: Uint8Array, at: (i: number) => number, lo: number, hi: number, count: number,
  key: Uint8Array, keyOff: number, digits: number, fn: (buf: Uint8Array, off: number) => void): void {
  const start = new Uint8Array(OID_BYTES);
  start.set(key.subarray(keyOff, keyOff + (digits >> 1)));
  if (digits & 1) start[digits >> 1] = key[keyOff + (digits >> 1)]! & 0xf0;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareOid(buf, at(mid), start, 0) < 0) lo = mid + 1; else hi = mid;
  }
  for (let i = lo; i < count; i++) {
    const off = at(i);
    if (sharedHexDigits(buf, off, key, keyOff) < digits) return;
    fn(buf, off);
  }
}
