// Whether a work-tree file still holds what its index entry says, the way git's ie_modified
// decides: stat data first (type, owner exec bit, times, inode, owner, size); a changed type, exec
// bit or size is a change; otherwise, when the stat cannot prove it (changed times, or a racy entry
// written in the same second as the index), the content as git would store it (convert_to_git:
// the path's clean filter first, when it has one, then the encoding, end-of-line and ident steps).
// The content checks wait to be run together, so that their conversions go in one batch (one iconv
// run per working-tree-encoding rather than one per file).
import fs from 'node:fs';
import { oidEquals } from '../../core/oid.js';
import { hashObject } from '../../core/hash.js';
import { MODE_GITLINK, MODE_SYMLINK } from '../../object/tree.js';
import { CE_SKIP_WORKTREE, isRacy, type IndexEntry } from '../index-file/entry.js';

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
  /**
   * Work-tree contents of entries as git would store them after their clean filters (convert_to_git:
   * encoding back to UTF-8, CRLF to LF, $Id$ collapsed), in order; `data` itself where nothing
   * converts.
   */
  cleaned: (files: readonly { e: IndexEntry; data: Uint8Array }[]) => Uint8Array[];
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

/** git's fill_stat_data: the entry takes the file's stat data. */
function fillStat(e: IndexEntry, st: fs.BigIntStats): void {
  const m = st.mtimeNs, c = st.ctimeNs;
  const ms = m / NS, cs = c / NS;
  e.mtimeSec = Number(ms & LOW32);
  e.mtimeNsec = Number(m - ms * NS);
  e.ctimeSec = Number(cs & LOW32);
  e.ctimeNsec = Number(c - cs * NS);
  e.dev = Number(st.dev & LOW32);
  e.ino = Number(st.ino & LOW32);
  e.uid = Number(st.uid & LOW32);
  e.gid = Number(st.gid & LOW32);
  e.size = Number(st.size & LOW32);
}

/**
 * Whether the work-tree file at `fsPath` is unchanged from index entry `e`, as far as it can be told
 * without reading a regular file: true, false, or null when its content must decide. A submodule
 * counts as unchanged while its directory exists (tsgit does not look inside submodules).
 */
function verdictWithoutContent(e: IndexEntry, fsPath: string | Buffer, check: CleanCheck): boolean | null {
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
  // A changed type or exec bit is a change whatever the content (git's ie_modified returns at
  // MODE_CHANGED and TYPE_CHANGED before it reads anything).
  if (e.mode === MODE_SYMLINK ? check.symlinks : check.fileMode && ((Number(st.mode) ^ e.mode) & 0o100)) return false;
  // So is another size, unless the index does not know it (0, as after read-tree).
  if (e.size !== 0 && Number(st.size & LOW32) !== e.size) return false;
  return null;
}

/**
 * Whether work-tree files are unchanged from their index entries, asked entry by entry and answered
 * for the ones whose content decides when run() reads, cleans and converts those files together.
 */
export class CleanChecks {
  private waiting: { e: IndexEntry; fsPath: string | Buffer; answer: (clean: boolean) => void }[] = [];

  /** `fsPathOf` names an entry's file, for the callers' own looks at it too. */
  constructor(private readonly check: CleanCheck, readonly fsPathOf: (e: IndexEntry) => string | Buffer) {}

  /**
   * What the stat data alone says of `e`'s file, as git's ie_match_stat without reading it:
   * 'clean', 'changed', or 'racy' when it matches but was written in the second of the index, so
   * that only the content can tell.
   */
  byStat(e: IndexEntry): 'clean' | 'changed' | 'racy' {
    const st = lstatOrNull(this.fsPathOf(e));
    if (!st || !statMatches(e, st, this.check)) return 'changed';
    return isRacy(e, this.check.indexTimestampSec) ? 'racy' : 'clean';
  }

  /** Whether `e`'s file is unchanged; settled by run() when its content must decide. */
  isClean(e: IndexEntry): Promise<boolean> {
    const fsPath = this.fsPathOf(e);
    const verdict = verdictWithoutContent(e, fsPath, this.check);
    if (verdict !== null) return Promise.resolve(verdict);
    return new Promise(answer => this.waiting.push({ e, fsPath, answer }));
  }

  /**
   * git's refresh of an entry the switch keeps (checkout refreshes the whole index before it
   * merges, refresh_cache): a file its stat data cannot prove clean (racy, or touched) is compared
   * with its blob, and when it matches, the entry takes the file's stat data and counts as just
   * checked, so that writing the index does not smudge it. One that does not match is left as it
   * is (smudged when racy, as git does). Settled by run() when its content must decide.
   */
  async refresh(e: IndexEntry): Promise<void> {
    // git's refresh takes a skip-worktree entry at its word, as it has no file.
    if (e.mode === MODE_GITLINK || e.uptodate || e.extendedFlags & CE_SKIP_WORKTREE) return;
    const fsPath = this.fsPathOf(e);
    const st = lstatOrNull(fsPath);
    if (!st) return;
    if (!isRacy(e, this.check.indexTimestampSec) && statMatches(e, st, this.check)) return;
    if (!await this.isClean(e)) return;
    const now = lstatOrNull(fsPath);
    if (now) fillStat(e, now);
    e.uptodate = true;
  }

  /** Compares the files waiting for their content with their blobs, in path order as git reads them. */
  async run(): Promise<void> {
    const waiting = this.waiting.sort((a, b) => Buffer.compare(a.e.path, b.e.path));
    this.waiting = [];
    const files: { e: IndexEntry; data: Uint8Array }[] = [];
    for (const { e, fsPath } of waiting) {
      const data = fs.readFileSync(fsPath);
      files.push({ e, data: (await this.check.clean(e, data)) ?? data });
    }
    // What git would store from each file must be the entry's blob.
    const cleaned = this.check.cleaned(files);
    waiting.forEach(({ e, answer }, k) => answer(oidEquals(hashObject('blob', cleaned[k]!), 0, e.oid, 0)));
  }
}
