// Tree-entry names that some filesystem would resolve to `.git`, `.gitmodules` and the other files
// git gives meaning to. A name that is harmless on Linux can be `.git` on NTFS (`GIT~1`, `.git.`,
// `.git::$INDEX_ALLOCATION`) or on HFS+ (`.g\u200cit`), and repositories travel between systems,
// so every rule applies on every platform. The matchers port git's path.c (is_ntfs_dotgit,
// is_ntfs_dot_generic) and utf8.c (is_hfs_dot_generic) rule for rule, including their leniencies,
// so that tsgit flags exactly what git flags.
//
// All functions take one path component as bytes (buffer + [start, end) so a caller walking a tree
// allocates nothing) or as a string. A NUL byte ends the name, as it would for any C-level API.

const NUL = 0x00, SPACE = 0x20, DOT = 0x2e, SLASH = 0x2f, COLON = 0x3a, BACKSLASH = 0x5c, TILDE = 0x7e;

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

const encoder = new TextEncoder();
const ascii = (s: string): Uint8Array => encoder.encode(s);

/** One of git's special dot-files: its name without the dot, and NTFS's fallback short-name stem. */
interface DotFile { readonly name: Uint8Array; readonly shortPrefix: Uint8Array }

// The fallback stems are what NTFS derives from a hash of the long name once `~1`..`~4` are taken;
// git hard-codes them (see the comments on is_ntfs_dot_generic in git's path.c).
const GITMODULES: DotFile = { name: ascii('gitmodules'), shortPrefix: ascii('gi7eba') };
const GITATTRIBUTES: DotFile = { name: ascii('gitattributes'), shortPrefix: ascii('gi7d29') };
const GITIGNORE: DotFile = { name: ascii('gitignore'), shortPrefix: ascii('gi250a') };
const MAILMAP: DotFile = { name: ascii('mailmap'), shortPrefix: ascii('maba30') };
const GIT = ascii('git');

function lower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

/** The first `byte` in buf[start, end), or -1. (indexOf would scan on to the end of a whole tree.) */
function indexOfIn(buf: Uint8Array, byte: number, start: number, end: number): number {
  for (let i = start; i < end; i++) if (buf[i] === byte) return i;
  return -1;
}

/** Where the name really ends: at `end` or at the first NUL before it. */
function nameEnd(buf: Uint8Array, start: number, end: number): number {
  const nul = indexOfIn(buf, NUL, start, end);
  return nul >= 0 ? nul : end;
}

// ---- HFS+ ----------------------------------------------------------------------------------------

/** Code points HFS+ drops when it compares names, so `.g\u200cit` opens `.git`. */
function hfsIgnorable(cp: number): boolean {
  return (cp >= 0x200c && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x206a && cp <= 0x206f) || cp === 0xfeff;
}

// The helpers below are module functions, not closures made per call: they run for every path
// component of every checkout (112k names in a wide tree), and per-call closures were ~24 MiB of
// garbage there.

function isContinuation(buf: Uint8Array, j: number, end: number): boolean {
  return j < end && (buf[j]! & 0xc0) === 0x80;
}

/** buf[k] inside the name, 0 past its end (names hold no NUL, which problemOf checks first). */
function byteAt(buf: Uint8Array, k: number, end: number): number {
  return k < end ? buf[k]! : 0;
}

/**
 * Decodes one UTF-8 sequence at buf[i] (git's pick_one_utf8_char: no overlongs, surrogates,
 * U+FFFE/U+FFFF or code points past U+10FFFF). Returns (codePoint * 8 + byteLength), 0 at the end
 * of the name, or -1 for malformed input.
 */
