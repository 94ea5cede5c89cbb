// git's versioncmp (versioncmp.c, glibc's strverscmp): names compared byte by byte, except that
// runs of digits compare as numbers ("v1.9" before "v1.10"), and a run with leading zeros as a
// fraction ("1.01" before "1.1"). It orders --sort=version:refname. Names that differ where one
// of them holds a pre-release suffix (versionsort.suffix: "-rc" puts v1.0-rc1 before v1.0) are
// ordered by the suffixes first, as git's swap_prereleases orders them.
import type { Config } from '../config/index.js';

// States while the bytes are equal: normal, in an integer, in a fraction, in leading zeros.
const S_N = 0, S_I = 3, S_F = 6, S_Z = 9;
const CMP = 2, LEN = 3;
const NEXT_STATE = [
  /* S_N */ S_N, S_I, S_Z,
  /* S_I */ S_N, S_I, S_I,
  /* S_F */ S_N, S_F, S_F,
  /* S_Z */ S_N, S_F, S_Z,
];
// By state and the classes of the first differing bytes (other, digit, zero; rows 3 wide).
const RESULT = [
  /* S_N */ CMP, CMP, CMP, CMP, LEN, CMP, CMP, CMP, CMP,
  /* S_I */ CMP, -1, -1, +1, LEN, LEN, +1, LEN, LEN,
  /* S_F */ CMP, CMP, CMP, CMP, CMP, CMP, CMP, CMP, CMP,
  /* S_Z */ CMP, +1, +1, -1, CMP, CMP, -1, CMP, CMP,
];

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
/** 0 for a non-digit (or the end), 1 for 1-9, 2 for '0'. */
const kind = (c: number): number => (c === 0x30 ? 2 : isDigit(c) ? 1 : 0);

/**
 * Negative, zero or positive as `a` sorts before, with or after `b` (names hold no NUL).
 * `suffixes` gives the pre-release suffixes in the configuration's order, asked for (as git reads
 * them) when two names first differ.
 */
export function versionCompare(a: Buffer, b: Buffer, suffixes?: () => readonly Buffer[]): number {
  // Past the end reads as 0, as C's terminating NUL.
  const at = (s: Buffer, k: number): number => (k < s.length ? s[k]! : 0);
  let i = 0;
  let c1 = at(a, 0), c2 = at(b, 0);
  let state = S_N + kind(c1);
  let diff: number;
  while ((diff = c1 - c2) === 0) {
    if (c1 === 0) return 0;
    state = NEXT_STATE[state]!;
    i++;
    c1 = at(a, i);
    c2 = at(b, i);
    state += kind(c1);
  }
  const swapped = suffixes ? swapPrereleases(a, b, i, suffixes()) : 0;
  if (swapped !== 0) return swapped;
  const result = RESULT[state * 3 + kind(c2)]!;
  if (result === CMP) return diff;
  if (result !== LEN) return result;
  // Both in an integer that differs here: the longer run of digits is the larger number.
  let k = i + 1;
  while (isDigit(at(a, k))) {
    if (!isDigit(at(b, k))) return 1;
    k++;
  }
  return isDigit(at(b, k)) ? -1 : diff;
}

/** Where a configured suffix was found in a name: its place in the configuration, offset and length. */
interface SuffixMatch { conf: number; start: number; len: number }

/**
 * git's swap_prereleases: with the names first differing at `off`, a name holding a suffix that
 * covers `off` or ends just before it sorts first; both holding different ones, the one configured
 * first does. A name's suffix is the one starting earliest around `off`, the longest of those.
 * 0 when the suffixes do not decide (neither has one, or both the same).
 */
function swapPrereleases(a: Buffer, b: Buffer, off: number, suffixes: readonly Buffer[]): number {
  const m1: SuffixMatch = { conf: -1, start: off, len: -1 };
  const m2: SuffixMatch = { conf: -1, start: off, len: -1 };
  suffixes.forEach((suffix, conf) => {
    const start = suffix.length < off ? off - suffix.length : 0;
    betterMatch(a, suffix, start, conf, m1);
    betterMatch(b, suffix, start, conf, m2);
  });
  if (m1.conf === m2.conf) return 0;
  if (m1.conf >= 0 && m2.conf >= 0) return m1.conf - m2.conf;
  return m1.conf >= 0 ? -1 : 1;
}

/** git's find_better_matching_suffix: `suffix` in `name` from `start`, if earlier than `match` (or as early and longer). */
function betterMatch(name: Buffer, suffix: Buffer, start: number, conf: number, match: SuffixMatch): void {
  const end = match.len < suffix.length ? match.start : match.start - 1;
  for (let i = start; i <= end; i++) {
    if (name.length - i >= suffix.length && name.compare(suffix, 0, suffix.length, i, i + suffix.length) === 0) {
      match.conf = conf;
      match.start = i;
      match.len = suffix.length;
      return;
    }
  }
}

/**
 * The pre-release suffixes: versionsort.suffix, else its older name versionsort.prereleaseSuffix,
 * of which git warns when both are set.
 */
export function prereleaseSuffixes(config: Config, warn: (text: string) => void): Buffer[] {
  const suffixes = config.getAll('versionsort', null, 'suffix');
  const older = config.getAll('versionsort', null, 'prereleasesuffix');
  if (suffixes.length > 0 && older.length > 0) warn('warning: ignoring versionsort.prereleasesuffix because versionsort.suffix is set\n');
  return (suffixes.length > 0 ? suffixes : older).map((s) => Buffer.from(s));
}
