// What --strict adds while objects are in hand: git's fsck checks on every commit, tree and tag,
// and a check of every object they point to, with the type the pointer implies (git's fsck_walk
// and check_objects). A reference to an object the pack has already yielded is checked at once in
// the shared id index; the others (objects not resolved yet, or outside the pack) go into this
// thread's set of pending references, deduplicated, which is checked once the pack is complete.
// Before the set grows, the references resolved since they were added are checked and dropped:
// most point at deltas resolved soon after, and the set stays a fraction of its size.
// Without an index (git's --fsck-objects: partial packs point at objects deliberately absent)
// only the objects themselves are checked. A shallow pack's boundary commits are given: their
// parents are absent on purpose and not looked for (git's index-pack with --shallow-file).
import { CorruptError } from '../../core/errors.js';
import { compareOid, hexBytesToOid, OID_BYTES, toHex } from '../../core/oid.js';
import { checkObject, checkTree, TreeLayout, type FsckOptions, type TreeDeltaBase } from '../../object/fsck.js';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE, typeCode, typeName } from '../../object/type.js';
import type { DeltaCopies } from '../../pack/delta.js';
import type { SharedIdIndex } from './id-index.js';
import type { ObjectTable } from './tables.js';

/** A deduplicated set of (id, expected type) pairs, transferable as two buffers. */
export interface ReferenceList {
  ids: Uint8Array;
  types: Uint8Array;
  count: number;
  /** Ids of what trees name `.gitmodules` (git's gitmodules_found), checked once all is in. */
  gitmodules: Uint8Array;
}

const TREE_LINE = 5 + 40 + 1;
/** Slots of the recently checked references (a direct-mapped cache). */
const RECENT_SLOTS = 1 << 14;
const PARENT = Buffer.from('parent ');

export class ObjectChecker {
  private ids = new Uint8Array(1024 * OID_BYTES);
  private types = new Uint8Array(1024);
  private count = 0;
  private slots = new Int32Array(2048).fill(-1);
  private readonly scratch = new Uint8Array(OID_BYTES);
  // A tree delta mostly repeats its base's entries, and bases are checked just before their
  // deltas, so most references were checked moments ago: remembering the last one per slot
  // answers them without a trip to the index.
  private readonly recentIds = new Uint8Array(RECENT_SLOTS * OID_BYTES);
  private readonly recentTypes = new Uint8Array(RECENT_SLOTS);
  private gitmodules = new Uint8Array(0);
  private gitmodulesCount = 0;
  /** The tree being checked, for onGitmodules (one closure for all trees). */
  private tree: Uint8Array = this.scratch;
  private readonly onGitmodules = (at: number): void => this.addGitmodules(this.tree, at);
  /** Where a tree checked without a layout of the caller's has its entries recorded. */
  private readonly scratchLayout = new TreeLayout();

  /** `parentless`: the shallow boundary, sorted ids back to back (see sortedIds), or null. */
  constructor(private readonly options: FsckOptions, private readonly where: string,
    private readonly index: SharedIdIndex | null, private table: ObjectTable, private readonly parentless: Uint8Array | null = null) {}

  /** Follows a table whose views were re-created by growth. */
  rebind(table: ObjectTable): void {
    this.table = table;
  }

  /**
   * Checks one object; throws on an fsck error; records what it points to. A tree's entries are
   * recorded in `layout` (the caller's, to keep for the tree's deltas, or one of this checker's);
   * with `base` as well, the entries copied whole from that clean base are neither checked again
   * nor recorded again (checkTree).
   */
  check(type: number, content: Uint8Array, id: Uint8Array, idOff: number, layout: TreeLayout = this.scratchLayout,
    base: TreeDeltaBase | null = null): void {
    if (type === OBJ_BLOB) return;
    this.tree = content;
    const problems = type === OBJ_TREE
      ? checkTree(content, this.options, this.onGitmodules, layout, base)
      : checkObject(typeName(type), content, this.options, this.onGitmodules);
    const skip = this.options.skip;
    for (const p of problems) {
      if (p.severity !== 'error' || (skip && skip.size > 0 && skip.has(toHex(id, idOff)))) continue;
      throw new CorruptError('pack', `${this.where}: fsck error in packed object ${typeName(type)} ${toHex(id, idOff)}: ${p.id}: ${p.message}`);
    }
    if (!this.index) return;
    if (type === OBJ_TREE) this.treeReferences(content, layout);
    else if (type === OBJ_COMMIT) this.commitReferences(content, this.parentless !== null && listed(this.parentless, id, idOff));
    else if (type === OBJ_TAG) this.tagReferences(content);
  }

