// The objects reachable from some tips and not from others, answered with a pack's reachability
// bitmap as git's prepare_bitmap_walk() answers it: tips are peeled (the tags themselves belong to
// the result), the exclude side is computed first and then serves as "already seen" for the
// include side, and the answer is include AND NOT exclude. Commits with stored bitmaps cost one OR;
// only what lies between a tip and its nearest bitmapped ancestors is walked (find-objects.ts).
import { CorruptError } from '../../core/errors.js';
import { OID_BYTES } from '../../core/oid.js';
import { OBJ_TAG } from '../../object/type.js';
import type { StoredPack } from '../../odb/object-store.js';
import type { Repository } from '../../repository/repository.js';
import type { PackIndex } from '../../pack/idx/read.js';
import type { PackFile } from '../../pack/pack-file.js';
import { Bitset } from '../../pack/bitmap/bitset.js';
import { findObjects, ObjectTable } from './find-objects.js';
import type { PackOrder } from '../../pack/bitmap/pack-order.js';
import { PackBitmap } from '../../pack/bitmap/read.js';

/** The pack a bitmap describes, with what reading it by position needs. */
export interface BitmappedPack {
  readonly handle: StoredPack;
  readonly file: PackFile;
  readonly index: PackIndex;
  readonly order: PackOrder;
  readonly bitmap: PackBitmap;
}

export interface ExtraObject {
  oid: Uint8Array;
  /** OBJ_COMMIT..OBJ_TAG */
  type: number;
  /** pack_name_hash of the path the walk met it at; 0 for commits, root trees and unnamed tips. */
  nameHash: number;
  /** That path, when it was kept (ReachableOptions.paths); empty for commits, root trees and tips. */
  path?: Uint8Array;
}

export interface BitmapObjects {
  readonly pack: BitmappedPack;
  /** Set bits = pack positions (pack/offset order, as in the .bitmap) of objects to include. */
  readonly positions: Bitset;
  /** Included objects outside the bitmapped pack, in the order git's walk met them. */
  readonly extra: readonly ExtraObject[];
  /**
   * Pack positions of everything reachable from the excluded tips (what the receiver of a fetch
   * has, so a thin pack may use it as delta bases); null without excluded tips. Optional so that
   * callers may build filtered copies of an answer without it.
   */
  readonly excluded?: Bitset | null;
  count(): number;
}

export interface ReachableOptions {
  /** false: only commits matter (rev-list without --objects); trees and blobs are not walked. */
  objects?: boolean;
  /** Keep the paths of the first this many objects outside the pack that the walk meets (ExtraObject.path). */
  paths?: number;
}

export class BitmapWalk {
  private constructor(private readonly repo: Repository, readonly pack: BitmappedPack) {}

  /** null when the repository has no usable bitmap (no .bitmap, or it does not match its pack). */
  static open(repo: Repository): BitmapWalk | null {
    const r = BitmapWalk.tryOpen(repo);
    return r instanceof BitmapWalk ? r : null;
  }

  /**
   * Like open(), but says why no bitmap can be used when one exists: the CorruptError of the first
   * unreadable one, so a command can report it (git prints an error and walks instead). null when
   * there is no bitmap at all.
   */
  static tryOpen(repo: Repository): BitmapWalk | CorruptError | null {
    // git takes the first pack in its pack order (newest first) whose bitmap it can read.
    let broken: CorruptError | null = null;
    for (const handle of repo.odb.packs) {
      let bitmap: PackBitmap | null;
      try {
        bitmap = PackBitmap.open(handle);
      } catch (e) {
        if (!(e instanceof CorruptError)) throw e;
        broken ??= e;
        continue;
      }
      if (!bitmap) continue;
      return new BitmapWalk(repo, { handle, file: handle.file, index: handle.index, order: bitmap.order, bitmap });
    }
    return broken;
  }

  /** Objects reachable from include and not from exclude. */
  reachable(include: readonly Uint8Array[], exclude: readonly Uint8Array[], options: ReachableOptions = {}): BitmapObjects {
    const table = new ObjectTable(this.repo.odb, this.pack.bitmap, this.pack.handle, options.paths);
    return this.answer(table, include, roots(table, exclude), options);
  }

  /**
   * Like reachable(), or null where git would walk instead of using the bitmap: there are excluded
   * tips and none of them (nor what their tags point to) is in the bitmapped pack
   * (in_bitmapped_pack()). The excluded tips are peeled once, for the check and the answer.
   */
  reachableIfCovered(include: readonly Uint8Array[], exclude: readonly Uint8Array[], options: ReachableOptions = {}): BitmapObjects | null {
    const table = new ObjectTable(this.repo.odb, this.pack.bitmap, this.pack.handle, options.paths);
    const excluded = roots(table, exclude);
    if (excluded.length && !excluded.some(idx => table.packPosition(idx) >= 0)) return null;
    return this.answer(table, include, excluded, options);
  }

  private answer(table: ObjectTable, include: readonly Uint8Array[], excluded: number[], options: ReachableOptions): BitmapObjects {
    const objects = options.objects ?? true;
    const haves = excluded.length ? findObjects(table, excluded, { seen: null, missingOk: true, objects }) : null;
    table.resetWalk();
    const wants = findObjects(table, roots(table, include), { seen: haves, missingOk: false, objects });
    if (haves) wants.andNot(haves);
    return splitResult(this.pack, table, wants, haves);
  }
}

/**
 * git's object_list for one side: each tip, then what it peels to, every one prepended, so the
 * list runs backwards. Tips are interned; unknown ids are refused.
 */
function roots(table: ObjectTable, tips: readonly Uint8Array[]): number[] {
  const out: number[] = [];
  for (const tip of tips) {
    let idx = table.intern(tip, 0);
    table.typeOf(idx);
    while (table.types[idx] === OBJ_TAG) {
      out.push(idx);
      idx = table.peel(idx);
      table.typeOf(idx);
    }
    out.push(idx);
  }
  return out.reverse();
}

function splitResult(pack: BitmappedPack, table: ObjectTable, bits: Bitset, excluded: Bitset | null): BitmapObjects {
  const n = pack.bitmap.count;
  const extra: ExtraObject[] = [];
  for (let e = 0; e < table.ext.length; e++) {
    if (!bits.has(n + e)) continue;
    const idx = table.ext[e]!;
    extra.push({
      oid: table.ids.keys.slice(idx * OID_BYTES, idx * OID_BYTES + OID_BYTES), type: table.extType[e]!, nameHash: table.extHash[e]!,
      path: table.extPath[e],
    });
  }
  const positions = packBits(bits, n);
  return { pack, positions, extra, excluded: excluded && packBits(excluded, n), count: () => positions.count() + extra.length };
}

/** The bits below `n` (the pack's positions), without the extended ones above. */
function packBits(bits: Bitset, n: number): Bitset {
  const out = new Bitset(n);
  const words = Math.min(out.words.length, bits.words.length);
  out.words.set(bits.words.subarray(0, words));
  if (n % 32) {
    const last = n >>> 5;
    if (last < out.words.length) out.words[last]! &= (1 << (n % 32)) - 1;
    out.words.fill(0, last + 1);
  } else {
    out.words.fill(0, n >>> 5);
  }
  return out;
}
