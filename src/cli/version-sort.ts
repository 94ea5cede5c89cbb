// git's versioncmp (versioncmp.c, glibc's strverscmp): names compared byte by byte, except that
// runs of digits compare as numbers ("v1.9" before "v1.10"), and a run with leading zeros as a
// fraction ("1.01" before "1.1"). It orders --sort=version:refname. git's versionsort.suffix
// reordering of pre-release suffixes is not done.

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

/** Negative, zero or positive as `a` sorts before, with or after `b` (names hold no NUL). */
export function versionCompare(a: Buffer, b: Buffer): number {
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
