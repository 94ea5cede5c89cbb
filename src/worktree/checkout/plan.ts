// The first pass of a checkout: walk the whole tree, vet every entry (path-check.ts), and lay out
// what will be written, in index order, with the cache-tree the index will carry. Nothing touches
// the work tree here, so a refusal leaves it exactly as it was.
import { isUtf8 } from 'node:buffer';
import { CorruptError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { MODE_BLOB, MODE_EXEC, MODE_SYMLINK, MODE_TREE, TreeCursor } from '../../object/tree.js';
import { OBJ_TREE } from '../../object/type.js';
import type { ObjectDatabase } from '../../odb/database.js';
import { compareCacheTreeNames, type CacheTreeNode, type IndexEntry } from '../index-file/entry.js';
import { symlinkDirectoryCollision } from './fold-collisions.js';
import { canonicalMode, checkComponent, compareTreeOrder, displayPath, unsafePath } from './path-check.js';

/** Deeper trees are refused (git 2.44's core.maxTreeDepth default). */
const MAX_DEPTH = 4096;
/** Linux's PATH_MAX, counting the terminating NUL: longer paths cannot be created. */
const PATH_MAX = 4096;
const GITATTRIBUTES = Buffer.from('.gitattributes');

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

export interface PlanFile {
  /** The index entry to be: path, mode and id; stat data is filled in once written. */
  entry: IndexEntry;
  dir: number;
  fsPath: string | Buffer;
}

export interface CheckoutPlan {
  root: string;
  /** dirs[0] is the work tree root; a directory comes before anything inside it. */
  dirs: PlanDir[];
  /** In index order. */
  files: PlanFile[];
  cacheTree: CacheTreeNode;
}

function join(dir: string | Buffer, name: Uint8Array, utf8: boolean): string | Buffer {
  if (typeof dir === 'string' && utf8) return `${dir}/${Buffer.from(name.buffer, name.byteOffset, name.length).toString('utf8')}`;
  const d = typeof dir === 'string' ? Buffer.from(dir) : dir;
  return Buffer.concat([d, Buffer.from('/'), name]);
}

function joinPath(dir: Uint8Array, name: Uint8Array): Uint8Array {
  if (!dir.length) return Uint8Array.prototype.slice.call(name);
  const out = new Uint8Array(dir.length + 1 + name.length);
  out.set(dir);
  out[dir.length] = 0x2f;
  out.set(name, dir.length + 1);
  return out;
}

/** Plans the checkout of tree `treeId` into the absolute directory `root`. */
export function planCheckout(odb: ObjectDatabase, treeId: Uint8Array, root: string): CheckoutPlan {
  const rootBytes = Buffer.byteLength(root);
  const plan: CheckoutPlan = {
    root,
    dirs: [{ path: new Uint8Array(0), fsPath: root, parent: -1, attributes: null }],
    files: [],
    cacheTree: { name: new Uint8Array(0), entryCount: 0, oid: null, children: [] },
  };
  /** Returns how many index entries the tree holds; sets `node` (valid only if the index can rebuild the tree). */
  const walk = (oid: Uint8Array, dirIndex: number, node: CacheTreeNode, depth: number): number => {
    const dir = plan.dirs[dirIndex]!;
    if (depth > MAX_DEPTH) throw unsafePath(dir.path, 'treeTooDeep', `trees nested more than ${MAX_DEPTH} deep`);
    const data = odb.mustRead(oid, 0, OBJ_TREE).data;
    const label = dir.path.length ? `tree ${toHex(oid)} ('${Buffer.from(dir.path).toString('utf8')}')` : `tree ${toHex(oid)}`;
    const cur = new TreeCursor(data, 0, data.length, label);
    const seen: number[] = []; // nameStart, nameEnd, isTree of each entry so far, for order and duplicates
    // The index rebuilds this tree exactly only if every mode is written canonically and no
    // subtree is empty; otherwise the cache-tree must not claim this tree's id.
    let faithful = true;
    let entryCount = 0;
    let entryStart = 0;
    const symlinks: number[] = [], subdirs: number[] = []; // name ranges, for the folding check
    while (cur.next()) {
      const { nameStart: ns, nameEnd: ne } = cur;
      const name = data.subarray(ns, ne);
      const fullPath = (): Uint8Array => joinPath(dir.path, name);
      checkComponent(data, ns, ne, cur.mode, fullPath);
      const mode = canonicalMode(cur.mode);
      if (mode < 0) throw unsafePath(fullPath(), 'badFilemode', `mode ${cur.mode.toString(8)} is not a file, link, directory or submodule`);
      const isTree = mode === MODE_TREE;
      const modeText = mode.toString(8);
      if (ns - 1 - entryStart !== modeText.length || Buffer.from(data.buffer, data.byteOffset + entryStart, modeText.length).toString('latin1') !== modeText) {
        faithful = false;
      }
      entryStart = cur.oidOffset + OID_BYTES;
      const n = seen.length;
      if (n) {
        const order = compareTreeOrder(data, seen[n - 3]!, seen[n - 2]!, seen[n - 1] === 1, ns, ne, isTree);
        if (order === 0) throw unsafePath(fullPath(), 'duplicateEntries', 'the tree has two entries of this name');
        if (order > 0) throw unsafePath(fullPath(), 'treeNotSorted', 'the tree is not sorted, so it may hide duplicate names');
        if (isTree) {
          // A file "a" sorts before "a-b", and a tree "a" after it (as "a/"): look back past
          // the names that start with "a" and a byte below '/'.
          for (let k = n - 3; k >= 0; k -= 3) {
            const ks = seen[k]!, ke = seen[k + 1]!;
            const len = ne - ns;
            if (ke - ks < len || compareTreeOrder(data, ks, ks + len, false, ns, ne, false) !== 0) break;
            if (ke - ks === len) throw unsafePath(fullPath(), 'duplicateEntries', 'the tree has a file and a directory of this name');
            if (data[ks + len]! >= 0x2f) break;
          }
        }
      }
      seen.push(ns, ne, isTree ? 1 : 0);
      if (isTree) subdirs.push(ns, ne);
      else if (mode === MODE_SYMLINK) symlinks.push(ns, ne);

      const path = fullPath();
      if (rootBytes + 1 + path.length >= PATH_MAX) throw unsafePath(path, 'pathTooLong', `the path is longer than ${PATH_MAX - 1} bytes with the work tree's`);
      const utf8 = isUtf8(name);
      const fsPath = join(dir.fsPath, name, utf8);
      const id = data.slice(cur.oidOffset, cur.oidOffset + OID_BYTES);
      if (isTree) {
        const childIndex = plan.dirs.length;
        plan.dirs.push({ path, fsPath, parent: dirIndex, attributes: null });
        const child: CacheTreeNode = { name: Uint8Array.prototype.slice.call(name), entryCount: 0, oid: id, children: [] };
        const count = walk(id, childIndex, child, depth + 1);
        if (count > 0) node.children.push(child);
        if (count === 0 || child.entryCount < 0) faithful = false;
        entryCount += count;
        continue;
      }
      if ((mode === MODE_BLOB || mode === MODE_EXEC) && Buffer.compare(GITATTRIBUTES, name) === 0) {
        dir.attributes = id;
      }
      plan.files.push({
        entry: {
          ctimeSec: 0, ctimeNsec: 0, mtimeSec: 0, mtimeNsec: 0, dev: 0, ino: 0, mode, uid: 0, gid: 0, size: 0,
          oid: id, flags: 0, extendedFlags: 0, path,
        },
        dir: dirIndex,
        fsPath,
      });
      entryCount++;
    }
    const clash = symlinkDirectoryCollision(data, symlinks, subdirs);
    if (clash) {
      throw unsafePath(joinPath(dir.path, clash.link), 'symlinkDirectoryCollision',
        `a symbolic link whose name a case-insensitive or normalizing filesystem reads as the directory '${displayPath(clash.dir)}'`);
    }
    node.children.sort((a, b) => compareCacheTreeNames(a.name, b.name));
    node.entryCount = faithful ? entryCount : -1;
    node.oid = faithful ? oid.slice(0, OID_BYTES) : null;
    return entryCount;
  };
  walk(treeId, 0, plan.cacheTree, 0);
  return plan;
}

/** For errors about the plan's objects. */
export function corruptEntry(file: PlanFile, what: string): CorruptError {
  return new CorruptError('worktree', `${Buffer.from(file.entry.path).toString('utf8')} (${toHex(file.entry.oid)}): ${what}`);
}