  /**
   * What the entries checkTree recorded name, passing by those copied from the base (recorded for
   * it). checkTree stops at the first entry it cannot decode, and so does this.
   */
  private treeReferences(content: Uint8Array, layout: TreeLayout): void {
    const starts = layout.starts, copied = layout.copied;
    for (let k = 0; k < layout.count; k++) {
      if (copied[k]) continue;
      let p = starts[k]!, mode = 0, c: number;
      while ((c = content[p++]!) !== 0x20) mode = mode * 8 + (c - 0x30);
      const kind = mode & 0o170000;
      if (kind === 0o160000) continue; // gitlinks name commits of another repository
      this.add(content, starts[k + 1]! - OID_BYTES, kind === 0o040000 ? OBJ_TREE : OBJ_BLOB);
    }
  }

  private commitReferences(content: Uint8Array, shallow: boolean): void {
    // fsck has already insisted on "tree <hex>\n" and well-formed parent lines.
    if (hexBytesToOid(content, 5, this.scratch)) this.add(this.scratch, 0, OBJ_TREE);
    if (shallow) return;
    let p = TREE_LINE;
    while (p + 7 + 40 < content.length && startsWith(content, p, PARENT)) {
      if (hexBytesToOid(content, p + 7, this.scratch)) this.add(this.scratch, 0, OBJ_COMMIT);
      p += 7 + 40 + 1;
    }
  }

  private tagReferences(content: Uint8Array): void {
    if (!hexBytesToOid(content, 7, this.scratch)) return;
    const typeStart = 7 + 40 + 1 + 5;
    const nl = content.indexOf(0x0a, typeStart);
    if (nl < 0) return;
    const t = typeCode(Buffer.from(content.buffer, content.byteOffset + typeStart, nl - typeStart).toString('latin1'));
    if (t) this.add(this.scratch, 0, t);
  }

  private add(buf: Uint8Array, off: number, type: number): void {
    const slot = ((buf[off + 2]! << 8) | buf[off + 3]!) & (RECENT_SLOTS - 1);
    const recent = this.recentIds, at = slot * OID_BYTES;
    if (this.recentTypes[slot] === type) {
      let i = 0;
      while (i < OID_BYTES && recent[at + i] === buf[off + i]) i++;
      if (i === OID_BYTES) return;
    }
    this.record(buf, off, type);
    for (let i = 0; i < OID_BYTES; i++) recent[at + i] = buf[off + i]!;
    this.recentTypes[slot] = type;
  }

  /** Checks a reference in the index, or keeps it (once) for the end. */
  private record(buf: Uint8Array, off: number, type: number): void {
    const obj = this.index!.find(buf, off);
    if (obj >= 0) {
      const have = this.table.realType[obj]!;
      if (have !== type) throw mismatch(this.where, buf, off, type, have);
      return;
    }
    if (this.count * 2 >= this.slots.length) this.prune();
    const mask = this.slots.length - 1;
    let s = (((buf[off]! << 24) | (buf[off + 1]! << 16) | (buf[off + 2]! << 8) | buf[off + 3]!) >>> 0) & mask;
    const ids = this.ids;
    for (;;) {
      const k = this.slots[s]!;
      if (k < 0) break;
      let i = 0;
      const at = k * OID_BYTES;
      while (i < OID_BYTES && ids[at + i] === buf[off + i]) i++;
      if (i === OID_BYTES) {
        if (this.types[k] !== type) {
          throw new CorruptError('pack', `${this.where}: object ${toHex(buf, off)} is referenced both as a ${typeName(this.types[k]!)} and as a ${typeName(type)}`);
        }
        return;
      }
      s = (s + 1) & mask;
    }
    const k = this.count++;
    if ((k + 1) * OID_BYTES > this.ids.length) {
      const bigger = new Uint8Array(this.ids.length * 2);
      bigger.set(this.ids);
      this.ids = bigger;
      const t = new Uint8Array(this.types.length * 2);
      t.set(this.types);
      this.types = t;
    }
    for (let i = 0; i < OID_BYTES; i++) this.ids[k * OID_BYTES + i] = buf[off + i]!;
    this.types[k] = type;
    this.slots[s] = k;
  }

