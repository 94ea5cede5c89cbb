// The first pass of a checkout: walk the whole tree, vet every entry (path-check.ts), and lay out
// what will be written, in index order, with the cache-tree the index will carry. Nothing touches
// the work tree here, so a refusal leaves it exactly as it was.
//
// Files are kept as columns (paths back to back in one buffer, ids in another, modes and
// directories in typed arrays) rather than an object each: a checkout of 100k files then costs
// a few allocations, and the columns can be handed to worker threads as they are.
import { isUtf8 } from 'node:buffer';
import type { GitError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { MODE_BLOB, MODE_EXEC, MODE_SYMLINK, MODE_TREE, TreeCursor } from '../../object/tree.js';
import { OBJ_TREE } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { compareCacheTreeNames, type CacheTreeNode } from '../index-file/entry.js';
import { isAttributesName } from '../attributes/file-name.js';
import { symlinkDirectoryCollision } from './fold-collisions.js';
import { canonicalMode, checkComponent, compareTreeOrder, displayPath, unsafePath } from './path-check.js';

/** Deeper trees are refused (git 2.44's core.maxTreeDepth default). */
const MAX_DEPTH = 4096;
/** Linux's PATH_MAX, counting the terminating NUL: longer paths cannot be created. */
const PATH_MAX = 4096;
/** The mode text git writes for each canonical mode; any other spelling makes another tree id. */
const MODE_TEXT = new Map([MODE_BLOB, MODE_EXEC, MODE_SYMLINK, MODE_TREE, 0o160000].map(m => [m, Buffer.from(m.toString(8))]));

export interface PlanDir {
  /** Relative to the work tree, no trailing '/'; empty for the root. */
  path: Uint8Array;
  /** Absolute; a Buffer when some component is not valid UTF-8. */
  fsPath: string | Buffer;
  /** Index of the parent in `dirs`; -1 for the root. */
  parent: number;
  /** The id of this directory's .gitattributes blob, if the tree has one. */
  attributes: Uint8Array | null;
}

/** What writing entries needs: the columns, and where each directory is. */
export interface EntryColumns {
  dirs: readonly { fsPath: string | Buffer }[];
  /** Index entries to write (files, symlinks, submodules), in index order. */
  count: number;
  /** Relative paths back to back: entry i is paths[pathStart[i], pathStart[i + 1]). */
  paths: Buffer;
  pathStart: Uint32Array;
  /** Where entry i's last component starts in `paths`. */
  nameStart: Uint32Array;
  /** 20 bytes per entry. */
  oids: Buffer;
  modes: Uint32Array;
  /** The directory (index in `dirs`) holding entry i. */
  dirOf: Uint32Array;
  /** 1 where the last component is not valid UTF-8, so the file must be named by bytes. */
  rawName: Uint8Array;
}

export interface CheckoutPlan extends EntryColumns {
  root: string;
  /** dirs[0] is the work tree root; a directory comes before anything inside it. */
  dirs: PlanDir[];
  cacheTree: CacheTreeNode;
}

export function entryPath(plan: EntryColumns, i: number): Buffer {
  return plan.paths.subarray(plan.pathStart[i]!, plan.pathStart[i + 1]!);
}

export function entryOid(plan: EntryColumns, i: number): Buffer {
  return plan.oids.subarray(i * OID_BYTES, (i + 1) * OID_BYTES);
}

/** The absolute path to create for entry i: a string, or bytes when a name is not UTF-8. */
export function entryFsPath(plan: EntryColumns, i: number): string | Buffer {
  const dir = plan.dirs[plan.dirOf[i]!]!.fsPath;
  if (typeof dir === 'string' && !plan.rawName[i]) return `${dir}/${plan.paths.toString('utf8', plan.nameStart[i]!, plan.pathStart[i + 1]!)}`;
  const name = plan.paths.subarray(plan.nameStart[i]!, plan.pathStart[i + 1]!);
  return Buffer.concat([typeof dir === 'string' ? Buffer.from(dir) : dir, Buffer.from('/'), name]);
}

/** Shared memory, so that writer threads can be handed the columns without a copy. */
const sharedBytes = (n: number): Buffer => Buffer.from(new SharedArrayBuffer(n));
const sharedU32 = (n: number): Uint32Array => new Uint32Array(new SharedArrayBuffer(n * 4));
const sharedU8 = (n: number): Uint8Array => new Uint8Array(new SharedArrayBuffer(n));

type ColumnArrays = Pick<EntryColumns, 'paths' | 'pathStart' | 'nameStart' | 'oids' | 'modes' | 'dirOf' | 'rawName'>;

/** Columns for `count` entries whose paths take `pathBytes` in all, for a plan built in one go. */
export function sharedColumns(count: number, pathBytes: number): ColumnArrays {
  return {
    paths: sharedBytes(pathBytes), pathStart: sharedU32(count + 1), nameStart: sharedU32(count), oids: sharedBytes(count * OID_BYTES),
    modes: sharedU32(count), dirOf: sharedU32(count), rawName: sharedU8(count),
  };
}

/** Growable columns, doubled as needed. */
class Columns {
  count = 0;
  paths = sharedBytes(1 << 16);
  pathLen = 0;
  pathStart = sharedU32(1024);
  nameStart = sharedU32(1024);
  oids = sharedBytes(1024 * OID_BYTES);
  modes = sharedU32(1024);
  dirOf = sharedU32(1024);
  rawName = sharedU8(1024);

  /** Adds entry `src[ns, ne)` in directory `dir` (path `dirPath`) with the id at `src[oidAt]`. */
  add(dirPath: Uint8Array, src: Uint8Array, ns: number, ne: number, oidAt: number, mode: number, dir: number, raw: boolean): void {
    const i = this.count;
    if (i + 2 > this.modes.length) this.grow();
    const need = this.pathLen + dirPath.length + 1 + ne - ns;
    if (need > this.paths.length) {
      const bigger = sharedBytes(Math.max(need, this.paths.length * 2));
      this.paths.copy(bigger, 0, 0, this.pathLen);
      this.paths = bigger;
    }
    const paths = this.paths;
    let p = this.pathLen;
    this.pathStart[i] = p;
    if (dirPath.length) {
      paths.set(dirPath, p);
      p += dirPath.length;
      paths[p++] = 0x2f;
    }
    this.nameStart[i] = p;
    for (let k = ns; k < ne; k++) paths[p++] = src[k]!;
    this.pathLen = p;
    const o = i * OID_BYTES;
    for (let k = 0; k < OID_BYTES; k++) this.oids[o + k] = src[oidAt + k]!;
    this.modes[i] = mode;
    this.dirOf[i] = dir;
    this.rawName[i] = raw ? 1 : 0;
    this.count++;
  }

  private grow(): void {
    const n = this.modes.length * 2;
    const widen = <T extends Uint32Array | Uint8Array>(a: T, make: (n: number) => T): T => { const b = make(n); b.set(a); return b; };
    this.pathStart = widen(this.pathStart, k => sharedU32(k + 1));
    this.nameStart = widen(this.nameStart, sharedU32);
    this.modes = widen(this.modes, sharedU32);
    this.dirOf = widen(this.dirOf, sharedU32);
    this.rawName = widen(this.rawName, sharedU8);
    const oids = sharedBytes(n * OID_BYTES);
    this.oids.copy(oids);
    this.oids = oids;
  }
}

/** A stack of number triples, reused by every tree of a walk rather than an array per tree. */
class Triples {
  items = new Int32Array(3 * 256);
  top = 0;

  push(a: number, b: number, c: number): void {
    if (this.top + 3 > this.items.length) {
      const bigger = new Int32Array(this.items.length * 2);
      bigger.set(this.items);
      this.items = bigger;
    }
    this.items[this.top++] = a;
    this.items[this.top++] = b;
    this.items[this.top++] = c;
  }
}

function joinPath(dir: Uint8Array, name: Uint8Array): Buffer {
  return dir.length ? Buffer.concat([dir, Buffer.from('/'), name]) : Buffer.from(name);
}

/** The refusal of the entry named by data[start, end) in `dir`: its path is built only on failure. */
function entryProblem(dir: Uint8Array, data: Uint8Array, start: number, end: number,
  rule: string, detail: string): GitError {
  return unsafePath(joinPath(dir, data.subarray(start, end)), rule, detail);
}

/** The absolute path of `name` in directory `dir`: a string while both are UTF-8. */
export function childFsPath(dir: string | Buffer, name: Buffer, utf8: boolean): string | Buffer {
  if (typeof dir === 'string' && utf8) return `${dir}/${name.toString('utf8')}`;
  return Buffer.concat([typeof dir === 'string' ? Buffer.from(dir) : dir, Buffer.from('/'), name]);
}

function sameBytes(a: Uint8Array, aAt: number, b: Uint8Array): boolean {
  for (let k = 0; k < b.length; k++) if (a[aAt + k] !== b[k]) return false;
  return true;
}

/** Whether buf[s, e) is valid UTF-8 (and so can name a file as a JS string); ASCII is the fast case. */
function validUtf8(buf: Buffer, s: number, e: number): boolean {
  for (let k = s; k < e; k++) if (buf[k]! >= 0x80) return isUtf8(buf.subarray(s, e));
  return true;
}

export interface PlanOptions {
  /** Called once, when the plan reaches `bigEnough` entries (to start writer threads early). */
  onBig?: () => void;
  bigEnough?: number;
  /** Reads a tree (default: the object database). */
  readTree?: (oid: Uint8Array) => Buffer;
}

/** Plans the checkout of tree `treeId` into the absolute directory `root`. */
export function planCheckout(odb: ObjectStore, treeId: Uint8Array, root: string, options: PlanOptions = {}): CheckoutPlan {
  let onBig = options.onBig ?? null;
  const bigEnough = options.bigEnough ?? 0;
  const readTree = options.readTree ?? ((oid: Uint8Array) => odb.mustRead(oid, 0, OBJ_TREE).data);
  const rootBytes = Buffer.byteLength(root);
  const dirs: PlanDir[] = [{ path: new Uint8Array(0), fsPath: root, parent: -1, attributes: null }];
  const cols = new Columns();
  const cacheTree: CacheTreeNode = { name: new Uint8Array(0), entryCount: 0, oid: null, children: [] };
  const seen = new Triples();

  /** Returns how many index entries the tree holds; sets `node` (valid only if the index can rebuild the tree). */
  const walk = (oid: Uint8Array, dirIndex: number, node: CacheTreeNode, depth: number): number => {
    const dir = dirs[dirIndex]!;
    if (depth > MAX_DEPTH) throw unsafePath(dir.path, 'treeTooDeep', `trees nested more than ${MAX_DEPTH} deep`);
    const data = readTree(oid);
    const cur = new TreeCursor(data, 0, data.length, () => `tree ${toHex(oid)}${dir.path.length ? ` ('${displayPath(dir.path)}')` : ''}`);
    // nameStart, nameEnd, isTree of each entry so far: seen[base..] (subtrees use the stack above
    // and leave it as they found it).
    const base = seen.top;
    // The index rebuilds this tree exactly only if every mode is written canonically and no
    // subtree is empty; otherwise the cache-tree must not claim this tree's id.
    let faithful = true;
    let entryCount = 0;
    let entryStart = 0;
    let symlinks: number[] | null = null, subdirs: number[] | null = null; // name ranges, for the folding check
    while (cur.next()) {
      const ns = cur.nameStart, ne = cur.nameEnd;
      checkComponent(data, ns, ne, cur.mode, dir.path);
      const mode = canonicalMode(cur.mode);
      if (mode < 0) {
        throw entryProblem(dir.path, data, ns, ne, 'badFilemode', `mode ${cur.mode.toString(8)} is not a file, link, directory or submodule`);
      }
      const isTree = mode === MODE_TREE;
      const text = MODE_TEXT.get(mode)!;
      if (ns - 1 - entryStart !== text.length || !sameBytes(data, entryStart, text)) faithful = false;
      entryStart = cur.oidOffset + OID_BYTES;
      const n = seen.top;
      if (n > base) {
        const stack = seen.items;
        const order = compareTreeOrder(data, stack[n - 3]!, stack[n - 2]!, stack[n - 1] === 1, ns, ne, isTree);
        if (order === 0) throw entryProblem(dir.path, data, ns, ne, 'duplicateEntries', 'the tree has two entries of this name');
        if (order > 0) throw entryProblem(dir.path, data, ns, ne, 'treeNotSorted', 'the tree is not sorted, so it may hide duplicate names');
        if (isTree) {
          // A file "a" sorts before "a-b", and a tree "a" after it (as "a/"): look back past
          // the names that start with "a" and a byte below '/'.
          const len = ne - ns;
          for (let k = n - 3; k >= base; k -= 3) {
            const ks = stack[k]!, ke = stack[k + 1]!;
            if (ke - ks < len || compareTreeOrder(data, ks, ks + len, false, ns, ne, false) !== 0) break;
            if (ke - ks === len) throw entryProblem(dir.path, data, ns, ne, 'duplicateEntries', 'the tree has a file and a directory of this name');
            if (data[ks + len]! >= 0x2f) break;
          }
        }
      }
      seen.push(ns, ne, isTree ? 1 : 0);
      if (rootBytes + dir.path.length + 2 + ne - ns >= PATH_MAX) {
        throw entryProblem(dir.path, data, ns, ne, 'pathTooLong', `the path is longer than ${PATH_MAX - 1} bytes with the work tree's`);
      }
      const utf8 = validUtf8(data, ns, ne);
      if (isTree) {
        (subdirs ??= []).push(ns, ne);
        const name = data.subarray(ns, ne);
        const id = data.subarray(cur.oidOffset, cur.oidOffset + OID_BYTES);
        const childIndex = dirs.length;
        dirs.push({ path: joinPath(dir.path, name), fsPath: childFsPath(dir.fsPath, name, utf8), parent: dirIndex, attributes: null });
        const child: CacheTreeNode = { name: Buffer.from(name), entryCount: 0, oid: null, children: [] };
        const count = walk(id, childIndex, child, depth + 1);
        if (count > 0) node.children.push(child);
        if (count === 0 || child.entryCount < 0) faithful = false;
        entryCount += count;
        continue;
      }
      if (mode === MODE_SYMLINK) (symlinks ??= []).push(ns, ne);
      else if (mode !== 0o160000 && isAttributesName(data, ns, ne)) {
        dir.attributes = data.subarray(cur.oidOffset, cur.oidOffset + OID_BYTES);
      }
      cols.add(dir.path, data, ns, ne, cur.oidOffset, mode, dirIndex, !utf8);
      entryCount++;
      if (onBig && cols.count >= bigEnough) {
        onBig();
        onBig = null;
      }
    }
    if (symlinks && subdirs) {
      const clash = symlinkDirectoryCollision(data, symlinks, subdirs);
      if (clash) {
        throw unsafePath(joinPath(dir.path, clash.link), 'symlinkDirectoryCollision',
          `a symbolic link whose name a case-insensitive or normalizing filesystem reads as the directory '${displayPath(clash.dir)}'`);
      }
    }
    seen.top = base;
    node.children.sort((a, b) => compareCacheTreeNames(a.name, b.name));
    node.entryCount = faithful ? entryCount : -1;
    node.oid = faithful ? Buffer.from(oid.subarray(0, OID_BYTES)) : null;
    return entryCount;
  };
  walk(treeId, 0, cacheTree, 0);
  cols.pathStart[cols.count] = cols.pathLen;
  return {
    root, dirs, count: cols.count, paths: cols.paths.subarray(0, cols.pathLen), pathStart: cols.pathStart,
    nameStart: cols.nameStart, oids: cols.oids, modes: cols.modes, dirOf: cols.dirOf, rawName: cols.rawName, cacheTree,
  };
}
