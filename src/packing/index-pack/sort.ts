// Sorting object ids without a comparator call per pair: ids are uniformly random, so a counting
// sort on the first two bytes leaves buckets of a handful of ids, finished by insertion sort. A
// bucket made large on purpose (ids ground to share a prefix) falls back to a stable merge sort, so
// hostile input cannot make this quadratic.
import { compareOid, OID_BYTES } from '../../core/oid.js';

const INSERTION_MAX = 96;

/**
 * Returns 0..count-1 ordered by the 20-byte keys at keys[k*20], equal keys keeping their order
 * (git's qsort is glibc's merge sort, which is stable too).
 */
export function sortByOid(keys: Uint8Array, count: number): Int32Array {
  const starts = new Int32Array(65537);
  for (let k = 0; k < count; k++) starts[((keys[k * OID_BYTES]! << 8) | keys[k * OID_BYTES + 1]!) + 1]!++;
  for (let b = 0; b < 65536; b++) starts[b + 1]! += starts[b]!;
  const out = new Int32Array(count);
  const fill = starts.slice(0, 65536);
  for (let k = 0; k < count; k++) out[fill[(keys[k * OID_BYTES]! << 8) | keys[k * OID_BYTES + 1]!]!++] = k;
  for (let b = 0; b < 65536; b++) {
    const lo = starts[b]!, hi = starts[b + 1]!;
    if (hi - lo < 2) continue;
    if (hi - lo <= INSERTION_MAX) insertionSort(keys, out, lo, hi);
    else {
      const part = Array.from(out.subarray(lo, hi));
      part.sort((a, c) => compareOid(keys, a * OID_BYTES, keys, c * OID_BYTES) || a - c);
      out.set(part, lo);
    }
  }
  return out;
}

function insertionSort(keys: Uint8Array, out: Int32Array, lo: number, hi: number): void {
  for (let i = lo + 1; i < hi; i++) {
    const v = out[i]!;
    let j = i - 1;
    while (j >= lo && compareOid(keys, out[j]! * OID_BYTES, keys, v * OID_BYTES) > 0) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = v;
  }
}

/** First position in `sorted` (a permutation from sortByOid) whose key is >= the id, or count. */
export function lowerBound(keys: Uint8Array, sorted: Int32Array, count: number, id: Uint8Array, idOff: number): number {
  let lo = 0, hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareOid(keys, sorted[mid]! * OID_BYTES, id, idOff) < 0) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** The object (an index into `keys`' rows) whose id is `id`, or -1. */
export function findSorted(keys: Uint8Array, sorted: Int32Array, count: number, id: Uint8Array, idOff: number): number {
  const k = lowerBound(keys, sorted, count, id, idOff);
  return k < count && compareOid(keys, sorted[k]! * OID_BYTES, id, idOff) === 0 ? sorted[k]! : -1;
}
