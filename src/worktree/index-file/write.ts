// Writing the index: entries (version 2, or 3 when an entry needs extended flags, or 4 when asked),
// the TREE extension, other extensions handed back as read, and the SHA-1 trailer, through
// `index.lock` and a rename so that readers see the old index or the new one, never a mix.
import { sha1 } from '../../core/hash.js';
import { OID_BYTES } from '../../core/oid.js';
import { MODE_GITLINK } from '../../object/tree.js';
import { LockFile } from '../../refs/lock.js';
import {
  CE_EXTENDED, CE_NAME_MASK, type CacheTreeNode, type IndexFile,
} from './entry.js';

const HEADER = 12;
const STAT_AND_ID = 40 + OID_BYTES;

/**
 * git's racy-git rule (read-cache.c is_racy_timestamp): an entry modified in the same second as,
 * or after, the index it was read from cannot be proven clean by its stat data, since a later
 * change within that second would leave the same stat. git rewrites such an entry with size 0
 * when its content differs from the index ("smudging"), so that the next reader must compare
 * contents. Here every racy entry whose stat was not just taken is smudged: a smudged clean entry
 * costs only one re-hash in the next `git status`, while checking content first would need the
 * to-git conversions. Seconds are compared (git's behaviour without USE_NSEC), the stricter choice.
 */
export function smudgeRacyEntries(index: IndexFile): number {
  const ts = index.timestampSec;
  if (!ts) return 0;
  let smudged = 0;
  for (const e of index.entries) {
    if (e.uptodate || e.mode === MODE_GITLINK || e.size === 0) continue;
    if (ts <= e.mtimeSec) {
      e.size = 0;
      smudged++;
    }
  }
  return smudged;
}

/** The bytes of an index file. The version is raised to 3 if an entry has extended flags. */
export function serializeIndex(index: IndexFile): Buffer {
  let version: number = index.version;
  const entries = index.entries;
  if (version === 2 && entries.some(e => e.extendedFlags !== 0)) version = 3;
  let size = HEADER + OID_BYTES;
  for (const e of entries) {
    const nameOffset = STAT_AND_ID + (e.extendedFlags ? 4 : 2);
    size += version === 4 ? nameOffset + 5 + e.path.length + 1 : (nameOffset + e.path.length + 8) & ~7;
  }
  const tree = index.cacheTree ? serializeCacheTree(index.cacheTree) : null;
  if (tree) size += 8 + tree.length;
  for (const x of index.extensions) size += 8 + x.data.length;

  const out = Buffer.alloc(size);
  out.write('DIRC', 0, 'latin1');
  out.writeUInt32BE(version, 4);
  out.writeUInt32BE(entries.length, 8);
  let pos = HEADER;
  let prev: Uint8Array = new Uint8Array(0);
  for (const e of entries) {
    const start = pos;
    out.writeUInt32BE(e.ctimeSec >>> 0, pos);
    out.writeUInt32BE(e.ctimeNsec >>> 0, pos + 4);
    out.writeUInt32BE(e.mtimeSec >>> 0, pos + 8);
    out.writeUInt32BE(e.mtimeNsec >>> 0, pos + 12);
    out.writeUInt32BE(e.dev >>> 0, pos + 16);
    out.writeUInt32BE(e.ino >>> 0, pos + 20);
    out.writeUInt32BE(e.mode >>> 0, pos + 24);
    out.writeUInt32BE(e.uid >>> 0, pos + 28);
    out.writeUInt32BE(e.gid >>> 0, pos + 32);
    out.writeUInt32BE(e.size >>> 0, pos + 36);
    out.set(e.oid.subarray(0, OID_BYTES), pos + 40);
    let flags = e.flags | Math.min(e.path.length, CE_NAME_MASK);
    if (e.extendedFlags) flags |= CE_EXTENDED;
    out.writeUInt16BE(flags, pos + 60);
    pos += 62;
    if (e.extendedFlags) {
      out.writeUInt16BE(e.extendedFlags, pos);
      pos += 2;
    }
    if (version === 4) {
      let common = 0;
      const max = Math.min(prev.length, e.path.length);
      while (common < max && prev[common] === e.path[common]) common++;
      pos = writeVarint(out, pos, prev.length - common);
      out.set(e.path.subarray(common), pos);
      pos += e.path.length - common + 1; // and the NUL, already zero
      prev = e.path;
    } else {
      out.set(e.path, pos);
      pos = start + ((pos - start + e.path.length + 8) & ~7);
    }
  }
  if (tree) pos = writeExtension(out, pos, 'TREE', tree);
  for (const x of index.extensions) pos = writeExtension(out, pos, x.signature, x.data);
  out.set(sha1(out.subarray(0, pos)), pos);
  return out.subarray(0, pos + OID_BYTES);
}

function writeExtension(out: Buffer, pos: number, signature: string, data: Uint8Array): number {
  out.write(signature, pos, 'latin1');
  out.writeUInt32BE(data.length, pos + 4);
  out.set(data, pos + 8);
  return pos + 8 + data.length;
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