function decodeUtf8(buf: Uint8Array, i: number, end: number): number {
  if (i >= end) return 0;
  const b0 = buf[i]!;
  if (b0 < 0x80) return b0 * 8 + 1;
  if ((b0 & 0xe0) === 0xc0) {
    if (!isContinuation(buf, i + 1, end) || (b0 & 0xfe) === 0xc0) return -1;
    return (((b0 & 0x1f) << 6) | (buf[i + 1]! & 0x3f)) * 8 + 2;
  }
  if ((b0 & 0xf0) === 0xe0) {
    if (!isContinuation(buf, i + 1, end) || !isContinuation(buf, i + 2, end)) return -1;
    const b1 = buf[i + 1]!, b2 = buf[i + 2]!;
    if ((b0 === 0xe0 && (b1 & 0xe0) === 0x80) || (b0 === 0xed && (b1 & 0xe0) === 0xa0) ||
      (b0 === 0xef && b1 === 0xbf && (b2 & 0xfe) === 0xbe)) return -1;
    return (((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f)) * 8 + 3;
  }
  if ((b0 & 0xf8) === 0xf0) {
    if (!isContinuation(buf, i + 1, end) || !isContinuation(buf, i + 2, end) || !isContinuation(buf, i + 3, end)) return -1;
    const b1 = buf[i + 1]!;
    if ((b0 === 0xf0 && (b1 & 0xf0) === 0x80) || (b0 === 0xf4 && b1 > 0x8f) || b0 > 0xf4) return -1;
    return (((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((buf[i + 2]! & 0x3f) << 6) | (buf[i + 3]! & 0x3f)) * 8 + 4;
  }
  return -1;
}

/**
 * True when HFS+ would open `.<needle>` for this name: ASCII case folded, ignorable code points
 * skipped anywhere, optionally followed by a '/'. As in git, malformed UTF-8 reads as the end of
 * the name, so `.git\xff` counts as `.git` (HFS+ would store it percent-escaped; erring towards
 * "dangerous" is the safe side).
 */
function isHfsDot(buf: Uint8Array, start: number, end: number, needle: Uint8Array): boolean {
  // k is the position in `.<needle>` being matched: -1 the dot, then needle's bytes, then the end.
  let at = start;
  for (let k = -1; ; k++) {
    let cp: number;
    for (;;) {
      const packed = decodeUtf8(buf, at, end);
      if (packed <= 0) { cp = 0; break; }
      at += packed & 7;
      cp = packed >>> 3;
      if (!hfsIgnorable(cp)) break;
    }
    if (k < 0) {
      if (cp !== DOT) return false;
    } else if (k < needle.length) {
      if (cp > 127 || lower(cp) !== needle[k]) return false;
    } else {
      return cp === 0 || cp === SLASH;
    }
  }
}

// ---- NTFS ----------------------------------------------------------------------------------------

/**
 * `.git` as NTFS sees it: any case, then only dots and spaces (which Windows strips) up to the end,
 * a ':' (an alternate data stream such as `.git::$INDEX_ALLOCATION`) or a directory separator, both
 * '\' and '/'. git accepts only the short name `git~1`, reasoning that `.git` is created first in
 * its directory; tsgit also refuses `git~2`..`git~4` (the other regular short names, as for
 * `.gitmodules` below), since a nested repository's `.git` need not have been first.
 */
function isNtfsDotGit(buf: Uint8Array, start: number, end: number): boolean {
  let i = start;
  const c0 = byteAt(buf, i++, end);
  if (c0 === DOT) {
    if (lower(byteAt(buf, i++, end)) !== 0x67 || lower(byteAt(buf, i++, end)) !== 0x69 || lower(byteAt(buf, i++, end)) !== 0x74) return false;
  } else if (lower(c0) === 0x67) {
    if (lower(byteAt(buf, i++, end)) !== 0x69 || lower(byteAt(buf, i++, end)) !== 0x74 || byteAt(buf, i++, end) !== TILDE) return false;
    const n = byteAt(buf, i++, end);
    if (n < 0x31 || n > 0x34) return false;
  } else {
    return false;
  }
  for (;;) {
    const c = byteAt(buf, i++, end);
    if (c === 0 || c === BACKSLASH || c === SLASH || c === COLON) return true;
    if (c !== DOT && c !== SPACE) return false;
  }
}

/** From buf[i] on, only dots and spaces until the end or a ':' stream separator. */
function onlyDotsAndSpaces(buf: Uint8Array, i: number, end: number): boolean {
  for (; i < end; i++) {
    const c = buf[i]!;
    if (c === COLON) return true;
    if (c !== SPACE && c !== DOT) return false;
  }
  return true;
}

/**
 * `.gitmodules` and friends as NTFS sees them: the long name (any case, trailing dots/spaces,
 * streams), the regular short name (first six letters + `~1`..`~4`), or the fallback short name
 * (up to six letters of the hashed stem, `~`, a digit 1-9, more digits, eight characters in all).
 */
function isNtfsDot(buf: Uint8Array, start: number, end: number, file: DotFile): boolean {
  const name = file.name, prefix = file.shortPrefix;
  if (byteAt(buf, start, end) === DOT) {
    let k = 0;
    while (k < name.length && lower(byteAt(buf, start + 1 + k, end)) === name[k]) k++;
    if (k === name.length) return onlyDotsAndSpaces(buf, start + 1 + k, end);
  }
  let k = 0;
  while (k < 6 && lower(byteAt(buf, start + k, end)) === name[k]) k++;
  if (k === 6 && byteAt(buf, start + 6, end) === TILDE && byteAt(buf, start + 7, end) >= 0x31 && byteAt(buf, start + 7, end) <= 0x34) {
    return onlyDotsAndSpaces(buf, start + 8, end);
  }
  let sawTilde = false;
  for (let i = 0; i < 8; i++) {
    const c = byteAt(buf, start + i, end);
    if (c === 0) return false;
    if (sawTilde) {
      if (c < 0x30 || c > 0x39) return false;
    } else if (c === TILDE) {
      const d = byteAt(buf, start + ++i, end);
      if (d < 0x31 || d > 0x39) return false;
      sawTilde = true;
    } else if (i >= 6 || c & 0x80 || lower(c) !== prefix[i]) {
      return false;
    }
  }
  return onlyDotsAndSpaces(buf, start + 8, end);
}

/**
 * Whether any part of the name after a backslash is `file` (null: `.git`) to NTFS: on Windows
 * `a\.git` is the directory `.git` inside `a`. git's fsck does this on every platform.
 */
function anyAfterBackslash(buf: Uint8Array, start: number, end: number, file: DotFile | null): boolean {
  for (let i = indexOfIn(buf, BACKSLASH, start, end); i >= 0; i = indexOfIn(buf, BACKSLASH, i + 1, end)) {
    if (file ? isNtfsDot(buf, i + 1, end, file) : isNtfsDotGit(buf, i + 1, end)) return true;
  }
  return false;
}

function matchesDotFile(buf: Uint8Array, start: number, end: number, file: DotFile): boolean {
  const e = nameEnd(buf, start, end);
  return isHfsDot(buf, start, e, file.name) || isNtfsDot(buf, start, e, file) || anyAfterBackslash(buf, start, e, file);
}

// ---- public API ----------------------------------------------------------------------------------

/**
 * Whether the name could be any of the special names below; false means none of the matchers can
 * say yes, so a caller walking every entry of a tree may skip them. Each matcher needs its first
 * code point to be '.' (HFS+ and NTFS long names), 'g'/'G' (NTFS `git~1` and the short names of
 * the .git* files), 'm'/'M' (those of .mailmap) or '~' (a fallback short name may start with its
 * tilde); an ignorable code point HFS+ skips is not ASCII; and a backslash starts a name of its
 * own anywhere. So: one of those first bytes, a byte above 0x7f, or a backslash.
 */
export function mayNameDotFile(buf: Uint8Array, start: number, end: number): boolean {
  if (start >= end) return false;
  const c0 = lower(buf[start]!);
  if (c0 === DOT || c0 === 0x67 || c0 === 0x6d || c0 === TILDE || c0 >= 0x80) return true;
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c === BACKSLASH || c >= 0x80) return true;
  }
  return false;
}

type Matcher = (buf: Uint8Array, start: number, end: number) => boolean;

function withString(match: Matcher): {
  (name: string): boolean;
  (name: Uint8Array, start?: number, end?: number): boolean;
} {
  return (name: string | Uint8Array, start: number = 0, end?: number): boolean => {
    if (typeof name === 'string') {
      const bytes = encoder.encode(name);
      return match(bytes, 0, bytes.length);
    }
    return match(name, start, Math.min(end ?? name.length, name.length));
  };
}

/** The name is `.git` to NTFS or HFS+, alone or after a backslash (`.GIT`, `git~1`, `.git.`, `.g\u200cit`, `a\.git`). */
export const isDotGit = withString((buf, start, end) => {
  const e = nameEnd(buf, start, end);
  return isHfsDot(buf, start, e, GIT) || isNtfsDotGit(buf, start, e) || anyAfterBackslash(buf, start, e, null);
});

/** The name is `.gitmodules` to NTFS or HFS+ (`.GITMODULES`, `gitmod~1`, `gi7eba~9`, `.gitmodules::$DATA`). */
export const isDotGitmodules = withString((buf, start, end) => matchesDotFile(buf, start, end, GITMODULES));

/** The name is `.gitattributes` to NTFS or HFS+ (`gitatt~1`, `gi7d29~1`, ...). */
export const isDotGitattributes = withString((buf, start, end) => matchesDotFile(buf, start, end, GITATTRIBUTES));

/** The name is `.gitignore` to NTFS or HFS+ (`gitign~1`, `gi250a~1`, ...). */
export const isDotGitignore = withString((buf, start, end) => matchesDotFile(buf, start, end, GITIGNORE));

/** The name is `.mailmap` to NTFS or HFS+ (`mailma~1`, `maba30~1`, ...). */
export const isDotMailmap = withString((buf, start, end) => matchesDotFile(buf, start, end, MAILMAP));

/** Why a tree-entry name may not be written to disk, named after git's fsck message ids. */
export type PathProblem =
  | 'emptyName' | 'nulInName' | 'fullPathname' | 'hasDot' | 'hasDotdot' | 'hasDotgit'
  | 'gitmodulesSymlink' | 'gitattributesSymlink' | 'gitignoreSymlink' | 'mailmapSymlink';

function problemOf(buf: Uint8Array, start: number, end: number, mode: number): PathProblem | null {
  const len = end - start;
  if (len <= 0) return 'emptyName';
  if (indexOfIn(buf, NUL, start, end) >= 0) return 'nulInName';
  if (indexOfIn(buf, SLASH, start, end) >= 0) return 'fullPathname';
  if (buf[start] === DOT) {
    if (len === 1) return 'hasDot';
    if (len === 2 && buf[start + 1] === DOT) return 'hasDotdot';
  }
  if (!mayNameDotFile(buf, start, end)) return null;
  if (isDotGit(buf, start, end)) return 'hasDotgit';
  if ((mode & S_IFMT) === S_IFLNK) {
    // Git reads these files from the work tree; through a symlink they could be any file on disk.
    if (matchesDotFile(buf, start, end, GITMODULES)) return 'gitmodulesSymlink';
    if (matchesDotFile(buf, start, end, GITATTRIBUTES)) return 'gitattributesSymlink';
    if (matchesDotFile(buf, start, end, GITIGNORE)) return 'gitignoreSymlink';
    if (matchesDotFile(buf, start, end, MAILMAP)) return 'mailmapSymlink';
  }
  return null;
}

/**
 * Why a single path component with the given mode (e.g. 0o100644, 0o120000) must not be checked
 * out, or null when it is safe. Unlike fsck, which reports each rule at git's own severity, this
 * is the checkout-time verdict: any reason at all means "refuse".
 */
export function componentProblem(name: string, mode: number): PathProblem | null;
export function componentProblem(name: Uint8Array, mode: number, start?: number, end?: number): PathProblem | null;
export function componentProblem(name: string | Uint8Array, mode: number, start = 0, end?: number): PathProblem | null {
  if (typeof name === 'string') {
    const bytes = encoder.encode(name);
    return problemOf(bytes, 0, bytes.length, mode);
  }
  return problemOf(name, start, Math.min(end ?? name.length, name.length), mode);
}
