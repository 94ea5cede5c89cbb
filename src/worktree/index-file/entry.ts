// The dircache ("index") as tsgit holds it in memory: one entry per path and stage, with the stat
// data git compares to decide that a file is unchanged without reading it, plus the cache-tree
// (the TREE extension: tree ids of directories whose entries have not changed since).
//
// On disk (git's Documentation/gitformat-index.txt): "DIRC", version, entry count; the entries,
// sorted by path then stage; extensions, each a 4-byte signature and a 32-bit length; a SHA-1 of
// everything before it.

/** Flag bits of an entry's 16-bit flags word that callers set (the rest is the name length). */
export const CE_VALID = 0x8000;
export const CE_EXTENDED = 0x4000;
export const CE_STAGE_MASK = 0x3000;
export const CE_STAGE_SHIFT = 12;
export const CE_NAME_MASK = 0x0fff;

/** Bits of the extended flags word (index version 3 and later). */
export const CE_SKIP_WORKTREE = 0x4000;
export const CE_INTENT_TO_ADD = 0x2000;
/** Extended bits git knows; any other set bit is corruption. */
export const CE_EXTENDED_KNOWN = CE_SKIP_WORKTREE | CE_INTENT_TO_ADD;

export interface IndexEntry {
  ctimeSec: number;
  ctimeNsec: number;
  mtimeSec: number;
  mtimeNsec: number;
  dev: number;
  ino: number;
  /** 0o100644, 0o100755, 0o120000 or 0o160000. */
  mode: number;
  uid: number;
  gid: number;
  /** Size of the file in the work tree (after eol conversion), truncated to 32 bits as git does. */
  size: number;
  /** 20 bytes. */
  oid: Uint8Array;
  /** CE_VALID and the stage bits; the writer adds CE_EXTENDED and the name length. */
  flags: number;
  /** CE_SKIP_WORKTREE and CE_INTENT_TO_ADD. */
  extendedFlags: number;
  /** Path relative to the work tree, '/'-separated bytes. */
  path: Uint8Array;
  /**
   * Not stored: the stat data was taken after the file was last written by this process, so the
   * writer need not smudge it when it looks racy (git's CE_UPTODATE).
   */
  uptodate?: boolean;
}

/**
 * git's racy-git rule (read-cache.c is_racy_timestamp): an entry modified in the second its index
 * was written (`indexTimestampSec`, 0 for an index never read from disk), or later, cannot be
 * proven clean by its stat data, since a later change within that second leaves the same stat.
 * Seconds are compared (git without USE_NSEC), the stricter choice.
 */
export function isRacy(e: IndexEntry, indexTimestampSec: number): boolean {
  return indexTimestampSec !== 0 && e.mtimeSec >= indexTimestampSec;
}

/** A directory's entry in the cache-tree: its tree id while that is known to be current. */
export interface CacheTreeNode {
  /** One path component; empty for the root. */
  name: Uint8Array;
  /** Index entries below this directory, or -1 when the node is invalid (no id). */
  entryCount: number;
  oid: Uint8Array | null;
  /** In git's order: shorter names first, then bytewise. */
  children: CacheTreeNode[];
}

export interface IndexExtension {
  signature: string;
  data: Uint8Array;
}

export interface IndexFile {
  version: 2 | 3 | 4;
  entries: IndexEntry[];
  cacheTree: CacheTreeNode | null;
  /** Optional extensions other than TREE, kept as read (untracked cache, resolve-undo, ...). */
  extensions: IndexExtension[];
  /**
   * mtime of the index file as read (seconds and nanoseconds); entries modified at or after it are
   * "racy": their stat data cannot prove them clean. Zero for an index never read from disk.
   */
  timestampSec: number;
  timestampNsec: number;
}

export function emptyIndex(): IndexFile {
  return { version: 2, entries: [], cacheTree: null, extensions: [], timestampSec: 0, timestampNsec: 0 };
}

export function entryStage(e: IndexEntry): number {
  return (e.flags & CE_STAGE_MASK) >> CE_STAGE_SHIFT;
}

/** git's cache-entry order: path bytes, then stage. */
export function compareEntries(a: IndexEntry, b: IndexEntry): number {
  const ap = a.path, bp = b.path;
  const n = Math.min(ap.length, bp.length);
  for (let i = 0; i < n; i++) if (ap[i] !== bp[i]) return ap[i]! - bp[i]!;
  if (ap.length !== bp.length) return ap.length - bp.length;
  return (a.flags & CE_STAGE_MASK) - (b.flags & CE_STAGE_MASK);
}

/** git's subtree_name_cmp, the order of cache-tree children: length first, then bytes. */
export function compareCacheTreeNames(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
