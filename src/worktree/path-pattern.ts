// gitignore-style path patterns, shared by attributes files and sparse-checkout patterns: git's
// dir.c parse_path_pattern, match_basename and match_pathname. A pattern without '/' is a basename
// at any depth; one with '/' is matched against the whole path below its file's directory
// (wildmatch with WM_PATHNAME, so '*' stops at '/'); a trailing '/' only matches directories.
import { WM_CASEFOLD, WM_PATHNAME, wildmatch } from '../core/wildmatch.js';

export const PATTERN_NODIR = 1;
export const PATTERN_ENDSWITH = 2;
export const PATTERN_MUSTBEDIR = 4;
export const PATTERN_NEGATIVE = 8;

export interface PathPattern {
  /** Without a leading '!' and a trailing '/'. */
  pattern: Uint8Array;
  /** PATTERN_* bits. */
  flags: number;
  /** Length of the leading part without wildcards. */
  literalPrefix: number;
}

/** git's is_glob_special. */
export function isGlobSpecial(c: number): boolean {
  return c === 0x2a || c === 0x3f || c === 0x5b || c === 0x5c;
}

/** git's parse_path_pattern; a leading '!' makes it negative only when `negation` allows one. */
export function parsePathPattern(p: Uint8Array, negation = false): PathPattern {
  let flags = 0;
  if (negation && p[0] === 0x21) {
    flags |= PATTERN_NEGATIVE;
    p = p.subarray(1);
  }
  let len = p.length;
  if (len && p[len - 1] === 0x2f) {
    len--;
    flags |= PATTERN_MUSTBEDIR;
  }
  const pattern = p.subarray(0, len);
  if (pattern.indexOf(0x2f) < 0) flags |= PATTERN_NODIR;
  let literalPrefix = 0;
  while (literalPrefix < len && !isGlobSpecial(pattern[literalPrefix]!)) literalPrefix++;
  if (len && pattern[0] === 0x2a && !pattern.subarray(1).some(isGlobSpecial)) flags |= PATTERN_ENDSWITH;
  return { pattern, flags, literalPrefix };
}

/**
 * Whether `path` (its last component starting at `basename`) matches `rule`, read relative to
 * directory `base` ('' for the root); PATTERN_MUSTBEDIR is the caller's to check.
 */
export function matchesPathPattern(path: Uint8Array, basename: number, rule: PathPattern, base: Uint8Array, fold: boolean): boolean {
  const pat = rule.pattern;
  if (rule.flags & PATTERN_NODIR) {
    const nameLen = path.length - basename;
    if (rule.literalPrefix === pat.length) {
      return nameLen === pat.length && sameBytes(pat, 0, path, basename, nameLen, fold);
    }
    if (rule.flags & PATTERN_ENDSWITH) {
      const tail = pat.length - 1;
      return tail <= nameLen && sameBytes(pat, 1, path, path.length - tail, tail, fold);
    }
    return wildmatch(pat, 0, pat.length, path, basename, path.length, fold ? WM_CASEFOLD : 0);
  }
  // git's match_pathname: the pattern is relative to `base`.
  let p = 0, prefix = rule.literalPrefix;
  if (pat[0] === 0x2f) { p = 1; prefix--; }
  const baseLen = base.length;
  if (path.length < baseLen + 1 || (baseLen && path[baseLen] !== 0x2f) || !sameBytes(path, 0, base, 0, baseLen, fold)) {
    return false;
  }
  let name = baseLen ? baseLen + 1 : 0;
  if (prefix > 0) {
    if (prefix > path.length - name) return false;
    if (!sameBytes(pat, p, path, name, prefix, fold)) return false;
    p += prefix;
    name += prefix;
    if (p === pat.length && name === path.length) return true;
  }
  return wildmatch(pat, p, pat.length, path, name, path.length, WM_PATHNAME | (fold ? WM_CASEFOLD : 0));
}

function sameBytes(a: Uint8Array, ao: number, b: Uint8Array, bo: number, len: number, fold: boolean): boolean {
  for (let k = 0; k < len; k++) {
    let x = a[ao + k]!, y = b[bo + k]!;
    if (x === y) continue;
    if (!fold) return false;
    if (x >= 0x41 && x <= 0x5a) x += 32;
    if (y >= 0x41 && y <= 0x5a) y += 32;
    if (x !== y) return false;
  }
  return true;
}
