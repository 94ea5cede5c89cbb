// Writing the index: entries (version 2, or 3 when an entry needs extended flags, or 4 when asked),
// the TREE extension, other extensions handed back as read, and the SHA-1 trailer, through
// `index.lock` and a rename so that readers see the old index or the new one, never a mix.
import crypto from 'node:crypto';
import { OID_BYTES } from '../../core/oid.js';
import { MODE_GITLINK } from '../../object/tree.js';
import { LockFile } from '../../core/lock-file.js';
import {
  CE_EXTENDED, CE_NAME_MASK, CE_SKIP_WORKTREE, isRacy, type CacheTreeNode, type IndexFile,
} from './entry.js';

const HEADER = 12;
const STAT_AND_ID = 40 + OID_BYTES;

/**
 * For racy entries (isRacy), git rewrites one with size 0 when its content differs from the index
 * ("smudging"), so that the next reader must compare contents. Here every racy entry whose stat
 * was not just taken (`uptodate`, which a caller that compared contents sets) is smudged: a
 * smudged clean entry costs only one re-hash in the next `git status`, while checking content
 * first would need the to-git conversions.
 */
export function smudgeRacyEntries(index: IndexFile): number {
  const ts = index.timestampSec;
  if (!ts) return 0;
  let smudged = 0;
  for (const e of index.entries) {
    // A skip-worktree entry has no file to differ from it (git smudges only one it can lstat).
    if (e.uptodate || e.mode === MODE_GITLINK || e.size === 0 || e.extendedFlags & CE_SKIP_WORKTREE) continue;
    if (isRacy(e, ts)) {
      e.size = 0;
      smudged++;
    }
  }
  return smudged;
}

/** Bytes an IndexStream gathers before handing them on. */
const BLOCK = 256 * 1024;

/**
 * An index file encoded entry by entry and handed to `sink` a block at a time, hashed as it goes,
 * so that a checkout of 100k files writes its index straight from its columns without building
 * an entry object (or the whole file) first. Entries must come sorted; the stat fields are in
 * the order of the index less the mode: ctime s/ns, mtime s/ns, dev, ino, uid, gid, size. The
 * bytes handed to the sink are only valid during the call (the block is reused).
 */
export class IndexStream {
  private buf = Buffer.alloc(BLOCK);
  private pos = HEADER;
  private readonly hash = crypto.createHash('sha1');
  private prev = Buffer.alloc(0);
  private prevLen = 0;

  /** `version` 3 is needed (and only allowed) when some entry has extended flags. */
  constructor(private readonly sink: (bytes: Uint8Array) => void, private readonly version: 2 | 3 | 4, count: number) {
    this.buf.write('DIRC', 0, 'latin1');
    this.buf.writeUInt32BE(version, 4);
    this.buf.writeUInt32BE(count, 8);
  }

  add(stat: ArrayLike<number>, statAt: number, mode: number, oid: Uint8Array, oidAt: number,
    path: Uint8Array, pathStart: number, pathEnd: number, flags = 0, extendedFlags = 0): void {
    const len = pathEnd - pathStart;
    this.room(STAT_AND_ID + 4 + 5 + len + 8);
    const out = this.buf;
    const start = this.pos;
    let pos = start;
    for (let k = 0; k < 6; k++, pos += 4) out.writeUInt32BE(stat[statAt + k]! >>> 0, pos);
    out.writeUInt32BE(mode >>> 0, pos);
    pos += 4;
    for (let k = 6; k < 9; k++, pos += 4) out.writeUInt32BE(stat[statAt + k]! >>> 0, pos);
    out.set(oid.subarray(oidAt, oidAt + OID_BYTES), pos);
    pos += OID_BYTES;
    let f = flags | Math.min(len, CE_NAME_MASK);
    if (extendedFlags) {
      if (this.version < 3) throw new RangeError('extended flags need index version 3 or later');
      f |= CE_EXTENDED;
    }
    out.writeUInt16BE(f, pos);
    pos += 2;
    if (extendedFlags) {
      out.writeUInt16BE(extendedFlags, pos);
      pos += 2;
    }
    if (this.version === 4) {
      const prev = this.prev;
      let common = 0;
      const max = Math.min(this.prevLen, len);
      while (common < max && prev[common] === path[pathStart + common]) common++;
      pos = writeVarint(out, pos, this.prevLen - common);
      out.set(path.subarray(pathStart + common, pathEnd), pos);
      pos += len - common;
      out[pos++] = 0;
      if (prev.length < len) this.prev = Buffer.alloc(Math.max(len, prev.length * 2));
      this.prev.set(path.subarray(pathStart, pathEnd));
      this.prevLen = len;
    } else {
      out.set(path.subarray(pathStart, pathEnd), pos);
      const end = start + ((pos - start + len + 8) & ~7);
      out.fill(0, pos + len, end);
      pos = end;
    }
    this.pos = pos;
  }