  /**
   * Checks and drops the pending references whose objects the index has by now; grows the set if
   * that frees less than half of it (so each reference is looked at a bounded number of times).
   */
  private prune(): void {
    const ids = this.ids, types = this.types, table = this.table;
    let kept = 0;
    for (let k = 0; k < this.count; k++) {
      const at = k * OID_BYTES;
      const obj = this.index!.find(ids, at);
      if (obj >= 0) {
        const have = table.realType[obj]!;
        if (have !== types[k]) throw mismatch(this.where, ids, at, types[k]!, have);
        continue;
      }
      if (kept !== k) {
        ids.copyWithin(kept * OID_BYTES, at, at + OID_BYTES);
        types[kept] = types[k]!;
      }
      kept++;
    }
    this.count = kept;
    this.rehash(kept * 4 >= this.slots.length ? this.slots.length * 2 : this.slots.length);
  }

  private rehash(size: number): void {
    const slots = this.slots.length === size ? this.slots.fill(-1) : new Int32Array(size).fill(-1);
    const mask = slots.length - 1;
    const ids = this.ids;
    for (let k = 0; k < this.count; k++) {
      const at = k * OID_BYTES;
      let s = (((ids[at]! << 24) | (ids[at + 1]! << 16) | (ids[at + 2]! << 8) | ids[at + 3]!) >>> 0) & mask;
      while (slots[s]! >= 0) s = (s + 1) & mask;
      slots[s] = k;
    }
    this.slots = slots;
  }

  private addGitmodules(tree: Uint8Array, at: number): void {
    const n = this.gitmodulesCount;
    if ((n + 1) * OID_BYTES > this.gitmodules.length) {
      const bigger = new Uint8Array(Math.max(16, (n + 1) * 2) * OID_BYTES);
      bigger.set(this.gitmodules);
      this.gitmodules = bigger;
    }
    this.gitmodules.set(tree.subarray(at, at + OID_BYTES), n * OID_BYTES);
    this.gitmodulesCount = n + 1;
  }

  /** The references still to be checked, and the .gitmodules found. */
  references(): ReferenceList {
    return {
      ids: this.ids.subarray(0, this.count * OID_BYTES), types: this.types.subarray(0, this.count), count: this.count,
      gitmodules: this.gitmodules.subarray(0, this.gitmodulesCount * OID_BYTES),
    };
  }
}

function startsWith(buf: Uint8Array, at: number, prefix: Uint8Array): boolean {
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

/**
 * A tree delta's result checked against a clean base (both resolvers): `tb` holding what the delta
 * copies from `baseLayout`, whose entries were checked already, so that only the others are; null
 * without a layout, or when the copies do not read (applyDelta accepted them, so that cannot
 * happen), and the tree is checked whole.
 */
export function againstCleanBase(tb: TreeDeltaBase, copies: DeltaCopies, baseLayout: TreeLayout | null, delta: Uint8Array,
  pos: number, end: number, baseSize: number, resultSize: number): TreeDeltaBase | null {
  if (!baseLayout || !copies.read(delta, pos, end, baseSize, resultSize)) return null;
  tb.layout = baseLayout;
  tb.runs = copies.runs;
  tb.runCount = copies.count;
  return tb;
}

export function mismatch(where: string, buf: Uint8Array, off: number, want: number, have: number): CorruptError {
  return new CorruptError('pack', `${where}: object type mismatch at ${toHex(buf, off)}: referenced as a ${typeName(want)}, but it is a ${typeName(have)}`);
}

/** `ids` (back to back) sorted, for listed(). */
export function sortedIds(ids: Uint8Array): Uint8Array {
  const n = ids.length / OID_BYTES;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => compareOid(ids, a * OID_BYTES, ids, b * OID_BYTES));
  const out = new Uint8Array(ids.length);
  order.forEach((i, k) => out.set(ids.subarray(i * OID_BYTES, (i + 1) * OID_BYTES), k * OID_BYTES));
  return out;
}

/** Whether the id at id[off..] is among `sorted` (sortedIds' result): a binary search. */
function listed(sorted: Uint8Array, id: Uint8Array, off: number): boolean {
  let lo = 0, hi = sorted.length / OID_BYTES;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareOid(sorted, mid * OID_BYTES, id, off);
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return false;
}
