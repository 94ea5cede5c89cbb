// Whether a work-tree file still holds what its index entry says, the way git's ie_match_stat
// decides: stat data first (type, owner exec bit, times, inode, owner, size), and when that cannot
// prove it (changed stat, or a racy entry written in the same second as the index), the content,
// through the path's clean filter when it has one.
import fs from 'node:fs';
import { oidEquals } from '../../core/oid.js';
import { hashObject } from '../../core/hash.js';
import { MODE_GITLINK, MODE_SYMLINK } from '../../object/tree.js';
import type { IndexEntry } from '../index-file/entry.js';

const NS = 1000000000n;
const LOW32 = 0xffffffffn;

/** What is at a work-tree path, from lstat; null when nothing is. */
export function lstatOrNull(fsPath: string | Buffer): fs.BigIntStats | null {
  try {
    return fs.lstatSync(fsPath, { bigint: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw e;
  }
}

export interface CleanCheck {
  /** core.fileMode: whether the exec bit counts. */
  fileMode: boolean;
  /** core.symlinks. */
  symlinks: boolean;
  /** The index file's mtime in seconds; entries modified at or after it are racy. */
  indexTimestampSec: number;
  /** Reads the blob `oid` and returns it as the work tree would hold it (after conversion). */
  expected: (e: IndexEntry) => Uint8Array;
  /** The work-tree content as its clean filter gives it, or null when no filter applies. */
  clean: (e: IndexEntry, data: Buffer) => Promise<Buffer | null>;
}

/** True when the stat data alone shows `st` is the file `e` describes (git's ce_match_stat_basic). */
export function statMatches(e: IndexEntry, st: fs.BigIntStats, check: CleanCheck): boolean {
  if (e.mode === MODE_SYMLINK) {
    if (!st.isSymbolicLink() && (check.symlinks || !st.isFile())) return false;
  } else if (!st.isFile()) {
    return false;
  } else if (check.fileMode && ((Number(st.mode) ^ e.mode) & 0o100)) {
    return false;
  }
  const m = st.mtimeNs, c = st.ctimeNs;
  const ms = m / NS, cs = c / NS;
  if (Number(ms & LOW32) !== e.mtimeSec || Number(m - ms * NS) !== e.mtimeNsec) return false;
  if (Number(cs & LOW32) !== e.ctimeSec || Number(c - cs * NS) !== e.ctimeNsec) return false;
  if (Number(st.ino & LOW32) !== e.ino || Number(st.uid) !== e.uid || Number(st.gid) !== e.gid) return false;
  if (Number(st.size & LOW32) !== e.size) return false;
  // A smudged entry (size 0 for a non-empty blob) never matches by stat.
  return e.size !== 0 || st.size === 0n;
}

/**
 * Whether the work-tree file at `fsPath` is unchanged from index entry `e`. A submodule counts as
 * unchanged while its directory exists (tsgit does not look inside submodules).
 */
export async function isClean(e: IndexEntry, fsPath: string | Buffer, check: CleanCheck): Promise<boolean> {
  const st = lstatOrNull(fsPath);
  if (!st) return false;
  if (e.mode === MODE_GITLINK) return st.isDirectory();
  // A racy entry (modified in the second the index was written, or later) may have changed
  // without its stat showing it, so only its content can prove it clean.
  const racy = check.indexTimestampSec !== 0 && Number(st.mtimeNs / NS) >= check.indexTimestampSec;
  if (!racy && statMatches(e, st, check)) return true;
  if (e.mode === MODE_SYMLINK && st.isSymbolicLink()) {
    const target = fs.readlinkSync(fsPath, { encoding: 'buffer' });
    return oidEquals(hashObject('blob', target), 0, e.oid, 0);
  }
  if (!st.isFile()) return false;
  const data = fs.readFileSync(fsPath);
  const cleaned = await check.clean(e, data);
  if (cleaned) return oidEquals(hashObject('blob', cleaned), 0, e.oid, 0);
  if (oidEquals(hashObject('blob', data), 0, e.oid, 0)) return true;
  // Converted on checkout (eol, ident): compare with what checkout would write instead.
  return Buffer.compare(data, check.expected(e)) === 0;
}