  /** Writes the extensions and the trailing checksum. */
  finish(extensions: readonly { signature: string; data: Uint8Array }[]): void {
    for (const x of extensions) {
      this.room(8);
      this.buf.write(x.signature, this.pos, 'latin1');
      this.buf.writeUInt32BE(x.data.length, this.pos + 4);
      this.pos += 8;
      this.flush();
      this.hash.update(x.data);
      this.sink(x.data);
    }
    this.flush();
    this.sink(this.hash.digest());
  }

  /** Makes room for `n` more bytes in the block. */
  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.flush();
    if (n > this.buf.length) this.buf = Buffer.alloc(n);
  }

  private flush(): void {
    if (!this.pos) return;
    const bytes = this.buf.subarray(0, this.pos);
    this.hash.update(bytes);
    this.sink(bytes);
    this.pos = 0;
  }
}

/** The extensions an index carries: TREE from the cache-tree, then the others as read. */
function extensionsOf(index: Pick<IndexFile, 'cacheTree' | 'extensions'>): { signature: string; data: Uint8Array }[] {
  const tree = index.cacheTree ? [{ signature: 'TREE', data: serializeCacheTree(index.cacheTree) }] : [];
  return [...tree, ...index.extensions];
}

/**
 * The bytes of an index file. Versions 2 and 3 are the one the entries need, as git writes them:
 * 3 when an entry has extended flags, else 2.
 */
export function serializeIndex(index: IndexFile): Buffer {
  const entries = index.entries;
  const version = index.version === 4 ? 4 : entries.some(e => e.extendedFlags !== 0) ? 3 : 2;
  const parts: Uint8Array[] = [];
  const out = new IndexStream(bytes => parts.push(Buffer.from(bytes)), version, entries.length);
  const stat = new Array<number>(9);
  for (const e of entries) {
    stat[0] = e.ctimeSec; stat[1] = e.ctimeNsec; stat[2] = e.mtimeSec; stat[3] = e.mtimeNsec;
    stat[4] = e.dev; stat[5] = e.ino; stat[6] = e.uid; stat[7] = e.gid; stat[8] = e.size;
    out.add(stat, 0, e.mode, e.oid, 0, e.path, 0, e.path.length, e.flags, e.extendedFlags);
  }
  out.finish(extensionsOf(index));
  return Buffer.concat(parts);
}

/** git's encode_varint (offset encoding: each continuation byte stands for one more than it says). */
function writeVarint(out: Buffer, pos: number, value: number): number {
  const tmp: number[] = [value & 127];
  while ((value = Math.floor(value / 128)) > 0) {
    value--;
    tmp.push(128 | (value & 127));
  }
  for (let k = tmp.length - 1; k >= 0; k--) out[pos++] = tmp[k]!;
  return pos;
}

export function serializeCacheTree(root: CacheTreeNode): Buffer {
  const parts: Buffer[] = [];
  const visit = (n: CacheTreeNode): void => {
    const valid = n.entryCount >= 0 && n.oid !== null;
    parts.push(Buffer.from(n.name), Buffer.from(`\0${valid ? n.entryCount : -1} ${n.children.length}\n`, 'latin1'));
    if (valid) parts.push(Buffer.from(n.oid!.subarray(0, OID_BYTES)));
    for (const c of n.children) visit(c);
  };
  visit(root);
  return Buffer.concat(parts);
}

/**
 * The index lock, held for the whole of an operation that ends by writing the index (as git holds
 * it through a checkout), so that no other writer can slip in between.
 */
export class IndexLock {
  private constructor(private readonly lock: LockFile) {}

  static acquire(file: string): IndexLock {
    return new IndexLock(LockFile.acquire(file, 'the index'));
  }

  /** Smudges racy entries, writes `index` into the lock and renames it into place. */
  commit(index: IndexFile): void {
    smudgeRacyEntries(index);
    this.lock.write(serializeIndex(index));
    this.lock.commit();
  }

  /**
   * Writes an index of `count` entries that `fill` adds to the stream in order (their stat data
   * just taken, so nothing is smudged), then the extensions, and renames it into place.
   */
  commitStream(version: 2 | 3 | 4, count: number, fill: (out: IndexStream) => void,
    extensions: Pick<IndexFile, 'cacheTree' | 'extensions'>): void {
    const out = new IndexStream(bytes => this.lock.write(bytes), version, count);
    fill(out);
    out.finish(extensionsOf(extensions));
    this.lock.commit();
  }

  /** Releases the lock without writing; does nothing after commit. */
  rollback(): void {
    this.lock.rollback();
  }
}

/** Writes `<file>` through `<file>.lock`, after smudging racy entries. */
export function writeIndexFile(file: string, index: IndexFile): void {
  const lock = IndexLock.acquire(file);
  try {
    lock.commit(index);
  } finally {
    lock.rollback();
  }
}
