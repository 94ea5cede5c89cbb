// rev-list --use-bitmap-index, as git 2.39 answers it (try_bitmap_count, try_bitmap_traversal):
// --count adds up the result's commits (and with --objects its trees, blobs and tags); otherwise
// ids are printed without paths, type by type in pack order (commits, then trees, blobs, tags),
// then the objects outside the bitmapped pack in the order the walk met them. Whenever git would
// not use the bitmap (none, a --max-count it cannot honour, no excluded tip in the bitmapped pack,
// nothing included), the caller walks instead, as git does.
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../object/type.js';
import { Bitset } from '../pack/bitmap/bitset.js';
import { BitmapWalk, type BitmapObjects } from '../packing/bitmap/walk.js';
import type { Repository } from '../repository/repository.js';
import type { Output } from './output.js';

export interface BitmapTip {
  id: Uint8Array;
  exclude: boolean;
}

export interface BitmapRevListOptions {
  objects: boolean;
  count: boolean;
  /** -1 when not given. */
  maxCount: number;
}

/** Prints the answer and returns true, or returns false (printing nothing) when git would walk. */
export function revListWithBitmap(repo: Repository, tips: readonly BitmapTip[], opts: BitmapRevListOptions, out: Output): boolean {
  // git can cap a commit count, but not an object count or a listing.
  if (opts.maxCount >= 0 && (opts.objects || !opts.count)) return false;
  const opened = BitmapWalk.tryOpen(repo);
  if (!(opened instanceof BitmapWalk)) {
    if (opened) process.stderr.write(`error: ${opened.message}\n`);
    return false;
  }
  const include = tips.filter(t => !t.exclude).map(t => t.id);
  const exclude = tips.filter(t => t.exclude).map(t => t.id);
  const res = include.length ? opened.reachableIfCovered(include, exclude, { objects: opts.objects }) : null;
  if (!res) return false;
  if (opts.count) {
    let n = countOf(res, opts.objects);
    if (opts.maxCount >= 0 && opts.maxCount < n) n = opts.maxCount;
    out.ascii(`${n}\n`);
    return true;
  }
  const types = opts.objects ? [OBJ_COMMIT, OBJ_TREE, OBJ_BLOB, OBJ_TAG] : [OBJ_COMMIT];
  for (const type of types) printOfType(res, typeBits(res, type), out);
  for (const e of res.extra) {
    if (!types.includes(e.type)) continue;
    out.hex(e.oid, 0);
    out.byte(0x0a);
  }
  return true;
}

function typeBits(res: BitmapObjects, type: number): Bitset {
  const t = res.pack.bitmap.typeBitmaps;
  return type === OBJ_COMMIT ? t.commits : type === OBJ_TREE ? t.trees : type === OBJ_BLOB ? t.blobs : t.tags;
}

/** Commits only (git counts trees, blobs and tags only with --objects). */
function countOf(res: BitmapObjects, objects: boolean): number {
  if (objects) return res.count();
  let n = res.positions.countAnd(res.pack.bitmap.typeBitmaps.commits);
  for (const e of res.extra) if (e.type === OBJ_COMMIT) n++;
  return n;
}

/**
 * Prints the id of every object of the answer that `type` has, in pack order. Hundreds of thousands of
 * lines: ids go from the index straight into the output buffer, as hex.
 */
function printOfType(res: BitmapObjects, type: Bitset, out: Output): void {
  const { index, bitmap } = res.pack;
  const toIndex = bitmap.order.positionToIndex;
  const ids = index.buf;
  const a = res.positions.words, t = type.words;
  const n = Math.min(a.length, t.length);
  for (let i = 0; i < n; i++) {
    let v = a[i]! & t[i]!;
    const base = i * 32;
    while (v !== 0) {
      const low = v & -v;
      out.hex(ids, index.oidAt(toIndex[base + 31 - Math.clz32(low)]!));
      out.byte(0x0a);
      v ^= low;
    }
  }
}
