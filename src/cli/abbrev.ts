// Abbreviated object names as git prints them (--abbrev, core.abbrev): find_unique_abbrev's
// shortest unique prefix, at least core.abbrev's length (auto: by the number of objects).
import { toHex } from '../core/oid.js';
import type { ObjectStore } from '../odb/object-store.js';
import { abbrevLength } from '../client/fetch-report.js';

/** git's MINIMUM_ABBREV. */
export const MINIMUM_ABBREV = 4;

/** core.abbrev as git reads it: auto (unset), a length from 4 to 40, or a false boolean for full names. */
export function defaultAbbrev(value: string | undefined, odb: ObjectStore): number {
  if (value !== undefined && value.toLowerCase() !== 'auto') {
    if (/^(no|false|off)$/i.test(value) || value === '0') return 40;
    const n = Number(value);
    if (Number.isInteger(n) && n >= MINIMUM_ABBREV && n <= 40) return n;
  }
  return abbrevLength(odb.packedObjectCount());
}

/**
 * git's find_unique_abbrev: at least `min` hex digits, and one more than the longest prefix (under
 * 32 digits) the name shares with any other object in the repository (it need not exist itself).
 */
export function abbreviator(odb: ObjectStore, min: number): (oid: Uint8Array, off: number) => string {
  if (min >= 40) return (oid, off) => toHex(oid, off);
  let ids: string[] | null = null;
  return (oid, off) => {
    const hex = toHex(oid, off);
    if (!ids) {
      const all: string[] = [];
      odb.forEachId((buf, o) => { all.push(toHex(buf, o)); });
      ids = all.sort();
    }
    let lo = 0, hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid]! < hex) lo = mid + 1; else hi = mid;
    }
    let len = min;
    const common = (other: string | undefined): void => {
      if (other === undefined || other === hex) return;
      let i = 0;
      while (i < 40 && other[i] === hex[i]) i++;
      // extend_abbrev_len's bound (GIT_MAX_RAWSZ, 32): a longer shared prefix lengthens nothing.
      if (i < 32 && i + 1 > len) len = i + 1;
    };
    common(ids[lo - 1]);
    common(ids[lo]);
    if (ids[lo] === hex) common(ids[lo + 1]);
    return hex.slice(0, Math.min(len, 40));
  };
}
