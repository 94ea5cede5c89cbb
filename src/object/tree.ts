// Trees are parsed in place: a cursor walks "<mode> <name>\0<20-byte id>" entries and exposes
// offsets into the buffer, so listing a tree allocates nothing per entry.
import { CorruptError } from '../core/errors.js';
import { OID_BYTES } from '../core/oid.js';

export const MODE_TREE = 0o040000;
export const MODE_BLOB = 0o100644;
export const MODE_EXEC = 0o100755;
export const MODE_SYMLINK = 0o120000;
export const MODE_GITLINK = 0o160000;

export class TreeCursor {
  /** Octal mode as a number (0o100644 ...). */
  mode = 0;
  nameStart = 0;
  nameEnd = 0;
  /** Offset of the entry's 20-byte id in `buf`. */
  oidOffset = 0;
  private pos: number;

  /** `label` names the tree in errors; a function, so that callers build the text only on failure. */
  constructor(public buf: Uint8Array, start = 0, private end = buf.length, private label: string | (() => string) = 'tree') {
    this.pos = start;
  }

  /** Advances to the next entry; false at the end. Throws on a malformed entry. */
  next(): boolean {
    const buf = this.buf;
    let p = this.pos;
    if (p >= this.end) return false;
    let mode = 0;
    const modeStart = p;
    for (;;) {
      if (p >= this.end) throw this.bad(modeStart, 'truncated mode');
      const c = buf[p++]!;
      if (c === 0x20) break;
      if (c < 0x30 || c > 0x37) throw this.bad(modeStart, 'mode is not octal');
      mode = mode * 8 + (c - 0x30);
    }
    if (p - 1 === modeStart) throw this.bad(modeStart, 'empty mode');
    const nameStart = p;
    while (p < this.end && buf[p] !== 0) p++;
    if (p >= this.end) throw this.bad(modeStart, 'name not terminated');
    this.nameEnd = p;
    p++;
    if (p + OID_BYTES > this.end) throw this.bad(modeStart, 'truncated object id');
    this.mode = mode;
    this.nameStart = nameStart;
    this.oidOffset = p;
    this.pos = p + OID_BYTES;
    return true;
  }

  name(): string {
    return Buffer.from(this.buf.buffer, this.buf.byteOffset + this.nameStart, this.nameEnd - this.nameStart).toString('utf8');
  }

  nameBytes(): Buffer {
    return Buffer.from(this.buf.buffer, this.buf.byteOffset + this.nameStart, this.nameEnd - this.nameStart);
  }

  isTree(): boolean { return (this.mode & 0o170000) === 0o040000; }
  isGitlink(): boolean { return (this.mode & 0o170000) === 0o160000; }

  private bad(at: number, what: string): CorruptError {
    const label = typeof this.label === 'string' ? this.label : this.label();
    return new CorruptError('object', `${label}: ${what} in entry at byte ${at}`);
  }
}

/**
 * The entry of `tree` named name[from..to), as a cursor standing on it, or null when it has none
 * (git's find_tree_entry, one level). `label` names the tree in errors.
 */
export function findTreeEntry(tree: Uint8Array, name: Uint8Array, from = 0, to = name.length,
  label: string | (() => string) = 'tree'): TreeCursor | null {
  const c = new TreeCursor(tree, 0, tree.length, label);
  const n = to - from;
  while (c.next()) {
    if (c.nameEnd - c.nameStart !== n) continue;
    let i = 0;
    while (i < n && tree[c.nameStart + i] === name[from + i]) i++;
    if (i === n) return c;
  }
  return null;
}

/**
 * git's canon_mode: what a tree entry's mode means, whatever digits are stored (old trees have
 * 100664 and friends).
 */
export function canonicalMode(mode: number): number {
  switch (mode & 0o170000) {
    case 0o100000: return mode & 0o111 ? MODE_EXEC : MODE_BLOB;
    case 0o120000: return MODE_SYMLINK;
    case 0o040000: return MODE_TREE;
    default: return MODE_GITLINK;
  }
}

/** Mode as git prints it in ls-tree and cat-file -p: canonical, six octal digits. */
export function formatMode(mode: number): string {
  return canonicalMode(mode).toString(8).padStart(6, '0');
}

export interface TreeEntry {
  mode: number;
  name: Uint8Array;
  oid: Uint8Array;
}

/** Serialises entries already in git's tree order (the caller sorts). */
export function serializeTree(entries: readonly TreeEntry[]): Buffer {
  let size = 0;
  for (const e of entries) size += e.mode.toString(8).length + 1 + e.name.length + 1 + OID_BYTES;
  const out = Buffer.allocUnsafe(size);
  let p = 0;
  for (const e of entries) {
    p += out.write(e.mode.toString(8), p, 'latin1');
    out[p++] = 0x20;
    out.set(e.name, p); p += e.name.length;
    out[p++] = 0;
    out.set(e.oid.subarray(0, OID_BYTES), p); p += OID_BYTES;
  }
  return out;
}

/** git's tree order: names compared bytewise, a tree's name as if it ended in '/'. */
export function compareTreeEntries(a: TreeEntry, b: TreeEntry): number {
  const an = a.name, bn = b.name;
  const n = Math.min(an.length, bn.length);
  for (let i = 0; i < n; i++) if (an[i] !== bn[i]) return an[i]! - bn[i]!;
  const ac = an.length > n ? an[n]! : (a.mode & 0o170000) === 0o040000 ? 0x2f : 0;
  const bc = bn.length > n ? bn[n]! : (b.mode & 0o170000) === 0o040000 ? 0x2f : 0;
  return ac - bc;
}
