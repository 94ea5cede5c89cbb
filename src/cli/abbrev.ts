// Abbreviated object names as git prints them (--abbrev, core.abbrev): find_unique_abbrev's
// shortest unique prefix, at least core.abbrev's length (auto: by the number of objects).
import { toHex } from '../core/oid.js';
import { sharedHexDigits } from '../core/oid-prefix.js';
import type { Config } from '../config/index.js';
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
 * Only objects sharing `min` digits can lengthen it, and the object database finds just those.
 */
export function abbreviator(odb: ObjectStore, min: number): (oid: Uint8Array, off: number) => string {
  if (min >= 40) return (oid, off) => toHex(oid, off);
  return (oid, off) => {
    let len = min;
    odb.forEachIdWithPrefix(oid, off, min, (buf, o) => {
      const shared = sharedHexDigits(buf, o, oid, off);
      // extend_abbrev_len's bound (GIT_MAX_RAWSZ, 32): the object itself (40) or a longer shared
      // prefix lengthens nothing.
      if (shared < 32 && shared + 1 > len) len = shared + 1;
    });
    return toHex(oid, off, Math.ceil(len / 2)).slice(0, len);
  };
}

/** Names abbreviated as core.abbrev in `config` says, as git shows the commits it reports on. */
export function configuredAbbreviator(odb: ObjectStore, config: Config): (oid: Uint8Array, off: number) => string {
  return abbreviator(odb, defaultAbbrev(config.get('core', null, 'abbrev'), odb));
}
